"""Exports that set up a Ccfolia room without a bridge: clipboard JSON and the room ZIP.

- `clipboard(tree)`: one `{"kind": "character", "data": {...}}` per character the live
  adapter would create (docs.ccfolia.com Clipboard API). Paste each onto the board.
  `x`, `y` and `active` are left out: pasting cannot set them (vtt.md).
- `room_data(tree)` / `room_zip(tree)`: the room ZIP for Ccfolia's import: `__data.json`
  (`meta.version` 1.1.0; entities room, items, decks, notes, characters, effects,
  scenes, savedatas, snapshots; `resources`), images named by their SHA-256, and a
  `.token` file (`0.` + 64 hex). The `room` entity carries the field size, the marker
  panels (each drawing's markers, and lines' text, on a tile of the drawing's colour)
  and, when a subsystem paints a map (`TableSubsystem.paint`), that map as the
  foreground. Dice symbols are not in the ZIP (whether the import reads them is
  unconfirmed): the drawings are asked for where dice cannot go (`Surface.dice` False),
  so a subsystem shows the same numbers another way, whatever its settings say.

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
from .drawing import LINE, MARKER, Area, Surface
from .geometry import Geometry, number
from .objects import Objects, placed
from .projection import grid_of
from .render import drawings, paint, render

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
    colors = _marker_colors(objs, settings)
    for oid, o in pobjs.items():
        if o.type != "marker":
            continue
        png = _tile(colors.get(oid) or (CALIBRATION_COLOR if oid == CALIBRATION_MARKER
                                        else MARKER_COLOR))
        name = _image(images, png)
        markers[oid] = {**o.data, "imageUrl": name}
    foreground = None
    if (areas := paint(tree, objs)) is not None:
        foreground = _image(images, map_image(tree, areas, settings))
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


def _marker_colors(objs: Objects, settings: CcfoliaSettings) -> dict[str, RGB]:
    """Each marker panel's tile colour: its drawing's (a marker's, or a line's whose text
    the panel shows); none given, the plain marker grey."""
    surface = Surface(settings)
    return {oid: _rgb(color) for oid, o, _cell in placed(objs) for d in drawings(o, surface)
            if d["draw"] in (MARKER, LINE) and (color := d.get("color"))}


def _image(images: dict[str, bytes], png: bytes) -> str:
    name = hashlib.sha256(png).hexdigest() + ".png"
    images[name] = png
    return name


# -- images: a tiny PNG writer (RGB, 8 bit) ------------------------------------------------------

RGB = tuple[int, int, int]
#: A marker panel's tile without a colour of its own; the calibration warning's.
MARKER_COLOR: RGB = (84, 110, 122)
CALIBRATION_COLOR: RGB = (239, 108, 0)
#: The map image's ground and square lines (what no area paints).
GROUND, GRID_LINE = (38, 42, 50), (58, 63, 74)


def _rgb(color: str) -> RGB:
    """`#rrggbb` as (r, g, b)."""
    value = int(color.lstrip("#")[:6], 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


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


def map_image(tree: Mapping[str, Any], areas: list[Area], settings: CcfoliaSettings) -> bytes:
    """The map under the table as an image for the room's foreground: the table's squares
    with lines between them, each area's squares in its colour (later ones on top)."""
    width, height = grid_of(tree)
    px = max(8, min(64, int(settings.cell_size)))
    colors: dict[tuple[int, int], RGB] = {}
    for area in areas:
        tone = _rgb(area["color"])
        for c in area["cells"]:
            colors[(c["x"], c["y"])] = tone
    line, ground = bytes(GRID_LINE), GROUND
    rows: list[bytes] = []
    for cy in range(height):
        body = b"".join(line + bytes(colors.get((cx, cy), ground)) * (px - 1)
                        for cx in range(width))
        rows.append(line * (width * px))
        rows.extend([body] * (px - 1))
    return png(width * px, height * px, rows)
