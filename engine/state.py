"""The whole state of a room: its own parts (room.py) and one field per subsystem."""

from __future__ import annotations

from pydantic import Field

from .bases import BasesState
from .engagement import EngagementState
from .grid import GridState
from .mass import MassState
from .room import Enforcement, PlayerInfo, PlayerRolls, RoomBase, RoomMeta
from .table import TableState
from .titles import shown
from .tower_defense import TowerDefenseState

__all__ = ["Enforcement", "PlayerInfo", "PlayerRolls", "RoomMeta", "RoomState"]


class RoomState(RoomBase):
    """Everything the engine knows about one room: its own parts plus each subsystem's."""

    table: TableState = Field(default_factory=TableState, json_schema_extra=shown("テーブル", "table"))
    tower_defense: TowerDefenseState | None = Field(default=None, json_schema_extra=shown(
        "タワーディフェンス", "tower defense"))
    bases: BasesState | None = Field(default=None, json_schema_extra=shown("拠点戦闘", "base battle"))
    grid: GridState | None = Field(default=None, json_schema_extra=shown(
        "シームレス戦闘", "seamless grid combat"))
    mass: MassState | None = Field(default=None, json_schema_extra=shown("マスコンバット", "mass combat"))
    engagement: EngagementState | None = Field(default=None, json_schema_extra=shown(
        "近接と接近状態", "engagement"))
