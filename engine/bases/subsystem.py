"""The `bases` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from ..registry_types import Subsystem, Trigger
from .actions import ACTIONS
from .blocks import REPORTABLE
from .effects import resume_choice
from .refusals import CODES
from .results import RESULTS
from .settle import settle
from .trigger import ADVANCE, on_happening

__all__ = ["SUBSYSTEM"]

TRIGGER_KINDS = frozenset({*REPORTABLE, "round.started", "round.ended", "battle.started",
                           "bases.state.changed", "bases.gp.changed", "bases.event.fired",
                           ADVANCE})

SUBSYSTEM = Subsystem(
    name="bases",
    actions=ACTIONS,
    triggers=(Trigger(on_happening, TRIGGER_KINDS),),
    resumers={"bases.choose": resume_choice},
    settlers=(settle,),
    refusals=CODES,
    results=RESULTS,
)
