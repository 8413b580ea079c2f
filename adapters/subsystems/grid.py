"""Seamless combat on a VTT (seed 001, GRID-*): the map's obstacles, the off-map area and
event spots as markers, characters' statuses on their pieces, round and main process on
the komasync board, and the legal squares of the character in process pushed ahead.

Render: obstacles as markers (a row of neighbouring obstacle squares is one marker), the
off-map area (GRID-ST-6) and each event spot (GRID-GM-1) as a marker; each character's
piece (drawn by the generic table) gets its statuses as a label. Board: round and side
(GRID-RND-1/2), whose main process is open and what it has left (GRID-MV-1). Moves: a
character's piece is a generic piece — a drop is `table.move`, which the engine judges
as a move of its main process (the grid's `piece.moved` trigger). Legal: during combat,
the character in process may land on the squares `grid.legal` gives (computed here from
the table projection with the engine's own function, so the veto and the server agree);
every other character nowhere, with the reason. Before and after combat: no opinion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from ...engine.combatants import STATUS_NAMES
from ...engine.errors import Text
from ...engine.grid import GridState, legal_destinations
from ...engine.table import TableState
from ..objects import Board, Legal, Objects, TableObject, TableSubsystem, bi, each, object_id
from ..projection import as_cell, as_dict, as_int, entries

__all__ = ["GRID_ID", "SUBSYSTEM", "VETO_NOT_NOW", "VETO_OTHER", "VETO_SQUARE"]

#: A drop counts for a legal square within this many squares of its corner (less than
#: half a square: the neighbouring squares never count).
SQUARE_RADIUS = 0.45
#: The round/process line's object (no square: it only feeds the board).
GRID_ID = "ks-grid"
SIDES = {"pc": ("プレイヤーラウンド", "player round"), "enemy": ("エネミーラウンド", "enemy round")}
STEPS = {"move": ("ムーブ", "move"), "minor": ("マイナー", "minor"), "major": ("メジャー", "major"),
         "post": ("メジャー後の移動", "after-major move")}
OUTCOMES = {"wiped": ("エネミー全滅", "every enemy down"), "ended": ("シーン終了", "scene ended")}

VETO_SQUARE = Text(
    "そのマスには移動できません。{n}の残り: {left}（ムーブ1・マイナー2・メジャー2、斜めは2マス、"
    "敵と障害物は通過不可、GRID-MV-1/2/3）。",
    "{n} cannot move there. Left: {left_en} (move 1, minor 2, major 2; a diagonal costs 2; "
    "enemies and obstacles cannot be passed; GRID-MV-1/2/3).")
VETO_OTHER = Text("今は「{n}」のメインプロセス中です。コマはメインプロセスでしか動かせません（GRID-MV-1）。",
                  "It is {n}'s main process; a piece moves only in its own main process "
                  "(GRID-MV-1).")
VETO_NOT_NOW = Text("メインプロセスを宣言してから動かしてください（GRID-MV-1）。",
                    "Declare a main process before moving (GRID-MV-1).")
VETO_WAIT = Text("[移動妨害]の宣言を待っています（GRID-X-3）。",
                 "Waiting for the answer on [movement hindrance] (GRID-X-3).")


def render(tree: Mapping[str, Any], objs: Objects) -> None:
    """Obstacles, the off-map area and event spots as markers; statuses on the pieces;
    the round line (for the board) with the legal squares of the character in process."""
    g = tree.get("grid")
    if not isinstance(g, dict):
        return
    objs[GRID_ID] = _line(tree, g)
    for n, (x, y, w) in enumerate(_runs(g.get("obstacles"))):
        objs[object_id("gridwall", str(n))] = _marker(f"wall{n}", "■", {"x": x, "y": y}, w, 1)
    area = as_dict(g.get("off_map"))
    if as_cell(area.get("cell")) is not None:
        objs[object_id("gridoff", "area")] = _marker(
            "off_map", "移動不能エリア / off-map", as_cell(area.get("cell")) or {"x": 0, "y": 0},
            as_int(area.get("width"), 1) or 1, as_int(area.get("height"), 1) or 1)
    for sid, s in entries(g, "spots"):
        cell = as_cell(s.get("cell"))
        if cell is not None:
            text = "◆ " + bi(str(s.get("ja", "")), str(s.get("en", "")))
            objs[object_id("gridspot", sid)] = _marker(sid, text, cell, 1, 1)
    for _cid, c in entries(g, "combatants"):
        piece = objs.get(object_id("piece", str(c.get("piece", ""))))
        if piece is not None:
            labels = [_status(s) for _sid, s in entries(c, "statuses")]
            if labels:
                piece["labels"] = {**piece.get("labels", {}), "状態": " ".join(labels)}


def _runs(obstacles: Any) -> list[tuple[int, int, int]]:
    """Obstacle squares as horizontal runs (x, y, width), in reading order."""
    cells = sorted({(c["y"], c["x"]) for c in obstacles or [] if as_cell(c) is not None})
    runs: list[tuple[int, int, int]] = []
    for y, x in cells:
        if runs and runs[-1][1] == y and runs[-1][0] + runs[-1][2] == x:
            rx, ry, rw = runs[-1]
            runs[-1] = (rx, ry, rw + 1)
        else:
            runs.append((x, y, 1))
    return runs


def _marker(ref: str, text: str, cell: dict[str, int], w: int, h: int) -> TableObject:
    return {"kind": "marker", "ref": f"grid-{ref}", "name": text, "text": text, "cell": cell,
            "width": w, "height": h}


def _status(s: Mapping[str, Any]) -> str:
    kind = str(s.get("kind", "effect"))
    name = str(s.get("name") or STATUS_NAMES.get(kind, (kind, kind))[0])
    return f"{name}{s['value']}" if kind == "poison" and s.get("value") else name


def _line(tree: Mapping[str, Any], g: Mapping[str, Any]) -> TableObject:
    p = as_dict(g.get("process"))
    who = _name(tree, g, str(p.get("combatant", ""))) if p else ""
    return {"kind": "grid", "ref": "grid", "name": "シームレス戦闘 / seamless combat",
            "active": bool(g.get("active")), "round": as_int(g.get("round"), 0),
            "side": g.get("side"), "outcome": str(g.get("outcome", "none")),
            "process": who, "step": str(p.get("step", "")), "left": as_int(p.get("left"), 0),
            "legal": _legal_squares(tree, g)}


def _name(tree: Mapping[str, Any], g: Mapping[str, Any], cid: str) -> str:
    c = as_dict(as_dict(g.get("combatants")).get(cid))
    piece = as_dict(as_dict(as_dict(tree.get("table")).get("pieces")).get(str(c.get("piece", ""))))
    return str(piece.get("name") or cid)


def _legal_squares(tree: Mapping[str, Any], g: Mapping[str, Any]) -> list[dict[str, int]] | None:
    """The squares the character in process may reach (the engine's own computation on
    the table projection: hidden pieces are not in it, and take no part in the rules)."""
    p = as_dict(g.get("process"))
    if not g.get("active") or not p or p.get("waiting"):
        return None
    try:
        state = GridState.model_validate(g)
        table = TableState.model_validate(as_dict(tree.get("table")))
    except ValidationError:
        return None
    found = legal_destinations(state, table, str(p.get("combatant")))
    return [{"x": x, "y": y} for (x, y) in sorted(found, key=lambda s: (s[1], s[0]))]


def board(objs: Objects, b: Board) -> None:
    """Round and side (GRID-RND-1/2); the open main process and what it has left."""
    for _oid, o in each(objs, "grid"):
        if o["active"]:
            ja, en = SIDES.get(str(o["side"]), ("", ""))
            b.params.append({"label": "シームレス戦闘", "value": bi(f"第{o['round']}ラウンド {ja}",
                                                              f"round {o['round']}, {en}")})
            if o["process"]:
                s_ja, s_en = STEPS.get(o["step"], (o["step"], o["step"]))
                b.params.append({"label": "メインプロセス", "value": bi(
                    f"{o['process']}（{s_ja} 残り{o['left']}マス）",
                    f"{o['process']} ({s_en}, {o['left']} left)")})
        elif o["outcome"] in OUTCOMES:
            b.params.append({"label": "シームレス戦闘", "value": bi(*OUTCOMES[o["outcome"]])})


def legal(o: TableObject, objs: Objects, tree: Mapping[str, Any]) -> Legal | None:
    """During combat: the character in process to its legal squares; any other character
    nowhere (GRID-MV-1). Other pieces, and any piece outside combat: no opinion."""
    if o["kind"] != "piece":
        return None
    g = as_dict(tree.get("grid"))
    line = objs.get(GRID_ID)
    if not g.get("active") or line is None:
        return None
    mine = next((cid for cid, c in entries(g, "combatants") if c.get("piece") == o["ref"]), None)
    if mine is None:
        return None
    p = as_dict(g.get("process"))
    if not p:
        return Legal(VETO_NOT_NOW, [])
    if p.get("combatant") != mine:
        return Legal(VETO_OTHER.format(n=line["process"]), [])
    if p.get("waiting"):
        return Legal(VETO_WAIT, [])
    left = _left(p)
    return Legal(VETO_SQUARE.format(n=line["process"], left=left[0], left_en=left[1]),
                 list(line["legal"] or []), radius=SQUARE_RADIUS)


def _left(p: Mapping[str, Any]) -> tuple[str, str]:
    """What the process has left, as the veto says it: the current step and the later ones."""
    step = str(p.get("step", "move"))
    spent = as_dict(p.get("spent"))
    order = ["move", "minor", "major"] if step != "post" else ["post"]
    ja, en = [], []
    for s in order[order.index(step) if step in order else 0:]:
        n = as_int(p.get("left"), 0) if s == step else {"move": 1, "minor": 2, "major": 2}[s]
        if s == step and spent.get(s) in ("action", "skip"):
            n = 0
        ja.append(f"{STEPS[s][0]}{n}")
        en.append(f"{STEPS[s][1]} {n}")
    return "・".join(ja), ", ".join(en)


SUBSYSTEM = TableSubsystem(
    name="grid",
    render=render,
    prefixes={},
    board=board,
    legal=legal,
    board_kinds=frozenset({"grid"}),
    reads=frozenset({"table"}),  # it reads the generic table's pieces and alters them
)
