"""The `engagement` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from ..registry_types import Subsystem
from .actions import DECLARATIONS
from .checks import melee_dice, skill_bonus
from .gm import GM_ACTIONS
from .model import TURN
from .refusals import CODES
from .relation import HANDOVER_RESUME, resume_handover
from .results import RESULTS
from .turns import TURN_ACTIONS, settle

__all__ = ["SUBSYSTEM", "melee_dice", "skill_bonus"]

SUBSYSTEM = Subsystem(
    name="engagement",
    actions=(*TURN_ACTIONS, *DECLARATIONS, *GM_ACTIONS),
    resumers={HANDOVER_RESUME: resume_handover},
    settlers=(settle,),
    phases=TURN,
    refusals=CODES,
    results=RESULTS,
)
