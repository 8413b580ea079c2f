"""The subsystems a table shows, in render order: the one list of them in adapters/.

Each module declares one `objects.TableSubsystem` (render, board, moves, chat, legal).
Adding a subsystem: its module here and one entry below.
"""

from __future__ import annotations

from ..objects import TableSubsystem
from . import bases, engagement, grid, mass, table, tower_defense

__all__ = ["SUBSYSTEMS"]

SUBSYSTEMS: tuple[TableSubsystem, ...] = (
    table.SUBSYSTEM,
    tower_defense.SUBSYSTEM,
    bases.SUBSYSTEM,
    grid.SUBSYSTEM,
    mass.SUBSYSTEM,
    engagement.SUBSYSTEM,
)
