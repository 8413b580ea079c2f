"""Pure square geometry of seamless combat: ranges, areas, sight lines, [独妙閃光].

Squares are `(x, y)` tuples, 0-based from the top-left. Nothing here reads a state.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Literal

__all__ = ["AREA_RADIUS", "DIRECTIONS", "ORTHOGONAL", "Sq", "area", "flash_lines",
           "flash_squares", "in_range", "manhattan", "on_board", "range_rows", "range_squares",
           "sight_clear", "step_cost"]

Sq = tuple[int, int]
ORTHOGONAL: tuple[Sq, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
DIRECTIONS: tuple[Sq, ...] = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0),
                              (-1, -1))
#: GRID-AREA-1 範囲(選択) is the 3×3 block around the origin, シーン(選択) the 5×5.
AREA_RADIUS = {"area": 1, "scene": 2}
#: GRID-SK-3 [独妙閃光] reaches 4 squares along each of the 8 directions.
FLASH_REACH = 4


def manhattan(a: Sq, b: Sq) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def step_cost(d: Sq) -> int:
    """GRID-MV-2 a step costs 1 orthogonally and 2 diagonally."""
    return 2 if d[0] and d[1] else 1


def on_board(sq: Sq, width: int, height: int) -> bool:
    return 0 <= sq[0] < width and 0 <= sq[1] < height


def in_range(user: Sq, target: Sq, n: int) -> bool:
    """GRID-RNG-1 the seed's diagrams: range 0 = own square and the 4 orthogonal ones,
    range 1 = the 3×3 block, range 2 and more = the diamond (Manhattan ≤ n)."""
    if n < 0:
        return False
    if n == 0:
        return manhattan(user, target) <= 1
    if n == 1:
        return max(abs(user[0] - target[0]), abs(user[1] - target[1])) <= 1
    return manhattan(user, target) <= n


def range_squares(user: Sq, n: int, width: int, height: int, non_attack: bool = False
                  ) -> list[Sq]:
    """Every square on the board within range `n` (GRID-RNG-2: +1 for a non-attack skill),
    in reading order. Only the board's rows and, per row, the run of squares in range are
    walked: a range of 50 on a 16×12 map costs the map, not 101×101 squares."""
    return [(x, y) for y, x0, x1 in range_rows(user, n, width, height, non_attack)
            for x in range(x0, x1)]


def range_rows(user: Sq, n: int, width: int, height: int, non_attack: bool = False
               ) -> list[tuple[int, int, int]]:
    """`range_squares` as runs `(y, first x, last x + 1)`, top to bottom, clipped to the
    board (a caller building its own squares makes each once)."""
    reach = n + 1 if non_attack else n
    if reach < 0:
        return []
    ux, uy = user
    span = max(reach, 1)
    rows = []
    for y in range(max(0, uy - span), min(height, uy + span + 1)):
        run = _run(reach, abs(y - uy))  # how far from `ux` this row is in range
        x0, x1 = max(0, ux - run), min(width, ux + run + 1)
        if run >= 0 and x0 < x1:
            rows.append((y, x0, x1))
    return rows


def _run(reach: int, dy: int) -> int:
    """Half the width of the row `dy` away within range `reach` (negative: none), as
    `in_range` draws it: a cross at 0, the 3×3 block at 1, the diamond from 2."""
    if reach == 0:
        return 1 - dy
    if reach == 1:
        return 1 if dy <= 1 else -1
    return reach - dy


def area(origin: Sq, kind: Literal["area", "scene"], width: int, height: int) -> list[Sq]:
    """GRID-AREA-1 the squares an area effect takes in around its origin."""
    r = AREA_RADIUS[kind]
    return [(x, y) for y in range(origin[1] - r, origin[1] + r + 1)
            for x in range(origin[0] - r, origin[0] + r + 1) if on_board((x, y), width, height)]


def flash_lines(user: Sq, width: int, height: int, mode: Literal["ray", "line"] = "ray"
                ) -> list[list[Sq]]:
    """GRID-SK-3 [独妙閃光]: the 8 rays of 4 squares from the user (`ray`), or the 4 lines
    through it (`line`: two opposite rays together); squares off the board are left out."""
    rays = [[(user[0] + dx * k, user[1] + dy * k) for k in range(1, FLASH_REACH + 1)]
            for dx, dy in DIRECTIONS]
    rays = [[sq for sq in ray if on_board(sq, width, height)] for ray in rays]
    if mode == "ray":
        return rays
    return [rays[i] + rays[i + 4] for i in range(4)]


def flash_squares(user: Sq, width: int, height: int) -> list[Sq]:
    """Every square the [独妙閃光] pattern covers, in reading order."""
    squares = {sq for ray in flash_lines(user, width, height) for sq in ray}
    return sorted(squares, key=lambda s: (s[1], s[0]))


def sight_clear(a: Sq, b: Sq, obstacles: Iterable[Sq],
                corners: Literal["open", "blocked"] = "open") -> bool:
    """GRID-LOS-1 the straight segment between the centres of `a` and `b` passes through
    no obstacle square (pieces never block). `corners`: whether a segment that only
    touches an obstacle's edge or corner is blocked."""
    # A segment between two centres stays inside the box of the squares between them: an
    # obstacle outside that box cannot meet it (exact, integers), so only those inside
    # are clipped in fractions — a short line past 400 pillars checks a handful.
    lo_x, hi_x = min(a[0], b[0]), max(a[0], b[0])
    lo_y, hi_y = min(a[1], b[1]), max(a[1], b[1])
    ax, ay = Fraction(2 * a[0] + 1, 2), Fraction(2 * a[1] + 1, 2)
    bx, by = Fraction(2 * b[0] + 1, 2), Fraction(2 * b[1] + 1, 2)
    strict = corners == "open"
    for ox, oy in obstacles:
        if not (lo_x <= ox <= hi_x and lo_y <= oy <= hi_y) or (ox, oy) in (a, b):
            continue
        if _crosses(ax, ay, bx, by, ox, oy, strict):
            return False
    return True


def _crosses(ax: Fraction, ay: Fraction, bx: Fraction, by: Fraction, ox: int, oy: int,
             strict: bool) -> bool:
    """Does segment a→b meet the square [ox, ox+1]×[oy, oy+1] (its interior if `strict`)?

    Liang–Barsky clipping in exact fractions: the segment's parameter interval inside
    the square must be non-empty (of positive length when only the interior counts).
    """
    lo, hi = Fraction(0), Fraction(1)
    for p0, d, low, high in ((ax, bx - ax, ox, ox + 1), (ay, by - ay, oy, oy + 1)):
        if d == 0:
            if strict and not (low < p0 < high):
                return False
            if not strict and not (low <= p0 <= high):
                return False
            continue
        t1, t2 = (low - p0) / d, (high - p0) / d
        lo, hi = max(lo, min(t1, t2)), min(hi, max(t1, t2))
    return lo < hi if strict else lo <= hi
