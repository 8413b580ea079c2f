"""Cheapest legal paths under a main process's step allowances (GRID-MV-1/2/3).

A `Board` is what one mover sees: squares nobody may enter (obstacles, the off-map
area, off the board), squares it may not pass (enemies standing, hindered characters,
neutrals by default) and squares it may pass (allies, incapacitated pieces: GRID-MV-3,
GRID-ST-5). `reach` runs Dijkstra over squares with the allowance as a sequence of
*bins* — the remaining squares of the current step, then each later step's allowance —
ordered by (bin, squares used in it): a path uses a bin until the next step does not
fit, then goes on in the next bin that can hold it. A diagonal step (cost 2) is never
split across steps. An earlier (bin, used) dominates a later one, so one label per
square is enough.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from .geometry import DIRECTIONS, Sq, on_board, step_cost

__all__ = ["Board", "Leg", "Plan", "Reach", "plan", "reach"]


@dataclass(frozen=True, slots=True)
class Board:
    """One mover's view of the map."""

    width: int
    height: int
    walls: frozenset[Sq]
    blockers: frozenset[Sq]
    corner_cutting: bool = True

    def enterable(self, sq: Sq) -> bool:
        return on_board(sq, self.width, self.height) and sq not in self.walls \
            and sq not in self.blockers


@dataclass(frozen=True, slots=True)
class Reach:
    """How a square is reached: bin index, squares used in that bin, total cost, from."""

    bin: int
    used: int
    cost: int
    prev: Sq | None


@dataclass(frozen=True, slots=True)
class Leg:
    """The part of a path made in one bin: the squares entered and their cost."""

    bin: int
    squares: tuple[Sq, ...]
    cost: int


@dataclass(frozen=True, slots=True)
class Plan:
    """A legal path from a start square: its legs per bin and its total cost."""

    path: tuple[Sq, ...]
    legs: tuple[Leg, ...]
    cost: int


def _neighbours(board: Board, sq: Sq, lock: Sq | None) -> list[tuple[Sq, int]]:
    out = []
    for d in DIRECTIONS if lock is None else (lock,):
        nxt = (sq[0] + d[0], sq[1] + d[1])
        if not board.enterable(nxt):
            continue
        if d[0] and d[1] and not board.corner_cutting and not (
                board.enterable((sq[0] + d[0], sq[1])) and board.enterable((sq[0], sq[1] + d[1]))):
            continue
        out.append((nxt, step_cost(d)))
    return out


def _fit(caps: Sequence[int], b: int, used: int, cost: int) -> tuple[int, int] | None:
    """Where a step of `cost` lands after (bin b, used): this bin, or the next that fits."""
    if used + cost <= caps[b]:
        return b, used + cost
    for nb in range(b + 1, len(caps)):
        if cost <= caps[nb]:
            return nb, cost
    return None


def reach(board: Board, start: Sq, caps: Sequence[int], lock: Sq | None = None
          ) -> dict[Sq, Reach]:
    """Every square reachable from `start` within the bins `caps` (start excluded).

    `lock` (GRID-SK-1): the one direction every step must take.
    """
    if not caps:
        return {}
    best: dict[Sq, Reach] = {start: Reach(0, 0, 0, None)}
    heap: list[tuple[int, int, int, Sq]] = [(0, 0, 0, start)]
    while heap:
        b, used, cost, sq = heapq.heappop(heap)
        here = best[sq]
        if (here.bin, here.used) != (b, used):
            continue
        for nxt, c in _neighbours(board, sq, lock):
            landed = _fit(caps, b, used, c)
            if landed is None:
                continue
            old = best.get(nxt)
            if old is None or landed < (old.bin, old.used):
                best[nxt] = Reach(landed[0], landed[1], cost + c, sq)
                heapq.heappush(heap, (landed[0], landed[1], cost + c, nxt))
    del best[start]
    return best


def plan(board: Board, start: Sq, to: Sq, caps: Sequence[int], lock: Sq | None = None
         ) -> Plan | None:
    """The cheapest legal path from `start` to `to` in legs per bin, or None."""
    found = reach(board, start, caps, lock)
    if to not in found:
        return None
    path = [to]
    while (prev := found[path[-1]].prev) is not None and prev != start:
        path.append(prev)
    path.reverse()
    legs: list[Leg] = []
    for sq in path:
        r = found[sq]
        if legs and legs[-1].bin == r.bin:
            last = legs[-1]
            legs[-1] = Leg(r.bin, (*last.squares, sq), r.used)
        else:
            legs.append(Leg(r.bin, (sq,), r.used))
    return Plan(tuple(path), tuple(legs), found[to].cost)
