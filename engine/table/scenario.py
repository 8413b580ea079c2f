"""The `table:` part of a scenario file: the grid and the pieces, counters, markers on it."""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ..titles import shown
from .model import Cell, Counter, Grid, Marker, Piece, TableState

__all__ = ["AROUND", "OnBoard", "Surroundings", "TableScenario", "off_board", "off_grid",
           "repeated", "square", "surroundings"]


@dataclass
class Surroundings:
    """What a part's checks may see of the rest of its file while it is validated: the
    player ids and the table (None: not written validly, or the part validated alone).
    engine/scenario_file.py `ScenarioRoom` fills it in as its fields are validated."""

    players: frozenset[str] | None = None
    table: TableScenario | None = None


AROUND: ContextVar[Surroundings | None] = ContextVar("scenario_around", default=None)


def surroundings() -> Surroundings:
    """The file around the part being validated (all None outside a whole scenario)."""
    return AROUND.get() or Surroundings()


class TableScenario(BaseModel):
    """The `table:` part of a scenario file."""

    model_config = ConfigDict(extra="forbid")

    grid: Grid = Field(default_factory=Grid, json_schema_extra=shown("盤面", "board"))
    pieces: list[Piece] = Field(default_factory=list, json_schema_extra=shown("駒", "pieces"))
    counters: list[Counter] = Field(default_factory=list, json_schema_extra=shown(
        "カウンター", "counters", about=("GP・耐久力などの数値", "named numbers: GP, 耐久力, clocks")))
    markers: list[Marker] = Field(default_factory=list, json_schema_extra=shown("マーカー", "markers"))

    @model_validator(mode="after")
    def _check(self) -> TableScenario:
        problems = [*_repeats(self), *_placement(self), *_counter_problems(self.counters)]
        players = surroundings().players
        if players is not None:
            problems += _owner_problems(self, players)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def build(self) -> TableState:
        return TableState(
            grid=self.grid,
            pieces={p.id: p for p in self.pieces},
            counters={c.id: c for c in self.counters},
            markers={m.id: m for m in self.markers},
        )


def square(cell: Cell) -> str:
    """A square as the messages write it: `x=3 y=4` (no bare numbers: a message's words
    point at the file's line, and a number would match any scalar of that value)."""
    return f"x={cell.x} y={cell.y}"


def off_grid(grid: Grid, cell: Cell, width: int = 1, height: int = 1) -> bool:
    """Whether a `width`×`height` block from `cell` leaves the grid (TABLE-MV-2)."""
    return not (0 <= cell.x and cell.x + width <= grid.width
                and 0 <= cell.y and cell.y + height <= grid.height)


def repeated(what: tuple[str, str], ids: Iterable[str]) -> list[str]:
    """A problem per id written twice in one list (`what`: its ja and en name)."""
    seen: list[str] = list(ids)
    return [f"{what[0]} {i} が重複しています / duplicate {what[1]} id {i}"
            for i in sorted({i for i in seen if seen.count(i) > 1})]


def off_board(cell: Cell, width: int = 1, height: int = 1) -> None:
    """TABLE-MV-2, for a square a part places (a field of a part, validated after the
    table): raises when the `width`×`height` block from it leaves the file's board."""
    table = surroundings().table
    if table is None or not off_grid(table.grid, cell, width, height):
        return
    g = table.grid
    block = f"（{width}×{height}）" if (width, height) != (1, 1) else ""
    block_en = f" ({width}×{height})" if (width, height) != (1, 1) else ""
    raise ValueError(f"{square(cell)}{block} は盤面 {g.width}×{g.height} の外です（TABLE-MV-2） / "
                     f"{square(cell)}{block_en} is outside the {g.width}×{g.height} board "
                     "(TABLE-MV-2)")


def _on_board(cell: Cell) -> Cell:
    off_board(cell)
    return cell


#: A square a part places, checked to lie on the file's board (its own line on error).
OnBoard = Annotated[Cell, AfterValidator(_on_board)]


def _repeats(t: TableScenario) -> list[str]:
    return [*repeated(("駒", "piece"), (p.id for p in t.pieces)),
            *repeated(("カウンター", "counter"), (c.id for c in t.counters)),
            *repeated(("マーカー", "marker"), (m.id for m in t.markers))]


def _placement(t: TableScenario) -> list[str]:
    """TABLE-MV-2: every square a piece or marker covers lies on the grid."""
    g = t.grid
    out = [f"駒 {p.id}: {square(p.cell)}{_size(p)} は盤面 {g.width}×{g.height} の外です"
           f"（TABLE-MV-2） / piece {p.id}: {square(p.cell)}{_size(p)} is outside the "
           f"{g.width}×{g.height} board (TABLE-MV-2)"
           for p in t.pieces if p.cell is not None and off_grid(g, p.cell, p.size, p.size)]
    out += [f"マーカー {m.id}: {square(m.cell)}（{m.width}×{m.height}）は盤面 {g.width}×{g.height}"
            f" の外にはみ出しています（TABLE-MV-2） / marker {m.id}: {square(m.cell)} "
            f"({m.width}×{m.height}) goes outside the {g.width}×{g.height} board (TABLE-MV-2)"
            for m in t.markers if off_grid(g, m.cell, m.width, m.height)]
    return out


def _size(p: Piece) -> str:
    return f" size={p.size}" if p.size > 1 else ""


def _counter_problems(counters: list[Counter]) -> list[str]:
    """A counter's value within its min and max; an owner for an owner-only counter."""
    out: list[str] = []
    for c in counters:
        if c.min is not None and c.max is not None and c.min > c.max:
            out.append(f"カウンター {c.id}: min が max より大きいです / counter {c.id}: min is "
                       "more than max")
        elif c.clamp(c.value) != c.value:
            out.append(f"カウンター {c.id}: value が min〜max の外です / counter {c.id}: value "
                       "is outside min..max")
        if c.visibility == "owner" and c.owner is None:
            out.append(f"カウンター {c.id}: visibility owner には owner が必要です / counter "
                       f"{c.id}: visibility owner needs an owner")
    return out


def _owner_problems(t: TableScenario, players: frozenset[str]) -> list[str]:
    """Every player a piece or counter names is one of the file's `players:`."""
    named = [("駒", "piece", p.id, o) for p in t.pieces
             for o in [*([p.owner] if p.owner else []), *p.movers]]
    named += [("カウンター", "counter", c.id, c.owner) for c in t.counters if c.owner]
    return [f"{ja} {i}: プレイヤー {o} は players にいません / {en} {i}: player {o} is not "
            "in players" for ja, en, i, o in named if o not in players]
