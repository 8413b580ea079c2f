"""The `grid` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from ..registry_types import Subsystem, Trigger
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
)
