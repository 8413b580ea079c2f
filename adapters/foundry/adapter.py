"""Foundry VTT (v12/v13): the neutral table's drawings as scene tokens and drawings, plus chat.

How this works: `FoundryAdapter` renders the `table` projection (adapters/render.py) and
draws each object's drawings (adapters/drawing.py) on the bridge's scene, knowing nothing
of the subsystem that made them: a token is a Token (its bars in its name: token text),
a fixed token and a marker a rectangle Drawing with text, a line a polygon Drawing of two
points; dice symbols are not drawn (their numbers are in the token's text). The board's
lines are the text of one 'komasync' board drawing. Positions are pixels: square → the
scene's grid size (`cell_size`, default 100) plus its padding offset (`origin_x/y`,
default 0). Each change is batched: at most one `delete`, one `create` and one `update`
operation per document type (Token, Drawing), then one `chat` operation with a message
per public log line. Every document carries `flags.komasync.id`, its stable id.
docs/adapters.md gives the exact shapes.

Dice from Foundry come in a `chat` table.event in one of two shapes (docs/bridges.md,
"Dice from Foundry"), read by adapters/dice_events.py before any rule sees them:

    {"kind": "chat", "text": "<the message as lines>", "roll": "<BCDice's lines>",
     "speaker": {"id"?: "<stable id>", "name": "<alias>"}, "user": {"id", "name", "gm"}}
    {"kind": "chat", "text": "<flavor>", "rolls": [{"formula": "5d6", "total": 20,
       "terms": [{"type": "die", "faces": 6, "number": 5, "modifiers": [],
                  "results": [{"result": 6, "active": true, "discarded": false}, …]},
                 {"type": "op", "operator": "+"}, {"type": "number", "number": 2}, …]}],
     "speaker": …, "user": …}

The first is BCDice text as a module posted it (zero-width spaces after commas, a repeat
glued at its `#n`: `dice_events.bcdice_text` undoes both); the second Foundry's own dice from
`ChatMessage#rolls` (`dice_events.NativeRoll`), written as the lines BCDice prints for the same
dice (`dice_events.native_lines`), so every rule reads both alike; the event then says `native`.
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
from ..drawing import LINE, MARKER, TOKEN, Drawing, Line, Surface, Token, composed_title, panel_text
from ..events import legal_drop
from ..geometry import AdapterSettings, Geometry, load_settings, number
from ..objects import Objects, TableObject, bi, placed
from ..projection import as_dict
from ..render import drawings, platform_model, player_of

__all__ = ["DOCUMENT_TYPES", "SETTINGS", "FoundryAdapter", "FoundrySettings", "foundry_settings"]

DOCUMENT_TYPES = ("Token", "Drawing")
#: Token `displayName` (CONST.TOKEN_DISPLAY_MODES.ALWAYS): the count is in the name.
DISPLAY_ALWAYS = 50
#: Drawing `fillType` (CONST.DRAWING_FILL_TYPES.SOLID).
FILL_SOLID = 1
#: A marker's colour when its drawing gives none, the board's, a line's.
PANEL_COLOR, BOARD_COLOR, LINE_COLOR = "#546e7a", "#263238", "#e65100"
#: Drawing `shape.type` of a polygon (CONST.DRAWING_TYPES.POLYGON); `fillType` NONE.
POLYGON, FILL_NONE = "p", 0


class FoundrySettings(AdapterSettings):
    """`meta.platforms.foundry`: `cell_size` = `scene.grid.size` (px, default 100);
    `origin_x`/`origin_y` = the scene's padding offset (`sceneRect` x/y, default 0);
    `font_size` of drawing text; `token_images` an object kind (as in
    `flags.komasync.kind`) → image path for its tokens' `texture.src` (none: Foundry's
    default)."""

    cell_size: StrictFloat = Field(default=100.0, gt=0)
    units: Literal["px"] = "px"
    font_size: StrictInt = Field(default=20, ge=6, le=128)
    token_images: dict[str, str] = Field(default_factory=dict)
    chat_alias: str = Field(default="komasync", min_length=1, max_length=50)


#: The whole settings model: Foundry's keys and any a subsystem adds for Foundry.
SETTINGS = platform_model("foundry", FoundrySettings)


def foundry_settings(tree: Mapping[str, Any]) -> tuple[FoundrySettings, Geometry, list[str]]:
    """Validated settings and the geometry they give (origin: the scene's padding)."""
    settings, _raw, problems = load_settings(tree, "foundry", SETTINGS)
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
    reads_rolls = True  # chat events carry module-wrapped BCDice text or `rolls` (dice_events.py)
    settings: FoundrySettings

    def _settings(self, tree: Mapping[str, Any]) -> tuple[FoundrySettings, Geometry, list[str]]:
        return foundry_settings(tree)

    # -- drawings → documents ---------------------------------------------------------------
    def _objects(self, objs: Objects, tree: Mapping[str, Any]) -> PObjects:
        out: PObjects = {}
        surface = Surface(self.settings)
        for oid, o, _cell in placed(objs):
            for d in drawings(o, surface):
                if (doc := self._document(oid, o, d, objs, tree)) is not None:
                    out[oid] = doc
        b = board(objs)
        if b:
            lines = [self.settings.chat_alias, *b.lines()]
            height = max(1, math.ceil(len(lines) * self.settings.font_size * 1.5
                                      / self.settings.cell_size))
            o = {"kind": "board", "ref": "board"}
            out[BOARD_ID] = self._drawing(BOARD_ID, o, board_cell(self.grid), 6, height,
                                          "\n".join(lines), BOARD_COLOR)
        return out

    def _document(self, oid: str, o: TableObject, d: Drawing, objs: Objects,
                  tree: Mapping[str, Any]) -> PlatformObject | None:
        """One drawing as a document: a token as a Token (a fixed one as a panel), a
        marker as a panel, a line as a polygon; dice symbols as nothing."""
        if d["draw"] == TOKEN and d.get("fixed"):
            size = d.get("size", 1)
            return self._drawing(oid, o, d["cell"], size, size, panel_text(d),
                                 str(d.get("color") or PANEL_COLOR))
        if d["draw"] == TOKEN:
            data = self._token(oid, o, d)
            data["flags"]["komasync"]["legal"] = self._legal(o, objs, tree)
            return PlatformObject("Token", data, {"kind": o["kind"], "id": o["ref"]})
        if d["draw"] == MARKER:
            return self._drawing(oid, o, d["cell"], d.get("width", 1), d.get("height", 1),
                                 d["text"], str(d.get("color") or PANEL_COLOR))
        if d["draw"] == LINE:
            return self._line(oid, o, d)
        return None

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

    def _token(self, oid: str, o: TableObject, t: Token) -> dict[str, Any]:
        """A Token named by the drawing's `title`, else by its name, bars and caption
        (the bars then also as `flags.komasync.bars`: Foundry has no system-free bar)."""
        x, y = self.geometry.pos(t["cell"], o["slot"])
        size = t.get("size", 1)
        data: dict[str, Any] = {
            "name": t["title"] if "title" in t else composed_title(t), "x": x, "y": y,
            "width": size, "height": size, "hidden": False, "displayName": DISPLAY_ALWAYS,
            "disposition": t.get("disposition", 0), "actorLink": False, "flags": _flags(oid, o),
        }
        if "title" not in t and t.get("bars"):
            data["flags"]["komasync"]["bars"] = [dict(b) for b in t.get("bars", [])]
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

    def _line(self, oid: str, o: TableObject, line: Line) -> PlatformObject:
        """A line between the centres of two squares (`from`, `to`): a polygon drawing of
        two points, relative to the top-left of their bounding box, with the text."""
        half = self.geometry.unit / 2
        (ax, ay), (bx, by) = self.geometry.pos(line["from"]), self.geometry.pos(line["to"])
        x, y = min(ax, bx), min(ay, by)
        points = [number(v) for v in (ax - x + half, ay - y + half, bx - x + half, by - y + half)]
        data = {
            "x": number(x), "y": number(y),
            "shape": {"type": POLYGON, "width": number(abs(bx - ax) + 2 * half),
                      "height": number(abs(by - ay) + 2 * half), "points": points},
            "text": line["text"], "fontSize": self.settings.font_size, "textColor": "#ffffff",
            "fillType": FILL_NONE, "strokeColor": line.get("color", LINE_COLOR), "strokeWidth": 6,
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
