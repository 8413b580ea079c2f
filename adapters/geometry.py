"""Settings both platforms share, and squares ⇄ platform coordinates.

Settings live in `meta.platforms.<platform>` (issue 5); invalid ones fall back to the
defaults and are reported, so a typo never takes a table down.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import Field, StrictFloat, ValidationError

from .base import Calibration
from .projection import as_dict

__all__ = ["AdapterSettings", "Geometry", "beside", "load_settings", "number"]


class AdapterSettings(Calibration):
    """Settings both platforms share, read from `meta.platforms.<platform>` (issue 5).

    `users` maps a platform user (id or name) to a komasync player id, or to `"gm"`.
    `stack_offset` is how far (in squares) each further thing on a square is shifted;
    `drop_radius` how far (in squares) from a fort a PC may be dropped to mean that fort.
    """

    users: dict[str, str] = Field(default_factory=dict)
    stack_offset: StrictFloat = Field(default=0.25, ge=0, le=1)
    drop_radius: StrictFloat = Field(default=1.5, gt=0)


S = TypeVar("S", bound=AdapterSettings)


def load_settings(tree: Mapping[str, Any], platform: str, model: type[S],
                  defaults: Mapping[str, Any] | None = None) -> tuple[S, dict[str, Any], list[str]]:
    """Validated settings, the raw dict, and problems (invalid settings fall back to defaults)."""
    raw = as_dict(as_dict(as_dict(tree.get("meta")).get("platforms")).get(platform))
    try:
        return model.model_validate({**(defaults or {}), **raw}), raw, []
    except ValidationError as e:
        problems = [f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()]
        return model.model_validate(dict(defaults or {})), raw, problems


@dataclass(frozen=True)
class Geometry:
    """Squares ⇄ platform coordinates: `origin` is where square (0, 0)'s top-left corner is.

    `units`: `px` (coordinates are pixels, `cell` px per square) or `cell` (coordinates
    are squares). `stack` shifts the n-th thing on a square by n × stack squares.
    """

    origin_x: float
    origin_y: float
    cell: float
    units: Literal["px", "cell"] = "px"
    stack: float = 0.25

    @classmethod
    def of(cls, settings: AdapterSettings, origin: tuple[float, float] | None = None) -> Geometry:
        """The geometry `settings` calibrate; `origin` replaces theirs (a platform's default)."""
        ox, oy = origin if origin is not None else (settings.origin_x, settings.origin_y)
        units: Literal["px", "cell"] = "px" if settings.units == "px" else "cell"
        return cls(ox, oy, settings.cell_size, units, settings.stack_offset)

    @property
    def unit(self) -> float:
        """Platform coordinates per square."""
        return self.cell if self.units == "px" else 1.0

    def pos(self, cell: Mapping[str, int], slot: int = 0, dx: float = 0.0,
            dy: float = 0.0) -> tuple[float | int, float | int]:
        """Where the top-left of the `slot`-th thing on `cell` goes (shifted by dx, dy squares)."""
        shift = slot * self.stack
        return (number(self.origin_x + (cell["x"] + shift + dx) * self.unit),
                number(self.origin_y + (cell["y"] + shift + dy) * self.unit))

    def square(self, x: float, y: float) -> tuple[float, float]:
        """Fractional square of a platform position (the top-left of a dropped piece)."""
        return ((x - self.origin_x) / self.unit, (y - self.origin_y) / self.unit)

    def cell_at(self, x: float, y: float) -> dict[str, int]:
        """The square a piece whose top-left is at (x, y) covers most: the nearest corner."""
        fx, fy = self.square(x, y)
        return {"x": math.floor(fx + 0.5), "y": math.floor(fy + 0.5)}


def number(v: float) -> float | int:
    """Integral floats as ints, others rounded to 3 decimals (stable JSON)."""
    r = round(v, 3)
    return int(r) if r == int(r) else r


def beside(grid: tuple[int, int], row: int) -> dict[str, int]:
    """A square in the column right of the board, one empty column away: `row` 0 holds the
    komasync board, PCs not placed yet wait from row 2 down."""
    return {"x": grid[0] + 1, "y": row}
