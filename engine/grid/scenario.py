"""The `grid:` part of a scenario: settings, the map's obstacles and off-map area, the
characters (table pieces with a side), event spots and timed events."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..combatants import CombatantSpec, repeated_ids
from ..table import Cell, TableScenario
from .model import Area, GridSettings, GridState, Spot, TimedEvent

__all__ = ["CombatantSpec", "GridScenario"]


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
        problem = repeated_ids(self.combatants, ("spots", [s.id for s in self.spots]),
                               ("events", [e.id for e in self.events]))
        if problem:
            raise ValueError(problem)
        return self

    def build(self, table: TableScenario | None = None) -> GridState:
        """The state: combatants hidden exactly when their piece is; an enemy's data
        published when the settings say so (unless its spec says otherwise)."""
        pieces: dict[str, Any] = {p.id: p for p in table.pieces} if table is not None else {}
        cells = {(c.x, c.y): c for c in self.obstacles}
        for wall in self.walls:
            for x, y in wall.squares():
                cells.setdefault((x, y), Cell(x=x, y=y))
        publish = self.settings.publish_enemy_data
        return GridState(
            settings=self.settings,
            obstacles=sorted(cells.values(), key=lambda c: (c.y, c.x)),
            off_map=self.off_map,
            spots={s.id: s for s in self.spots},
            events={e.id: e for e in self.events},
            combatants={c.id: c.build(pieces, published=publish and c.side == "enemy")
                        for c in self.combatants},
        )
