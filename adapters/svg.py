"""The table as a picture: an audience's projection drawn as one SVG (a replay's board).

The same table objects and drawings the platforms draw (render.py, drawing.py: each
subsystem's own module says how its things look — forts with their 耐久力, groups with
their count, lines between engaged combatants, dice symbols), plus the komasync board's
bars and lines (board.py) in a panel beside the squares. Nothing here knows a subsystem.
Objects named in `hidden` (a GM's picture: what players did not see) are drawn dashed
and labelled 非公開 / hidden.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from html import escape
from typing import Any

from .board import board
from .drawing import Drawing, Surface
from .geometry import AdapterSettings
from .objects import Board, Objects
from .projection import as_int, grid_of
from .render import drawings, paint, render

__all__ = ["CELL", "hidden_parts", "table_svg"]

CELL = 56  # px per square
ROW = 12  # px per label line: each thing on a square has its own two (name, first note)
PANEL = 300  # px of the board panel beside the squares
HIDDEN_MARK = "非公開 / hidden"
SURFACE = Surface(AdapterSettings(), dice=True)


def table_svg(tree: Mapping[str, Any], public: Mapping[str, Any] | None = None,
              title: str = "") -> str:
    """The audience's table as SVG text; with `public` (the table's projection of the same
    moment) what it does not show is marked hidden: objects and the board's lines."""
    objs = render(tree)
    hidden, shown = hidden_parts(objs, public)
    width, height = _extent(tree, objs)
    body: list[str] = [_ground(tree, objs, width, height)]
    for oid, o in objs.items():
        shapes = drawings(o, SURFACE)
        if not shapes:
            continue
        secret = oid in hidden
        body.append(f'<g data-object="{escape(oid)}"{_hidden_attr(secret)}>')
        body += [_shape(d, int(o.get("slot", 0)), secret) for d in shapes]
        body.append("</g>")
    panel_x = width * CELL + 12
    lines = _panel(board(objs), panel_x, shown)
    full_w, full_h = panel_x + PANEL, max(height * CELL, 24 + 22 * len(lines)) + 8
    label = escape(title or "盤面 / board")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {full_w} {full_h}" '
            f'width="{full_w}" height="{full_h}" role="img" aria-label="{label}" '
            f'font-family="sans-serif" font-size="12"><title>{label}</title>'
            + "".join(body) + "".join(lines) + "</svg>")


def hidden_parts(objs: Objects, public: Mapping[str, Any] | None
                 ) -> tuple[frozenset[str], frozenset[str] | None]:
    """The objects (stable ids) `public` lacks, and the board lines it shows (None: all)."""
    if public is None:
        return frozenset(), None
    theirs = render(public)
    return frozenset(o for o in objs if o not in theirs), frozenset(board(theirs).lines())


def _n(value: Any, default: int = 0) -> int:
    """`value` as an int (projection.as_int), else `default`."""
    n = as_int(value, default)
    return default if n is None else n


def _hidden_attr(secret: bool) -> str:
    return ' data-hidden="1" stroke-dasharray="4 3"' if secret else ""


def _extent(tree: Mapping[str, Any], objs: Objects) -> tuple[int, int]:
    """The squares to draw: the table's grid, grown to hold every drawn thing."""
    w, h = grid_of(tree)
    for o in objs.values():
        cell = o.get("cell")
        if isinstance(cell, dict):
            size = _n(o.get("size"), 1) or 1
            w = max(w, _n(cell.get("x"), 0) + size)
            h = max(h, _n(cell.get("y"), 0) + size)
    return min(w, 200), min(h, 200)


