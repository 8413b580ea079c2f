"""Scenario files (YAML): one document describing a room, validated with line numbers
(scenario_file.py reads them), and the room state they build."""

from __future__ import annotations

from functools import cache
from pathlib import Path as FsPath
from typing import Any

from pydantic import Field

from .bases import BasesScenario
from .engagement import EngagementScenario
from .grid import GridScenario
from .mass import MassScenario
from .rng import RngState
from .room import RoomMeta
from .scenario_file import PARTS, RoomSettings, ScenarioError, ScenarioRoom, build_part, read_document
from .state import RoomState
from .titles import editor_schema, shown
from .tower_defense import TowerDefenseScenario

__all__ = ["RoomSettings", "Scenario", "ScenarioError", "build_room", "load_scenario",
           "load_scenario_file", "scenario_schema"]


class Scenario(ScenarioRoom):
    """A whole scenario: room settings, players, the table and each subsystem's part
    (one field per entry of scenario_file.PARTS)."""

    tower_defense: TowerDefenseScenario | None = Field(default=None, json_schema_extra=shown(
        "タワーディフェンス", "tower defense"))
    bases: BasesScenario | None = Field(default=None, json_schema_extra=shown(
        "拠点戦闘", "base battle"))
    grid: GridScenario | None = Field(default=None, json_schema_extra=shown(
        "シームレス戦闘", "seamless grid combat"))
    mass: MassScenario | None = Field(default=None, json_schema_extra=shown(
        "マスコンバット", "mass combat"))
    engagement: EngagementScenario | None = Field(default=None, json_schema_extra=shown(
        "近接と接近状態", "engagement"))


@cache
def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file, titled for the scenario editor's forms
    (`komasync schema --scenario`, GET /api/scenario/schema). Shared: do not change it."""
    schema = editor_schema(Scenario.model_json_schema())
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "komasync scenario"
    return schema


def load_scenario(text: str, filename: str = "<scenario>") -> Scenario:
    """Parse and validate; raises ScenarioError naming file, line and what is wrong."""
    return read_document(text, lambda _: Scenario, filename)


def load_scenario_file(path: str | FsPath) -> Scenario:
    p = FsPath(path)
    return load_scenario(p.read_text(encoding="utf-8"), str(p))


def build_room(scenario: Scenario, seed: str) -> RoomState:
    """The initial room state a scenario describes, with the room's dice seed."""
    parts = {name: getattr(scenario, name) for name in ("table", *PARTS)}
    return RoomState(
        meta=RoomMeta(name=scenario.room.name, enforcement=scenario.room.enforcement,
                      player_rolls=scenario.room.player_rolls,
                      players={p.id: p for p in scenario.players},
                      platforms=scenario.room.platforms, gm_seq=0),
        rng=RngState(seed=scenario.room.seed or seed),
        **{name: build_part(part, scenario.table) for name, part in parts.items()},
    )
