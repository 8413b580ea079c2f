"""The `grid` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from typing import Any

from ..registry_types import RoundMark, Subsystem, Trigger, counted
from .actions import ACTIONS, HINDER_RESUME, judge_table_move, resume_hindrance
from .acts import Act
from .gm import CHECK_RESUME, GM_ACTIONS, resume_check_range
from .model import PROCESS
from .queries import GRID_QUERIES, legal_destinations
from .refusals import CODES
from .results import RESULTS
from .rounds import settle_grid
from .skills import SKILL_ACTIONS

__all__ = ["SUBSYSTEM", "legal_destinations"]


def round_of(part: Any) -> RoundMark | None:
    """The round the part is in (a replay's chapters)."""
    return counted(part.round, "ラウンド", "Round")


SUBSYSTEM = Subsystem(
    name="grid",
    actions=(*ACTIONS, Act, *SKILL_ACTIONS, *GM_ACTIONS),
    triggers=(Trigger(judge_table_move, frozenset({"piece.moved"})),),
    resumers={HINDER_RESUME: resume_hindrance, CHECK_RESUME: resume_check_range},
    settlers=(settle_grid,),
    queries=GRID_QUERIES,
    phases=PROCESS,
    refusals=CODES,
    results=RESULTS,
    round_of=round_of,
)
