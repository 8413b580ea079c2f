"""Who may answer an attack, and how (ENG-GUARD, ENG-COVER): each rule as a function
returning the refusal that applies, or None — the same functions decide a declaration
and tell the table who could still cover."""

from __future__ import annotations

from ..combatants import Combatant, is_down
from ..errors import Refusal, Text
from ..tx import Tx
from .model import EngagementState, Exchange
from .rules import MELEE, allies, name, profile, stat, used

__all__ = ["cover_problem", "coverers", "engaged_in_scene", "evade_problem", "guard_problem"]

ONLY_TARGET = Text("回避できるのは攻撃を受ける「{t}」だけです。",
                   "Only {t}, who is attacked, evades.")
NO_EVADE_APPROACH = Text("接近は目標値との判定です。回避やガードではなく、味方のカバーだけが割り込めます"
                         "（ENG-ACT-1、ENG-COVER）。",
                         "An approach is checked against a target number; no evasion or guard, "
                         "only an ally's cover answers it (ENG-ACT-1, ENG-COVER).")
NO_SKILL = Text("「{n}」は〈近接戦闘〉を習得していないのでガードできません（ENG-GUARD）。",
                "{n} has no 〈近接戦闘〉 and cannot guard (ENG-GUARD).")
GUARD_USED = Text("「{n}」はこのターンもうガードしました（1ターンに1回、自分への近接攻撃は別、ENG-GUARD）。",
                  "{n} has already guarded this turn (once per turn; melee on oneself aside, "
                  "ENG-GUARD).")
FOR_ALLY = Text("「{n}」は「{t}」の味方ではないので、代わりに{what}できません（{rule}）。",
                "{n} is not {t}'s ally and cannot {what_en} for it ({rule}).")
ATTACKER = Text("攻撃している「{n}」は防御できません。", "{n} is the attacker and cannot defend.")
FRONT = Text("「{n}」は前衛ではないので、他人のために{what}できません（{rule}）。",
             "{n} is not in the front row and cannot {what_en} for another ({rule}).")
ENGAGED = Text("「{n}」は「{p}」と接近状態なので、他人のために{what}できません（{rule}）。",
               "{n} is engaged with {p} and cannot {what_en} for another ({rule}).")
COVERED = Text("「{n}」はこのターンにカバーしたので、他人へのガードはできません（ENG-GUARD）。",
               "{n} covered this turn and cannot guard for another (ENG-GUARD).")
GUARDED = Text("「{n}」はこのターンに他人へのガードをしたので、カバーできません（ENG-COVER）。",
               "{n} guarded for another this turn and cannot cover (ENG-COVER).")
COVER_USED = Text("「{n}」はこのターンもうカバーしました（1ターンに1回、ENG-COVER）。",
                  "{n} has already covered this turn (once per turn, ENG-COVER).")
SELF_COVER = Text("カバーは他人の攻撃を肩代わりする行動です（ENG-COVER）。",
                  "A cover takes another's attack (ENG-COVER).")
COVER_TRIED = Text("この攻撃へのカバーは失敗済みです。「{t}」が防御します（ENG-COVER）。",
                   "A cover against this attack has failed; {t} defends now (ENG-COVER).")
DOWN = Text("「{n}」は戦闘不能です。", "{n} is incapacitated.")
GUARD_WORDS = ("ガード", "guard", "ENG-GUARD")
COVER_WORDS = ("カバー", "cover", "ENG-COVER")


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
        return Refusal("approach_no_defence", NO_EVADE_APPROACH, rule="ENG-ACT-1")
    if c.id != ex.target:
        return Refusal("not_the_target", ONLY_TARGET.format(t=name(tx, ex.target)),
                       rule="ENG-GUARD")
    return None


def _for_another(tx: Tx, s: EngagementState, ex: Exchange, c: Combatant,
                 words: tuple[str, str, str]) -> Refusal | None:
    """ENG-GUARD / ENG-COVER shared limits of acting for another: an ally of the target,
    in the front row, engaged with nobody."""
    ja, en, rule = words
    target = s.combatants[ex.target]
    if c.id == ex.attacker:
        return Refusal("attacker", ATTACKER.format(n=name(tx, c)), rule=rule)
    if not allies(c, target):
        return Refusal("not_an_ally", FOR_ALLY.format(n=name(tx, c), t=name(tx, target), what=ja,
                                                      what_en=en, rule=rule), rule=rule)
    if is_down(c):
        return Refusal("incapacitated", DOWN.format(n=name(tx, c)), rule=rule)
    if c.row != "front":
        return Refusal("not_front", FRONT.format(n=name(tx, c), what=ja, what_en=en, rule=rule),
                       rule=rule)
    partners = engaged_in_scene(s, c.id)
    if partners:
        return Refusal("engaged", ENGAGED.format(n=name(tx, c), p=name(tx, partners[0]), what=ja,
                                                 what_en=en, rule=rule), rule=rule)
    return None


def guard_problem(tx: Tx, s: EngagementState, ex: Exchange, c: Combatant) -> Refusal | None:
    """ENG-GUARD: with 〈近接戦闘〉, against shot/homing/melee, once per turn — except against
    melee on oneself; for another only from the front row, unengaged, without a cover
    this turn."""
    if ex.attack == "approach":
        return Refusal("approach_no_defence", NO_EVADE_APPROACH, rule="ENG-ACT-1")
    if stat(c, MELEE) <= 0:
        return Refusal("no_melee_skill", NO_SKILL.format(n=name(tx, c)), rule="ENG-GUARD",
                       about=profile(c))
    u = used(s, c.id)
    if c.id == ex.target:
        if ex.attack != "melee" and u.guard == s.turn:
            return Refusal("guard_used", GUARD_USED.format(n=name(tx, c)), rule="ENG-GUARD")
        return None
    problem = _for_another(tx, s, ex, c, GUARD_WORDS)
    if problem is not None:
        return problem
    if u.cover == s.turn:
        return Refusal("covered_this_turn", COVERED.format(n=name(tx, c)), rule="ENG-GUARD")
    if u.guard == s.turn:
        return Refusal("guard_used", GUARD_USED.format(n=name(tx, c)), rule="ENG-GUARD")
    return None


def cover_problem(tx: Tx, s: EngagementState, ex: Exchange, c: Combatant) -> Refusal | None:
    """ENG-COVER: for an ally, from the front row, unengaged, once per turn, not after a
    guard for another this turn; one cover per attack."""
    if c.id == ex.target:
        return Refusal("cover_self", SELF_COVER, rule="ENG-COVER")
    if ex.cover_failed:
        return Refusal("cover_tried", COVER_TRIED.format(t=name(tx, ex.target)), rule="ENG-COVER")
    problem = _for_another(tx, s, ex, c, COVER_WORDS)
    if problem is not None:
        return problem
    u = used(s, c.id)
    if u.guard_other == s.turn:
        return Refusal("guarded_this_turn", GUARDED.format(n=name(tx, c)), rule="ENG-COVER")
    if u.cover == s.turn:
        return Refusal("cover_used", COVER_USED.format(n=name(tx, c)), rule="ENG-COVER")
    return None


def coverers(tx: Tx, s: EngagementState, ex: Exchange) -> list[Combatant]:
    """Everyone in the scene who could cover this attack now."""
    return [c for c in s.combatants.values()
            if not c.hidden and cover_problem(tx, s, ex, c) is None]
