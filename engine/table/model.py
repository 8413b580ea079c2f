"""The generic table's state: a square grid, pieces, counters and markers (TABLE-*)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import MAX_ITEMS, Id, Name, Number, Sentence
from ..titles import shown
from ..views import Audience, Entity

__all__ = ["VISIBILITY_WORDS", "Cell", "Counter", "Grid", "Marker", "Piece", "TableState"]

#: Who sees a counter, in the table's words.
VISIBILITY_WORDS = {"all": ("全員", "everyone"), "gm": ("GMのみ", "GM only"),
                    "owner": ("持ち主とGM", "owner and GM")}


class Cell(BaseModel):
    """A grid square, 0-based from the top-left."""

    model_config = ConfigDict(extra="forbid")

    x: Number = Field(json_schema_extra=shown("横", "x"))
    y: Number = Field(json_schema_extra=shown("縦", "y"))


class Grid(BaseModel):
    model_config = ConfigDict(extra="forbid")

    width: StrictInt = Field(default=20, ge=1, le=500, json_schema_extra=shown("幅", "width"))
    height: StrictInt = Field(default=20, ge=1, le=500, json_schema_extra=shown("高さ", "height"))


class Piece(Entity):
    """A piece on the board; `hidden` pieces are the GM's alone."""

    id: Id = Field(json_schema_extra=shown("ID", "id"))
    name: Name = Field(json_schema_extra=shown("名前", "name"))
    owner: Id | None = Field(default=None, json_schema_extra=shown(
        "持ち主", "owner", ids=("meta", "players")))
    cell: Cell | None = Field(default=None, json_schema_extra=shown("マス", "square"))
    size: StrictInt = Field(default=1, ge=1, le=20, json_schema_extra=shown("大きさ", "size"))
    hidden: StrictBool = Field(default=False, json_schema_extra=shown("GMのみ", "GM only"))
    labels: dict[Id, Name] = Field(default_factory=dict, max_length=50, json_schema_extra=shown(
        "ラベル", "labels"))
    movers: list[Id] = Field(default_factory=list, max_length=MAX_ITEMS, json_schema_extra=shown(
        "動かせるプレイヤー", "players who may move it", ids=("meta", "players")))
    color: Name | None = Field(default=None, json_schema_extra=shown("色", "colour"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class Counter(Entity):
    """A named number (GP, 耐久力, a clock); `visibility` says who may see it."""

    id: Id = Field(json_schema_extra=shown("ID", "id"))
    name: Name = Field(json_schema_extra=shown("名前", "name"))
    value: Number = Field(default=0, json_schema_extra=shown("値", "value"))
    min: Number | None = Field(default=None, json_schema_extra=shown("最小値", "minimum"))
    max: Number | None = Field(default=None, json_schema_extra=shown("最大値", "maximum"))
    visibility: Literal["all", "gm", "owner"] = Field(default="all", json_schema_extra=shown(
        "公開範囲", "visible to", words=VISIBILITY_WORDS))
    owner: Id | None = Field(default=None, json_schema_extra=shown(
        "持ち主", "owner", ids=("meta", "players")))

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

    id: Id = Field(json_schema_extra=shown("ID", "id"))
    text: Sentence = Field(json_schema_extra=shown("文章", "text"))
    cell: Cell = Field(json_schema_extra=shown("マス", "square"))
    width: StrictInt = Field(default=1, ge=1, le=500, json_schema_extra=shown("幅", "width"))
    height: StrictInt = Field(default=1, ge=1, le=500, json_schema_extra=shown("高さ", "height"))
    hidden: StrictBool = Field(default=False, json_schema_extra=shown("GMのみ", "GM only"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class TableState(Entity):
    grid: Grid = Field(default_factory=Grid, json_schema_extra=shown("グリッド", "grid"))
    pieces: dict[str, Piece] = Field(default_factory=dict, json_schema_extra=shown("駒", "pieces"))
    counters: dict[str, Counter] = Field(default_factory=dict, json_schema_extra=shown(
        "カウンター", "counters"))
    markers: dict[str, Marker] = Field(default_factory=dict, json_schema_extra=shown(
        "マーカー", "markers"))
