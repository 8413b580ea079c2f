"""The whole state of a room: its own parts (room.py) and one field per subsystem."""

from __future__ import annotations

from pydantic import Field

from .bases import BasesState
from .engagement import EngagementState
from .grid import GridState
from .mass import MassState
from .room import Enforcement, PlayerInfo, PlayerRolls, RoomBase, RoomMeta
from .table import TableState
from .tower_defense import TowerDefenseState

__all__ = ["Enforcement", "PlayerInfo", "PlayerRolls", "RoomMeta", "RoomState"]


class RoomState(RoomBase):
    """Everything the engine knows about one room: its own parts plus each subsystem's."""

    table: TableState = Field(default_factory=TableState)
    tower_defense: TowerDefenseState | None = None
    bases: BasesState | None = None
    grid: GridState | None = None
    mass: MassState | None = None
    engagement: EngagementState | None = None
