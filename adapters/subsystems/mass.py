"""Mass combat on a VTT (seed 002): each unit a piece in its side's front or back row.

Layout: the first side stands on the left (back row in column 1, front row in column 3),
the second on the right (front row 4 columns from the right edge, back row 2 from it);
a row's units go down its column. Each row has a label panel on the top line. A unit is
a token (objects.TOKEN): its strength is a bar (Ccfolia status; in Foundry the token's
name and flags), its formation, attack/defence, row and active strategy are params.
Routed units leave the table and are listed on the komasync board with the turn, step,
battle order and the unit to act. Moves: a player dropping their unit into the other
row of its side is `mass.deploy` (MASS-T-1: the engine judges the step); nothing else
of the war moves by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine.errors import Text
from ..base import EventResult
from ..drawing import MARKER, TOKEN
from ..objects import Board, Drop, Legal, Objects, TableObject, TableSubsystem, bi, each
from ..projection import as_dict, as_int, entries, grid_of
from ..replies import accepted, ignored

__all__ = ["SUBSYSTEM", "row_columns"]

#: The war's summary object (turn, step, order, outcome) on the komasync board.
MASS_ID = "ks-mass"
STEPS: dict[str, tuple[str, str]] = {
    "preparation": ("戦争準備フェイズ", "preparation"), "deployment": ("戦力配置", "deployment"),
    "tactics": ("戦術決定", "tactics"), "battle": ("戦闘", "battle"), "over": ("終了", "over"),
}
ROWS: dict[str, tuple[str, str]] = {"front": ("前列", "front"), "back": ("後列", "back")}
COLORS = ("#1e88e5", "#d32f2f")

VETO_STEP = Text("部隊の列（前列・後列）を選ぶのは戦力配置のときです（MASS-T-1）。",
                 "A unit's row (front or back) is chosen in the deployment step (MASS-T-1).")
IGN_SAME_ROW = Text("「{name}」はすでに{row}です", "'{name}' is already in the {row_en} row")


def row_columns(side_index: int, width: int) -> dict[str, int]:
    """The x of a side's back and front rows (first side on the left)."""
    width = max(width, 8)
    if side_index == 0:
        return {"back": 1, "front": 3}
    return {"front": width - 4, "back": width - 2}


def render(tree: Mapping[str, Any], objs: Objects) -> None:
    """Row labels and units in their rows; the war's line for the board."""
    ms = tree.get("mass")
    if not isinstance(ms, dict):
        return
    width, height = grid_of(tree)
    units = dict(entries(ms, "units"))
    sides = list(as_dict(ms.get("sides")))
    objs[MASS_ID] = _summary(ms, units)
    for i, side in enumerate(sides[:2]):
        cols = row_columns(i, width)
        for row, x in cols.items():
            ja, en = ROWS[row]
            objs[f"ks-mass-row-{i}-{row}"] = {
                "kind": "mass_row", "ref": f"{side}:{row}", "name": ja, "draw": MARKER,
                "text": bi(ja, en), "cell": {"x": x, "y": 0}, "width": 1, "height": 1,
                "color": COLORS[i]}
            here = [(uid, u) for uid, u in units.items() if u.get("side") == side and
                    not u.get("routed") and (u.get("row") or "back") == row]
            step = 2 if 1 + 2 * (len(here) - 1) < height else 1
            for n, (uid, u) in enumerate(here):
                objs[f"ks-mass-{uid}"] = _unit(uid, u, {"x": x, "y": 1 + n * step}, i, ms)


def _unit(uid: str, u: dict[str, Any], cell: dict[str, int], side_index: int,
          ms: dict[str, Any]) -> TableObject:
    strength, top = as_int(u.get("strength"), 0), as_int(u.get("max_strength"), None)
    bars = [{"label": "戦力", "value": strength, "max": top if top is not None else strength}]
    attack, defence = _value(u, "attack"), _value(u, "defence")
    row = str(u.get("row") or "")
    ja, en = ROWS.get(row, ("未配置", "unplaced"))
    formation = str(u.get("formation") or "-")
    params = [{"label": "陣形", "value": formation},
              {"label": "攻/防", "value": f"{attack}/{defence}" + (
                  bi("（余り1点待ち）", " (odd point pending)") if u.get("split_pending") else "")},
              {"label": "列", "value": bi(ja, en)},
              {"label": "作戦", "value": str(u.get("active") or "-")}]
    lp = as_int(u.get("lp"), None)
    if lp is not None:  # the leading PC's LP (MASS-DMG-2); its maximum is on the PC's sheet
        params.append({"label": "LP", "value": str(lp)})
    acting = ms.get("current") == uid
    name = str(u.get("name", uid))
    return {
        "kind": "mass_unit", "ref": uid, "name": f"▶{name}" if acting else name,
        "draw": TOKEN, "cell": cell, "size": 1, "side": str(u.get("side", "")),
        "player": u.get("player"), "row": row, "bars": bars, "params": params,
        "caption": f"{formation} 攻{attack}/防{defence}" if u.get("formation") else "",
        "color": COLORS[side_index],
        "disposition": 1 if side_index == 0 else -1,
        "memo": bi("総大将", "commander-in-chief") if u.get("commander") else "",
    }


