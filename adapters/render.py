"""The neutral table: the `table` projection rendered once into objects both platforms draw.

`render(tree)` reads ONLY the `table` audience projection and returns a dict of *table
objects* keyed by a stable id (`stable_id`): each subsystem in `subsystems/` adds its
own, in registry order, then things sharing a square get a stacking `slot`. Hidden
things are not in the projection, so they never appear here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from pydantic import BaseModel, create_model

from ..engine.errors import Text
from .drawing import AREA, DICE, LINE, MARKER, TOKEN, Area, DrawHook, Drawing, Surface
from .geometry import AdapterSettings
from .objects import Objects, object_id
from .subsystems import SUBSYSTEMS

__all__ = ["describe", "drawings", "paint", "platform_model", "player_of", "render", "stable_id"]

#: Stable-id prefixes that differ from the kind (`ks-<prefix>-<engine id>`).
PREFIX: dict[str, str] = {k: v for s in SUBSYSTEMS for k, v in s.prefixes.items()}
#: Stacking order of things that share a square (the first sits exactly on it).
STACK_ORDER: dict[str, int] = {k: v for s in SUBSYSTEMS for k, v in s.stack.items()}
#: The field naming the player an object belongs to, by kind.
OWNER_FIELD: dict[str, str] = {k: v for s in SUBSYSTEMS for k, v in s.owners.items()}
#: A kind → the subsystem hook that says how one object of it is drawn.
DRAW: dict[str, DrawHook] = {k: v for s in SUBSYSTEMS for k, v in s.draw.items()}
_SHAPES = frozenset({TOKEN, MARKER, LINE, DICE, AREA})

S = TypeVar("S", bound=AdapterSettings)


def stable_id(kind: str, ref: str) -> str:
    """`ks-<prefix>-<ref>`: the platform id of an engine object of `kind` (objects.object_id)."""
    return object_id(PREFIX.get(kind, kind), ref)


def player_of(o: Mapping[str, Any]) -> Any:
    """Whose object it is: the player its subsystem names (falsy: nobody's)."""
    owner = OWNER_FIELD.get(o["kind"])
    return o.get(owner) if owner else None


def render(tree: Mapping[str, Any]) -> Objects:
    """Every object the table shows, keyed by stable id, in a deterministic order."""
    objs: Objects = {}
    for subsystem in SUBSYSTEMS:
        subsystem.render(tree, objs)
    _stack(objs)
    return objs


def _stack(objs: Objects) -> None:
    """Give things sharing a square a `slot` (0 = exactly on it), in `STACK_ORDER`."""
    cells: dict[tuple[int, int], list[tuple[int, str, str]]] = {}
    for oid, o in objs.items():
        o.setdefault("slot", 0)
        cell = o.get("cell")
        if o["kind"] in STACK_ORDER and cell is not None:
            key = (cell["x"], cell["y"])
            cells.setdefault(key, []).append((STACK_ORDER[o["kind"]], str(o["ref"]), oid))
    for items in cells.values():
        for slot, (_order, _ref, oid) in enumerate(sorted(items)):
            objs[oid]["slot"] = slot


def drawings(o: Mapping[str, Any], surface: Surface) -> list[Drawing]:
    """How one table object is drawn: its subsystem's hook for its kind, else the object
    itself when it carries a `draw` shape, else nothing (it only feeds the board)."""
    hook = DRAW.get(o["kind"])
    if hook is not None:
        return hook(o, surface)
    return [cast(Drawing, o)] if o.get("draw") in _SHAPES else []


def platform_model(platform: str, own: type[S]) -> type[S]:
    """A platform's settings model: its own keys plus those each subsystem adds for it
    (`TableSubsystem.options`), validated as one (an invalid key resets them all)."""
    added = tuple(m for s in SUBSYSTEMS if (m := s.options.get(platform)) is not None)
    if not added:
        return own
    models: tuple[type[BaseModel], ...] = (*added, own)  # the platform's own keys first
    return cast(type[S], create_model(own.__name__, __base__=models, __doc__=own.__doc__))


def paint(tree: Mapping[str, Any], objs: Objects) -> list[Area] | None:
    """The map under the table: every subsystem's areas in registry order (None: no
    subsystem paints one)."""
    painted = [p for s in SUBSYSTEMS if s.paint is not None
               if (p := s.paint(tree, objs)) is not None]
    return None if not painted else [a for areas in painted for a in areas]


def describe(action: Mapping[str, Any], before: Mapping[str, Any],
             after: Mapping[str, Any]) -> Text | None:
    """An action that logged no sentence, said by its subsystem from the audience's trees
    before and after it (None: no subsystem says it, or nothing of it shows)."""
    for subsystem in SUBSYSTEMS:
        if subsystem.describe is not None and (said := subsystem.describe(action, before, after)):
            return said
    return None
