"""Exports that set up a Ccfolia room without a bridge: clipboard JSON and the room ZIP.

- `clipboard(tree)`: one `{"kind": "character", "data": {...}}` per character the live
  adapter would create (docs.ccfolia.com Clipboard API). Paste each onto the board.
  `x`, `y` and `active` are left out: pasting cannot set them (vtt.md).
- `room_data(tree)` / `room_zip(tree)`: the room ZIP for Ccfolia's import: `__data.json`
  (`meta.version` 1.1.0; entities room, items, decks, notes, characters, effects,
  scenes, savedatas, snapshots; `resources`), images named by their SHA-256, and a
  `.token` file (`0.` + 64 hex). The `room` entity carries the field size, the marker
  panels (traps, directions, generic markers) and, for a tower defense, a generated
  fortress map as the foreground (TD-MAP-2). Dice symbols are not in the ZIP (whether
  the import reads them is unconfirmed), so forts come as characters with a 耐久力 bar
  whatever `forts_as` says.

Both follow the room's Ccfolia calibration (`meta.platforms.ccfolia`: positions and sizes
in its unit, the ZIP's positions from its origin). An export made without calibration says
so in its own output: the ZIP carries a marker panel with the warning beside the board,
the clipboard file starts with a `{"komasync": …}` line that says it (and is not to be
pasted), and `export_notice(tree)` gives the same words to the CLI and the GM console.

Everything is deterministic: the same projection gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any

from ..engine.errors import Text
from .ccfolia.adapter import (
    ROOM_ID,
    CcfoliaSettings,
    calibration,
    ccfolia_settings,
    character_objects,
)
from .diff import PlatformObject
from .geometry import Geometry, number
from .objects import Objects
from .projection import grid_of
from .render import render

__all__ = ["CALIBRATION_MARKER", "DATA_VERSION", "ENTITIES", "NOT_A_CHARACTER", "clipboard",
           "clipboard_document", "clipboard_lines", "export_notice", "room_data", "room_files",
           "room_zip"]

DATA_VERSION = "1.1.0"
ENTITIES = ("room", "items", "decks", "notes", "characters", "effects", "scenes", "savedatas",
            "snapshots")
#: Not settable by pasting (the board's defaults win).
NOT_PASTED = ("x", "y", "active")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
#: The ZIP's marker panel that carries the "not calibrated" warning.
CALIBRATION_MARKER = "ks-calibration"
NOT_A_CHARACTER = Text("この行はキャラクターではありません（貼り付けないでください）。",
                       "This line is not a character (do not paste it).")


def clipboard(tree: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Clipboard JSON objects by stable id, in board order."""
    settings, geo, _problems = ccfolia_settings(tree)
    objs = character_objects(render(tree), settings, geo, grid_of(tree), with_dice=False)
    return {oid: {"kind": "character",
                  "data": {k: v for k, v in o.data.items() if k not in NOT_PASTED}}
            for oid, o in objs.items() if o.type == "character"}


def export_notice(tree: Mapping[str, Any]) -> dict[str, Any]:
    """Which calibration an export uses, and the warning when the room has none."""
    return calibration(tree)


def clipboard_document(tree: Mapping[str, Any]) -> dict[str, Any]:
    """The clipboard export as one object: the calibration notice (saying it is not a
    character) and the characters."""
    note = {"note": {"ja": NOT_A_CHARACTER.ja, "en": NOT_A_CHARACTER.en}}
    return {"komasync": {**export_notice(tree), **note},
            "characters": list(clipboard(tree).values())}


def clipboard_lines(tree: Mapping[str, Any]) -> list[str]:
    """The clipboard file: a first line saying which calibration was used (and that it is
    not a character), then one pasteable character per line."""
    doc = clipboard_document(tree)
    head = {"komasync": doc["komasync"]}
    return [json.dumps(o, ensure_ascii=False) for o in [head, *doc["characters"]]]


def room_files(tree: Mapping[str, Any]) -> dict[str, bytes]:
    """Every file of the room ZIP by name: `__data.json`, `.token`, then the images."""
    data, images = _room(tree)
    body = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False).encode("utf-8")
    token = "0." + hashlib.sha256(body).hexdigest()
    return {"__data.json": body, ".token": token.encode("ascii"), **images}


def room_data(tree: Mapping[str, Any]) -> dict[str, Any]:
    """The `__data.json` object alone."""
    return _room(tree)[0]


