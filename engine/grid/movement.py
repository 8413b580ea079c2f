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


#: The 8 steps with their cost (GRID-MV-2).
STEPS: tuple[tuple[Sq, int], ...] = tuple((d, step_cost(d)) for d in DIRECTIONS)


def reach(board: Board, start: Sq, caps: Sequence[int], lock: Sq | None = None
          ) -> dict[Sq, Reach]:
    """Every square reachable from `start` within the bins `caps` (start excluded).

    `lock` (GRID-SK-1): the one direction every step must take. The loop is written
    flat (no helper calls per neighbour): it runs for every legal-move push.
    """
    if not caps:
        return {}
    w, h, corner = board.width, board.height, board.corner_cutting
    closed = board.walls | board.blockers
    steps = STEPS if lock is None else ((lock, step_cost(lock)),)
    last = len(caps)
    best: dict[Sq, tuple[int, int, int, Sq | None]] = {start: (0, 0, 0, None)}
    heap: list[tuple[int, int, int, Sq]] = [(0, 0, 0, start)]
    while heap:
        b, used, cost, sq = heapq.heappop(heap)
        here = best[sq]
        if here[0] != b or here[1] != used:
            continue
        x, y = sq
        for (dx, dy), c in steps:
            nx, ny = x + dx, y + dy
            nxt = (nx, ny)
            if not (0 <= nx < w and 0 <= ny < h) or nxt in closed:
                continue
            if dx and dy and not corner and ((nx, y) in closed or (x, ny) in closed):
                continue
            if used + c <= caps[b]:
                nb, nu = b, used + c
            else:  # on into the next step that can hold this one (never split)
                nb = b + 1
                while nb < last and caps[nb] < c:
                    nb += 1
                if nb == last:
                    continue
                nu = c
            old = best.get(nxt)
            if old is None or nb < old[0] or (nb == old[0] and nu < old[1]):
                best[nxt] = (nb, nu, cost + c, sq)
                heapq.heappush(heap, (nb, nu, cost + c, nxt))
    del best[start]
    return {sq: Reach(*r) for sq, r in best.items()}


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
