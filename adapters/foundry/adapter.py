"""Foundry VTT (v12/v13): the neutral table as scene tokens and drawings, plus chat.

How this works: `FoundryAdapter` renders the `table` projection (adapters/render.py) and
draws it on the bridge's scene: enemy groups, 特異個体, PCs and generic pieces are
tokens (their name shows the count: token text); forts, traps, directions and generic
markers are drawings with text (耐久力 as drawing text); round/phase, counters and bases'
GP are the text of one 'komasync' board drawing. Positions are pixels: square → the
scene's grid size (`cell_size`, default 100) plus its padding offset (`origin_x/y`,
default 0). Each change is batched: at most one `delete`, one `create` and one `update`
operation per document type (Token, Drawing), then one `chat` operation with a message
per public log line. Every document carries `flags.komasync.id`, its stable id.
docs/adapters.md gives the exact shapes.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, StrictFloat, StrictInt

from ...engine.errors import Text
from ..board import BOARD_ID, board, board_cell
from ..common import TableAdapter
from ..diff import Diff, PlatformObject, PObjects
from ..events import legal_drop
from ..geometry import AdapterSettings, Geometry, load_settings, number
from ..objects import Objects, TableObject, bi, placed
from ..projection import as_dict
from ..render import player_of

__all__ = ["DOCUMENT_TYPES", "FoundryAdapter", "FoundrySettings", "foundry_settings"]

DOCUMENT_TYPES = ("Token", "Drawing")
#: Token `disposition` (CONST.TOKEN_DISPOSITIONS: HOSTILE -1, NEUTRAL 0, FRIENDLY 1).
DISPOSITION = {"group": -1, "individual": -1, "pc": 1, "piece": 0}
#: Token `displayName` (CONST.TOKEN_DISPLAY_MODES.ALWAYS): the count is in the name.
DISPLAY_ALWAYS = 50
#: Drawing `fillType` (CONST.DRAWING_FILL_TYPES.SOLID).
FILL_SOLID = 1
COLORS = {"fort": "#6d4c41", "trap": "#c62828", "direction": "#1565c0", "marker": "#546e7a",
          "board": "#263238", "link": "#e65100"}
#: Drawing `shape.type` of a polygon (CONST.DRAWING_TYPES.POLYGON); `fillType` NONE.
POLYGON, FILL_NONE = "p", 0


class FoundrySettings(AdapterSettings):
    """`meta.platforms.foundry`: `cell_size` = `scene.grid.size` (px, default 100);
    `origin_x`/`origin_y` = the scene's padding offset (`sceneRect` x/y, default 0);
    `font_size` of drawing text; `token_images` kind (`pc`, `group`, `individual`,
    `piece`) → image path for `texture.src` (none: Foundry's default)."""

    cell_size: StrictFloat = Field(default=100.0, gt=0)
    units: Literal["px"] = "px"
    font_size: StrictInt = Field(default=20, ge=6, le=128)
    token_images: dict[str, str] = Field(default_factory=dict)
    chat_alias: str = Field(default="komasync", min_length=1, max_length=50)


def foundry_settings(tree: Mapping[str, Any]) -> tuple[FoundrySettings, Geometry, list[str]]:
    """Validated settings and the geometry they give (origin: the scene's padding)."""
    settings, _raw, problems = load_settings(tree, "foundry", FoundrySettings)
    return settings, Geometry.of(settings), problems


def _text(text: Text) -> dict[str, str]:
    return {"ja": text.ja, "en": text.en}


def _flags(oid: str, o: Mapping[str, Any]) -> dict[str, Any]:
    ref = {"id": oid, "kind": o["kind"], "ref": o["ref"]}
    player = player_of(o)
    if player:
        ref["player"] = player
    return {"komasync": ref}


class FoundryAdapter(TableAdapter):
    """Foundry: table projection → batched Token/Drawing/chat operations; events → actions."""

    platform = "foundry"
    settings: FoundrySettings

    def _settings(self, tree: Mapping[str, Any]) -> tuple[FoundrySettings, Geometry, list[str]]:
        return foundry_settings(tree)

    # -- neutral objects → documents --------------------------------------------------------
    def _objects(self, objs: Objects, tree: Mapping[str, Any]) -> PObjects:
        out: PObjects = {}
        for oid, o, cell in placed(objs):
            kind = o["kind"]
            if kind in DISPOSITION:
                data = self._token(oid, o)
                data["flags"]["komasync"]["legal"] = self._legal(o, objs, tree)
                out[oid] = PlatformObject("Token", data, {"kind": kind, "id": o["ref"]})
            elif kind == "fort":
                text = f"{o['name']}\n耐久力 {o['durability']}/{o['max']}"
                if o["durability"] <= 0:
                    text += "\n陥落 / fallen"
                out[oid] = self._drawing(oid, o, cell, 1, 1, text, COLORS["fort"])
            elif kind == "marker":
                out[oid] = self._drawing(oid, o, cell, o["width"], o["height"], o["text"],
                                         COLORS["marker"])
            elif kind in ("trap", "direction"):
                out[oid] = self._drawing(oid, o, cell, 1, 1, o["text"], COLORS[kind])
            elif o.get("draw") == "token":  # objects.TOKEN: its bars are in the name
                data = self._token(oid, o)
                data["flags"]["komasync"]["legal"] = self._legal(o, objs, tree)
                out[oid] = PlatformObject("Token", data, {"kind": kind, "id": o["ref"]})
            elif o.get("draw") == "marker":  # objects.MARKER
                out[oid] = self._drawing(oid, o, cell, o.get("width", 1), o.get("height", 1),
                                         o["text"], str(o.get("color") or COLORS["marker"]))
            elif kind == "link":
                out[oid] = self._line(oid, o)
        b = board(objs)
        if b:
            lines = [self.settings.chat_alias, *b.lines()]
            height = max(1, math.ceil(len(lines) * self.settings.font_size * 1.5
                                      / self.settings.cell_size))
            o = {"kind": "board", "ref": "board"}
            out[BOARD_ID] = self._drawing(BOARD_ID, o, board_cell(self.grid), 6, height,
                                          "\n".join(lines), COLORS["board"])
        return out

    def _legal(self, o: TableObject, objs: Objects, tree: Mapping[str, Any]
               ) -> dict[str, Any] | None:
        """Legal-move data pushed ahead of time, for the module's synchronous veto.

        The object's subsystem says where it may land (`events.legal_drop`): nowhere for
        what the rules move, near given squares otherwise. `None` (no opinion) when no
        subsystem has one and when the GM relaxed enforcement: then only the server decides.
        """
        if as_dict(tree.get("meta")).get("enforcement", "enforce") != "enforce":
            return None
        legal = legal_drop(o, objs, tree)
        if legal is None:
            return None
        if legal.cells is None:
            return {"positions": [], "reason": _text(legal.reason)}
        positions = [self._at(c) for c in legal.cells]
        radius = legal.radius if legal.radius is not None else self.settings.drop_radius
        return {"positions": positions, "radius": radius * self.geometry.unit,
                "reason": _text(legal.reason)}

    def _at(self, cell: Mapping[str, int]) -> dict[str, float | int]:
        x, y = self.geometry.pos(cell)
        return {"x": x, "y": y}

    def _token(self, oid: str, o: TableObject) -> dict[str, Any]:
        x, y = self.geometry.pos(o["cell"], o["slot"])
        name = o["name"]
        if o["kind"] == "group":  # TD-REIN-1 個体数 as token text
            name = f"{name}（個体数 {o['count']}）"
            if o["snared"]:
                name += "［足止め］"
            if o["marked"]:
                name += "［魔眼］"
        elif o["kind"] == "individual":
            name = f"{name}（{o['special_ja']}）"
        elif o.get("draw") == "token":  # no system-independent bar: the values in the name
            name += "".join(f"（{b['label']} {b['value']}/{b['max']}）" for b in o.get("bars", []))
            name += f"［{o['caption']}］" if o.get("caption") else ""
        data: dict[str, Any] = {
            "name": name, "x": x, "y": y, "width": o.get("size", 1), "height": o.get("size", 1),
            "hidden": False, "displayName": DISPLAY_ALWAYS,
            "disposition": DISPOSITION.get(o["kind"], o.get("disposition", 0)),
            "actorLink": False, "flags": _flags(oid, o),
        }
        if o.get("draw") == "token":
            data["flags"]["komasync"]["bars"] = [dict(b) for b in o.get("bars", [])]
        image = self.settings.token_images.get(o["kind"])
        if image:
            data["texture"] = {"src": image}
        return data

    def _drawing(self, oid: str, o: Mapping[str, Any], cell: Mapping[str, int], w: int, h: int,
                 text: str, color: str) -> PlatformObject:
        x, y = self.geometry.pos(cell)
        size = self.settings.cell_size
        data = {
            "x": x, "y": y, "shape": {"type": "r", "width": number(w * size), "height": number(h * size)},
            "text": text, "fontSize": self.settings.font_size, "textColor": "#ffffff",
            "fillType": FILL_SOLID, "fillColor": color, "fillAlpha": 0.35,
            "strokeColor": color, "strokeWidth": 2, "hidden": False, "flags": _flags(oid, o),
        }
        return PlatformObject("Drawing", data, {"kind": o["kind"], "id": o["ref"]})

    def _line(self, oid: str, o: TableObject) -> PlatformObject:
        """A line between the centres of two squares (`from`, `to`): a polygon drawing of
        two points, relative to the top-left of their bounding box, with the text."""
        half = self.geometry.unit / 2
        (ax, ay), (bx, by) = self.geometry.pos(o["from"]), self.geometry.pos(o["to"])
        x, y = min(ax, bx), min(ay, by)
        points = [number(v) for v in (ax - x + half, ay - y + half, bx - x + half, by - y + half)]
        data = {
            "x": number(x), "y": number(y),
            "shape": {"type": POLYGON, "width": number(abs(bx - ax) + 2 * half),
                      "height": number(abs(by - ay) + 2 * half), "points": points},
            "text": o["text"], "fontSize": self.settings.font_size, "textColor": "#ffffff",
            "fillType": FILL_NONE, "strokeColor": COLORS["link"], "strokeWidth": 6,
            "strokeAlpha": 0.9, "hidden": False, "flags": _flags(oid, o),
        }
        return PlatformObject("Drawing", data, {"kind": o["kind"], "id": o["ref"]})

    # -- differences → batched operations -------------------------------------------------
    def _ops(self, change: Diff, reset: bool) -> list[dict[str, Any]]:
        ops: list[dict[str, Any]] = []
        if reset:
            ops.append({"op": "reset", "ids": [i for i, _o in change.created]})
        for doc in DOCUMENT_TYPES:
            ids = [i for i, o in change.removed if o.type == doc]
            if ids:
                ops.append({"op": "delete", "type": doc, "ids": ids})
        for doc in DOCUMENT_TYPES:
            data = [dict(o.data) for _i, o in change.created if o.type == doc]
            if data:
                ops.append({"op": "create", "type": doc, "data": data})
        for doc in DOCUMENT_TYPES:
            updates = [{"id": i, "data": changes} for i, o, changes, _old in change.updated
                       if o.type == doc]
            if updates:
                ops.append({"op": "update", "type": doc, "updates": updates, "options": {}})
        return ops

    def _chat_ops(self, lines: list[tuple[str, str]], to: str | None = None,
                  kind: str = "log") -> list[dict[str, Any]]:
        messages = []
        for ja, en in lines:
            messages.append({"content": html.escape(bi(ja, en), quote=False),
                             "speaker": {"alias": self.settings.chat_alias},
                             "whisper": [to] if to else [],
                             "flags": {"komasync": {"kind": kind, "ja": ja, "en": en}}})
        return [{"op": "chat", "messages": messages}] if messages else []

    def _snap_ops(self, oid: str, obj: PlatformObject) -> list[dict[str, Any]]:
        return [{"op": "update", "type": obj.type, "options": {"animate": False},
                 "updates": [{"id": oid, "data": obj.position()}]}]
