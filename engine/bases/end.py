"""End conditions of the base battle (BASE-TYPE-1..5, BASE-ATTR-2) and ending it.

`check_end` runs last in the settler from round 1: a side loses when all its core bases
are stopped (destroyed counts) for every type that names that side, when all its
characters are incapacitated (the type's `wipe_defeat`), or when a GM-defined end
condition that is a state predicate holds. `end_battle` records an outcome, whether a
rule or the GM (`bases.end`) ended the battle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..errors import Text
from .eval import Ctx, block_holds, wiped
from .model import BasesState, BattleOutcome
from .results import BasesEnded
from .states import CharSide, Status, effective

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["SIDE_JA", "End", "check_end", "end_battle"]

SIDE_JA: Final = {"pc": "PC陣営", "enemy": "エネミー陣営"}
End = tuple[list[CharSide], str, Text]  # losers, rule, why


def end_battle(tx: Tx, outcome: BattleOutcome) -> None:
    """Record the outcome, emit `bases.battle.ended` and say it."""
    tx.set(("bases", "outcome"), outcome)
    tx.emit("bases.battle.ended", losers=outcome.losers, rule=outcome.rule)
    tx.report(BasesEnded(losers=outcome.losers, rule=outcome.rule), about=[("bases", "outcome")])
    tx.say(Text(outcome.ja, outcome.en))


def check_end(tx: Tx, bs: BasesState) -> None:
    """End the battle if the end conditions of its type hold (BASE-TYPE-1..5, BASE-ATTR-2)."""
    if bs.outcome is not None or bs.round < 1:
        return
    found = _core_ends(bs) + _wipe_ends(bs) + _custom_ends(bs)
    if not found:
        return
    losers = sorted({side for sides, _, _ in found for side in sides})
    rules = list(dict.fromkeys(rule for _, rule, _ in found))
    ja = "／".join(text.ja for _, _, text in found)
    en = " / ".join(text.en for _, _, text in found)
    end_battle(tx, BattleOutcome(losers=losers, rule=", ".join(rules), ja=f"戦闘終了: {ja}",
                                 en=f"Battle over: {en}"))


def _core_ends(bs: BasesState) -> list[End]:
    rule = "BASE-ATTR-2" if bs.battle.key == "general" else bs.battle.rule
    out: list[End] = []
    for side in bs.battle.core_defeat:
        cores = [b for b in bs.bases.values() if b.side == side and b.core]
        if cores and all(Status.STOPPED in effective(b.state) for b in cores):
            out.append(([side], rule, Text(f"{SIDE_JA[side]}のコア拠点がすべて停止",
                                           f"every {side} core base is stopped")))
    return out


def _wipe_ends(bs: BasesState) -> list[End]:
    return [([side], bs.battle.rule, Text(f"{SIDE_JA[side]}が全員戦闘不能",
                                          f"every {side} character is incapacitated"))
            for side in bs.battle.wipe_defeat if wiped(bs, side)]


def _custom_ends(bs: BasesState) -> list[End]:
    ctx = Ctx(bs, None)
    return [(list(end.losers), "BASE-TYPE-5", Text(end.condition.text, end.condition.text))
            for end in bs.battle.ends
            if end.condition.mode == "level" and block_holds(ctx, end.condition)]
