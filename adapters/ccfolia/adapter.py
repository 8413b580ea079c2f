"""Ccfolia (ココフォリア): the neutral table's drawings as characters, marker panels and dice symbols.

How this works: `CcfoliaAdapter` renders the `table` projection (adapters/render.py) and
draws each object's drawings (adapters/drawing.py) the Ccfolia way, knowing nothing of
the subsystem that made them: a token is a character (bars as `status`, params, memo,
chat palette), a marker a marker panel, a line its text on a marker panel (Ccfolia draws
no lines), dice symbols a die per face count; the board's lines sit on one 'komasync'
character. Each change becomes `character.*` / `marker.*` / `dice.*` / `room.update`
operations for only what changed, then one `chat` operation per public log line (each
automatic step). docs/adapters.md gives the exact operation shapes.

Settings (`meta.platforms.ccfolia`, all optional): see `CcfoliaSettings`, plus the keys
subsystems add (`TableSubsystem.options`, validated with them). Whether piece
x/y are pixels or squares is UNCONFIRMED (vtt.md), hence `units`; the default is squares
because Ccfolia's own room data measures in squares (the shipped room-data fixture's deck:
`x -4, y -36, width 8, height 12`, docs/bridges.md "Calibration"). Positions and sizes share
one unit (that deck is centred: x = -width/2). `calibration(tree)` says whether the room was
calibrated, so every export can say when it was not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, StrictInt

from ...engine.errors import Text
from ..board import BOARD_ID, board, board_cell
from ..common import TableAdapter
from ..diff import Diff, PlatformObject, PObjects
from ..drawing import DICE, LINE, MARKER, TOKEN, Dice, Drawing, Surface, Token
from ..geometry import AdapterSettings, Geometry, load_settings, number
from ..objects import Objects, TableObject, bi, placed
from ..projection import grid_of
from ..render import drawings, platform_model, player_of

__all__ = ["ROOM_ID", "SETTINGS", "UNCALIBRATED", "CcfoliaAdapter", "CcfoliaSettings",
           "calibration", "ccfolia_settings", "character_objects"]

ROOM_ID = "ks-room"
#: The board character's colour, and a token's when its drawing gives none.
BOARD_COLOR, TOKEN_COLOR = "#546e7a", "#888888"


class CcfoliaSettings(AdapterSettings):
    """`meta.platforms.ccfolia`, the platform's own keys (subsystems add theirs: `SETTINGS`).

    Calibration: `units` `cell` (default: x/y/width/height count squares) or `px` (they
    count pixels, `cell_size` per square; UNCONFIRMED which Ccfolia uses); `cell_size` px
    per square (24, also the map image's pixels per square); `origin_x`/`origin_y` where
    square (0, 0)'s top-left is — when unset, the board's centre square (width // 2,
    height // 2) has its top-left at (0, 0). `dice_per_row`: dice symbols sit in a row
    left of their square, this many a row, further rows above.
    """

    units: Literal["px", "cell"] = "cell"
    dice_per_row: StrictInt = Field(default=5, ge=1, le=20)
    chat_name: str = Field(default="komasync", min_length=1, max_length=50)


#: The whole settings model: Ccfolia's keys and those subsystems add (`TableSubsystem.options`).
SETTINGS = platform_model("ccfolia", CcfoliaSettings)

UNCALIBRATED = Text(
    "komasync: ココフォリア用のキャリブレーションがありません。既定値（座標と大きさはマス単位、"
    "盤の中央のマスが(0, 0)）で置いています。駒がマスからずれていたら、ブリッジのパネルで一度"
    "キャリブレーションしてください（docs/bridges.md）。",
    "komasync: no Ccfolia calibration. Placed with the defaults (positions and sizes in "
    "squares, the board's centre square at (0, 0)). If pieces are off their squares, "
    "calibrate once in the bridge panel (docs/bridges.md).")


def ccfolia_settings(tree: Mapping[str, Any]) -> tuple[CcfoliaSettings, Geometry, list[str]]:
    """Validated settings and the geometry they give (the centre square at (0, 0) by default)."""
    settings, raw, problems = load_settings(tree, "ccfolia", SETTINGS)
    width, height = grid_of(tree)
    unit = settings.cell_size if settings.units == "px" else 1.0
    ox = settings.origin_x if "origin_x" in raw and not problems else -(width // 2) * unit
    oy = settings.origin_y if "origin_y" in raw and not problems else -(height // 2) * unit
    return settings, Geometry.of(settings, (ox, oy)), problems


def calibration(tree: Mapping[str, Any]) -> dict[str, Any]:
    """The calibration an export or the bridge uses: `calibrated` (the room states its
    Ccfolia `units`), the values, and the warning to show when it was not calibrated."""
    settings, raw, problems = load_settings(tree, "ccfolia", SETTINGS)
    _s, geo, _p = ccfolia_settings(tree)
    calibrated = "units" in raw and not problems
    return {"calibrated": calibrated, "units": geo.units, "cell_size": number(settings.cell_size),
            "origin_x": number(geo.origin_x), "origin_y": number(geo.origin_y),
            "warning": None if calibrated else {"ja": UNCALIBRATED.ja, "en": UNCALIBRATED.en}}


# -- drawings → Ccfolia objects ---------------------------------------------------------------


def _character(name: str, pos: tuple[float, float], size: float = 1, *,
               status: Sequence[Mapping[str, Any]] | None = None,
               params: Sequence[Mapping[str, Any]] | None = None, memo: str = "",
               color: str = TOKEN_COLOR, commands: str = "") -> dict[str, Any]:
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


def character_objects(objs: Objects, settings: CcfoliaSettings, geo: Geometry,
                      grid: tuple[int, int], with_dice: bool = True) -> PObjects:
    """Every Ccfolia object for the neutral objects: room, characters, markers, dice
    (`with_dice` False: where dice symbols cannot go, e.g. the exports)."""
    out: PObjects = {ROOM_ID: PlatformObject("room", {"fieldWidth": grid[0],
                                                      "fieldHeight": grid[1]})}
    for oid, o, _cell in placed(objs):
        out.update(_drawn(oid, o, settings, geo, with_dice))
    if (b := _board(objs, settings, geo, grid)) is not None:
        out[BOARD_ID] = b
    return _sized(out, geo.unit)


def _drawn(oid: str, o: TableObject, settings: CcfoliaSettings, geo: Geometry,
           with_dice: bool = True) -> PObjects:
    """The Ccfolia objects of one neutral object's drawings, in their order (before `_sized`)."""
    out: PObjects = {}
    for d in drawings(o, Surface(settings, dice=with_dice)):
        if d["draw"] == DICE:
            out.update(_dice(oid, o, d, settings.dice_per_row, geo))
        else:
            out[oid] = _one(o, d, geo)
    return out


def _one(o: TableObject, d: Drawing, geo: Geometry) -> PlatformObject:
    """A token as a character; a marker, and a line's text, as a marker panel."""
    pos = geo.pos(d["cell"], o["slot"])
    if d["draw"] == TOKEN:
        return PlatformObject("character", _token(d, pos), _ref(o))
    if d["draw"] == MARKER:
        return PlatformObject("marker", _marker(d["text"], pos, d.get("width", 1),
                                                d.get("height", 1)), _ref(o))
    assert d["draw"] == LINE  # a line's text where the line would be (no lines here)
    return PlatformObject("marker", _marker(d["text"], pos), _ref(o))


def _token(t: Token, pos: tuple[float, float]) -> dict[str, Any]:
    return _character(t["name"], pos, t.get("size", 1), status=t.get("bars"),
                      params=t.get("params"), memo=str(t.get("memo", "")),
                      color=str(t.get("color") or TOKEN_COLOR), commands=t.get("commands", ""))


def _board(objs: Objects, settings: CcfoliaSettings, geo: Geometry,
           grid: tuple[int, int]) -> PlatformObject | None:
    """The 'komasync' board character (None when no subsystem has a line for it)."""
    b = board(objs)
    if not b:
        return None
    return PlatformObject("character", _character(
        settings.chat_name, geo.pos(board_cell(grid)), status=b.bars, params=b.params,
        memo="\n".join(b.memo), color=BOARD_COLOR), {"kind": "board", "id": "board"})


def _sized(objs: PObjects, unit: float) -> PObjects:
    """Sizes in the calibrated unit, as positions are (squares × unit; unchanged in `cell`)."""
    if unit == 1:
        return objs
    for o in objs.values():
        for key in ("width", "height"):
            if key in o.data and o.type != "room":
                o.data[key] = number(o.data[key] * unit)
    return objs


def _dice(oid: str, o: TableObject, d: Dice, per_row: int, geo: Geometry) -> PObjects:
    """`value` of `max` as dice symbols: ⌈max/faces⌉ dice, each full but the last, a die
    with nothing left removed; `dice_per_row` a row left of the square, more rows above.
    Each is `<id>-die<n>`, its ref kind `<kind>_die`."""
    faces = d["faces"]
    out: PObjects = {}
    for i in range(max(1, math.ceil(d["max"] / faces))):
        value = min(max(d["value"] - i * faces, 0), faces)
        if value <= 0:
            continue
        row, col = divmod(i, per_row)
        pos = geo.pos(d["cell"], 0, dx=-(1 + col), dy=-row)
        data = {"faces": faces, "value": value, "x": pos[0], "y": pos[1], "width": 1, "height": 1}
        out[f"{oid}-die{i + 1}"] = PlatformObject(
            "dice", data, {"kind": f"{o['kind']}_die", "id": o["ref"], "index": i + 1})
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
        if o.get("cell") is None:
            return {}
        return _sized(_drawn(oid, o, self.settings, self.geometry), self.geometry.unit)

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
