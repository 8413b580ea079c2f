"""The `grid:` part of a scenario: settings, the map's obstacles and off-map area, the
characters (table pieces with a side), event spots and timed events."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from ..combatants import CombatantSpec, repeated_ids, table_problems
from ..table import Cell, TableScenario
from ..table.scenario import OnBoard, off_board, square, surroundings
from ..titles import shown
from .model import Area, GridSettings, GridState, Spot, TimedEvent

__all__ = ["CombatantSpec", "GridScenario"]


def _area_on_board(area: Area) -> Area:
    off_board(area.cell, area.width, area.height)
    return area


#: A rectangle on the file's board (TABLE-MV-2).
AreaOnBoard = Annotated[Area, AfterValidator(_area_on_board)]


class SpotSpec(Spot):
    """An event spot, on the board (TABLE-MV-2)."""

    cell: OnBoard = Field(json_schema_extra=shown("マス", "square"))


class GridScenario(BaseModel):
    """`grid:` in a scenario file (docs/grid.md)."""

    model_config = ConfigDict(extra="forbid")

    settings: GridSettings = Field(default_factory=GridSettings, json_schema_extra=shown(
        "設定", "settings"))
    obstacles: list[OnBoard] = Field(default_factory=list, json_schema_extra=shown(
        "障害物", "obstacles", cells="area"))
    #: Rectangles of obstacles, for walls: `{cell: {x, y}, width, height}`.
    walls: list[AreaOnBoard] = Field(default_factory=list, json_schema_extra=shown(
        "壁", "walls", about=("障害物の長方形", "rectangles of obstacles")))
    off_map: AreaOnBoard | None = Field(default=None, json_schema_extra=shown(
        "マップ外", "off the map", about=("盤面の上でマップの外として扱う長方形",
                                      "a rectangle of the board that counts as off the map")))
    combatants: list[CombatantSpec] = Field(default_factory=list, json_schema_extra=shown(
        "キャラクター", "characters"))
    spots: list[SpotSpec] = Field(default_factory=list, json_schema_extra=shown(
        "地点", "spots"))
    events: list[TimedEvent] = Field(default_factory=list, json_schema_extra=shown(
        "イベント", "events"))

    @model_validator(mode="after")
    def _unique(self) -> GridScenario:
        problem = repeated_ids(self.combatants, ("spots", [s.id for s in self.spots]),
                               ("events", [e.id for e in self.events]))
        if problem:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _on_the_table(self) -> GridScenario:
        """Against the file's table: every piece and counter a character names is there,
        and nobody stands where GRID-MV-3 forbids (the map's squares: `OnBoard`)."""
        table = surroundings().table
        if table is None:
            return self
        problems = [*table_problems(self.combatants, table, "GRID-RND-1"),
                    *_standing(self, table)]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def blocked(self) -> set[tuple[int, int]]:
        """The obstacle squares, walls included."""
        return {(c.x, c.y) for c in self.obstacles} | {sq for w in self.walls for sq in w.squares()}

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
            spots={s.id: Spot.model_validate(s.model_dump()) for s in self.spots},
            events={e.id: e for e in self.events},
            combatants={c.id: c.build(pieces, published=publish and c.side == "enemy")
                        for c in self.combatants},
        )


def _standing(g: GridScenario, table: TableScenario) -> list[str]:
    """GRID-MV-3: no character on an obstacle, none on an enemy's square."""
    cells = {p.id: p.cell for p in table.pieces if p.cell is not None}
    blocked = g.blocked()
    out: list[str] = []
    first: dict[tuple[int, int], CombatantSpec] = {}
    for c in g.combatants:
        cell = cells.get(c.piece or c.id)
        if cell is None:
            continue
        at = (cell.x, cell.y)
        if at in blocked:
            out.append(f"戦闘者 {c.id}: {square(cell)} は障害物です。障害物には立てません（GRID-MV-3） / "
                       f"combatant {c.id}: {square(cell)} is an obstacle, where nobody may "
                       "stand (GRID-MV-3)")
        other = first.setdefault(at, c)
        if other is not c and _enemies(other, c):
            out.append(f"戦闘者 {other.id} と {c.id}: 敵どうしが同じマス {square(cell)} にいます"
                       f"（GRID-MV-3） / combatants {other.id} and {c.id}: enemies share the "
                       f"square {square(cell)} (GRID-MV-3)")
    return out


def _enemies(a: CombatantSpec, b: CombatantSpec) -> bool:
    """PC against enemy, both still standing (an incapacitated piece may be shared)."""
    down = {"incapacitated", "dead"}
    standing = not any(s.kind in down for s in (*a.statuses, *b.statuses))
    return {a.side, b.side} == {"pc", "enemy"} and standing
