"""What a subsystem declares, in one place: its actions, triggers, resumers, settlers and
phase table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import Codes
from .phases import PhaseTable
from .tx import Resumer

if TYPE_CHECKING:
    from .actions import ActionBase
    from .outcomes import Result
    from .queries import QueryBase
    from .tx import Happening, Tx

__all__ = ["Codes", "PhaseTable", "Resumer", "Settler", "Subsystem", "Trigger"]

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
class Subsystem:
    """A rules module: actions, triggers on happenings, prompt resumers, settlers, the
    queries clients may ask of it without acting, its phase/step table, the refusal codes
    it may give and the results its acks may carry.

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
