"""The drawing vocabulary: what a subsystem asks a platform to draw, in no platform's terms.

A subsystem's module (adapters/subsystems/) turns each of its table objects into a few
*drawings* — tokens, text markers, lines, dice symbols, painted areas — and the platform
adapters (ccfolia/, foundry/) draw each shape their own way without knowing which
subsystem asked, or what the thing is. What is only a subsystem's (its words, its
labels, its colours, which of its things are places and which are pieces) lives in its
module; how a token, marker or line looks on Ccfolia or Foundry lives in that
platform's adapter. docs/adapters.md,
"Drawings", says what each platform makes of each shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Required, TypedDict

from .geometry import AdapterSettings

__all__ = [
    "AREA",
    "DICE",
    "LINE",
    "MARKER",
    "TOKEN",
    "Area",
    "Bar",
    "Cell",
    "Dice",
    "DrawHook",
    "Drawing",
    "Line",
    "Marker",
    "Param",
    "Surface",
    "Token",
    "composed_title",
    "panel_text",
]

#: The `draw` value of each shape. A table object that carries `draw` is its own drawing.
TOKEN: Literal["token"] = "token"
MARKER: Literal["marker"] = "marker"
LINE: Literal["line"] = "line"
DICE: Literal["dice"] = "dice"
AREA: Literal["area"] = "area"

Cell = dict[str, int]


class Bar(TypedDict):
    """A value out of a maximum (Ccfolia: a status bar; Foundry: text and flags)."""

    label: str
    value: Any
    max: Any


class Param(TypedDict):
    """A labelled text (Ccfolia: a character param)."""

    label: str
    value: str


class Token(TypedDict, total=False):
    """A piece on a square. Ccfolia: a character (`name`, `bars` as status, `params`,
    `memo`, `color`, `commands` as its chat palette). Foundry: a Token named `title` (else
    the name, each bar `（label value/max）` and `［caption］`, the bars then also in
    `flags.komasync.bars`), with `disposition` (-1 hostile, 0 neutral, 1 friendly).
    `fixed`: a place, not a piece — Foundry draws it as a panel (a Drawing whose text is
    the name, each bar `label value/max` and the caption, one per line)."""

    draw: Required[Literal["token"]]
    name: Required[str]
    cell: Required[Cell]
    size: int
    bars: list[Bar]
    params: list[Param]
    memo: str
    color: str | None
    commands: str
    disposition: int
    title: str
    caption: str
    fixed: bool


class Marker(TypedDict, total=False):
    """A text panel over `width` × `height` squares from `cell` (Ccfolia: a marker panel,
    coloured only in the room ZIP; Foundry: a filled rectangle Drawing in `color`)."""

    draw: Required[Literal["marker"]]
    text: Required[str]
    cell: Required[Cell]
    width: int
    height: int
    color: str | None


#: A line from the centre of one square to another's, with a text. A platform without
#: lines (Ccfolia) shows the text as a marker panel on `cell`.
Line = TypedDict("Line", {
    "draw": Required[Literal["line"]], "text": Required[str], "cell": Required[Cell],
    "from": Required[Cell], "to": Required[Cell], "color": NotRequired[str],
})


class Dice(TypedDict):
    """`value` out of `max` as dice symbols of `faces` beside `cell` (Ccfolia only: a die
    per `faces`, each full but the last; the others show no dice)."""

    draw: Literal["dice"]
    cell: Cell
    value: int
    max: int
    faces: int


class Area(TypedDict):
    """Squares painted in `color` (`#rrggbb`) on the map a platform makes an image of
    (the Ccfolia room ZIP's foreground); later areas paint over earlier ones."""

    draw: Literal["area"]
    cells: list[Cell]
    color: str


Drawing = Token | Marker | Line | Dice


@dataclass(frozen=True)
class Surface:
    """What a platform can show, for a subsystem choosing its drawings: `dice` symbols
    (Ccfolia's live table; not its exports, not Foundry) and the platform's settings
    (with the keys subsystems add: `TableSubsystem.options`)."""

    settings: AdapterSettings
    dice: bool = False


#: A subsystem's drawings of one of its objects, in the order the platform draws them.
DrawHook = Callable[[Mapping[str, Any], Surface], list[Drawing]]


def composed_title(t: Token) -> str:
    """A token's one-line name where bars are not drawn: the name, each bar, the caption."""
    name = t["name"] + "".join(f"（{b['label']} {b['value']}/{b['max']}）" for b in t.get("bars", []))
    return name + (f"［{t['caption']}］" if t.get("caption") else "")


def panel_text(t: Token) -> str:
    """A fixed token as panel text: the name, each bar and the caption, one per line."""
    lines = [t["name"], *(f"{b['label']} {b['value']}/{b['max']}" for b in t.get("bars", []))]
    return "\n".join(lines + ([t["caption"]] if t.get("caption") else []))
