"""The `engagement` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from typing import Any

from ..registry_types import RoundMark, Subsystem, counted
from .actions import DECLARATIONS
from .checks import melee_dice, skill_bonus
from .gm import GM_ACTIONS
from .model import TURN
from .refusals import CODES
from .relation import HANDOVER_RESUME, resume_handover
from .results import RESULTS
from .turns import TURN_ACTIONS, settle

__all__ = ["SUBSYSTEM", "melee_dice", "skill_bonus"]


def round_of(part: Any) -> RoundMark | None:
    """The turn the part is in (a replay's chapters)."""
    return counted(part.turn, "ターン", "Turn")


SUBSYSTEM = Subsystem(
    name="engagement",
    actions=(*TURN_ACTIONS, *DECLARATIONS, *GM_ACTIONS),
    resumers={HANDOVER_RESUME: resume_handover},
    settlers=(settle,),
    phases=TURN,
    refusals=CODES,
    results=RESULTS,
    round_of=round_of,
)
