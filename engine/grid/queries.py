"""Questions about the grid that change nothing: squares in range, areas, sight,
[独妙閃光], and where a piece may legally go right now with what it costs.

The pure functions take the grid and table states (or a projection of them: hidden
pieces are not in the scene, so the GM's and the table's answers agree). The query
models wrap them for the protocol (`{"type":"query"}`, docs/protocol.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import Id
from ..combatants import Combatant
from ..errors import Text
from ..queries import QueryBase
from ..table import Cell, TableState
from ..views import Audience
from .geometry import Sq, area, flash_lines, flash_squares, range_rows, sight_clear
from .model import GridState, Process, Spent, Step
from .movement import reach
from .process import bins
from .refusals import (
    BAD_QUERY,
    NO_GRID,
    NOT_ACTIVE,
    NOT_IN_PROCESS,
    NOT_ON_MAP,
    UNKNOWN_CHARACTER,
    WAITING_HINDRANCE,
)
from .rules import as_cell, board_for, cell, in_scene

__all__ = ["GRID_QUERIES", "AreaAnswer", "FlashAnswer", "Legal", "LegalAnswer",
           "RangeAnswer", "SightAnswer", "legal_destinations", "legal_why_not"]

NO_MOVE = Text("このマスには今は移動できません（ムーブ1・マイナー2・メジャー2、"
               "斜めは2マス、敵と障害物は通過不可）。",
               "It cannot move there now (move 1, minor 2, major 2; a diagonal costs 2; "
               "enemies and obstacles cannot be passed).")


@dataclass(frozen=True, slots=True)
class Legal:
    """A legal destination: the path's cost and the steps it spends."""

    cost: int
    steps: tuple[Step, ...]


def legal_why_not(g: GridState, t: TableState, cid: str) -> Text | None:
    """Why the character cannot move at all right now (None: it may, somewhere)."""
    c = g.combatants.get(cid)
    if not g.active:
        return NOT_ACTIVE.text
    p = g.process
    if c is None or p is None or p.combatant != cid or cell(t, c) is None:
        return NOT_IN_PROCESS.text.format(n=cid[:64])
    if p.waiting is not None:
        return WAITING_HINDRANCE.text
    return None


def legal_destinations(g: GridState, t: TableState, cid: str) -> dict[Sq, Legal]:
    """Every square `grid.move` would accept for the character now (enforce mode), with
    the cost and the steps spent; empty when it may not move."""
    if legal_why_not(g, t, cid) is not None:
        return {}
    c, p = g.combatants[cid], g.process
    assert p is not None
    start = cell(t, c)
    assert start is not None
    caps = bins(g, c, p)
    lock = (p.direction.x, p.direction.y) if p.direction is not None else None
    found = reach(board_for(g, t, c), start, [cap for _s, cap in caps], lock)
    out: dict[Sq, Legal] = {}
    for sq, r in found.items():
        out[sq] = Legal(r.cost, _steps(found, sq, caps, start))
    return out


def _steps(found: dict[Sq, Any], sq: Sq, caps: list[tuple[Step, int]], start: Sq
           ) -> tuple[Step, ...]:
    used: list[Step] = []
    while sq != start:
        step = caps[found[sq].bin][0]
        if not used or used[-1] != step:
            used.append(step)
        prev = found[sq].prev
        if prev is None:
            break
        sq = prev
    return tuple(reversed(used))


# -- the protocol's query models ----------------------------------------------------------


def _grid(state: Any) -> tuple[GridState, TableState]:
    g, t = getattr(state, "grid", None), getattr(state, "table", None)
    if not isinstance(g, GridState) or not isinstance(t, TableState):
        raise NO_GRID.refuse()
    return g, t


def _visible(g: GridState, cid: str, audience: Audience) -> Combatant:
    c = g.combatants.get(cid)
    if c is None or not c.visible_to(audience):
        raise UNKNOWN_CHARACTER.missing(cid)
    return c


def _origin(g: GridState, t: TableState, frm: Cell | None, cid: str | None,
            audience: Audience) -> Sq:
    if frm is not None:
        return frm.x, frm.y
    if cid is None:
        raise BAD_QUERY.refuse()
    c = _visible(g, cid, audience)
    here = cell(t, c)
    if here is None or (not in_scene(t, c) and not audience.is_gm):
        raise NOT_ON_MAP.refuse(name=cid[:64])
    return here


def _cells(squares: list[Sq]) -> list[Cell]:
    return [Cell(x=x, y=y) for x, y in squares]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True,
                              serialize_by_alias=True)


def _dump(answer: _Answer) -> dict[str, Any]:
    return answer.model_dump(mode="json", by_alias=True)


class RangeAnswer(_Answer):
    """The squares within `range` of `from` (the range as counted, GRID-RNG-2's +1 in)."""

    kind: Literal["grid.range"] = "grid.range"
    frm: Cell = Field(alias="from")
    range: StrictInt
    squares: list[Cell]


class AreaAnswer(_Answer):
    """The squares of the area around `origin`."""

    kind: Literal["grid.area"] = "grid.area"
    origin: Cell
    squares: list[Cell]


class SightAnswer(_Answer):
    """Whether the line from `from` to `to` is clear of obstacles."""

    kind: Literal["grid.sight"] = "grid.sight"
    frm: Cell = Field(alias="from")
    to: Cell
    clear: StrictBool


class FlashAnswer(_Answer):
    """The [独妙閃光] squares around `from` and its lines (each from the user outwards)."""

    kind: Literal["grid.flash"] = "grid.flash"
    frm: Cell = Field(alias="from")
    squares: list[Cell]
    lines: list[list[Cell]]


