"""The `table:` part of a scenario file: the grid and the pieces, counters, markers on it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .model import Counter, Grid, Marker, Piece, TableState

__all__ = ["TableScenario"]


class TableScenario(BaseModel):
    """The `table:` part of a scenario file."""

    model_config = ConfigDict(extra="forbid")

    grid: Grid = Field(default_factory=Grid)
    pieces: list[Piece] = Field(default_factory=list)
    counters: list[Counter] = Field(default_factory=list)
    markers: list[Marker] = Field(default_factory=list)

    def build(self) -> TableState:
        return TableState(
            grid=self.grid,
            pieces={p.id: p for p in self.pieces},
            counters={c.id: c for c in self.counters},
            markers={m.id: m for m in self.markers},
        )
