"""Platform objects and their difference: what changed between two renders.

An adapter keeps the platform objects it last sent and emits operations only for the
difference, so a change to one fort moves one fort, not the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Diff", "PObjects", "PlatformObject", "changed_fields", "diff"]


@dataclass
class PlatformObject:
    """One object on a platform: its `type` (character, Token…), data, and what it shows."""

    type: str
    data: dict[str, Any]
    ref: dict[str, Any] = field(default_factory=dict)

    def position(self) -> dict[str, Any]:
        """Its `x` and `y`: all a snap-back needs to put it back."""
        return {"x": self.data["x"], "y": self.data["y"]}


PObjects = dict[str, PlatformObject]


@dataclass
class Diff:
    """`updated` holds (id, new object, changed fields, old object)."""

    removed: list[tuple[str, PlatformObject]] = field(default_factory=list)
    created: list[tuple[str, PlatformObject]] = field(default_factory=list)
    updated: list[tuple[str, PlatformObject, dict[str, Any], PlatformObject]] = field(
        default_factory=list)


_MISSING = object()


def diff(old: PObjects, new: PObjects) -> Diff:
    """What changed between two renders: removed, created, and changed top-level fields.

    An object whose `type` changed is removed and created again.
    """
    out = Diff()
    for oid, obj in old.items():
        if oid not in new or new[oid].type != obj.type:
            out.removed.append((oid, obj))
    for oid, obj in new.items():
        before = old.get(oid)
        if before is None or before.type != obj.type:
            out.created.append((oid, obj))
            continue
        if changes := changed_fields(before, obj):
            out.updated.append((oid, obj, changes, before))
    return out


def changed_fields(before: PlatformObject, obj: PlatformObject) -> dict[str, Any]:
    """The top-level fields of `obj` that differ from `before` (new values)."""
    # a sentinel, not None: a field that appears with the value None is still a change
    return {k: v for k, v in obj.data.items() if before.data.get(k, _MISSING) != v}
