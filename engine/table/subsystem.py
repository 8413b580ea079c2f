"""The `table` subsystem's declaration: its actions, triggers, resumers, settlers and
tables, in one place (loaded on first use: see the package's docstring)."""

from __future__ import annotations

from ..registry_types import Subsystem
from .actions import ACTIONS, AddCounter, MovePiece, mover_of, not_yours, table_of
from .refusals import CODES

__all__ = ["SUBSYSTEM", "AddCounter", "MovePiece", "mover_of", "not_yours", "table_of"]

SUBSYSTEM = Subsystem(name="table", actions=ACTIONS, refusals=CODES)
