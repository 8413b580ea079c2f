"""Who plays a room: the roles a sender may have, its players, and the room's rules for
them. Plain types only, so a scenario is read without the kernel (`komasync scenario check`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .bounds import Id, Name
from .titles import shown
from .views import Entity

__all__ = ["ENFORCEMENT_WORDS", "PLAYER_ROLLS_WORDS", "UNCREDITED_WORDS", "Enforcement",
           "PlayerInfo", "PlayerRolls", "Role", "Uncredited"]

Role = Literal["gm", "player", "bridge", "observer"]
Enforcement = Literal["enforce", "warn", "off"]
ENFORCEMENT_WORDS = {"enforce": ("強制", "enforce"), "warn": ("警告のみ", "warn only"),
                     "off": ("なし", "off")}
#: Dice results a player types on the player page: refused (default) or allowed by the GM.
#: Results a bridge reads from the VTT's own dice output are always taken.
PlayerRolls = Literal["refuse", "allow"]
PLAYER_ROLLS_WORDS = {"refuse": ("受け付けない", "refuse"), "allow": ("受け付ける", "allow")}
#: What a VTT action nobody can be credited with (a bridge naming no player) may do:
#: `moves` (default) only move what no player owns, judged like the GM's drag; `gm_side`
#: also decide for the GM's side (for a VTT that credits every player's move).
Uncredited = Literal["moves", "gm_side"]
UNCREDITED_WORDS = {"moves": ("誰のものでもない駒の移動のみ", "moves of unowned pieces only"),
                    "gm_side": ("GM側の判断も", "also decide for the GM's side")}


class PlayerInfo(Entity):
    id: Id = Field(json_schema_extra=shown("ID", "id"))
    name: Name = Field(json_schema_extra=shown("名前", "name"))
