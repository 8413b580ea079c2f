"""The `grid:` part of a scenario: settings, the map's obstacles and off-map area, the
characters (table pieces with a side), event spots and timed events."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..bounds import Id, Number
from ..combatants import Combatant, Row, Side, Status
from ..table import Cell, TableScenario
from .model import Area, GridSettings, GridState, Spot, TimedEvent

__all__ = ["CombatantSpec", "GridScenario"]


class CombatantSpec(BaseModel):
    """A character: the table piece it is (`piece`, default: the same id) and its side."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64, pattern=r"^[\w\-.]+$")
    piece: Id | None = None
    side: Side
    counters: dict[Id, Id] = Field(default_factory=dict, max_length=50)
    statuses: list[Status] = Field(default_factory=list)
    row: Row | None = None
    profile: dict[Id, Number] = Field(default_factory=dict, max_length=50)
    any_seven: dict[Id, Number] = Field(default_factory=dict, max_length=20)


class GridScenario(BaseModel):
    """`grid:` in a scenario file (docs/grid.md)."""

    model_config = ConfigDict(extra="forbid")

    settings: GridSettings = Field(default_factory=GridSettings)
    obstacles: list[Cell] = Field(default_factory=list)
    #: Rectangles of obstacles, for walls: `{cell: {x, y}, width, height}`.
    walls: list[Area] = Field(default_factory=list)
    off_map: Area | None = None
    combatants: list[CombatantSpec] = Field(default_factory=list)
    spots: list[Spot] = Field(default_factory=list)
    events: list[TimedEvent] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> GridScenario:
        for what, ids in (("combatants", [c.id for c in self.combatants]),
                          ("pieces", [c.piece or c.id for c in self.combatants]),
                          ("spots", [s.id for s in self.spots]),
                          ("events", [e.id for e in self.events])):
            twice = sorted({i for i in ids if ids.count(i) > 1})
            if twice:
                raise ValueError(f"{what} used twice: {', '.join(twice)}")
        return self

    def build(self, table: TableScenario | None = None) -> GridState:
        """The state: combatants hidden exactly when their piece is."""
        pieces: dict[str, Any] = {p.id: p for p in table.pieces} if table is not None else {}
        cells = {(c.x, c.y): c for c in self.obstacles}
        for wall in self.walls:
            for x, y in wall.squares():
                cells.setdefault((x, y), Cell(x=x, y=y))
        combatants = {}
        for spec in self.combatants:
            piece_id = spec.piece or spec.id
            piece = pieces.get(piece_id)
            combatants[spec.id] = Combatant(
                id=spec.id, piece=piece_id, side=spec.side, counters=spec.counters,
                statuses={s.id: s for s in spec.statuses}, row=spec.row, profile=spec.profile,
                any_seven=spec.any_seven, hidden=bool(piece is not None and piece.hidden),
                published=self.settings.publish_enemy_data and spec.side == "enemy")
        return GridState(
            settings=self.settings,
            obstacles=sorted(cells.values(), key=lambda c: (c.y, c.x)),
            off_map=self.off_map,
            spots={s.id: s for s in self.spots},
            events={e.id: e for e in self.events},
            combatants=combatants,
        )
