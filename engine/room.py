"""What every room has, whatever its subsystems: meta (players, settings), dice, prompts.

`RoomBase` is the part of the state the kernel (`tx`, `core`) reads; `state.RoomState`
adds one field per subsystem. Handlers reach their subsystem's part with `Tx.part`, so
nothing below the registry needs to know which subsystems a room can hold.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .prompts import Prompt
from .rng import RngState
from .views import Entity

__all__ = ["Enforcement", "PlayerInfo", "RoomBase", "RoomMeta"]

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


class RoomBase(Entity):
    """The room's own parts; `rng` is never projected."""

    __secret__ = frozenset({"rng"})

    meta: RoomMeta = Field(default_factory=RoomMeta)
    rng: RngState = Field(default_factory=RngState)
    prompts: dict[str, Prompt] = Field(default_factory=dict)
