"""The `mass` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from ..registry_types import Subsystem
from .actions import ACTIONS
from .flow import RESUMERS, NextStep, advance
from .model import TURN
from .prep import Pick, SetStrength
from .refusals import CODES
from .results import RESULTS
from .strategies import UseStrategy

__all__ = ["SUBSYSTEM"]

SUBSYSTEM = Subsystem(
    name="mass",
    actions=(NextStep, SetStrength, Pick, *ACTIONS, UseStrategy),
    resumers=RESUMERS,
    settlers=(advance,),
    phases=TURN,
    refusals=CODES,
    results=RESULTS,
)
