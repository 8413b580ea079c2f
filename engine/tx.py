"""The transaction a handler works through: every write records its path and old value.

Handlers never assign to state directly. `Tx.set`/`Tx.delete` mutate the state *and*
record the change, so the room can project exactly the touched units per audience
(invariant 4) and roll the whole action back if anything later refuses (invariant 2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, Field

from . import paths
from .errors import Refusal, Text
from .paths import MISSING, Path
from .rng import Roll, draw

if TYPE_CHECKING:
    from .prompts import Prompt
    from .room import RoomBase
    from .views import Audience

__all__ = ["Actor", "Change", "Happening", "LogLine", "Resumer", "Role", "RuleWarning", "Tx"]

Role = Literal["gm", "player", "bridge", "observer"]
#: Continues an action that asked a prompt: (tx, the prompt, the chosen id).
Resumer = Callable[["Tx", "Prompt", str], None]
P = TypeVar("P")


class Actor(BaseModel):
    """Who sent an action: a role, the player it is bound to, and a label for the log."""

    role: Role
    player: str | None = None
    label: str = ""


class Happening(BaseModel):
    """A domain event (`piece.moved`, `prompt.answered`…) that triggers react to."""

    kind: str
    data: dict[str, Any] = Field(default_factory=dict)
    depth: int = 0


class LogLine(BaseModel):
    """A readable line for the timeline and the table's chat."""

    ja: str
    en: str
    chat: bool = True


class RuleWarning(BaseModel):
    """A rule that would have refused the action under `enforce` (mode `warn`)."""

    code: str
    rule: str | None
    ja: str
    en: str


@dataclass(slots=True)
class Change:
    """One recorded write: the path, the new value (MISSING = deleted) and the old one."""

    path: Path
    new: Any
    old: Any


@dataclass
class Tx:
    """One action being applied; handlers read `state` and write through `set`/`delete`.

    `resumers` are the registry's prompt continuations (the engine passes them in).
    """

    state: RoomBase
    actor: Actor
    resumers: Mapping[str, Resumer] = field(default_factory=dict)
    changes: list[Change] = field(default_factory=list)
    happenings: list[Happening] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    log: list[LogLine] = field(default_factory=list)
    warnings: list[RuleWarning] = field(default_factory=list)
    pending: list[Happening] = field(default_factory=list)
    depth: int = 0

    @property
    def audience(self) -> Audience:
        """What the sender may see: the GM all, a player their view, others the table's."""
        from .views import Audience

        if self.actor.role == "gm":
            return Audience("gm")
        if self.actor.role == "player":
            return Audience("player", self.actor.player)
        return Audience("table")

    def part(self, name: str, model: type[P]) -> P | None:
        """The room's `name` part (a subsystem's state) when it holds a `model`, else None."""
        value = getattr(self.state, name, None)
        return value if isinstance(value, model) else None

    # -- writes ---------------------------------------------------------------------
    def get(self, path: Sequence[str | int]) -> Any:
        return paths.get(self.state, path)

    def set(self, path: Sequence[str | int], value: Any) -> None:
        """Write `value` at `path` (a model field, or a dict entry, new or not)."""
        old = paths.put(self.state, path, value)
        self.changes.append(Change(tuple(path), value, old))

    def delete(self, path: Sequence[str | int]) -> None:
        old = paths.delete(self.state, path)
        if old is not MISSING:
            self.changes.append(Change(tuple(path), MISSING, old))

    def rollback(self) -> None:
        """Undo every recorded write, newest first."""
        for change in reversed(self.changes):
            if change.old is MISSING:
                paths.delete(self.state, change.path)
            else:
                paths.put(self.state, change.path, change.old)
        self.changes.clear()

    # -- rules ----------------------------------------------------------------------
    def check(self, ok: bool, refusal: Refusal) -> None:
        """A rule check that follows the room's enforcement mode (enforce / warn / off)."""
        if ok:
            return
        mode = self.state.meta.enforcement
        if mode == "enforce":
            raise refusal
        if mode == "warn":
            self.warnings.append(
                RuleWarning(code=refusal.code, rule=refusal.rule, ja=refusal.ja, en=refusal.en)
            )

    # -- happenings, dice, log --------------------------------------------------------
    def emit(self, kind: str, **data: Any) -> None:
        """Record a happening; triggers see it after the handler (bounded cascade)."""
        h = Happening(kind=kind, data=data, depth=self.depth)
        self.happenings.append(h)
        self.pending.append(h)

    def roll(self, dice: str, purpose: str = "") -> Roll:
        """Roll `NdS` with the room's seeded RNG; the roll is logged with the action."""
        count, sides = parse_dice(dice)
        results = [draw(self.state.rng, sides) for _ in range(count)]
        roll = Roll(dice=dice, results=results, total=sum(results), purpose=purpose)
        self.rolls.append(roll)
        return roll

    def record_roll(self, roll: Roll) -> None:
        """Keep an externally reported roll (BCDice, the GM) with its provenance."""
        self.rolls.append(roll)

    def say(self, text: Text, chat: bool = True) -> None:
        self.log.append(LogLine(ja=text.ja, en=text.en, chat=chat))

    def next_id(self, prefix: str) -> str:
        """A fresh id, deterministic on replay (the room's sequence counter)."""
        seq = self.state.meta.seq + 1
        self.set(("meta", "seq"), seq)
        return f"{prefix}{seq}"

    def ask(self, to: str, text: Text, resume: str, choices: Sequence[tuple[str, Text]] = (),
            free: bool = False, **context: Any) -> str:
        """Pause for a choice by `to` ("gm", "players", "player:<id>"); `resume` continues."""
        from .prompts import Choice, Prompt

        pid = self.next_id("q")
        prompt = Prompt(
            id=pid, to=to, ja=text.ja, en=text.en, resume=resume, free=free, context=context,
            choices=[Choice(id=cid, ja=t.ja, en=t.en) for cid, t in choices],
        )
        self.set(("prompts", pid), prompt)
        self.emit("prompt.asked", prompt=pid, to=to)
        return pid

    def units(self) -> list[Path]:
        """Touched units in first-touch order, for per-audience projection."""
        from .views import unit_of

        seen: dict[Path, None] = {}
        for change in self.changes:
            seen.setdefault(unit_of(self.state, change.path), None)
        return list(seen)


def parse_dice(dice: str) -> tuple[int, int]:
    """`"3D6"` → (3, 6); `"D100"` → (1, 100)."""
    count, _, sides = dice.upper().partition("D")
    n, s = int(count or 1), int(sides)
    if not (1 <= n <= 100 and 1 <= s <= 1000):
        raise ValueError(dice)
    return n, s
