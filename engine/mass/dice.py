"""The dice of mass combat: rolled by komasync, or read from reported BCDice lines.

Every roll is kept with its provenance (`Roll.source` engine / external, the raw line
and who reported it), as tower defense does. A reported line must be a plain sum
(`(1D6) ＞ 4`, `(3D6+2) ＞ 11[3,4,4]+2 ＞ 13`) of the dice the rule asks for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..bcdice import NotUnderstood, PlainRoll, parse
from ..rng import Roll
from ..tx import Tx, parse_dice
from . import refusals as R
from .model import MassSettings
from .rules import mover_of

__all__ = ["Dice", "header_terms"]

_HEAD = re.compile(r"^(\d*)D(\d+)((?:[+-]\d+)*)$", re.IGNORECASE)



def header_terms(expr: str) -> tuple[int, int, int] | None:
    """`3D6+2` → (3, 6, 2); None if it is not one dice term with flat modifiers."""
    m = _HEAD.match(expr.replace(" ", ""))
    if m is None:
        return None
    mod = sum(int(t) for t in re.findall(r"[+-]\d+", m.group(3)))
    return int(m.group(1) or 1), int(m.group(2)), mod


@dataclass
class Dice:
    """The dice of one action: the reported lines first, in order; then komasync rolls."""

    tx: Tx
    settings: MassSettings
    reported: list[str] = field(default_factory=list)
    used: int = 0
    #: Who reported the lines, when they were checked earlier by another action (an
    #: attack's die is read after its reaction window; the answerer is not the reporter).
    reporter: str | None = None
    #: The last roll made or read, and every total so far (for the ack's result).
    last: Roll | None = None
    totals: list[int] = field(default_factory=list)

    def roll(self, dice: str, purpose: str, modifier: int | None = 0,
             rule: str = "MASS-DATA") -> int:
        """`dice` (e.g. 1D6) + `modifier`; a reported line's modifier must equal it
        (None: any modifier, the total is taken as reported)."""
        self.used += 1
        if self.used <= len(self.reported):
            total = self._read(self.reported[self.used - 1], dice, purpose, modifier, rule)
        else:
            self.last = self.tx.roll(dice, purpose)
            total = (self.last.total or 0) + (modifier or 0)
        self.totals.append(total)
        return total

    def finish(self) -> None:
        """Refuse lines the action never needed: a result must not be silently dropped."""
        extra = len(self.reported) - self.used
        if extra > 0:
            raise R.UNUSED_RESULT.refuse(n=extra, used=self.used)

    def check(self, dice: str, rule: str = "MASS-DATA") -> None:
        """Read the reported lines now without keeping them: an action whose die is rolled
        later (after a prompt) must not carry a line that could then be refused."""
        if self.reported:
            self.tx.check_reported_roll()
        for line in self.reported:
            self._parsed(line, dice, 0, rule)

    def _read(self, line: str, dice: str, purpose: str, modifier: int | None,
              rule: str) -> int:
        result = self._parsed(line, dice, modifier, rule)
        roll = Roll(dice=result.expr, results=list(result.dice), total=result.value,
                    purpose=purpose, source="external", raw=line, reporter=self.reporter or
                    self.who())
        self.last = roll
        if self.reporter is None:
            self.tx.record_roll(roll)
        else:  # checked (and allowed) when its action was accepted: see `check`
            self.tx.rolls.append(roll)
        return result.value

    def who(self) -> str:
        """The sender named as a roll's reporter."""
        return mover_of(self.tx) or self.tx.actor.label or self.tx.actor.role

    def _parsed(self, line: str, dice: str, modifier: int | None, rule: str) -> PlainRoll:
        if self.reporter is None and self.tx.actor.role not in self.settings.reported_results_from:
            raise R.NO_REPORTED_RESULTS.refuse(role=self.tx.actor.role)
        result = parse(line)
        if isinstance(result, NotUnderstood):
            raise R.BAD_RESULT.refuse(line=line[:80], reason=result.why.en,
                                      reason_ja=result.why.ja)
        if not isinstance(result, PlainRoll):
            raise R.BAD_RESULT.refuse(alt="not_sum", line=line[:80])
        terms = header_terms(result.expr)
        count, sides = parse_dice(dice)
        want = f"{dice}{modifier:+d}" if modifier else dice
        ok = (terms is not None and terms[:2] == (count, sides)
              and (modifier is None or terms[2] == modifier) and len(result.dice) == count
              and all(1 <= d <= sides for d in result.dice))
        if not ok:
            raise R.RESULT_MISMATCH.refuse(under=rule, line=line[:80], want=want)
        return result
