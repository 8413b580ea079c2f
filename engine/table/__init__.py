"""Subsystem `table`: generic pieces, counters and markers on a square grid.

Useful on its own (any game's bookkeeping) and the surface every other subsystem's
table display is drawn on. Rule IDs here are komasync's own (TABLE-*), not the seeds'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import Cell, Counter, Grid, Marker, Piece, TableState
from .refusals import FOR_NOBODY
from .scenario import TableScenario

if TYPE_CHECKING:
    from .subsystem import SUBSYSTEM, AddCounter, MovePiece, mover_of, not_yours, table_of

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

# The declaration and its handlers load when first asked for (the registry, a handler
# of another package); a scenario or a state needs only the models above.
__getattr__ = lazy_names(__name__, ".subsystem", (
    "SUBSYSTEM",
    "AddCounter",
    "MovePiece",
    "mover_of",
    "not_yours",
    "table_of",
))
