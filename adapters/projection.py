"""Reading the `table` projection defensively (`.get` with defaults, never a KeyError).

The subsystems' state models may grow, and a missing or odd key must never break a bridge.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["as_cell", "as_dict", "as_int", "entries", "grid_of"]


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a dict, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_int(value: Any, default: int | None = 0) -> int | None:
    """`value` as an int (bools and finite floats too), else `default`."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return default


def as_cell(value: Any) -> dict[str, int] | None:
    """A square `{"x", "y"}`, or None when either coordinate is missing."""
    c = as_dict(value)
    x, y = as_int(c.get("x"), None), as_int(c.get("y"), None)
    return {"x": x, "y": y} if x is not None and y is not None else None


def entries(parent: Mapping[str, Any], key: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id, entry) of the dict at `parent[key]`, each entry read as a dict, in order."""
    for eid, entry in as_dict(parent.get(key)).items():
        yield eid, as_dict(entry)


def grid_of(tree: Mapping[str, Any]) -> tuple[int, int]:
    """The table grid (width, height) in squares; 20×20 when the projection has none."""
    grid = as_dict(as_dict(tree.get("table")).get("grid"))
    return (as_int(grid.get("width"), 20) or 20, as_int(grid.get("height"), 20) or 20)
