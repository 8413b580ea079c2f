"""The transaction a handler works through: every write records its path and old value.

Handlers never assign to state directly. `Tx.set`/`Tx.delete` mutate the state *and*
record the change, so the room can project exactly the touched units per audience
(invariant 4) and roll the whole action back if anything later refuses (invariant 2).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, Field, StrictBool, StrictInt, ValidationError

from . import paths
from .codes import OUT_OF_RANGE, PLAYER_ROLLS_REFUSED, UNKNOWN_PLAYER
from .errors import Refusal, Text
from .paths import MISSING, Path
from .players import Role, Uncredited
from .rng import Roll, draw

if TYPE_CHECKING:
    from .outcomes import Created, Result
    from .prompts import Prompt
    from .room import RoomBase
    from .views import Audience

__all__ = ["Actor", "Change", "Happening", "LogLine", "Resumer", "Role", "RuleWarning", "Tx",
           "Uncredited"]

#: Continues an action that asked a prompt: (tx, the prompt, the chosen id).
Resumer = Callable[["Tx", "Prompt", str], None]
P = TypeVar("P")

class Actor(BaseModel):
    """Who sent an action: a role, the player it acts for, and a label for the log.

    A bridge is the VTT's voice, never the GM: it acts for the player the platform
    identified (`by`, bound by `bind`) with exactly that player's rights, or, naming no
    one, as the table, which has no player's rights (it may do only what no player owns)
    and, unless the room widens it (`meta.uncredited`), makes no decision: it only moves.
    """

    role: Role
    player: str | None = None
    label: str = ""
    legacy: StrictBool = False
    """A bridge replayed from a log written before bridges were bound (`from_log`): it
    keeps the rights it was accepted with (`by` unchecked; without it, anyone's), so
    old rooms replay exactly."""
    uncredited: Uncredited | None = Field(default=None, exclude_if=lambda v: v is None)
    """For the table (a bridge naming no player): the room's rule it was accepted under.
    A bridge logged without it predates the rule and keeps the GM's side (`from_log`)."""

    @classmethod
    def from_log(cls, data: dict[str, Any]) -> Actor:
        """The actor a logged action was applied with."""
        if data.get("role") == "bridge" and "legacy" not in data:
            return cls.model_validate({**data, "legacy": True})
        if data.get("role") == "bridge" and data.get("player") is None and "uncredited" not in data:
            return cls.model_validate({**data, "uncredited": "gm_side"})
        return cls.model_validate(data)

    def bind(self, by: str | None, players: Container[str], uncredited: Uncredited = "moves"
             ) -> Actor:
        """The actor an action runs as: a bridge bound to the player in `by` (one of the
        room's `players`) or to the table under the room's `uncredited` rule (a logged
        actor keeps the rule it was accepted under); for any other role `by` means nothing."""
        if self.role != "bridge":
            return self
        if by is not None and by not in players and not self.legacy:
            raise UNKNOWN_PLAYER.missing(by)
        rule = None if by is not None or self.legacy else self.uncredited or uncredited
        return self.model_copy(update={"player": by, "uncredited": rule})

    def decides(self) -> bool:
        """Whether this actor may make decisions, not only move pieces (the table may
        only where the room lets it: `meta.uncredited`)."""
        return not (self.role == "bridge" and self.player is None and self.uncredited == "moves")

    def acts_for(self, owner: str | None, allowed: Iterable[str] = ()) -> bool:
        """Whether this actor has the rights over a thing `owner` owns and `allowed` may
        also use: the GM always, a player (or a bridge acting for one) as that player,
        the table only over what no player owns."""
        if self.role == "gm":
            return True
        if self.role == "bridge" and self.player is None:
            return owner is None or self.legacy
        return self.player is not None and (owner == self.player or self.player in allowed)


class Happening(BaseModel):
    """A domain event (`piece.moved`, `prompt.answered`…) that triggers react to."""

    kind: str
    data: dict[str, Any] = Field(default_factory=dict)
    depth: StrictInt = 0


class LogLine(BaseModel):
    """A readable line for the timeline and the table's chat."""

    ja: str
    en: str
    chat: StrictBool = True


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
    results: list[Result] = field(default_factory=list)
    created: list[Created] = field(default_factory=list)

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

    def require(self, name: str, model: type[P], missing: Refusal) -> P:
        """The room's `name` part, or `missing` (the subsystem's "this room has no …"
        refusal) raised when the room has none."""
        value = self.part(name, model)
        if value is None:
            raise missing
        return value

    # -- writes ---------------------------------------------------------------------
    def get(self, path: Sequence[str | int]) -> Any:
        return paths.get(self.state, path)

    def set(self, path: Sequence[str | int], value: Any) -> None:
        """Write `value` at `path` (a model field, or a dict entry, new or not), validated
        against the declared type there: a value out of its bounds is refused."""
        value = self._checked(path, value)
        old = paths.put(self.state, path, value)
        self.changes.append(Change(tuple(path), value, old))

    def _checked(self, path: Sequence[str | int], value: Any) -> Any:
        try:
            check = paths.validator(self.state, path)
        except KeyError:
            return value  # not a typed place: `put` says so
        try:
            return check.validate_python(value)
        except ValidationError as e:
            # only the GM may read the path: it can name a hidden piece or base
            what = e.errors()[0]["msg"]
            if self.actor.role == "gm":
                what = f"{'/'.join(map(str, path))}: {what}"
            raise OUT_OF_RANGE.refuse(what=what) from None

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
        self.check_reported_roll()
        self.rolls.append(roll)

    def check_reported_roll(self) -> None:
        """Refuse a dice result typed by a player (a player connection reporting it)
        unless the GM allows it (`meta.player_rolls`); bridges read the VTT's own dice."""
        if self.actor.role == "player" and self.state.meta.player_rolls != "allow":
            raise PLAYER_ROLLS_REFUSED.refuse(about=[("meta", "player_rolls")])

    # -- what the sender's ack carries ------------------------------------------------
    def report(self, result: Result, about: Iterable[Sequence[str | int]] = ()) -> None:
        """Tell the sender `result` in the ack; `about`: the state paths it is built from
        (a sender not shown one of them is not told)."""
        result._about = tuple(tuple(p) for p in about)
        self.results.append(result)

    def made(self, what: str, ident: str, at: Sequence[str | int]) -> None:
        """Tell the sender the id of a `what` the action created at state path `at` (a
        sender not shown it there is not told)."""
        from .outcomes import Created

        created = Created(what=what, id=ident)
        created._about = (tuple(at),)
        self.created.append(created)

    def say(self, text: Text, chat: bool = True) -> None:
        self.log.append(LogLine(ja=text.ja, en=text.en, chat=chat))

    def next_id(self, prefix: str, secret: bool = False) -> str:
        """A fresh id, deterministic on replay (the room's sequence counter); `secret`: an
        id only the GM sees, counted apart so the public sequence reveals nothing."""
        meta = self.state.meta
        if secret and meta.gm_seq is not None:
            self.set(("meta", "gm_seq"), meta.gm_seq + 1)
            return f"g{prefix}{meta.gm_seq}"
        seq = meta.seq + 1
        self.set(("meta", "seq"), seq)
        return f"{prefix}{seq}"

    def ask(self, to: str, text: Text, resume: str, choices: Sequence[tuple[str, Text]] = (),
            free: bool = False, *, kind: str = "choice", about: Mapping[str, str] | None = None,
            **context: Any) -> str:
        """Pause for a choice by `to` ("gm", "players", "player:<id>"); `resume` continues.
        `kind` says what the question is (`<subsystem>.<question>`) and `about` the ids it is
        about by role (`{"unit": "u3"}`): only ids the addressee may see."""
        from .prompts import Choice, Prompt

        pid = self.next_id("q", secret=to == "gm")
        prompt = Prompt(
            id=pid, to=to, ja=text.ja, en=text.en, resume=resume, free=free, context=context,
            kind=kind, about=dict(about or {}),
            choices=[Choice(id=cid, ja=t.ja, en=t.en) for cid, t in choices],
        )
        self.set(("prompts", pid), prompt)
        self.made("prompt", pid, ("prompts", pid))
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
