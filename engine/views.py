"""Per-audience projections: what the GM, each player and the table may see.

How this works: every state model is an `Entity`. An entity may hide itself from an
audience (`visible_to`), name fields only the GM sees (`__secret__`), or rewrite its
projected data (`redact`). Changes are projected per *unit* — the first dict entry on a
changed path (a piece, a counter, a prompt) or a subsystem's top-level field. A `View` keeps
the last projection an audience was sent and turns touched units into minimal ops, so
the cost of an action grows with what it touched, never with the size of the state.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from .errors import Refusal, Text
from .paths import MISSING, Path, _child, get

__all__ = ["HIDDEN", "NOT_AVAILABLE", "Audience", "Entity", "Memo", "NonGmProbe", "Op", "View",
           "project", "project_unit", "refusal_for", "shows", "unit_of", "unit_ops"]

AudienceKind = Literal["gm", "table", "player"]


@dataclass(frozen=True, slots=True)
class Audience:
    """Who a projection is for: the GM, the table (bridges, observers) or one player."""

    kind: AudienceKind
    player: str | None = None

    @property
    def key(self) -> str:
        return f"player:{self.player}" if self.kind == "player" else self.kind

    @property
    def is_gm(self) -> bool:
        return self.kind == "gm"

    @classmethod
    def parse(cls, key: str) -> Audience:
        if key.startswith("player:"):
            return cls("player", key.split(":", 1)[1])
        if key in ("gm", "table"):
            return cls(key)  # type: ignore[arg-type]
        raise ValueError(key)


GM = Audience("gm")


class NonGmProbe:
    """Stands in for a non-GM audience and notes whether anything asked which one.

    A projection made with the probe that never read `kind`, `player` or `key` (only
    `is_gm`) is, by construction, the projection for *every* non-GM audience: the server
    then projects and serialises a change once for all of them.
    """

    __slots__ = ("_audience", "read")

    is_gm = False

    def __init__(self, audience: Audience) -> None:
        self._audience = audience
        self.read = False

    @property
    def kind(self) -> AudienceKind:
        self.read = True
        return self._audience.kind

    @property
    def player(self) -> str | None:
        self.read = True
        return self._audience.player

    @property
    def key(self) -> str:
        self.read = True
        return self._audience.key

    def __eq__(self, other: object) -> bool:
        self.read = True
        return self._audience == other

    def __hash__(self) -> int:
        self.read = True
        return hash(self._audience)


class _Hidden:
    def __repr__(self) -> str:
        return "HIDDEN"


HIDDEN: Any = _Hidden()


class Entity(BaseModel):
    """Base of every state model: hooks for what an audience may see."""

    model_config = ConfigDict(extra="forbid")

    __secret__: ClassVar[frozenset[str]] = frozenset()

    def visible_to(self, audience: Audience) -> bool:
        return True

    def redact(self, audience: Audience, data: dict[str, Any]) -> dict[str, Any]:
        return data


# Values a projection returns as they are (exact types: a subclass, e.g. an enum that is
# also a str, still goes through `project`).
_SCALARS = frozenset({str, int, float, bool, type(None)})
# Per model class: its fields less those it keeps secret (`__secret__` is a ClassVar).
_SHOWN: dict[type, tuple[str, ...]] = {}


def _shown_fields(cls: type[BaseModel]) -> tuple[str, ...]:
    names = _SHOWN.get(cls)
    if names is None:
        secret = cls.__secret__ if issubclass(cls, Entity) else frozenset()
        names = _SHOWN[cls] = tuple(n for n in cls.model_fields if n not in secret)
    return names


def project(value: Any, audience: Audience) -> Any:
    """JSON-ready projection of `value` for `audience`, or HIDDEN."""
    # Hot path (every change, every distinct view): scalars are skipped before the call.
    if type(value) in _SCALARS:
        return value
    if isinstance(value, BaseModel):
        if audience.is_gm:
            return value.model_dump(mode="json")
        entity = value if isinstance(value, Entity) else None
        if entity is not None and not entity.visible_to(audience):
            return HIDDEN
        data: dict[str, Any] = {}
        for name in _shown_fields(type(value)):
            item = getattr(value, name)
            if type(item) not in _SCALARS:
                item = project(item, audience)
                if item is HIDDEN:
                    continue
            data[name] = item
        return entity.redact(audience, data) if entity is not None else data
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if type(v) not in _SCALARS:
                v = project(v, audience)
                if v is HIDDEN:
                    continue
            out[k] = v
        return out
    if isinstance(value, list | tuple):
        items = []
        for v in value:
            if type(v) not in _SCALARS:
                v = project(v, audience)
                if v is HIDDEN:
                    continue
            items.append(v)
        return items
    if isinstance(value, enum.Enum):
        return value.value
    return value


def shows(root: Any, path: Sequence[str | int], audience: Audience) -> bool:
    """Whether the value at `path` is part of what `audience` is sent: no entity on the
    way hides itself, keeps that field secret or redacts it away."""
    if audience.is_gm:
        return True
    obj = root
    for seg in path:
        if isinstance(obj, Entity) and not _keeps(obj, str(seg), audience):
            return False
        obj = get(obj, (seg,))
        if obj is MISSING:
            return False
    return not (isinstance(obj, Entity) and not obj.visible_to(audience))


def _keeps(entity: Entity, name: str, audience: Audience) -> bool:
    """The entity is shown to `audience` with its field `name`."""
    if not entity.visible_to(audience) or name in entity.__secret__:
        return False
    if type(entity).redact is Entity.redact:
        return True
    projected = project(entity, audience)
    return isinstance(projected, dict) and name in projected


NOT_AVAILABLE = Text("今はこの操作はできません（公開されていない情報によるものです）。",
                     "This cannot be done now (for a reason that has not been revealed).")


def refusal_for(refusal: Refusal, root: Any, audience: Audience) -> Refusal:
    """The refusal as `audience` may read it: whole when it is built only from what they
    are shown, else one that says only that the action is not available."""
    if all(shows(root, path, audience) for path in refusal.about):
        return refusal
    return Refusal("not_available", NOT_AVAILABLE)


def unit_of(root: Any, path: Sequence[str | int]) -> Path:
    """The unit a change at `path` belongs to: up to the first dict entry, else two levels."""
    obj = root
    for i, seg in enumerate(path):
        if isinstance(obj, dict):
            return tuple(path[: i + 1])
        if isinstance(obj, BaseModel):
            obj = getattr(obj, str(seg), None)
        else:
            break
    return tuple(path[:2])


def _reachable(root: Any, unit: Path, audience: Audience) -> bool:
    """False if an ancestor of `unit` hides itself or keeps that branch secret."""
    if audience.is_gm:
        return True
    obj = root
    for seg in unit[:-1]:
        if isinstance(obj, Entity):
            if not obj.visible_to(audience) or seg in obj.__secret__:
                return False
        obj = get(obj, (seg,))
        if obj is MISSING:
            return False
    return not (isinstance(obj, Entity) and unit[-1] in obj.__secret__)


def project_unit(root: BaseModel, unit: Path, audience: Audience) -> Any:
    """The projection of one unit for `audience` (HIDDEN if it is absent or hidden).

    One walk down `unit` does what `get` and `_reachable` would do in two (this runs for
    every touched unit of every change): each ancestor entity is asked whether it shows
    itself and that branch, the unit's parent only whether it keeps the unit secret."""
    gm = audience.is_gm
    obj: Any = root
    last = len(unit) - 1
    for i, seg in enumerate(unit):
        if not gm and isinstance(obj, Entity) and (
                seg in obj.__secret__ or (i < last and not obj.visible_to(audience))):
            return HIDDEN
        obj = _child(obj, seg)
        if obj is MISSING:
            return HIDDEN
    return project(obj, audience)


