"""The generic table's state: a square grid, pieces, counters and markers (TABLE-*)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import MAX_ITEMS, Id, Name, Number, Sentence
from ..views import Audience, Entity

__all__ = ["Cell", "Counter", "Grid", "Marker", "Piece", "TableState"]


class Cell(BaseModel):
    """A grid square, 0-based from the top-left."""

    model_config = ConfigDict(extra="forbid")

    x: Number
    y: Number


class Grid(BaseModel):
    model_config = ConfigDict(extra="forbid")

    width: StrictInt = Field(default=20, ge=1, le=500)
    height: StrictInt = Field(default=20, ge=1, le=500)


class Piece(Entity):
    """A piece on the board; `hidden` pieces are the GM's alone."""

    id: Id
    name: Name
    owner: Id | None = None
    cell: Cell | None = None
    size: StrictInt = Field(default=1, ge=1, le=20)
    hidden: StrictBool = False
    labels: dict[Id, Name] = Field(default_factory=dict, max_length=50)
    movers: list[Id] = Field(default_factory=list, max_length=MAX_ITEMS)
    color: Name | None = None

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class Counter(Entity):
    """A named number (GP, 耐久力, a clock); `visibility` says who may see it."""

    id: Id
    name: Name
    value: Number = 0
    min: Number | None = None
    max: Number | None = None
    visibility: Literal["all", "gm", "owner"] = "all"
    owner: Id | None = None

    def visible_to(self, audience: Audience) -> bool:
        if audience.is_gm or self.visibility == "all":
            return True
        return self.visibility == "owner" and audience.player == self.owner

    def clamp(self, value: int) -> int:
        if self.min is not None:
            value = max(self.min, value)
        if self.max is not None:
            value = min(self.max, value)
        return value


class Marker(Entity):
    """A text panel on the board (a trap, a zone, a note)."""

    id: Id
    text: Sentence
    cell: Cell
    width: StrictInt = Field(default=1, ge=1, le=500)
    height: StrictInt = Field(default=1, ge=1, le=500)
    hidden: StrictBool = False

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class TableState(Entity):
    grid: Grid = Field(default_factory=Grid)
    pieces: dict[str, Piece] = Field(default_factory=dict)
    counters: dict[str, Counter] = Field(default_factory=dict)
    markers: dict[str, Marker] = Field(default_factory=dict)