def _ground(tree: Mapping[str, Any], objs: Objects, width: int, height: int) -> str:
    """The squares, painted where a subsystem paints its map (later areas on top)."""
    colors: dict[tuple[int, int], str] = {}
    for area in paint(tree, objs) or []:
        for c in area["cells"]:
            colors[(c["x"], c["y"])] = area["color"]
    cells = "".join(f'<rect x="{x * CELL}" y="{y * CELL}" width="{CELL}" height="{CELL}" '
                    f'fill="{escape(color)}"/>' for (x, y), color in colors.items()
                    if x < width and y < height)
    lines = "".join(f'<line x1="{x * CELL}" y1="0" x2="{x * CELL}" y2="{height * CELL}"/>'
                    for x in range(width + 1))
    lines += "".join(f'<line x1="0" y1="{y * CELL}" x2="{width * CELL}" y2="{y * CELL}"/>'
                     for y in range(height + 1))
    return (f'<rect width="{width * CELL}" height="{height * CELL}" fill="#f4f1e8"/>{cells}'
            f'<g stroke="#cfc6b0" stroke-width="1">{lines}</g>')


def _xy(cell: Mapping[str, Any], slot: int = 0) -> tuple[float, float]:
    """A square's top-left corner; things sharing it step right and down by slot."""
    return (_n(cell.get("x"), 0) * CELL + 3 * slot, _n(cell.get("y"), 0) * CELL + 3 * slot)


def _shape(d: Drawing, slot: int, secret: bool) -> str:
    draw = d["draw"]
    if draw == "token":
        return _token(d, slot, secret)
    if draw == "marker":
        return _marker(d, secret)
    if draw == "line":
        return _line(d)
    if draw == "dice":
        return _dice(d)
    return ""


def _text(x: float, y: float, text: str, extra: str = "") -> str:
    """A label with a white halo: readable on any square, token or painted area."""
    return (f'<text x="{x:g}" y="{y:g}" paint-order="stroke" stroke="#fff" stroke-width="3" '
            f'stroke-linejoin="round"{extra}>{escape(text)}</text>')


def _token(t: Mapping[str, Any], slot: int, secret: bool) -> str:
    """A place (fixed) fills its squares; a piece is a disc, smaller when it shares one.
    Labels of things sharing a square stack in rows by slot, so none covers another."""
    x, y = _xy(t["cell"])
    side = CELL * (_n(t.get("size"), 1) or 1)
    color = escape(str(t.get("color") or "#37474f"))
    x0, y0 = _xy(t["cell"], 0)
    lx, ly = x0 + 2, y0 + ROW + 2 * ROW * slot
    if t.get("fixed"):
        shape = f'<rect x="{x + 1:g}" y="{y + 1:g}" width="{side - 2}" height="{side - 2}" rx="3" '
    elif slot == 0:
        shape = f'<circle cx="{x + side / 2:g}" cy="{y + side / 2:g}" r="{side / 2 - 3:g}" '
    else:  # a small disc at the start of its own label rows
        shape = f'<circle cx="{x0 + 6:g}" cy="{ly - 4:g}" r="5" '
        lx += 12
    notes = [f"{b['label']} {b['value']}/{b['max']}" for b in t.get("bars", [])]
    notes += [f"{p['label']} {p['value']}" for p in t.get("params", [])]
    notes += [str(t["caption"])] if t.get("caption") else []
    out = [shape + f'fill="{color}" fill-opacity="0.8" stroke="#111" stroke-width="1"/>',
           _text(lx, ly, str(t["name"])[:8], f' font-weight="bold" font-size="{ROW}"')]
    if notes:
        out.append(_text(lx, ly + ROW - 1, notes[0][:14], f' font-size="{ROW - 2}"'))
    if secret:
        out.append(_text(x0 + 1, y0 - 2, HIDDEN_MARK, ' fill="#b71c1c" font-size="9"'))
    full = [f"{t['name']}", *notes]
    return f"<g><title>{escape(' / '.join(full))}</title>{''.join(out)}</g>"


