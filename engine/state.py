"""The whole state of a room: meta, dice, prompts, and one part per subsystem."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .bases import BasesState
from .mass import MassState
from .prompts import Prompt
from .rng import RngState
from .table import TableState
from .tower_defense import TowerDefenseState
from .views import Entity

__all__ = ["Enforcement", "PlayerInfo", "RoomMeta", "RoomState"]

Enforcement = Literal["enforce", "warn", "off"]


class PlayerInfo(Entity):
    id: str
    name: str


class RoomMeta(Entity):
    """Room-wide settings: name, enforcement mode, players, id sequence, platform settings.

    `platforms` holds each VTT's calibration and display settings (read by adapters).
    """

    name: str = ""
    enforcement: Enforcement = "enforce"
    players: dict[str, PlayerInfo] = Field(default_factory=dict)
    seq: int = 0
    platforms: dict[str, dict[str, Any]] = Field(default_factory=dict)


class RoomState(Entity):
    """Everything the engine knows about one room; `rng` is never projected."""

    __secret__ = frozenset({"rng"})

    meta: RoomMeta = Field(default_factory=RoomMeta)
    rng: RngState = Field(default_factory=RngState)
    prompts: dict[str, Prompt] = Field(default_factory=dict)
    table: TableState = Field(default_factory=TableState)
    tower_defense: TowerDefenseState | None = None
    bases: BasesState | None = None
    mass: MassState | None = None
