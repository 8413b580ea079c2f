"""What a subsystem declares, in one place: its actions, triggers, resumers and settlers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .tx import Resumer

if TYPE_CHECKING:
    from .actions import ActionBase
    from .queries import QueryBase
    from .tx import Happening, Tx

__all__ = ["Resumer", "Settler", "Subsystem", "Trigger"]

Settler = Callable[["Tx"], None]


@dataclass(frozen=True)
class Trigger:
    """React to happenings of the given kinds (all kinds when `kinds` is empty)."""

    fn: Callable[[Tx, Happening], None]
    kinds: frozenset[str] = frozenset()

    def matches(self, kind: str) -> bool:
        return not self.kinds or kind in self.kinds


@dataclass(frozen=True)
class Subsystem:
    """A rules module: actions, triggers on happenings, prompt resumers, settlers, and the
    queries clients may ask of it without acting.

    Settlers run after every action once triggers are quiet (end conditions, say);
    what they emit goes through the triggers again, within the same cascade bound.
    """

    name: str
    actions: tuple[type[ActionBase], ...] = ()
    triggers: tuple[Trigger, ...] = ()
    resumers: Mapping[str, Resumer] = field(default_factory=dict)
    settlers: tuple[Settler, ...] = ()
    queries: tuple[type[QueryBase], ...] = ()
