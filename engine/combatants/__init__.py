"""Combatants: the characters of a battle subsystem, shared by every subsystem that needs one.

A library package, not a subsystem: it declares no actions and is not in the registry.
A combatant is a table piece (`table.pieces[piece]`, where its square lives) with battle
data attached — its side, statuses with their durations, the table counters that hold its
HP-like numbers, its row (front/back) and the data the GM may publish about it. Grid
combat (seed 001) keeps its combatants in `state.grid.combatants`; engagement (seed 004)
can keep its own in its own part of the state with the same model and the same helpers,
without either subsystem importing the other. A scenario lists them as
`CombatantSpec`s. Docs: docs/grid.md, "Combatants".
"""

from __future__ import annotations

from .model import (
    DURATIONS,
    MAX_ANY_SEVEN,
    MAX_DATA,
    STATUS_NAMES,
    Combatant,
    Duration,
    Row,
    Side,
    Status,
    StatusKind,
)
from .ops import (
    add_status,
    adjust_counter,
    cell_of,
    controlled_by,
    expire_statuses,
    has_status,
    is_down,
    piece_name,
    remove_status,
    status_of,
    sync_hidden,
)
from .spec import CombatantSpec, repeated_ids, table_problems

__all__ = [
    "DURATIONS",
    "MAX_ANY_SEVEN",
    "MAX_DATA",
    "STATUS_NAMES",
    "Combatant",
    "CombatantSpec",
    "Duration",
    "Row",
    "Side",
    "Status",
    "StatusKind",
    "add_status",
    "adjust_counter",
    "cell_of",
    "controlled_by",
    "expire_statuses",
    "has_status",
    "is_down",
    "piece_name",
    "remove_status",
    "repeated_ids",
    "status_of",
    "sync_hidden",
    "table_problems",
]
