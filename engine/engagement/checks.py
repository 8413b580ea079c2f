"""Checks and damage rolls: the dice count of each action (ENG-ACT-1/2, ENG-BONUS,
ENG-GUARD, ENG-COVER), rolled with the room's dice or read from a reported BCDice line.

A check's achievement is its check value plus the dice (`check_die` sides each, the base
game's). A reported line is a BCDice sum such as `(3D6+7) ＞ 10[2,3,5]+7 ＞ 17` or
`(3D6) ＞ 10[2,3,5] ＞ 10`: it must show exactly the dice the action gives, and its total
must be the dice alone or the dice plus the check value; it is kept with its provenance.
"""

from __future__ import annotations

import re

from ..bcdice import NotUnderstood, PlainRoll, parse
from ..rng import Roll
from ..table import mover_of
from ..tx import Tx
from .model import Check, EngagementState
from .refusals import BAD_RESULT, DICE_COUNT, DICE_SIDES, RESULT_INCONSISTENT
from .rules import PATH, profile

__all__ = ["RULES", "melee_dice", "roll_or_read", "skill_bonus"]

#: The rule each purpose's dice come from (refusals about a line cite it).
RULES = {"approach": "ENG-ACT-1", "melee": "ENG-ACT-2", "damage": "ENG-ACT-2",
         "guard": "ENG-GUARD", "cover": "ENG-COVER", "evade": "ENG-ACT-2", "shot": "ENG-GUARD",
         "homing": "ENG-GUARD"}
PURPOSES = {"approach": ("接近判定", "approach check"), "melee": ("命中判定", "hit check"),
            "shot": ("命中判定", "hit check"), "homing": ("命中判定", "hit check"),
            "evade": ("回避判定", "evasion check"), "guard": ("ガード判定", "guard check"),
            "cover": ("カバー判定", "cover check"), "damage": ("ダメージ", "damage")}

_HEAD = re.compile(r"(\d*)D(\d+)", re.IGNORECASE)


def skill_bonus(level: int, dp: int) -> int:
    """ENG-BONUS extra dice by 〈近接戦闘〉LV: 3 DP 0,0,1,1,2,2,3,3; 6 DP 0,1,1,2,2,3,3,4
    for LV 1–8, and on by +1 per 2 LV from LV 9; 1 DP none."""
    if level <= 0 or dp not in (3, 6):
        return 0
    return (level - 1) // 2 if dp == 3 else level // 2


def melee_dice(level: int, dp: int) -> int:
    """ENG-ACT-2 DP 1 → 1 die; DP 3 → 3 + bonus; DP 6 → 6 + bonus."""
    return 1 if dp == 1 else dp + skill_bonus(level, dp)


def roll_or_read(tx: Tx, check: Check, line: str | None, wait: bool, label: str) -> Check:
    """The check with its total: read from `line`, else waiting (`wait`), else rolled.
    A check without dice needs no roll."""
    if check.dice == 0:
        return check.model_copy(update={"total": check.base})
    if line is not None:
        return check.model_copy(update={"total": _read(tx, check, line, label)})
    if wait:
        return check
    roll = tx.roll(f"{check.dice}D{check.sides}", f"{label} {PURPOSES[check.purpose][1]}")
    return check.model_copy(update={"total": check.base + (roll.total or 0)})


def _read(tx: Tx, check: Check, line: str, label: str) -> int:
    """A reported BCDice line, checked against the dice the action gives."""
    rule = RULES[check.purpose]
    ja, en = PURPOSES[check.purpose]
    result = parse(line)
    if isinstance(result, NotUnderstood):
        raise BAD_RESULT.refuse(line=line[:80], reason=result.why.en, reason_ja=result.why.ja)
    if not isinstance(result, PlainRoll):
        raise BAD_RESULT.refuse(alt="not_sum", line=line[:80])
    part = tx.part(PATH, EngagementState)
    who = part.combatants.get(check.who) if part is not None else None
    about = profile(who) if who is not None else []  # the dice and check value come from it
    tx.check(len(result.dice) == check.dice, DICE_COUNT.refuse(
        what=ja, what_en=en, want=check.dice, got=len(result.dice), rule=rule, about=about))
    head = _HEAD.search(result.expr)
    if head is not None:
        tx.check(int(head.group(2)) == check.sides, DICE_SIDES.refuse(
            what=ja, what_en=en, sides=check.sides, got=f"D{head.group(2)}"))
    dice = sum(result.dice)
    tx.check(result.value in (dice, dice + check.base), RESULT_INCONSISTENT.refuse(
        total=result.value, dice=dice, base=check.base, about=about))
    reporter = mover_of(tx) or tx.actor.label or tx.actor.role
    tx.record_roll(Roll(dice=f"{len(result.dice)}D{check.sides}", results=list(result.dice),
                        total=dice, purpose=f"{label} {en}", source="external", raw=line,
                        reporter=reporter))
    return check.base + dice
