"""What an engagement action's ack tells its sender (`Subsystem.results`): where the
exchange it touched now is and whom it waits for, the checks it rolled, read or left
waiting (their dice pools), how it ended; the pairs that formed or ended; the turn.

Each result is named by the characters it is about, so a sender not shown one of them
(a hidden character) is not told; the approach's target number (the GM's) is never in it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictBool, StrictInt

from ..bounds import Count, Id, Number
from ..errors import Text
from ..outcomes import Result
from ..tx import Tx
from .checks import PURPOSES, RULES
from .model import AttackKind, Awaiting, Check, Exchange, How, Phase, Purpose, Stage
from .rules import PATH, profile

__all__ = ["RESULTS", "CheckPool", "ExchangeStep", "Outcome", "PairChanged", "TurnMoved",
           "exchange_step", "note_check"]

#: How an exchange ended: an approach or a cover/guard transfer that engaged, an approach
#: short of its target number, a defence that held, a hit (its damage applied), or the
#: GM's cancel.
Outcome = Literal["engaged", "approach_failed", "missed", "hit", "cancelled"]


class CheckPool(Result):
    """One check or damage roll of the exchange: who rolls it, for what, its check value
    and dice (the pool), and its total (None: its line is awaited). Its check value and
    dice come from the roller's data: told only to those shown that data."""

    kind: Literal["engagement.check"] = "engagement.check"
    exchange: Id
    who: Id
    purpose: Purpose
    base: Number
    dice: StrictInt = Field(ge=0, le=100)
    sides: StrictInt = Field(ge=2, le=100)
    total: Number | None = None

    def roll_check(self, action: Any) -> tuple[str, Text] | None:
        """A reported line the roller sent (`engagement.roll`) was for this check."""
        if getattr(action, "kind", None) != "engagement.roll" or action.combatant != self.who:
            return None
        ja, en = PURPOSES[self.purpose]
        return RULES[self.purpose], Text(ja, en)


class ExchangeStep(Result):
    """The exchange this action declared or moved on: its stage now (`closed` once
    resolved), what it awaits from whom, and how it ended (its checks: `engagement.check`
    results of their own)."""

    kind: Literal["engagement.exchange"] = "engagement.exchange"
    exchange: Id
    attack: AttackKind
    attacker: Id
    target: Id
    stage: Stage | Literal["closed"]
    awaiting: Awaiting | None = None
    outcome: Outcome | None = None
    #: On a hit: who took it and the damage applied (after a failed guard's cut).
    victim: Id | None = None
    damage: Count | None = None


class PairChanged(Result):
    """A pair formed (`engaged`, `how`) or ended (`why`: left, guard, cover, expired,
    ability, ended; `leaver` for a leave or a transfer)."""

    kind: Literal["engagement.pair"] = "engagement.pair"
    pair: str = Field(max_length=130)
    a: Id
    b: Id
    engaged: StrictBool
    how: How | None = None
    why: str | None = Field(default=None, max_length=32)
    leaver: Id | None = None


class TurnMoved(Result):
    """The battle's turn and phase after `engagement.start` / `engagement.phase`."""

    kind: Literal["engagement.turn"] = "engagement.turn"
    turn: Count
    phase: Phase


RESULTS: tuple[type[Result], ...] = (ExchangeStep, CheckPool, PairChanged, TurnMoved)


def exchange_step(tx: Tx, ex: Exchange, slot: str) -> ExchangeStep:
    """This action's result for `ex`, made (and reported) the first time it is touched:
    about its characters and its slot, so only those shown it are told."""
    for r in tx.results:
        if isinstance(r, ExchangeStep) and r.exchange == ex.id:
            return r
    step = ExchangeStep(exchange=ex.id, attack=ex.attack, attacker=ex.attacker, target=ex.target,
                        stage=ex.stage)
    about = [(PATH, slot), *((PATH, "combatants", cid) for cid in (ex.attacker, ex.target))]
    tx.report(step, about=about)
    return step


def note_check(tx: Tx, ex: Exchange, slot: str, check: Check) -> None:
    """Tell the sender a check this action rolled, read or left waiting (its latest form:
    an awaited line that came in the same action updates it)."""
    for r in tx.results:
        if (isinstance(r, CheckPool) and r.exchange == ex.id and r.purpose == check.purpose
                and r.total is None):
            r.total = check.total
            return
    pool = CheckPool(exchange=ex.id, who=check.who, purpose=check.purpose, base=check.base,
                     dice=check.dice, sides=check.sides, total=check.total)
    roller = tx.get((PATH, "combatants", check.who))
    tx.report(pool, about=[(PATH, slot), *(profile(roller) if roller is not None else [])])