def _value(u: dict[str, Any], field: str) -> int:
    """Attack or defence as the server publishes it: effective (the turn's changes in,
    never below 0), so the bridge recomputes no rule."""
    return max(as_int(u.get(field), 0) or 0, 0)


def _summary(ms: dict[str, Any], units: dict[str, dict[str, Any]]) -> TableObject:
    name = {uid: str(u.get("name", uid)) for uid, u in units.items()}
    order = [str(x) for x in ms.get("order") or [] if isinstance(x, str)]
    current = ms.get("current")
    sides = as_dict(ms.get("sides"))
    winner = as_dict(sides.get(str(ms.get("winner")))) if ms.get("winner") else {}
    return {
        "kind": "mass", "ref": "mass", "name": "マスコンバット",
        "turn": as_int(ms.get("turn"), 0), "step": str(ms.get("step", "")),
        "order": [("▶" if uid == current else "") + name.get(uid, uid) for uid in order
                  if not units.get(uid, {}).get("routed")],
        "routed": [name[uid] for uid, u in units.items() if u.get("routed")],
        "outcome": str(ms.get("outcome", "none")),
        "winner": str(winner.get("name", "")), "winner_en": str(winner.get("en") or
                                                                 winner.get("name", "")),
    }


def board(objs: Objects, b: Board) -> None:
    """Turn and step, the battle order with the unit to act, routed units, the result."""
    for _oid, o in each(objs, "mass"):
        ja, en = STEPS.get(o["step"], (o["step"], o["step"]))
        value = bi(f"第{o['turn']}ターン {ja}", f"turn {o['turn']} {en}") if o["turn"] else bi(ja, en)
        b.params.append({"label": "マスコンバット", "value": value})
        if o["order"]:
            b.params.append({"label": "行動順", "value": " → ".join(o["order"])})
        if o["routed"]:
            b.params.append({"label": "敗走", "value": "、".join(o["routed"])})
        if o["outcome"] == "won":
            b.params.append({"label": "結果", "value": bi(f"{o['winner']}の勝利",
                                                         f"{o['winner_en']} wins")})
        elif o["outcome"] == "draw":
            b.params.append({"label": "結果", "value": bi("引き分け", "draw")})


def move_unit(drop: Drop) -> EventResult:
    """A unit dropped by its player: into the nearer of its side's two rows (MASS-T-1)."""
    obj = drop.obj
    sides = list(as_dict(as_dict(drop.tree.get("mass")).get("sides")))
    if obj["side"] not in sides[:2]:
        return ignored(VETO_STEP)
    cols = row_columns(sides.index(obj["side"]), grid_of(drop.tree)[0])
    x = drop.geo.square(drop.x, drop.y)[0] + 0.5
    row = min(cols, key=lambda r: abs(cols[r] + 0.5 - x))
    if row == obj["row"]:
        ja, en = ROWS[row]
        return ignored(IGN_SAME_ROW.format(name=obj["name"].lstrip("▶"), row=ja, row_en=en))
    action = {"kind": "mass.deploy", "unit": obj["ref"], "row": row}
    return accepted(action, drop.by, {**drop.context, "row": row})


def legal(o: TableObject, objs: Objects, tree: Mapping[str, Any]) -> Legal | None:
    """A unit may be dropped into its side's rows in deployment; otherwise nowhere."""
    if o["kind"] == "mass_row":
        return Legal(VETO_STEP)
    if o["kind"] != "mass_unit":
        return None
    ms = as_dict(tree.get("mass"))
    sides = list(as_dict(ms.get("sides")))
    if ms.get("step") != "deployment" or ms.get("outcome", "none") != "none" or \
            o["side"] not in sides[:2]:
        return Legal(VETO_STEP)
    width, height = grid_of(tree)
    cols = row_columns(sides.index(o["side"]), width)
    return Legal(VETO_STEP, [{"x": x, "y": y} for x in cols.values() for y in range(1, height)])


SUBSYSTEM = TableSubsystem(
    name="mass",
    render=render,
    owners={"mass_unit": "player"},
    board=board,
    moves={"mass_unit": move_unit},
    legal=legal,
    board_kinds=frozenset({"mass"}),
)
