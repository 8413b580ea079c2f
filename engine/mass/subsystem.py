"""The `mass` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from typing import Any

from ..registry_types import RoundMark, Subsystem, counted
from .actions import ACTIONS
from .flow import RESUMERS, NextStep, advance
from .model import TURN
from .prep import Pick, SetStrength
from .refusals import CODES
from .results import RESULTS
from .strategies import UseStrategy

__all__ = ["SUBSYSTEM"]


def round_of(part: Any) -> RoundMark | None:
    """The turn the part is in (a replay's chapters)."""
    return counted(part.turn, "ターン", "Turn")

SUBSYSTEM = Subsystem(
    name="mass",
    actions=(NextStep, SetStrength, Pick, *ACTIONS, UseStrategy),
    resumers=RESUMERS,
    settlers=(advance,),
    phases=TURN,
    refusals=CODES,
    results=RESULTS,
    round_of=round_of,
)
