"""What every room has, whatever its subsystems: meta (players, settings), dice, prompts.

`RoomBase` is the part of the state the kernel (`tx`, `core`) reads; `state.RoomState`
adds one field per subsystem. Handlers reach their subsystem's part with `Tx.part`, so
nothing below the registry needs to know which subsystems a room can hold.
"""

from __future__ import annotations

from pydantic import Field

from .bounds import Id, Json, Name, Serial
from .players import Enforcement, PlayerInfo, PlayerRolls, Uncredited
from .prompts import Prompt
from .rng import RngState
from .views import Entity

__all__ = ["Enforcement", "PlayerInfo", "PlayerRolls", "RoomBase", "RoomMeta", "Uncredited"]


class RoomMeta(Entity):
    """Room-wide settings: name, enforcement mode, typed dice results, what an uncredited
    VTT action may do, players, id sequence, platform settings.

    `platforms` holds each VTT's calibration and display settings (read by adapters).
    """

    name: Name = ""
    enforcement: Enforcement = "enforce"
    player_rolls: PlayerRolls = "refuse"
    uncredited: Uncredited = "moves"
    players: dict[Id, PlayerInfo] = Field(default_factory=dict)
    seq: Serial = 0
    gm_seq: Serial | None = None
    """The sequence of ids only the GM sees (prompts to the GM, hidden things), so the
    public `seq` never counts them; None in rooms made before it (they keep drawing every
    id from `seq`, so their logs replay exactly)."""
    platforms: dict[Id, dict[Id, Json]] = Field(default_factory=dict)

    __secret__ = frozenset({"gm_seq"})


class RoomBase(Entity):
    """The room's own parts; `rng` is never projected."""

    __secret__ = frozenset({"rng"})

    meta: RoomMeta = Field(default_factory=RoomMeta)
    rng: RngState = Field(default_factory=RngState)
    prompts: dict[str, Prompt] = Field(default_factory=dict)
