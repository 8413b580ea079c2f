"""Who reports for which character in a base battle: characters are bound to players.

A player reports happenings (`bases.report`) and triggers events (`bases.trigger`) only
for a character they play — the roster's `player`, or, for a character the roster binds
to nobody, one named as the player is (older scenario files name characters after their
players) — and on that character's side. The GM reports for anyone; so does everyone
when the scenario says `players_report: any`. These checks hold in every enforcement
mode: they say who may speak for a character, not what the rules allow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Refusal
from ..table import mover_of
from . import refusals as no
from .lookup import battle, side_of
from .model import BasesState, FieldCharacter
from .states import CharSide

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["doer_side", "unknown_side"]



def doer_side(tx: Tx, side: CharSide | None, character: str | None
              ) -> tuple[CharSide | None, str | None]:
    """The side of the character an action is for (None when nobody says: the GM or the
    table naming an unknown character), after checking the sender may speak for it; and
    the player it was checked to be played by, if any."""
    bs = battle(tx)  # refuses first in a room without a base battle
    player = mover_of(tx)
    if bs.players_report == "any" or (player is None and not _is_table(tx)):
        side = side or side_of(bs, {"character": character})
        return side or ("pc" if player is not None else None), None
    if player is None:
        return _table_side(bs, side, character), None
    if character is None:
        raise no.CHARACTER_REQUIRED.refuse()
    known = bs.characters.get(character)
    if not _plays(tx, player, character, known):
        raise no.NOT_YOUR_CHARACTER.refuse(name=character)
    own: CharSide = known.side if known is not None else "pc"
    if side is not None and side != own:
        raise no.WRONG_SIDE.refuse(name=character, side=own)
    return own, player


def _is_table(tx: Tx) -> bool:
    """A bridge that named no player acts as the table (logs from before the rule excepted)."""
    return tx.actor.role == "bridge" and not tx.actor.legacy


def _table_side(bs: BasesState, side: CharSide | None, character: str | None
                ) -> CharSide | None:
    """The table speaks for no player's character: not a PC, not one bound to a player."""
    known = bs.characters.get(character) if character is not None else None
    side = side or side_of(bs, {"character": character})
    if side == "pc" or (known is not None and known.player is not None):
        raise no.NOT_YOUR_CHARACTER.refuse(name=character or "PC")
    return side


def _plays(tx: Tx, player: str, name: str, known: FieldCharacter | None) -> bool:
    """`player` plays `name`: bound on the roster, else an unbound PC named as they are."""
    if known is not None and known.player is not None:
        return known.player == player
    if known is not None and known.side != "pc":
        return False
    info = tx.state.meta.players.get(player)
    return name == player or (info is not None and name == info.name)


def unknown_side(name: str | None) -> Refusal:
    return no.UNKNOWN_SIDE.refuse(name=name or "?")