def _json_get(tree: Any, path: Path) -> Any:
    for seg in path:
        if isinstance(tree, dict) and seg in tree:
            tree = tree[seg]
        else:
            return MISSING
    return tree


Op = dict[str, Any]
Memo = list[tuple[Any, Any, list[Op]]]
"""Per unit: (old value, new value, ops) already worked out for another view."""


def unit_ops(unit: Path, old: Any, new: Any) -> list[Op]:
    """The ops that turn `old` (or MISSING) into `new` (or HIDDEN) at `unit`."""
    if new is HIDDEN:
        return [] if old is MISSING else [{"op": "del", "path": list(unit)}]
    if old is MISSING or not isinstance(old, dict) or not isinstance(new, dict):
        return [{"op": "set", "path": list(unit), "value": new}] if old != new else []
    ops: list[Op] = [{"op": "set", "path": [*unit, k], "value": v}
                     for k, v in new.items() if old.get(k, MISSING) != v]
    ops += [{"op": "del", "path": [*unit, k]} for k in old.keys() - new.keys()]
    return ops


class View:
    """The last projection sent to one audience, kept up to date unit by unit."""

    def __init__(self, audience: Audience, root: BaseModel) -> None:
        self.audience = audience
        self.tree: dict[str, Any] = project(root, audience)
        self.tree.pop("rng", None)

    def update(self, root: BaseModel, units: Iterable[Path]) -> list[Op]:
        """Re-project the touched units; returns the ops that bring a client up to date."""
        ops: list[Op] = []
        for unit in units:
            ops += self.put(unit, project_unit(root, unit, self.audience))
        return ops

    def put(self, unit: Path, new: Any, memo: Memo | None = None) -> list[Op]:
        """Show `new` (a projection, or HIDDEN) at `unit`; returns the ops for it.

        Units are replaced, never changed in place, so views may share unit values; with
        a `memo`, views that held the same old value get the very same ops list (equal
        counts too: views made apart hold equal copies until a change replaces them)."""
        parent = _json_get(self.tree, unit[:-1])
        if not isinstance(parent, dict):
            return []  # an ancestor is hidden from this audience: nothing of it shows
        key = unit[-1]
        old = parent.get(key, MISSING)
        ops = None
        if memo is not None:
            for o, n, found in memo:
                if n is new and (o is old or o == old):
                    ops = found
                    break
        if ops is None:
            ops = unit_ops(unit, old, new)
            if memo is not None:
                memo.append((old, new, ops))
        if new is HIDDEN:
            parent.pop(key, None)
        else:
            parent[key] = new
        return ops

