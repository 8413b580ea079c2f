"""What an engagement action's ack tells its sender (`Subsystem.results`): where the
exchange it touched now is and whom it waits for, the checks it rolled, read or left
waiting (their dice pools), how it ended; the pairs that formed or ended; the turn.

Each result is named by the characters it is about, so a sender not shown one of them
(a hidden character) is not told; the approach's target number (the GM's) is never in it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from ..bounds import Count, Id, Number
from ..outcomes import Result
from ..tx import Tx
from .model import AttackKind, Awaiting, Check, Exchange, How, Phase, Purpose, Stage
from .rules import PATH

__all__ = ["RESULTS", "CheckPool", "ExchangeStep", "Outcome", "PairChanged", "TurnMoved",
           "exchange_step", "note_check"]

#: How an exchange ended: an approach or a cover/guard transfer that engaged, an approach
#: short of its target number, a defence that held, a hit (its damage applied), or the
#: GM's cancel.
Outcome = Literal["engaged", "approach_failed", "missed", "hit", "cancelled"]


class CheckPool(BaseModel):
    """One check or damage roll: who rolls it, for what, its check value and dice, and
    its total (None: its line is awaited)."""

    model_config = ConfigDict(extra="forbid")

    who: Id
    purpose: Purpose
    base: Number
    dice: int = Field(ge=0, le=100)
    sides: int = Field(ge=2, le=100)
    total: Number | None = None


class ExchangeStep(Result):
    """The exchange this action declared or moved on: its stage now (`closed` once
    resolved) and what it awaits from whom, the checks of this action, and its end."""

    kind: Literal["engagement.exchange"] = "engagement.exchange"
    exchange: Id
    attack: AttackKind
    attacker: Id
    target: Id
    stage: Stage | Literal["closed"]
    awaiting: Awaiting | None = None
    checks: list[CheckPool] = Field(default_factory=list, max_length=16)
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


RESULTS: tuple[type[Result], ...] = (ExchangeStep, PairChanged, TurnMoved)


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


def note_check(step: ExchangeStep, check: Check) -> None:
    """Add a check this action rolled, read or left waiting (its latest form)."""
    pool = CheckPool(who=check.who, purpose=check.purpose, base=check.base, dice=check.dice,
                     sides=check.sides, total=check.total)
    if step.checks and step.checks[-1].purpose == pool.purpose and step.checks[-1].total is None:
        step.checks[-1] = pool  # the awaited line has come in this same action
    else:
        step.checks.append(pool)
