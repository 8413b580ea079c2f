"""State moves of a base through the state table (BASE-ST-*, BASE-TR-*).

Every state change goes through `move` (or `set_state` for the regeneration in
`gp`), which asks `states.next_status` — the one table, with the cancel rules
of BASE-TR-2 and the permanent-base filter of BASE-ATTR-3 — and emits
`bases.state.changed {base, old, new, via}` for the conditions that wait for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Text
from .lookup import base_path, say
from .model import Base
from .results import BaseState
from .states import JA_MOVE, JA_STATUS, Move, Status, next_status

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["move", "set_state"]


def move(tx: Tx, base: Base, m: Move) -> None:
    """A state move through the table (BASE-TR-2 cancels, BASE-TR-3, BASE-ATTR-3)."""
    new = next_status(base.state, m, base.permanent)
    if new is not None:
        set_state(tx, base, new, m)


def set_state(tx: Tx, base: Base, new: Status, via: Move) -> None:
    """Write the state `via` a move already allowed, with its happening and log line."""
    old = base.state
    tx.set((*base_path(base), "state"), new)
    tx.emit("bases.state.changed", base=base.id, old=old.value, new=new.value, via=via.value)
    tx.report(BaseState(base=base.id, old=old.value, new=new.value, via=via.value),
              about=[(*base_path(base), "state")])
    say(tx, base, Text(f"拠点「{base.name}」: {JA_STATUS[old]} → {JA_STATUS[new]}（{JA_MOVE[via]}）",
                       f"Base '{base.name}': {old.value} → {new.value} ({via.value})"))
