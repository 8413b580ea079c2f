"""Subsystem `mass` (seed 002 マスコンバット, rules.md MASS-*): units in rows, formations,
strategies, a war turn by turn.

How this works
--------------
A scenario's `mass:` part (scenario.py) names two sides and their units; the seed's 10
formations and 25 strategies are the default data set (data.py, MASS-DATA). In the
preparation phase (prep.py) each PC's unit gets its max strength from a check
(MASS-PREP-1) and picks formations and strategies (MASS-PREP-3). Each turn has three
steps (flow.py): deployment (deploy.py, MASS-T-1: rows, the front ≥ back rebalance asked
of the players concerned with the GM as default, the odd point asked of the player),
tactics (MASS-T-2: one owned formation; 投石部隊 declared) and battle (MASS-T-3: units act
in war-initiative order, 疾風陣 first, delayers last by raw initiative; attack, defend,
reorganize or delay, actions.py). An attack (attack.py) passes reaction windows
(囮作戦, rerolls, 偽りの白旗, 三波状陣) before its damage (MASS-DMG-1), of which the
leader may take part on LP (damage.py, MASS-DMG-2). Strategies (strategies.py, uses.py)
cost no action; their attack/defence changes end at turn end, recovery stays
(MASS-STRAT-1). The war ends when a side is wiped out or its 総大将 routs (end.py).

Secrets: a GM-run unit's numbers, picks and uses are the GM's (Unit.redact); its
strength, row and formation are on the table for all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import MassSettings, MassState
from .scenario import MassScenario

if TYPE_CHECKING:
    from .subsystem import SUBSYSTEM

__all__ = ["SUBSYSTEM", "MassScenario", "MassSettings", "MassState"]

# The declaration and its handlers load when first asked for (the registry, a handler
# of another package); a scenario or a state needs only the models above.
__getattr__ = lazy_names(__name__, ".subsystem", ("SUBSYSTEM",))
