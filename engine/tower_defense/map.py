"""The fortress as a graph (TD-MAP-1): inward routes, fort distances, reach, adjacency.

Nodes are directions (方角) and forts (砦); passages (通路) are edges from outer to inner.
A passage between forts of one tier is *lateral*: PCs use it, groups never do (TD-ADV-1).
Pure reads of the state; nothing here writes.
"""

from __future__ import annotations

from collections import deque

from .model import Passage, TowerDefenseState, Walker, WeaponSpec

__all__ = ["adjacent", "distance", "inward_passages", "position_distance", "reaches",
           "route_from"]


def inward_passages(passages: dict[str, Passage], node: str) -> list[Passage]:
    """Passages leading inward from `node` (never lateral ones)."""
    return [p for p in passages.values() if p.outer == node and not p.lateral]


def route_from(passages: dict[str, Passage], direction: str) -> list[str]:
    """TD-ADV-1: the passage ids a group entering at `direction` walks, outermost first."""
    route: list[str] = []
    node = direction
    while True:
        nxt = inward_passages(passages, node)
        if not nxt or len(route) > len(passages):
            return route
        route.append(nxt[0].id)
        node = nxt[0].inner


def _neighbours(td: TowerDefenseState, fort: str) -> set[str]:
    out: set[str] = set()
    for p in td.passages.values():
        if p.outer == fort and p.inner in td.forts:
            out.add(p.inner)
        elif p.inner == fort and p.outer in td.forts:
            out.add(p.outer)
    return out


def adjacent(td: TowerDefenseState, a: str, b: str) -> bool:
    """TD-ATK-1: forts joined by one passage, any direction (PC moves)."""
    return b in _neighbours(td, a)


def distance(td: TowerDefenseState, a: str, b: str) -> int | None:
    """Passages between two forts by the shortest way (any direction); None if apart."""
    seen, queue = {a: 0}, deque([a])
    while queue:
        node = queue.popleft()
        if node == b:
            return seen[node]
        for nxt in _neighbours(td, node):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return None


def position_distance(td: TowerDefenseState, fort: str, walker: Walker) -> int | None:
    """Distance from `fort` to a walker: its fort, or one beyond the fort it walks to."""
    if walker.fort is not None and not walker.waiting:
        return distance(td, fort, walker.fort)
    if walker.at >= len(walker.route):
        return None
    d = distance(td, fort, td.passages[walker.route[walker.at]].inner)
    return None if d is None else d + 1


def reaches(td: TowerDefenseState, weapon: WeaponSpec, fort: str | None,
            walker: Walker) -> bool:
    """TD-ATK-4: the weapon at `fort` reaches the walker (range None = ∞).

    Setting `range_mode`: `same_fort_is_1` → range N reaches N-1 passages (seed ex. 2);
    `steps` → range N reaches N passages.
    """
    if weapon.range is None:
        return True
    if fort is None:
        return False
    d = position_distance(td, fort, walker)
    if d is None:
        return False
    limit = weapon.range - 1 if td.settings.range_mode == "same_fort_is_1" else weapon.range
    return d <= limit
