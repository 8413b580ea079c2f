"""The `bases` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from typing import Any

from ..registry_types import RoundMark, Subsystem, Trigger, counted
from .actions import ACTIONS
from .blocks import REPORTABLE
from .effects import resume_choice
from .refusals import CODES
from .results import RESULTS
from .settle import settle
from .trigger import ADVANCE, on_happening

__all__ = ["SUBSYSTEM"]


def round_of(part: Any) -> RoundMark | None:
    """The round the part is in (a replay's chapters)."""
    return counted(part.round, "ラウンド", "Round")


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
    round_of=round_of,
)
