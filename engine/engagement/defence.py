"""Who may answer an attack, and how (ENG-GUARD, ENG-COVER): each rule as a function
returning the refusal that applies, or None — the same functions decide a declaration
and tell the table who could still cover."""

from __future__ import annotations

from ..combatants import Combatant, is_down
from ..errors import Code, Refusal
from ..tx import Tx
from .model import EngagementState, Exchange
from .refusals import (
    APPROACH_NO_DEFENCE,
    COVER_FOR_ANOTHER,
    COVER_SELF,
    COVER_TRIED,
    COVER_USED,
    COVERED_THIS_TURN,
    GUARD_FOR_ANOTHER,
    GUARD_NO_SKILL,
    GUARD_USED,
    GUARDED_THIS_TURN,
    ONLY_TARGET_EVADES,
)
from .rules import MELEE, allies, name, profile, stat, used

__all__ = ["cover_problem", "coverers", "defenders", "engaged_in_scene", "evade_problem", "guard_problem"]

def engaged_in_scene(s: EngagementState, cid: str) -> list[str]:
    """Partners in the scene: hidden characters take no part in the rules."""
    out = []
    for p in s.partners(cid):
        other = s.combatants.get(p)
        if other is not None and not other.hidden:
            out.append(p)
    return out


def evade_problem(tx: Tx, ex: Exchange, c: Combatant) -> Refusal | None:
    if ex.attack == "approach":
        return APPROACH_NO_DEFENCE.refuse()
    if c.id != ex.target:
        return ONLY_TARGET_EVADES.refuse(t=name(tx, ex.target))
    return None


def _for_another(tx: Tx, s: EngagementState, ex: Exchange, c: Combatant,
                 codes: dict[str, Code]) -> Refusal | None:
    """ENG-GUARD / ENG-COVER shared limits of acting for another: an ally of the target,
    in the front row, engaged with nobody (each rule's own codes: refusals.py)."""
    target = s.combatants[ex.target]
    if c.id == ex.attacker:
        return codes["attacker"].refuse(n=name(tx, c))
    if not allies(c, target):
        return codes["not_an_ally"].refuse(n=name(tx, c), t=name(tx, target))
    if is_down(c):
        return codes["incapacitated"].refuse(n=name(tx, c))
    if c.row != "front":
        return codes["not_front"].refuse(n=name(tx, c))
    partners = engaged_in_scene(s, c.id)
    if partners:
        return codes["engaged"].refuse(n=name(tx, c), p=name(tx, partners[0]))
    return None


def guard_problem(tx: Tx, s: EngagementState, ex: Exchange, c: Combatant,
                  skill: bool = True) -> Refusal | None:
    """ENG-GUARD: with 〈近接戦闘〉, against shot/homing/melee, once per turn — except against
    melee on oneself; for another only from the front row, unengaged, without a cover
    this turn. `skill=False`: the 〈近接戦闘〉 is not consulted (it may be secret)."""
    if ex.attack == "approach":
        return APPROACH_NO_DEFENCE.refuse()
    if skill and stat(c, MELEE) <= 0:
        return GUARD_NO_SKILL.refuse(n=name(tx, c), about=profile(c))
    u = used(s, c.id)
    if c.id == ex.target:
        if ex.attack != "melee" and u.guard == s.turn:
            return GUARD_USED.refuse(n=name(tx, c))
        return None
    problem = _for_another(tx, s, ex, c, GUARD_FOR_ANOTHER)
    if problem is not None:
        return problem
    if u.cover == s.turn:
        return COVERED_THIS_TURN.refuse(n=name(tx, c))
    if u.guard == s.turn:
        return GUARD_USED.refuse(n=name(tx, c))
    return None


def cover_problem(tx: Tx, s: EngagementState, ex: Exchange, c: Combatant) -> Refusal | None:
    """ENG-COVER: for an ally, from the front row, unengaged, once per turn, not after a
    guard for another this turn; one cover per attack."""
    if c.id == ex.target:
        return COVER_SELF.refuse()
    if ex.cover_failed:
        return COVER_TRIED.refuse(t=name(tx, ex.target))
    problem = _for_another(tx, s, ex, c, COVER_FOR_ANOTHER)
    if problem is not None:
        return problem
    u = used(s, c.id)
    if u.guard_other == s.turn:
        return GUARDED_THIS_TURN.refuse(n=name(tx, c))
    if u.cover == s.turn:
        return COVER_USED.refuse(n=name(tx, c))
    return None


def coverers(tx: Tx, s: EngagementState, ex: Exchange) -> list[Combatant]:
    """Everyone in the scene who could cover this attack now (for an attack involving a
    hidden character, the GM's, hidden characters too)."""
    return [c for c in s.combatants.values()
            if (ex.hidden or not c.hidden) and cover_problem(tx, s, ex, c) is None]


def defenders(tx: Tx, s: EngagementState, ex: Exchange) -> list[str]:
    """Who may answer this attack now: the target, then every ally who could guard or
    cover for it — judged without a 〈近接戦闘〉 the exchange's audience is not shown."""
    out = [ex.target]
    for c in s.combatants.values():
        if c.id == ex.target or (c.hidden and not ex.hidden):
            continue
        if cover_problem(tx, s, ex, c) is None or guard_problem(
                tx, s, ex, c, skill=ex.hidden or c.published) is None:
            out.append(c.id)
    return out