def room_zip(tree: Mapping[str, Any]) -> bytes:
    """The room ZIP for Ccfolia's room import (deterministic bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in room_files(tree).items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, body)
    return buf.getvalue()


def _room(tree: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, bytes]]:
    settings, geo, _problems = ccfolia_settings(tree)
    grid = grid_of(tree)
    objs = render(tree)
    pobjs = character_objects(objs, settings, geo, grid, with_dice=False)
    notice = export_notice(tree)
    if notice["warning"] is not None:
        pobjs[CALIBRATION_MARKER] = _warning_marker(notice["warning"], geo, grid)
    images: dict[str, bytes] = {}
    markers: dict[str, Any] = {}
    for oid, o in pobjs.items():
        if o.type != "marker":
            continue
        png = _tile(MARKER_COLORS.get(str(o.ref.get("kind")), MARKER_COLORS["marker"]))
        name = _image(images, png)
        markers[oid] = {**o.data, "imageUrl": name}
    foreground = None
    if isinstance(tree.get("tower_defense"), dict):
        foreground = _image(images, fortress_map(tree, objs, settings))
    room = {
        "defaultAnonymousRole": None, "backgroundUrl": None, "foregroundUrl": foreground,
        "embedUrl": None, "thumbnailUrl": None, "mapType": None,
        "fieldWidth": pobjs[ROOM_ID].data["fieldWidth"],
        "fieldHeight": pobjs[ROOM_ID].data["fieldHeight"], "fieldObjectFit": "fill",
        "alignWithGrid": True, "messageChannels": [], "markers": markers, "monitored": False,
        "sceneId": None, "archived": False, "backgroundColor": "", "variables": [],
        "underConstruction": False, "hidden3dDice": False,
    }
    characters = {oid: dict(o.data) for oid, o in pobjs.items() if o.type == "character"}
    entities: dict[str, Any] = {name: {} for name in ENTITIES}
    entities["room"] = room
    entities["characters"] = characters
    data = {"meta": {"version": DATA_VERSION}, "entities": entities,
            "resources": {name: {"type": "image/png"} for name in images}}
    return data, images


def _warning_marker(warning: dict[str, str], geo: Geometry, grid: tuple[int, int]) -> PlatformObject:
    """A marker panel under the board with the "not calibrated" warning (in the ZIP's
    own output, where the GM sees it right after the import)."""
    x, y = geo.pos({"x": 0, "y": grid[1] + 1})
    width, height = min(max(grid[0], 8), 16), 3
    return PlatformObject("marker", {
        "x": x, "y": y, "z": 100, "width": number(width * geo.unit), "height": number(height * geo.unit),
        "locked": False, "freezed": False, "text": f"{warning['ja']}\n{warning['en']}",
        "imageUrl": None, "clickAction": None}, {"kind": "calibration", "id": "calibration"})


def _image(images: dict[str, bytes], png: bytes) -> str:
    name = hashlib.sha256(png).hexdigest() + ".png"
    images[name] = png
    return name


# -- images: a tiny PNG writer (RGB, 8 bit) ------------------------------------------------------

RGB = tuple[int, int, int]
MARKER_COLORS: dict[str, RGB] = {"trap": (198, 40, 40), "direction": (21, 101, 192),
                                 "marker": (84, 110, 122), "calibration": (239, 108, 0)}
MAP_COLORS: dict[str, RGB] = {
    "ground": (38, 42, 50), "line": (58, 63, 74), "passage": (128, 116, 92),
    "lateral": (104, 104, 128), "direction": (40, 80, 150), "fort": (150, 100, 60),
    "final": (170, 60, 50),
}


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    """A PNG file from `height` rows of `width` RGB pixels."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    raw = b"".join(b"\x00" + r for r in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def _tile(color: RGB, size: int = 48) -> bytes:
    """A square marker image: `color` with a light border."""
    edge = bytes((240, 240, 240)) * size
    inner = bytes((240, 240, 240)) * 2 + bytes(color) * (size - 4) + bytes((240, 240, 240)) * 2
    rows = [edge, edge] + [inner] * (size - 4) + [edge, edge]
    return png(size, size, rows)


def fortress_map(tree: Mapping[str, Any], objs: Objects, settings: CcfoliaSettings) -> bytes:
    """TD-MAP-2: the fortress as an image for the room's foreground — passages, lateral
    passages, directions and forts (the final fort darker) on the table grid."""
    width, height = grid_of(tree)
    px = max(8, min(64, int(settings.cell_size)))
    colors: dict[tuple[int, int], RGB] = {}
    td = tree.get("tower_defense")
    passages = td.get("passages", {}) if isinstance(td, dict) else {}
    for p in passages.values() if isinstance(passages, dict) else ():
        if not isinstance(p, dict):
            continue
        tone = MAP_COLORS["lateral" if p.get("lateral") else "passage"]
        for c in p.get("cells", []):
            if isinstance(c, dict) and isinstance(c.get("x"), int) and isinstance(c.get("y"), int):
                colors[(c["x"], c["y"])] = tone
    for o in objs.values():
        if o["kind"] in ("direction", "fort") and o.get("cell"):
            tone = MAP_COLORS["final" if o.get("final") else o["kind"]]
            colors[(o["cell"]["x"], o["cell"]["y"])] = tone
    line, ground = bytes(MAP_COLORS["line"]), MAP_COLORS["ground"]
    rows: list[bytes] = []
    for cy in range(height):
        body = b"".join(line + bytes(colors.get((cx, cy), ground)) * (px - 1)
                        for cx in range(width))
        rows.append(line * (width * px))
        rows.extend([body] * (px - 1))
    return png(width * px, height * px, rows)