class LegalSquare(_Answer):
    """A square `grid.move` would accept now: its path's cost and the steps it spends."""

    cell: Cell
    cost: StrictInt
    steps: list[Step]


class ProcessNow(_Answer):
    """The character's open process: current step, squares left in it, how steps went."""

    step: Step
    left: StrictInt
    spent: dict[str, Spent]


class WhyNot(_Answer):
    """Why no square is legal (or the general rule when some are)."""

    ja: str
    en: str


class LegalAnswer(_Answer):
    """Where the character may move now; `reason` says why not when `squares` is empty."""

    kind: Literal["grid.legal"] = "grid.legal"
    combatant: Id
    process: ProcessNow | None
    squares: list[LegalSquare]
    reason: WhyNot


class RangeQuery(QueryBase):
    """Squares within range N of a square or character (GRID-RNG-1, GRID-RNG-2)."""

    Answer: ClassVar[type[BaseModel] | None] = RangeAnswer
    kind: Literal["grid.range"] = "grid.range"
    frm: Cell | None = Field(default=None, alias="from")
    combatant: Id | None = None
    range: StrictInt = Field(ge=0, le=50)
    non_attack: StrictBool = False

    def answer(self, state: Any, audience: Audience) -> dict[str, Any]:
        g, t = _grid(state)
        at = _origin(g, t, self.frm, self.combatant, audience)
        rows = range_rows(at, self.range, t.grid.width, t.grid.height, self.non_attack)
        # each square made once, as the dict it is sent as (5,101 of them at range 50):
        # the RangeAnswer shape, built without a model per square
        return {"kind": self.kind, "from": {"x": at[0], "y": at[1]},
                "range": self.range + (1 if self.non_attack else 0),
                "squares": [{"x": x, "y": y} for y, x0, x1 in rows for x in range(x0, x1)]}


class AreaQuery(QueryBase):
    """The squares of 範囲 (3×3) or シーン (5×5) around an origin (GRID-AREA-1)."""

    Answer: ClassVar[type[BaseModel] | None] = AreaAnswer
    kind: Literal["grid.area"] = "grid.area"
    origin: Cell
    area: Literal["area", "scene"] = "area"

    def answer(self, state: Any, audience: Audience) -> dict[str, Any]:
        _g, t = _grid(state)
        squares = area((self.origin.x, self.origin.y), self.area, t.grid.width, t.grid.height)
        return _dump(AreaAnswer(origin=self.origin, squares=_cells(squares)))


class SightQuery(QueryBase):
    """Is the line between two squares' centres free of obstacles (GRID-LOS-1)? The one
    way to ask about sight; `grid.act` checks it with `range: "sight"`."""

    Answer: ClassVar[type[BaseModel] | None] = SightAnswer
    kind: Literal["grid.sight"] = "grid.sight"
    frm: Cell | None = Field(default=None, alias="from")
    combatant: Id | None = None
    to: Cell

    def answer(self, state: Any, audience: Audience) -> dict[str, Any]:
        g, t = _grid(state)
        at = _origin(g, t, self.frm, self.combatant, audience)
        obstacles = [(o.x, o.y) for o in g.obstacles]
        clear = sight_clear(at, (self.to.x, self.to.y), obstacles, g.settings.los_corners)
        return _dump(SightAnswer(frm=as_cell(at), to=self.to, clear=clear))


class FlashQuery(QueryBase):
    """The [独妙閃光] pattern around a square or character (GRID-SK-3)."""

    Answer: ClassVar[type[BaseModel] | None] = FlashAnswer
    kind: Literal["grid.flash"] = "grid.flash"
    frm: Cell | None = Field(default=None, alias="from")
    combatant: Id | None = None

    def answer(self, state: Any, audience: Audience) -> dict[str, Any]:
        g, t = _grid(state)
        at = _origin(g, t, self.frm, self.combatant, audience)
        w, h = t.grid.width, t.grid.height
        lines = flash_lines(at, w, h, g.settings.flash_line)
        return _dump(FlashAnswer(frm=as_cell(at), squares=_cells(flash_squares(at, w, h)),
                                 lines=[_cells(line) for line in lines]))


class LegalQuery(QueryBase):
    """Where a character may legally move right now, with each square's cost."""

    Answer: ClassVar[type[BaseModel] | None] = LegalAnswer
    kind: Literal["grid.legal"] = "grid.legal"
    combatant: Id

    def answer(self, state: Any, audience: Audience) -> dict[str, Any]:
        g, t = _grid(state)
        _visible(g, self.combatant, audience)
        legal = legal_destinations(g, t, self.combatant)
        reason = legal_why_not(g, t, self.combatant) or NO_MOVE
        # the LegalAnswer shape as dicts: a legal query runs on every drag of a piece
        squares = [{"cell": {"x": x, "y": y}, "cost": m.cost, "steps": list(m.steps)}
                   for (x, y), m in sorted(legal.items(), key=lambda i: (i[0][1], i[0][0]))]
        return {"kind": self.kind, "combatant": self.combatant,
                "process": _process(g.process, self.combatant), "squares": squares,
                "reason": {"ja": reason.ja, "en": reason.en}}


def _process(p: Process | None, cid: str) -> dict[str, Any] | None:
    if p is None or p.combatant != cid:
        return None
    return {"step": p.step, "left": p.left, "spent": dict(p.spent)}


GRID_QUERIES: tuple[type[QueryBase], ...] = (RangeQuery, AreaQuery, SightQuery, FlashQuery,
                                             LegalQuery)
