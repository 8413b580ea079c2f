"""Ccfolia (ココフォリア): the neutral table as characters, marker panels and dice symbols.

How this works: `CcfoliaAdapter` renders the `table` projection (adapters/render.py) and
draws it the Ccfolia way (TD-MAP-2): enemy groups, 特異個体, PCs and generic pieces are
characters (`status` bars: 個体数, 耐久力, 残弾); forts are dice symbols and/or a
character with a 耐久力 bar (setting `forts_as`); traps, directions and generic markers
are marker panels; counters, round/phase and bases' GP sit on one 'komasync' board
character. Each change becomes `character.*` / `marker.*` / `dice.*` / `room.update`
operations for only what changed, then one `chat` operation per public log line (each
automatic step). docs/adapters.md gives the exact operation shapes.

Settings (`meta.platforms.ccfolia`, all optional): see `CcfoliaSettings`. Whether piece
x/y are pixels or squares is UNCONFIRMED (vtt.md), hence `units`; the default is squares
because Ccfolia's own room data measures in squares (the shipped room-data fixture's deck:
`x -4, y -36, width 8, height 12`, docs/bridges.md "Calibration"). Positions and sizes share
one unit (that deck is centred: x = -width/2). `calibration(tree)` says whether the room was
calibrated, so every export can say when it was not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt

from ...engine.bounds import OnlyInt
from ...engine.errors import Text
from ..board import BOARD_ID, board, board_cell
from ..common import TableAdapter
from ..diff import Diff, PlatformObject, PObjects
from ..geometry import AdapterSettings, Geometry, load_settings, number
from ..objects import Objects, TableObject, bi, placed
from ..projection import grid_of
from ..render import player_of

__all__ = ["ROOM_ID", "UNCALIBRATED", "CcfoliaAdapter", "CcfoliaSettings", "calibration",
           "ccfolia_settings", "character_objects"]

ROOM_ID = "ks-room"
COLORS = {"group": "#d32f2f", "individual": "#8e24aa", "pc": "#1e88e5", "fort": "#6d4c41",
          "board": "#546e7a", "piece": "#888888"}


class CcfoliaSettings(AdapterSettings):
    """`meta.platforms.ccfolia`.

    Calibration: `units` `cell` (default: x/y/width/height count squares) or `px` (they
    count pixels, `cell_size` per square; UNCONFIRMED which Ccfolia uses); `cell_size` px
    per square (24, also the fortress map's pixels per square); `origin_x`/`origin_y` where
    square (0, 0)'s top-left is — when unset, the board's centre square (width // 2,
    height // 2) has its top-left at (0, 0). `forts_as`: forts as `dice` symbols, a
    `status` bar on a fort character, or `both`. A fort's 耐久力 above `fort_die_faces`
    shows as several dice: ⌈max/faces⌉ dice, each full but the last (the remainder);
    a die with nothing left is removed, so a fallen fort has no dice. `dice_per_row`
    dice sit in a row left of the fort, further rows above.
    """

    units: Literal["px", "cell"] = "cell"
    forts_as: Literal["dice", "status", "both"] = "both"
    fort_die_faces: Annotated[Literal[4, 6, 8, 10, 12, 20], OnlyInt] = 6
    dice_per_row: StrictInt = Field(default=5, ge=1, le=20)
    chat_name: str = Field(default="komasync", min_length=1, max_length=50)


UNCALIBRATED = Text(
    "komasync: ココフォリア用のキャリブレーションがありません。既定値（座標と大きさはマス単位、"
    "盤の中央のマスが(0, 0)）で置いています。駒がマスからずれていたら、ブリッジのパネルで一度"
    "キャリブレーションしてください（docs/bridges.md）。",
    "komasync: no Ccfolia calibration. Placed with the defaults (positions and sizes in "
    "squares, the board's centre square at (0, 0)). If pieces are off their squares, "
    "calibrate once in the bridge panel (docs/bridges.md).")


def ccfolia_settings(tree: Mapping[str, Any]) -> tuple[CcfoliaSettings, Geometry, list[str]]:
    """Validated settings and the geometry they give (the centre square at (0, 0) by default)."""
    settings, raw, problems = load_settings(tree, "ccfolia", CcfoliaSettings)
    width, height = grid_of(tree)
    unit = settings.cell_size if settings.units == "px" else 1.0
    ox = settings.origin_x if "origin_x" in raw and not problems else -(width // 2) * unit
    oy = settings.origin_y if "origin_y" in raw and not problems else -(height // 2) * unit
    return settings, Geometry.of(settings, (ox, oy)), problems


def calibration(tree: Mapping[str, Any]) -> dict[str, Any]:
    """The calibration an export or the bridge uses: `calibrated` (the room states its
    Ccfolia `units`), the values, and the warning to show when it was not calibrated."""
    settings, raw, problems = load_settings(tree, "ccfolia", CcfoliaSettings)
    _s, geo, _p = ccfolia_settings(tree)
    calibrated = "units" in raw and not problems
    return {"calibrated": calibrated, "units": geo.units, "cell_size": number(settings.cell_size),
            "origin_x": number(geo.origin_x), "origin_y": number(geo.origin_y),
            "warning": None if calibrated else {"ja": UNCALIBRATED.ja, "en": UNCALIBRATED.en}}


# -- neutral objects → Ccfolia objects ------------------------------------------------------


def _character(name: str, pos: tuple[float, float], size: float = 1, *,
               status: list[dict[str, Any]] | None = None,
               params: list[dict[str, str]] | None = None, memo: str = "",
               color: str = "#888888", commands: str = "") -> dict[str, Any]:
    """A character in Ccfolia's clipboard field names (docs.ccfolia.com Clipboard API)."""
    return {
        "name": name, "memo": memo, "initiative": 0, "externalUrl": "", "color": color,
        "commands": commands, "status": status or [], "params": params or [],
        "iconUrl": None, "faces": [], "x": pos[0], "y": pos[1], "angle": 0,
        "width": size, "height": size, "active": True, "secret": False, "invisible": False,
        "hideStatus": False, "owner": None,
    }


def _marker(text: str, pos: tuple[float, float], width: float = 1,
            height: float = 1) -> dict[str, Any]:
    """A marker panel (room `markers.{key}` fields)."""
    return {"x": pos[0], "y": pos[1], "z": 0, "width": width, "height": height,
            "locked": False, "freezed": False, "text": text, "imageUrl": None,
            "clickAction": None}


def _ref(o: TableObject) -> dict[str, Any]:
    """What an object shows, and whose it is (the bridge lets its player move it)."""
    ref = {"kind": o["kind"], "id": o["ref"]}
    player = player_of(o)
    if player:
        ref["player"] = player
    return ref


def _pc(o: TableObject, pos: tuple[float, float]) -> dict[str, Any]:
    status, commands = [], []
    for w in o["weapons"]:
        if w["magazine"] is not None and w["loaded"] is not None:
            status.append({"label": f"{w['name']}残弾", "value": w["loaded"], "max": w["magazine"]})
        if w["special_name"]:
            status.append({"label": w["special_name"], "value": w["special_left"],
                           "max": w["special_uses"]})
        value = o["skills"].get(w["skill"])
        if value is not None:
            commands.append(f"CC<={value} {w['name']}")
            if w["kind"] == "firearm" and w["attacks_per_round"] > 1:
                commands.append(f"x{w['attacks_per_round']} CC<={value} {w['name']}")
    where = o["fort_name"] or "未配置 / not placed"
    memo = bi("攻撃: チャットパレットの判定の後ろに敵グループのIDか砦名を書く",
              "attack: after a palette check, write the group id or fort name")
    return _character(o["name"], pos, status=status, params=[{"label": "砦", "value": where}],
                      memo=memo, color=COLORS["pc"], commands="\n".join(commands))


def _group_state(o: TableObject) -> str:
    words = [w for flag, w in ((o["waiting"], ("待機", "waiting")), (o["snared"], ("足止め", "snared")),
                               (o["marked"], ("魔眼", "evil eye"))) if flag]
    return " ".join(bi(ja, en) for ja, en in words) or "-"


def character_objects(objs: Objects, settings: CcfoliaSettings, geo: Geometry,
                      grid: tuple[int, int], with_dice: bool = True) -> PObjects:
    """Every Ccfolia object for the neutral objects: room, characters, markers, dice."""
    out: PObjects = {ROOM_ID: PlatformObject("room", {"fieldWidth": grid[0],
                                                      "fieldHeight": grid[1]})}
    for oid, o, cell in placed(objs):
        out.update(_drawn(oid, o, cell, settings, geo, with_dice))
    if (b := _board(objs, settings, geo, grid)) is not None:
        out[BOARD_ID] = b
    return _sized(out, geo.unit)


def _drawn(oid: str, o: TableObject, cell: dict[str, int], settings: CcfoliaSettings,
           geo: Geometry, with_dice: bool = True) -> PObjects:
    """The Ccfolia objects of one neutral object standing on `cell` (before `_sized`)."""
    out: PObjects = {}
    pos = geo.pos(cell, o["slot"])
    kind = o["kind"]
    data: dict[str, Any] | None = None
    if kind == "piece":
        params = [{"label": k, "value": v} for k, v in o["labels"].items()]
        data = _character(o["name"], pos, o["size"], params=params,
                          memo=f"komasync {o['ref']}", color=o["color"] or COLORS["piece"])
    elif kind == "pc":
        data = _pc(o, pos)
    elif kind == "group":  # TD-MAP-2 enemy groups as characters, 個体数 (TD-REIN-1)
        data = _character(
            o["name"], pos, status=[{"label": "個体数", "value": o["count"], "max": o["max"]}],
            params=[{"label": "状態", "value": _group_state(o)}], color=COLORS["group"],
            memo=bi(f"ID: {o['ref']}（攻撃のときに書く）", f"ID: {o['ref']} (write it to attack)"))
    elif kind == "individual":  # TD-OPT-2
        status = [{"label": "HP", "value": o["hp"], "max": o["hp"]}] if o["hp"] else []
        data = _character(o["name"], pos, status=status, color=COLORS["individual"],
                          params=[{"label": "特異個体",
                                   "value": bi(o["special_ja"], o["special_en"])}],
                          memo=f"ID: {o['ref']}")
    elif kind == "fort":
        if settings.forts_as in ("status", "both") or not with_dice:
            params = [{"label": "段", "value": str(o["tier"])}]
            if o["final"]:
                params.append({"label": "最終砦", "value": bi("はい", "final")})
            data = _character(
                o["name"], pos, params=params, color=COLORS["fort"], memo=f"ID: {o['ref']}",
                status=[{"label": "耐久力", "value": o["durability"], "max": o["max"]}])
        if settings.forts_as in ("dice", "both") and with_dice:
            out.update(_fort_dice(oid, o, settings, geo))
    elif kind == "marker":
        return {oid: PlatformObject("marker", _marker(o["text"], pos, o["width"], o["height"]),
                                    _ref(o))}
    elif kind in ("trap", "direction", "link"):  # TD-MAP-2 traps; ENG-1 engaged pairs
        return {oid: PlatformObject("marker", _marker(o["text"], pos), _ref(o))}
    elif o.get("draw") == "token":  # objects.TOKEN: any subsystem's piece with bars
        data = _character(o["name"], pos, o.get("size", 1), status=o.get("bars"),
                          params=o.get("params"), memo=str(o.get("memo", "")),
                          color=str(o.get("color") or COLORS["piece"]))
    elif o.get("draw") == "marker":  # objects.MARKER: a subsystem's text panel
        return {oid: PlatformObject("marker", _marker(o["text"], pos, o.get("width", 1),
                                                      o.get("height", 1)), _ref(o))}
    if data is not None:
        out[oid] = PlatformObject("character", data, _ref(o))
    return out


def _board(objs: Objects, settings: CcfoliaSettings, geo: Geometry,
           grid: tuple[int, int]) -> PlatformObject | None:
    """The 'komasync' board character (None when no subsystem has a line for it)."""
    b = board(objs)
    if not b:
        return None
    return PlatformObject("character", _character(
        settings.chat_name, geo.pos(board_cell(grid)), status=b.bars, params=b.params,
        memo="\n".join(b.memo), color=COLORS["board"]), {"kind": "board", "id": "board"})


def _sized(objs: PObjects, unit: float) -> PObjects:
    """Sizes in the calibrated unit, as positions are (squares × unit; unchanged in `cell`)."""
    if unit == 1:
        return objs
    for o in objs.values():
        for key in ("width", "height"):
            if key in o.data and o.type != "room":
                o.data[key] = number(o.data[key] * unit)
    return objs


def _fort_dice(oid: str, o: TableObject, settings: CcfoliaSettings, geo: Geometry) -> PObjects:
    """TD-MAP-2 fort durability as dice symbols (the stacking rule of `CcfoliaSettings`)."""
    faces = settings.fort_die_faces
    out: PObjects = {}
    for i in range(max(1, math.ceil(o["max"] / faces))):
        value = min(max(o["durability"] - i * faces, 0), faces)
        if value <= 0:
            continue
        row, col = divmod(i, settings.dice_per_row)
        pos = geo.pos(o["cell"], 0, dx=-(1 + col), dy=-row)
        data = {"faces": faces, "value": value, "x": pos[0], "y": pos[1], "width": 1, "height": 1}
        out[f"{oid}-die{i + 1}"] = PlatformObject("dice", data, {"kind": "fort_die", "id": o["ref"],
                                                                 "index": i + 1})
    return out


# -- the adapter -------------------------------------------------------------------------------


class CcfoliaAdapter(TableAdapter):
    """Ccfolia: table projection → character/marker/dice/chat operations; events → actions."""

    platform = "ccfolia"
    patches = True
    settings: CcfoliaSettings

    def _settings(self, tree: Mapping[str, Any]) -> tuple[CcfoliaSettings, Geometry, list[str]]:
        return ccfolia_settings(tree)

    def _objects(self, objs: Objects, tree: Mapping[str, Any]) -> PObjects:
        return character_objects(objs, self.settings, self.geometry, self.grid)

    def _object(self, oid: str, o: TableObject) -> PObjects:
        cell = o.get("cell")
        drawn = {} if cell is None else _drawn(oid, o, cell, self.settings, self.geometry)
        return _sized(drawn, self.geometry.unit)

    def _board_object(self, objs: Objects) -> PlatformObject | None:
        b = _board(objs, self.settings, self.geometry, self.grid)
        return None if b is None else _sized({BOARD_ID: b}, self.geometry.unit)[BOARD_ID]

    def _ops(self, change: Diff, reset: bool) -> list[dict[str, Any]]:
        ops: list[dict[str, Any]] = []
        if reset:
            ops.append({"op": "reset", "ids": [i for i, o in change.created if o.type != "room"]})
        for oid, obj in change.removed:
            if obj.type != "room":
                ops.append({"op": f"{obj.type}.remove", "id": oid})
        for oid, obj in change.created:
            if obj.type == "room":
                ops.append({"op": "room.update", "data": dict(obj.data)})
            else:
                ops.append({"op": f"{obj.type}.create", "id": oid, "ref": dict(obj.ref),
                            "data": dict(obj.data)})
        for oid, obj, changes, old in change.updated:
            if obj.type == "room":
                ops.append({"op": "room.update", "data": changes})
                continue
            op: dict[str, Any] = {"op": f"{obj.type}.update", "id": oid, "data": changes}
            if obj.type == "character" and "status" in changes:
                op["status_commands"] = _status_commands(old.data.get("status", []),
                                                         changes["status"])
            ops.append(op)
        return ops

    def _chat_ops(self, lines: list[tuple[str, str]], to: str | None = None,
                  kind: str = "log") -> list[dict[str, Any]]:
        return [{"op": "chat", "name": self.settings.chat_name, "text": bi(ja, en), "ja": ja,
                 "en": en, "to": to, "kind": kind} for ja, en in lines]

    def _snap_ops(self, oid: str, obj: PlatformObject) -> list[dict[str, Any]]:
        if obj.type == "room":
            return []
        return [{"op": f"{obj.type}.update", "id": oid, "data": obj.position()}]


def _status_commands(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """`:LABEL=N` chat commands that make the same status change when spoken as the
    character (Ccfolia's documented status command), for bridges that cannot write bars."""
    before = {s.get("label"): s.get("value") for s in old}
    return [f":{s['label']}={s['value']}" for s in new if before.get(s["label"]) != s["value"]]
