"""The `tower_defense` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from typing import Any

from ..registry_types import RoundMark, Subsystem, counted
from .actions import ACTIONS
from .model import ROUND
from .phases import SAN_RESUME, resume_san
from .refusals import CODES
from .results import RESULTS
from .rules import settle_outcome

__all__ = ["SUBSYSTEM"]


def round_of(part: Any) -> RoundMark | None:
    """The round the part is in (a replay's chapters)."""
    return counted(part.round, "ラウンド", "Round")

SUBSYSTEM = Subsystem(
    name="tower_defense",
    actions=ACTIONS,
    resumers={SAN_RESUME: resume_san},
    settlers=(settle_outcome,),
    phases=ROUND,
    refusals=CODES,
    results=RESULTS,
    round_of=round_of,
)
