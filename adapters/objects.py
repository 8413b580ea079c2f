"""The neutral table objects, and what a subsystem declares to make and move them.

A *table object* is a plain dict with at least `kind` and `ref` (the engine id), keyed
by its stable id; both platforms draw the same objects. Each subsystem's module in
`adapters/subsystems/` declares one `TableSubsystem`: how it renders its part of the
`table` projection, what it adds to the komasync board, which of its objects a player
may drop by hand and what action a drop or a chat line makes. Nothing here knows any
subsystem; `subsystems/__init__.py` lists them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..engine.errors import Text
from .base import EventResult
from .drawing import MARKER, TOKEN, Area, DrawHook
from .geometry import AdapterSettings, Geometry
from .projection import as_dict, entries

__all__ = [
    "MARKER",
    "TOKEN",
    "Board",
    "Chat",
    "DescribeHook",
    "Drop",
    "Entries",
    "Legal",
    "Objects",
    "TableObject",
    "TableSubsystem",
    "bi",
    "each",
    "object_id",
    "placed",
]

TableObject = dict[str, Any]
Objects = dict[str, TableObject]

# TOKEN / MARKER (drawing.py): an object that carries `draw` is its own drawing, so a
# subsystem needs no draw hook for it.

_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,48}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def object_id(prefix: str, ref: str) -> str:
    """`ks-<prefix>-<ref>`: the platform id of an engine object, the same on every render.

    Only `[A-Za-z0-9_-]` (safe as a Firestore document id, a marker key or a flag value);
    an engine id with other characters keeps its safe part plus 8 hex of its SHA-1.
    """
    if _SAFE.match(ref):
        return f"ks-{prefix}-{ref}"
    digest = hashlib.sha1(ref.encode("utf-8")).hexdigest()[:8]
    safe = _UNSAFE.sub("_", ref).strip("_")[:32]
    return f"ks-{prefix}-{safe}-{digest}" if safe else f"ks-{prefix}-{digest}"


def bi(ja: str, en: str) -> str:
    """One chat line in both languages: `耐久力 12 → 8 / durability 12 → 8`."""
    return f"{ja} / {en}" if en and en != ja else ja


def each(objs: Objects, *kinds: str) -> list[tuple[str, TableObject]]:
    """Objects of `kinds`, in render order."""
    return [(oid, o) for oid, o in objs.items() if o["kind"] in kinds]


def placed(objs: Objects) -> list[tuple[str, TableObject, dict[str, int]]]:
    """Objects that stand on a square, with that square, in render order."""
    return [(oid, o, o["cell"]) for oid, o in objs.items() if o.get("cell") is not None]


@dataclass
class Board:
    """What the 'komasync' board shows: bars (label, value, max) and text params."""

    bars: list[dict[str, Any]] = field(default_factory=list)
    params: list[dict[str, str]] = field(default_factory=list)
    memo: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The board as text: params, then bars as `value/max`."""
        out = [f"{p['label']}: {p['value']}" for p in self.params]
        out += [f"{b['label']}: {b['value']}" + (f"/{b['max']}" if b.get("max") is not None else "")
                for b in self.bars]
        return out

    def __bool__(self) -> bool:
        return bool(self.bars or self.params)


@dataclass(frozen=True)
class Drop:
    """A player dropped object `oid` at platform position (`x`, `y`)."""

    oid: str
    obj: TableObject
    x: float
    y: float
    tree: Mapping[str, Any]
    objs: Objects
    geo: Geometry
    settings: AdapterSettings
    by: str | None

    @property
    def context(self) -> dict[str, Any]:
        """What a reply about this drop names: the object and its kind."""
        return {"object": self.oid, "kind": self.obj["kind"]}


@dataclass(frozen=True)
class Chat:
    """A chat line from a known or unknown table user (`by`: the player, None: the GM)."""

    event: Mapping[str, Any]
    tree: Mapping[str, Any]
    objs: Objects
    known: bool
    by: str | None
    label: str


@dataclass(frozen=True)
class Legal:
    """Where a dropped object may land, for a bridge's veto before it asks the server.

    `cells` None: nowhere, the rules move it; else the squares it may be dropped near.
    `radius` (squares): how near counts; None = the table's `drop_radius` setting (a
    target area); a single square wants less than half a square.
    """

    reason: Text
    cells: list[dict[str, int]] | None = None
    radius: float | None = None


Render = Callable[[Mapping[str, Any], Objects], None]
EntryRender = Callable[[str, dict[str, Any]], TableObject]


@dataclass(frozen=True)
class Entries:
    """A collection of the projection (`part`, `collection`, e.g. table → pieces) whose
    every entry is one table object with id `object_id(prefix, entry id)`, made by `make`
    from that entry alone: a change inside one entry redraws that object only (patch.py)."""

    part: str
    collection: str
    prefix: str
    make: EntryRender

    def render(self, tree: Mapping[str, Any], objs: Objects) -> None:
        """Every entry's object, in the collection's order."""
        for eid, entry in entries(as_dict(tree.get(self.part)), self.collection):
            objs[object_id(self.prefix, eid)] = self.make(eid, entry)

BoardHook = Callable[[Objects, Board], None]
PaintHook = Callable[[Mapping[str, Any], Objects], list[Area] | None]
MoveHook = Callable[[Drop], EventResult]
ChatHook = Callable[[Chat], EventResult | None]
LegalHook = Callable[[TableObject, Objects, Mapping[str, Any]], Legal | None]
#: An action in a sentence, from the projections before and after it (a replay's story):
#: it names only what those trees hold, so a player's replay never names a hidden thing
#: (None: not its action, or nothing of it shows).
DescribeHook = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]], Text | None]


@dataclass(frozen=True)
class TableSubsystem:
    """What one subsystem shows on a table and what it takes from it.

    `render` adds its objects (in a fixed order); `stack` ranks its kinds among things
    sharing a square (lower sits exactly on it); `prefixes` gives a kind's stable-id
    prefix when it is not the kind itself; `owners` names the field holding the player
    whose object it is; `board` adds lines to the komasync board; `moves` maps a kind a
    player may drop by hand to the action the drop makes; `chat` makes an action of a
    chat line (None: not its business); `legal` says where an object may be dropped.
    `entries` lists its collections whose entries are objects made from the entry alone
    (redrawn one by one when only they change); `reads` names other parts of the
    projection its render reads or whose objects it alters (when it has a part in the
    room, changes to those parts are drawn whole); `board_kinds` the kinds its `board`
    hook reads. `draw` maps a kind to the drawings (drawing.py) of one object of that
    kind; `options` a platform to a model of the keys it adds to that platform's settings
    (`meta.platforms.<platform>`); `paint` gives the areas of a map under the table, None
    when it has none to paint; `describe` says one of its actions in a sentence when the
    action logged none.
    """

    name: str
    render: Render
    stack: Mapping[str, int] = field(default_factory=dict)
    prefixes: Mapping[str, str] = field(default_factory=dict)
    owners: Mapping[str, str] = field(default_factory=dict)
    board: BoardHook | None = None
    moves: Mapping[str, MoveHook] = field(default_factory=dict)
    chat: ChatHook | None = None
    legal: LegalHook | None = None
    entries: tuple[Entries, ...] = ()
    reads: frozenset[str] = frozenset()
    board_kinds: frozenset[str] = frozenset()
    draw: Mapping[str, DrawHook] = field(default_factory=dict)
    options: Mapping[str, type[BaseModel]] = field(default_factory=dict)
    paint: PaintHook | None = None
    describe: DescribeHook | None = None
