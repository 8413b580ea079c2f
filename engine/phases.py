"""Phase and step tables: a subsystem's turn as data (order, names, rule, who acts, next).

A subsystem declares its table once (`Subsystem.phases`); the engine walks it (what
comes after a phase, what a step allows) and the server sends every registered table to
the console with the room, so panels label and order phases from the same data instead
of keeping their own copies. Tables are public rules: every audience may see them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .bounds import Count

__all__ = ["Ends", "PhaseSpec", "PhaseTable", "Spend", "Who"]

#: Who acts in a phase: the GM, the players, everyone (players, and the GM for its
#: characters), the one whose turn it is, nobody but the engine (its automatic work), or
#: nobody at all (the war is over).
Who = Literal["gm", "players", "everyone", "acting", "engine", "nobody"]
#: What ends a phase: the GM's "next" command; the acting one (saying so, or acting in a
#: later step); the step ends by itself once spent (the acting one may end it earlier);
#: by itself once every unit has acted; never (the last).
Ends = Literal["gm", "actor", "spent", "all_acted", "never"]
#: What a step may be spent on (moving or an action; a board step is one or the other).
Spend = Literal["move", "action"]


class PhaseSpec(BaseModel):
    """One phase or step: its id (as the state holds it), names, rule and successor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    ja: str
    en: str
    rule: str
    acts: Who
    ends: Ends
    #: The phase after this one (None: the last, or the process ends).
    next: str | None = None
    #: Entered only when this condition holds (otherwise passed over to its `next`):
    #: a name the subsystem's engine code resolves, such as "flying" for a step only a
    #: flying character takes.
    when: str | None = None
    #: Squares the step may move on a board.
    allowance: Count | None = None
    spends: tuple[Spend, ...] = ()


class PhaseTable(BaseModel):
    """A subsystem's phases in order; `path` is where the state holds the current one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: tuple[str, ...] = Field(min_length=1)
    rule: str
    phases: tuple[PhaseSpec, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> PhaseTable:
        ids = self.ids()
        if len(set(ids)) != len(ids):
            raise ValueError(f"phase ids repeat: {ids}")
        dangling = [p.next for p in self.phases if p.next is not None and p.next not in ids]
        if dangling:
            raise ValueError(f"next names no phase: {dangling}")
        return self

    def ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.phases)

    def get(self, phase: str) -> PhaseSpec:
        """The phase `phase` (KeyError if the table has none)."""
        for p in self.phases:
            if p.id == phase:
                return p
        raise KeyError(phase)

    def next_of(self, phase: str) -> str | None:
        return self.get(phase).next

    def after(self, phase: str) -> tuple[PhaseSpec, ...]:
        """The phases listed after `phase`, in order."""
        return self.phases[self.ids().index(phase) + 1:]

    def names(self) -> dict[str, tuple[str, str]]:
        """Each phase's (ja, en) name: what log lines and refusals call it."""
        return {p.id: (p.ja, p.en) for p in self.phases}
