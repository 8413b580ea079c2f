"""The generic table on a VTT: pieces, counters (bars on the board) and markers.

A player may drop their own pieces by hand: a drop becomes `table.move` to the square
under the piece (TABLE-MV-1/2 are the engine's to judge).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine.errors import Text
from ..base import EventResult
from ..drawing import MARKER, TOKEN, Drawing, Surface
from ..objects import Board, Drop, Entries, Objects, TableObject, TableSubsystem, each
from ..projection import as_cell, as_dict, as_int
from ..replies import accepted

__all__ = ["SUBSYSTEM"]


def render(tree: Mapping[str, Any], objs: Objects) -> None:
    """Generic pieces, counters and markers, in that order."""
    for collection in ENTRIES:
        collection.render(tree, objs)


def _piece(pid: str, p: dict[str, Any]) -> TableObject:
    return {
        "kind": "piece", "ref": pid, "name": str(p.get("name", pid)),
        "cell": as_cell(p.get("cell")), "size": as_int(p.get("size"), 1) or 1,
        "owner": p.get("owner"), "color": p.get("color"),
        "labels": {str(k): str(v) for k, v in as_dict(p.get("labels")).items()},
    }


def _counter(cid: str, c: dict[str, Any]) -> TableObject:
    return {
        "kind": "counter", "ref": cid, "name": str(c.get("name", cid)),
        "value": as_int(c.get("value"), 0), "min": as_int(c.get("min"), None),
        "max": as_int(c.get("max"), None), "owner": c.get("owner"),
    }


def _marker(mid: str, m: dict[str, Any]) -> TableObject:
    return {
        "kind": "marker", "ref": mid, "name": str(m.get("text", mid)),
        "text": str(m.get("text", "")), "cell": as_cell(m.get("cell")),
        "width": as_int(m.get("width"), 1) or 1, "height": as_int(m.get("height"), 1) or 1,
    }


ENTRIES = (Entries("table", "pieces", "piece", _piece),
           Entries("table", "counters", "counter", _counter),
           Entries("table", "markers", "marker", _marker))


def board(objs: Objects, b: Board) -> None:
    """Each counter is a bar on the board (its max, or its value when it has none)."""
    for _oid, o in each(objs, "counter"):
        value = o["value"] or 0
        b.bars.append({"label": o["name"], "value": value,
                       "max": o["max"] if o["max"] is not None else value})


def draw_piece(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """A piece: its labels as params (other subsystems add theirs: statuses, partners)."""
    return [{"draw": TOKEN, "name": o["name"], "cell": o["cell"], "size": o["size"],
             "params": [{"label": k, "value": v} for k, v in o["labels"].items()],
             "memo": f"komasync {o['ref']}", "color": o["color"]}]


def draw_marker(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """A marker: its text over its squares, in the platform's marker colour."""
    return [{"draw": MARKER, "text": o["text"], "cell": o["cell"], "width": o["width"],
             "height": o["height"]}]


def move_piece(drop: Drop) -> EventResult:
    """A generic piece dropped: `table.move` to the square under it."""
    action = {"kind": "table.move", "piece": drop.obj["ref"],
              "to": drop.geo.cell_at(drop.x, drop.y)}
    return accepted(action, drop.by, drop.context)


#: The sentences of the console's timeline (panels/table.js `table.do.*`), for a replay.
SAID: dict[str, tuple[str, str, str]] = {
    "move": ("pieces", "{name}を({x}, {y})へ移動", "moved {name} to ({x}, {y})"),
    "piece.place": ("pieces", "駒「{name}」を置く", "placed piece “{name}”"),
    "piece.remove": ("pieces", "駒「{name}」を取り除く", "removed piece “{name}”"),
    "piece.reveal": ("pieces", "駒「{name}」の公開を変更", "changed who sees “{name}”"),
    "piece.allow": ("pieces", "駒「{name}」の移動許可を変更", "changed who may move “{name}”"),
    "counter.set": ("counters", "{name}を{value}にする", "set {name} to {value}"),
    "counter.add": ("counters", "{name}を{delta}", "{name} {delta}"),
    "counter.place": ("counters", "カウンター「{name}」を置く", "placed counter “{name}”"),
    "counter.remove": ("counters", "カウンター「{name}」を取り除く", "removed counter “{name}”"),
    "marker.place": ("markers", "マーカー「{name}」を置く", "placed marker “{name}”"),
    "marker.remove": ("markers", "マーカー「{name}」を取り除く", "removed marker “{name}”"),
}


def describe(action: Mapping[str, Any], before: Mapping[str, Any],
             after: Mapping[str, Any]) -> Text | None:
    """A table action as the console's timeline says it, naming only what the trees show."""
    kind = str(action.get("kind", ""))
    said = SAID.get(kind.removeprefix("table.")) if kind.startswith("table.") else None
    if said is None:
        return None
    collection, ja, en = said
    ref = action.get(collection[:-1])
    rid = str(ref.get("id", "")) if isinstance(ref, dict) else str(ref)
    found = [as_dict(as_dict(as_dict(t.get("table")).get(collection)).get(rid))
             for t in (after, before)]
    item = next((f for f in found if f), None)
    if item is None:
        return None  # not in this audience's projection: nothing of it is told
    delta = action.get("delta")
    to = as_dict(action.get("to"))
    words = {"name": str(item.get("name") or item.get("text") or rid),
             "x": to.get("x", ""), "y": to.get("y", ""), "value": action.get("value", ""),
             "delta": f"+{delta}" if isinstance(delta, int) and delta >= 0 else delta}
    return Text(ja.format(**words), en.format(**words))


SUBSYSTEM = TableSubsystem(
    name="table",
    render=render,
    stack={"piece": 4},
    owners={"piece": "owner"},
    board=board,
    moves={"piece": move_piece},
    entries=ENTRIES,
    board_kinds=frozenset({"counter"}),
    draw={"piece": draw_piece, "marker": draw_marker},  # the grid's markers are these too
    describe=describe,
)
