"""Lookups every engagement action shares: the state, a combatant, who may act for it,
its data, allies, rows, DP.

A character's data lives in its combatant `profile` under the seed's names:
{身体}, 〈回避〉, 〈弾幕〉, 〈近接戦闘〉 and [近接武器鍛錬] (missing = 0). Hidden characters are
unknown to everyone but the GM, so no refusal a player gets depends on something hidden.
"""

from __future__ import annotations

from ..combatants import Combatant, adjust_counter, controlled_by, piece_name
from ..table import table_of as table
from ..tx import Tx
from .model import EngagementState, Used
from .refusals import NO_DP, NO_ENGAGEMENT, NOT_ACTIVE, NOT_YOUR_CHARACTER, UNKNOWN_CHARACTER

__all__ = ["BASE", "BODY", "DANMAKU", "DODGE", "MELEE", "PATH", "WEAPON", "allies",
           "combatant", "controller", "eng", "may_act", "name", "need_active", "profile",
           "spend", "stat", "table", "used"]

PATH = "engagement"
#: Where engagement keeps its combatants (the path the combatants helpers write under).
BASE = (PATH, "combatants")
BODY, DODGE, DANMAKU, MELEE, WEAPON = "身体", "回避", "弾幕", "近接戦闘", "近接武器鍛錬"

def eng(tx: Tx) -> EngagementState:
    """The room's engagement part, or a refusal if it has none."""
    return tx.require(PATH, EngagementState, NO_ENGAGEMENT.refuse())


def need_active(s: EngagementState) -> None:
    if not s.active:
        raise NOT_ACTIVE.refuse()


def combatant(tx: Tx, cid: str) -> Combatant:
    """A combatant the sender may know of (hidden ones are unknown to all but the GM)."""
    c = eng(tx).combatants.get(cid)
    if c is None or (c.hidden and tx.actor.role != "gm"):
        raise UNKNOWN_CHARACTER.missing(cid)
    return c


def name(tx: Tx, c: Combatant | str) -> str:
    """How the table calls a character (its piece's name)."""
    if isinstance(c, str):
        found = eng(tx).combatants.get(c)
        if found is None:
            return c
        c = found
    return piece_name(table(tx).pieces, c)


def may_act(tx: Tx, c: Combatant) -> None:
    """Each player declares for their own PC (a bridge for the player it is bound to); the
    table (a bridge naming no player) for characters no player owns; the GM for anyone."""
    if tx.actor.role == "gm":
        return
    pieces = table(tx).pieces
    player = tx.actor.player
    if player is None:
        piece = pieces.get(c.piece)
        ok = tx.actor.acts_for(piece.owner if piece is not None else None)
    else:
        ok = controlled_by(pieces, c, player)
    if not ok:
        raise NOT_YOUR_CHARACTER.refuse(n=name(tx, c))


def controller(tx: Tx, c: Combatant) -> str:
    """Who answers for the character: its owner (`player:<id>`), else the GM."""
    piece = table(tx).pieces.get(c.piece)
    if c.side == "pc" and piece is not None and piece.owner:
        return f"player:{piece.owner}"
    return "gm"


def profile(c: Combatant) -> list[tuple[str, ...]]:
    """What a refusal built from a character's data names in `about`: its data, unless
    published (a PC's is; the views keep `profile` a secret field and publish it by
    rewriting, so a published one is named by the character itself)."""
    return [(PATH, "combatants", c.id)] if c.published else [(PATH, "combatants", c.id, "profile")]


def stat(c: Combatant, key: str) -> int:
    return int(c.profile.get(key, 0))


def allies(a: Combatant, b: Combatant) -> bool:
    """Two different characters on the same side (neutrals are nobody's allies)."""
    return a.id != b.id and a.side == b.side and a.side != "neutral"


def used(s: EngagementState, cid: str) -> Used:
    return s.used.get(cid) or Used()


def spend(tx: Tx, s: EngagementState, c: Combatant, dp: int, rule: str) -> None:
    """Pay `dp` from the character's DP counter (ENG-ACT-1/2, ENG-GUARD, ENG-COVER: DP
    = dice); a character without one pays nothing here (the GM keeps it)."""
    if dp <= 0:
        return
    t = table(tx)
    counter = t.counters.get(c.counters.get(s.settings.dp_counter, ""))
    if counter is None:
        return
    tx.check(counter.value >= dp, NO_DP.refuse(
        n=name(tx, c), have=counter.value, need=dp, rule=rule,
        about=[("table", "counters", counter.id)]))
    adjust_counter(tx, c, s.settings.dp_counter, -dp)
