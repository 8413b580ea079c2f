"""Subsystem `grid` (seed 001 シームレス戦闘 ver1.10, rules.md GRID-*): tactical combat on
the table's square grid, played inside exploration scenes.

How this works
--------------
Characters are table pieces with battle data attached (`combatants.Combatant`: side,
statuses, the table counters holding their HP-like numbers); their square is the piece's
cell, so every table shows them as it shows any piece. The GM starts the fight
(`grid.start`, GRID-RND-1); the player round and the enemy round alternate (rounds.py,
GRID-RND-2/3, GRID-X-1, GRID-DUR-1/2). A character declares its main process
(`grid.process.start`, GRID-ST-1 poison strikes), then spends its steps move → minor →
major (process.py, GRID-MV-1, GRID-ST-4): a drop of its piece (`grid.move`, or a plain
`table.move` from a bridge, judged by the `piece.moved` trigger) is the cheapest legal
path within what is left (movement.py, moves.py: GRID-MV-2/3, GRID-SK-1/2, GRID-ST-2,
GRID-X-2/3); `grid.act` spends a step on an action (acts.py: GRID-MV-4, GRID-ST-2/3,
GRID-X-2/4/6, targets per targets.py: GRID-RNG-1/2/3, GRID-AREA-1, GRID-LOS-1,
GRID-SK-3). Forced moves and reactions: skills.py (GRID-SK-3, GRID-X-5). The GM's data:
gm.py (statuses, map, event spots and timed events, published data, GRID-GM-1).
Questions that change nothing: queries.py (ranges, areas, sight, [独妙閃光], legal
destinations with costs), answered over the protocol's `query` message.

Hidden pieces are not in the scene: they neither block nor count, and a combatant is
hidden exactly when its piece is, so nothing hidden shapes what a player is told.

Every extra rule (GRID-X-*) is off unless the scenario's `grid.settings` turns it on;
each reading of an ambiguity is a setting too (model.GridSettings, docs/grid.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import GridSettings, GridState
from .scenario import GridScenario

if TYPE_CHECKING:
    from .subsystem import SUBSYSTEM, legal_destinations

__all__ = ["SUBSYSTEM", "GridScenario", "GridSettings", "GridState", "legal_destinations"]

# The declaration and its handlers load when first asked for (the registry, a handler
# of another package); a scenario or a state needs only the models above.
__getattr__ = lazy_names(__name__, ".subsystem", ("SUBSYSTEM", "legal_destinations"))
