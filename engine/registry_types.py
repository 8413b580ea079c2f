"""What a subsystem declares, in one place: its actions, triggers, resumers, settlers and
phase table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import Codes, Text
from .phases import PhaseTable
from .tx import Resumer

if TYPE_CHECKING:
    from .actions import ActionBase
    from .outcomes import Result
    from .queries import QueryBase
    from .tx import Happening, Tx

__all__ = ["Codes", "PhaseTable", "Resumer", "RoundMark", "RoundOf", "Settler", "Subsystem",
           "Trigger", "counted"]

#: A settler returns True when it moved something on without a new happening (a
#: follow-up of a turn flow ran): the core's loop then goes round again.
Settler = Callable[["Tx"], "bool | None"]


@dataclass(frozen=True)
class Trigger:
    """React to happenings of the given kinds (all kinds when `kinds` is empty)."""

    fn: Callable[[Tx, Happening], None]
    kinds: frozenset[str] = frozenset()

    def matches(self, kind: str) -> bool:
        return not self.kinds or kind in self.kinds


@dataclass(frozen=True)
class RoundMark:
    """Which round (or turn) a subsystem's part is in, and its name: a replay tells the
    battle round by round from these."""

    number: int
    name: Text


#: What round a subsystem's part of the state is in (None: no round has begun to count).
RoundOf = Callable[[Any], "RoundMark | None"]


def counted(number: int, ja: str, en: str) -> RoundMark | None:
    """`第3ラウンド` / `Round 3` for round 3 of a part counting in `ja`/`en`; None before 1."""
    return RoundMark(number, Text(f"第{number}{ja}", f"{en} {number}")) if number >= 1 else None


@dataclass(frozen=True)
class Subsystem:
    """A rules module: actions, triggers on happenings, prompt resumers, settlers, the
    queries clients may ask of it without acting, its phase/step table, the refusal codes
    it may give, the results its acks may carry and what round a state of its part is in.

    Settlers run after every action once triggers are quiet (end conditions, a turn
    flow's follow-ups); what they emit goes through the triggers again, and they run
    again while one reports progress, within the same cascade bounds.
    """

    name: str
    actions: tuple[type[ActionBase], ...] = ()
    triggers: tuple[Trigger, ...] = ()
    resumers: Mapping[str, Resumer] = field(default_factory=dict)
    settlers: tuple[Settler, ...] = ()
    queries: tuple[type[QueryBase], ...] = ()
    phases: PhaseTable | None = None
    refusals: Codes | None = None
    results: tuple[type[Result], ...] = ()
    round_of: RoundOf | None = None
