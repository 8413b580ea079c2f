"""What every room has, whatever its subsystems: meta (players, settings), dice, prompts.

`RoomBase` is the part of the state the kernel (`tx`, `core`) reads; `state.RoomState`
adds one field per subsystem. Handlers reach their subsystem's part with `Tx.part`, so
nothing below the registry needs to know which subsystems a room can hold.
"""

from __future__ import annotations

from pydantic import Field

from .bounds import Id, Json, Name, Serial
from .players import (
    ENFORCEMENT_WORDS,
    PLAYER_ROLLS_WORDS,
    UNCREDITED_WORDS,
    Enforcement,
    PlayerInfo,
    PlayerRolls,
    Uncredited,
)
from .prompts import Prompt
from .rng import RngState
from .titles import shown
from .views import Entity

__all__ = ["Enforcement", "PlayerInfo", "PlayerRolls", "RoomBase", "RoomMeta", "Uncredited"]


class RoomMeta(Entity):
    """Room-wide settings: name, enforcement mode, typed dice results, what an uncredited
    VTT action may do, players, id sequence, platform settings.

    `platforms` holds each VTT's calibration and display settings (read by adapters).
    """

    name: Name = Field(default="", json_schema_extra=shown("ルーム名", "room name"))
    enforcement: Enforcement = Field(default="enforce", json_schema_extra=shown(
        "ルール強制", "rule enforcement", words=ENFORCEMENT_WORDS))
    player_rolls: PlayerRolls = Field(default="refuse", json_schema_extra=shown(
        "プレイヤーが入力したダイス結果", "dice results typed by players", words=PLAYER_ROLLS_WORDS))
    uncredited: Uncredited = Field(default="moves", json_schema_extra=shown(
        "誰のものでもないVTT操作", "uncredited VTT actions", words=UNCREDITED_WORDS))
    players: dict[Id, PlayerInfo] = Field(default_factory=dict, json_schema_extra=shown(
        "プレイヤー", "players"))
    seq: Serial = 0
    gm_seq: Serial | None = None
    """The sequence of ids only the GM sees (prompts to the GM, hidden things), so the
    public `seq` never counts them; None in rooms made before it (they keep drawing every
    id from `seq`, so their logs replay exactly)."""
    platforms: dict[Id, dict[Id, Json]] = Field(default_factory=dict, json_schema_extra=shown(
        "VTTごとの設定", "VTT settings"))

    __secret__ = frozenset({"gm_seq"})


class RoomBase(Entity):
    """The room's own parts; `rng` is never projected."""

    __secret__ = frozenset({"rng"})

    meta: RoomMeta = Field(default_factory=RoomMeta, json_schema_extra=shown(
        "ルーム設定", "room settings"))
    rng: RngState = Field(default_factory=RngState)
    prompts: dict[str, Prompt] = Field(default_factory=dict, json_schema_extra=shown(
        "問いかけ", "prompts"))
