"""The base of every action: a validated command that applies itself through a `Tx`."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, ConfigDict

from .tx import Role

if TYPE_CHECKING:
    from .errors import Text
    from .tx import Tx

__all__ = ["ActionBase"]


class ActionBase(BaseModel):
    """An action: `kind` picks it, `roles` may send it, `apply` validates then writes."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    roles: ClassVar[frozenset[Role]] = frozenset({"gm"})
    #: A move of a piece on the board, which a bridge naming no player (a drag nobody
    #: can be credited with) may send; every other action is a decision it may not make.
    table_move: ClassVar[bool] = False
    #: For an action a reported dice line feeds: the rule and the check the line is used
    #: for (the GM's roll ledger says so in words); a result may say it better (`Result.roll_check`).
    roll_check: ClassVar[tuple[str, Text] | None] = None

    def only_moves(self) -> bool:
        """Whether this action is just a move on the board (see `table_move`)."""
        return self.table_move

    def apply(self, tx: Tx) -> None:
        raise NotImplementedError
