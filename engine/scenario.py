"""Scenario files (YAML): one document describing a room, validated with line numbers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

import yaml
from pydantic import BaseModel, Field, ValidationError

from .bases import BasesScenario
from .engagement import EngagementScenario
from .grid import GridScenario
from .rng import RngState
from .state import Enforcement, PlayerInfo, RoomMeta, RoomState
from .table import TableScenario
from .tower_defense import TowerDefenseScenario

__all__ = ["RoomSettings", "Scenario", "ScenarioError", "build_room", "load_scenario"]


class RoomSettings(BaseModel):
    """The `room:` part: name, enforcement, dice seed, and per-VTT settings (calibration)."""

    model_config = {"extra": "forbid"}

    name: str = "komasync"
    enforcement: Enforcement = "enforce"
    seed: str | None = None
    platforms: dict[str, dict[str, Any]] = Field(default_factory=dict)


class Scenario(BaseModel):
    """A whole scenario: room settings, players and each subsystem's part."""

    model_config = {"extra": "forbid"}

    room: RoomSettings = Field(default_factory=RoomSettings)
    players: list[PlayerInfo] = Field(default_factory=list)
    table: TableScenario = Field(default_factory=TableScenario)
    tower_defense: TowerDefenseScenario | None = None
    bases: BasesScenario | None = None
    grid: GridScenario | None = None
    engagement: EngagementScenario | None = None


@dataclass
class Problem:
    """One thing wrong in a scenario file, at a line."""

    file: str
    line: int | None
    where: str
    message: str

    def __str__(self) -> str:
        at = f"{self.file}:{self.line}" if self.line else self.file
        return f"{at}: {self.where}: {self.message}"


class ScenarioError(Exception):
    """A scenario file is not valid; `problems` say where and what."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


def _lines(node: yaml.Node, path: tuple[Any, ...], out: dict[tuple[Any, ...], int]) -> None:
    out[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out[(*path, key.value)] = key.start_mark.line + 1
            _lines(value, (*path, key.value), out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _lines(item, (*path, i), out)


def _line_of(lines: dict[tuple[Any, ...], int], loc: tuple[Any, ...]) -> int | None:
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None


def load_scenario(text: str, filename: str = "<scenario>") -> Scenario:
    """Parse and validate; raises ScenarioError naming file, line and what is wrong."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise ScenarioError([Problem(filename, line, "yaml", str(e).splitlines()[0])]) from None
    lines: dict[tuple[Any, ...], int] = {}
    if node is not None:
        _lines(node, (), lines)
    try:
        return Scenario.model_validate(data or {})
    except ValidationError as e:
        problems = [
            Problem(filename, _line_of(lines, tuple(err["loc"])),
                    ".".join(map(str, err["loc"])) or "(top)", err["msg"])
            for err in e.errors()
        ]
        raise ScenarioError(problems) from None


def load_scenario_file(path: str | FsPath) -> Scenario:
    p = FsPath(path)
    return load_scenario(p.read_text(encoding="utf-8"), str(p))


def build_room(scenario: Scenario, seed: str) -> RoomState:
    """The initial room state a scenario describes, with the room's dice seed."""
    return RoomState(
        meta=RoomMeta(name=scenario.room.name, enforcement=scenario.room.enforcement,
                      players={p.id: p for p in scenario.players},
                      platforms=scenario.room.platforms),
        rng=RngState(seed=scenario.room.seed or seed),
        table=scenario.table.build(),
        tower_defense=scenario.tower_defense.build() if scenario.tower_defense else None,
        bases=scenario.bases.build() if scenario.bases else None,
        grid=scenario.grid.build(scenario.table) if scenario.grid else None,
        engagement=scenario.engagement.build(scenario.table) if scenario.engagement else None,
    )
