"""Redrawing only what a batch of changes touched, instead of the whole table.

A change inside one entry of a collection a subsystem declares as `Entries` (a generic
piece, counter or marker) remakes that one table object; things sharing its old or new
square get their stacking slot again; the board is remade only when a kind it reads
changed. Anything else (an entry created or deleted, a whole collection or another
subsystem's part replaced, settings, the grid, a subsystem that reads the touched part)
answers None: the adapter then draws the whole table, as before. The result is the same
table either way (tests/adapters/test_patch.py compares both, change by change).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .objects import Entries, Objects, TableObject, object_id
from .projection import as_dict
from .render import STACK_ORDER
from .subsystems import SUBSYSTEMS

__all__ = ["Patch", "Rendered"]

_ENTRIES: dict[tuple[str, str], Entries] = {
    (e.part, e.collection): e for s in SUBSYSTEMS for e in s.entries}
#: part of the projection → the subsystems (by part) that read it besides its own.
_READERS: dict[str, tuple[str, ...]] = {}
for _s in SUBSYSTEMS:
    for _part in _s.reads:
        _READERS[_part] = (*_READERS.get(_part, ()), _s.name)
_BOARD_KINDS = frozenset(k for s in SUBSYSTEMS for k in s.board_kinds)

Cell = tuple[int, int]
Stacked = tuple[int, str, str]  # (stack order, ref, id): how render._stack sorts a square


def _stacked(oid: str, o: TableObject) -> tuple[Cell, Stacked] | None:
    cell = o.get("cell")
    if o["kind"] not in STACK_ORDER or cell is None:
        return None
    return (cell["x"], cell["y"]), (STACK_ORDER[o["kind"]], str(o["ref"]), oid)


class Rendered:
    """The neutral objects of the last draw and, per square, what stands on it."""

    def __init__(self, objs: Objects) -> None:
        self.objs = objs
        self.squares: dict[Cell, dict[str, Stacked]] = {}
        for oid, o in objs.items():
            if (at := _stacked(oid, o)) is not None:
                self.squares.setdefault(at[0], {})[oid] = at[1]

    def _move(self, oid: str, old: TableObject, new: TableObject) -> list[Cell]:
        """Re-file `oid` under its new square; the squares whose stacking may change."""
        before, after = _stacked(oid, old), _stacked(oid, new)
        if before == after:
            return []
        squares = []
        if before is not None:
            square = self.squares[before[0]]
            square.pop(oid, None)
            if not square:  # kept only for squares with something on them
                del self.squares[before[0]]
            squares.append(before[0])
        if after is not None:
            self.squares.setdefault(after[0], {})[oid] = after[1]
            squares.append(after[0])
        return squares

    def _restack(self, square: Cell, changed: set[str]) -> None:
        for slot, (_order, _ref, oid) in enumerate(sorted(self.squares.get(square, {}).values())):
            if self.objs[oid]["slot"] != slot:
                self.objs[oid]["slot"] = slot
                changed.add(oid)


class Patch:
    """What one batch touched: the objects to redraw (new, and as they were) and whether
    the board must be remade. `Patch.of` answers None when only a whole draw will do."""

    def __init__(self) -> None:
        self.old: dict[str, TableObject] = {}  # touched object → as it was drawn
        self.redraw: list[str] = []  # touched objects and those whose slot changed
        self.board = False

    @classmethod
    def of(cls, rendered: Rendered, tree: Mapping[str, Any],
           ops: list[dict[str, Any]]) -> Patch | None:
        touched = _touched(tree, ops)
        if touched is None:
            return None
        patch, squares = cls(), []
        for spec, eid in touched:
            oid = object_id(spec.prefix, eid)
            old = rendered.objs.get(oid)
            entry = as_dict(as_dict(tree.get(spec.part)).get(spec.collection)).get(eid)
            if old is None or not isinstance(entry, dict):
                return None  # created or deleted: a whole draw keeps the table's order
            new = spec.make(eid, entry)
            new["slot"] = old["slot"] if _stacked(oid, old) == _stacked(oid, new) else 0
            squares += rendered._move(oid, old, new)
            rendered.objs[oid] = new
            patch.old[oid] = old
            patch.board = patch.board or new["kind"] in _BOARD_KINDS
        changed = set(patch.old)
        for square in squares:
            rendered._restack(square, changed)
        patch.redraw = sorted(changed)  # the adapter puts its ops in the table's order
        return patch


def _touched(tree: Mapping[str, Any], ops: list[dict[str, Any]]
             ) -> list[tuple[Entries, str]] | None:
    """The declared entries the ops changed inside, in first-touched order; None when an
    op lands anywhere else."""
    seen: dict[tuple[str, str, str], tuple[Entries, str]] = {}
    for op in ops:
        path = op.get("path")
        if not isinstance(path, list) or len(path) < 3:
            return None
        spec = _ENTRIES.get((path[0], path[1]))
        if spec is None or any(isinstance(tree.get(r), dict) for r in _READERS.get(spec.part, ())):
            return None
        seen.setdefault((spec.part, spec.collection, str(path[2])), (spec, str(path[2])))
    return list(seen.values())
