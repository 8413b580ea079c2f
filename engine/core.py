"""`Engine.apply`: the one entry point that changes a room's state.

Guards first (role, who a bridge acts for: `Actor.bind`, and that a bridge naming no one
only moves pieces unless the room lets it decide), then the action's own
validation and writes, then happenings through the triggers (a bounded follow-up
queue), then settlers (end checks, turn flows' follow-ups), round again until quiet.
Any refusal or bug rolls back every write and the dice counter: an action applies
whole or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from .actions import ActionBase
from .codes import CASCADE_TOO_DEEP, FORBIDDEN_ROLE, ROLE_WORDS, UNCREDITED
from .errors import CascadeTooDeep
from .paths import MISSING, Path
from .registry import RESUMERS, SETTLERS, TRIGGERS
from .rng import Roll
from .state import RoomState
from .tx import Actor, Happening, LogLine, RuleWarning, Tx

__all__ = ["MAX_CASCADE_DEPTH", "Engine", "Outcome", "change_ops"]

MAX_CASCADE_DEPTH = 8
MAX_CASCADE_STEPS = 500

@dataclass
class Outcome:
    """What an accepted action did: the new version and everything recorded on the way."""

    version: int
    tx: Tx
    draws: int = 0  # the dice counter before the action, for `Engine.revert`

    @property
    def units(self) -> list[Path]:
        return self.tx.units()

    @property
    def happenings(self) -> list[Happening]:
        return self.tx.happenings

    @property
    def rolls(self) -> list[Roll]:
        return self.tx.rolls

    @property
    def log(self) -> list[LogLine]:
        return self.tx.log

    @property
    def warnings(self) -> list[RuleWarning]:
        return self.tx.warnings


def change_ops(tx: Tx) -> list[dict[str, Any]]:
    """The raw recorded writes as JSON ops (what the durable log keeps)."""
    ops: list[dict[str, Any]] = []
    for c in tx.changes:
        if c.new is MISSING:
            ops.append({"op": "del", "path": list(c.path)})
        else:
            ops.append({"op": "set", "path": list(c.path), "value": to_jsonable_python(c.new)})
    return ops


class Engine:
    """Holds one room's state and version; the room task is its only caller."""

    def __init__(self, state: RoomState, version: int = 0) -> None:
        self.state = state
        self.version = version

    def apply(self, action: ActionBase, actor: Actor) -> Outcome:
        """Apply or raise `Refusal`; on any failure the state is exactly as before."""
        self.guard(action, actor)
        meta = self.state.meta
        actor = actor.bind(getattr(action, "by", None), meta.players, meta.uncredited)
        if not actor.decides() and not action.only_moves():
            raise UNCREDITED.refuse()
        tx = Tx(self.state, actor, RESUMERS)
        draws = self.state.rng.draws
        try:
            action.apply(tx)
            _settle(tx)
        except BaseException:
            tx.rollback()
            self.state.rng.draws = draws
            raise
        self.version += 1
        return Outcome(self.version, tx, draws)

    @staticmethod
    def guard(action: ActionBase, actor: Actor) -> None:
        """Refuse an action its sender's role may not send (checked before anything else)."""
        if actor.role not in action.roles:
            who, who_en = ROLE_WORDS.get(actor.role, (actor.role, actor.role))
            raise FORBIDDEN_ROLE.refuse(who=who, who_en=who_en)

    def revert(self, outcome: Outcome) -> None:
        """Take back the action just applied (something after `apply` failed): its writes,
        its dice draws and its version, exactly as if it had been refused."""
        if outcome.version != self.version:
            raise RuntimeError(f"can only revert the last version ({self.version})")
        outcome.tx.rollback()
        self.state.rng.draws = outcome.draws
        self.version -= 1


def _settle(tx: Tx) -> None:
    """Run triggers on pending happenings, then settlers, until nothing new happens and no
    settler moved anything on (a turn flow's follow-up: one a call, so every follow-up
    goes through this one loop). Trigger calls and follow-ups share the step bound;
    rounds that bring only new happenings keep their own bound."""
    steps = rounds = 0
    while True:
        while tx.pending:
            happening = tx.pending.pop(0)
            if happening.depth >= MAX_CASCADE_DEPTH:
                raise _too_deep(happening.depth)
            tx.depth = happening.depth + 1
            for trigger in TRIGGERS:
                if trigger.matches(happening.kind):
                    steps = _step(steps)
                    trigger.fn(tx, happening)
        tx.depth = 0
        moved = False
        for settle in SETTLERS:
            if settle(tx):
                moved = True
                steps = _step(steps)
        if not moved:
            if not tx.pending:
                return
            rounds += 1
            if rounds >= MAX_CASCADE_DEPTH * 4:
                raise _too_deep(MAX_CASCADE_DEPTH * 4)


def _step(steps: int) -> int:
    """Count one more trigger call or follow-up, refusing past MAX_CASCADE_STEPS."""
    steps += 1
    if steps > MAX_CASCADE_STEPS:
        raise _too_deep(steps)
    return steps


def _too_deep(n: int) -> CascadeTooDeep:
    return CascadeTooDeep(CASCADE_TOO_DEEP, CASCADE_TOO_DEEP.text.format(n=n))
