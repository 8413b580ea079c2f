"""Subsystem `table`: generic pieces, counters and markers on a square grid.

Useful on its own (any game's bookkeeping) and the surface every other subsystem's
table display is drawn on. Rule IDs here are komasync's own (TABLE-*), not the seeds'.
"""

from __future__ import annotations

from ..registry_types import Subsystem
from .actions import ACTIONS, AddCounter, MovePiece, mover_of, not_yours, table_of
from .model import Cell, Counter, Grid, Marker, Piece, TableState
from .refusals import CODES, FOR_NOBODY
from .scenario import TableScenario

__all__ = [
    "FOR_NOBODY",
    "SUBSYSTEM",
    "AddCounter",
    "Cell",
    "Counter",
    "Grid",
    "Marker",
    "MovePiece",
    "Piece",
    "TableScenario",
    "TableState",
    "mover_of",
    "not_yours",
    "table_of",
]

SUBSYSTEM = Subsystem(name="table", actions=ACTIONS, refusals=CODES)