def _marker(m: Mapping[str, Any], secret: bool) -> str:
    x, y = _xy(m["cell"])
    w = CELL * (_n(m.get("width"), 1) or 1)
    h = CELL * (_n(m.get("height"), 1) or 1)
    color = escape(str(m.get("color") or "#fff59d"))
    mark = _text(x + 2, y - 2, HIDDEN_MARK, ' fill="#b71c1c" font-size="9"') if secret else ""
    return (f'<g><title>{escape(str(m["text"]))}</title><rect x="{x:g}" y="{y:g}" width="{w}" '
            f'height="{h}" fill="{color}" fill-opacity="0.55" stroke="#795548"/>'
            + _text(x + 3, y + 14, str(m["text"]).split(" / ")[0][:max(6, w // 8)], ' font-size="10"')
            + mark + "</g>")


def _line(line: Mapping[str, Any]) -> str:
    (ax, ay), (bx, by) = _xy(line["from"]), _xy(line["to"])
    tx, ty = _xy(line["cell"])
    half = CELL / 2
    color = escape(str(line.get("color") or "#c62828"))
    return (f'<g><title>{escape(str(line["text"]))}</title><line x1="{ax + half:g}" '
            f'y1="{ay + half:g}" x2="{bx + half:g}" y2="{by + half:g}" stroke="{color}" '
            f'stroke-width="3" stroke-linecap="round"/>'
            + _text(tx + 2, ty + CELL - 4, str(line["text"])[:14], f' fill="{color}"') + "</g>")


def _dice(d: Mapping[str, Any]) -> str:
    """`value` out of `max` as dice of `faces`, each full but the last, beside the square."""
    x, y = _xy(d["cell"])
    faces = max(1, _n(d.get("faces"), 6) or 6)
    value, most = max(0, _n(d.get("value"), 0) or 0), max(0, _n(d.get("max"), 0) or 0)
    count = min(12, -(-most // faces))
    shown = [min(faces, max(0, value - faces * i)) for i in range(count)]
    out = "".join(f'<rect x="{x + CELL + 1 + 13 * (i % 4):g}" y="{y + 13 * (i // 4):g}" '
                  f'width="12" height="12" rx="2" fill="#fff" stroke="#333"/>'
                  + _text(x + CELL + 4 + 13 * (i % 4), y + 10 + 13 * (i // 4), str(n),
                          ' font-size="9"')
                  for i, n in enumerate(shown))
    return f"<g><title>{value}/{most}</title>{out}</g>"


def _panel(b: Board, x: int, shown: Collection[str] | None) -> list[str]:
    """The board's lines and bars, one per row, beside the squares (a line `shown` lacks
    marked hidden)."""
    rows: list[str] = []
    said = b.lines()  # params first, then bars: the same order as drawn here
    for i, line in enumerate(said[:len(b.params)]):
        y = 16 + 22 * i
        rows.append(_text(x, y, line[:48]) + _hidden_line(x, y, line, shown))
    for i, (bar, line) in enumerate(zip(b.bars, said[len(b.params):], strict=True)):
        y = 16 + 22 * (len(b.params) + i)
        value, most = _n(bar.get("value"), 0), _n(bar.get("max"), 0)
        share = 0.0 if most <= 0 else max(0.0, min(1.0, value / most))
        rows.append(f'<g><rect x="{x}" y="{y - 10}" width="{PANEL - 20}" height="14" fill="#eee" '
                    f'stroke="#999"/><rect x="{x}" y="{y - 10}" width="{(PANEL - 20) * share:.1f}" '
                    f'height="14" fill="#81c784"/>'
                    + _text(x + 4, y + 1, f"{bar['label']}: {value}/{most}"[:44]) + "</g>"
                    + _hidden_line(x, y, line, shown))
    return rows


def _hidden_line(x: int, y: int, line: str, shown: Collection[str] | None) -> str:
    if shown is None or line in shown:
        return ""
    return _text(x + PANEL - 20, y, "非公開", ' fill="#b71c1c" font-size="9" text-anchor="end" '
                 'data-hidden="1"')
