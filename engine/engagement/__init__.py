"""Subsystem `engagement` (seed 004 近接と接近状態, rules.md ENG-*): who is engaged with
whom, who may melee whom and when, and how engagements form, pass and end.

How this works
--------------
Characters are table pieces with battle data (`combatants.Combatant`: side, row, the
table counters holding DP, HP and grazes, and their data 身体/回避/弾幕/近接戦闘/近接武器鍛錬
in `profile`). The GM runs the turn (turns.py, komasync's ENG-TURN): setup →
initiative/main → cleanup; leaving a setup dissolves every engagement from an earlier
turn (ENG-EF-2/3). The relation (model.Pair, relation.py) is one pair per two
characters, so it is symmetric (ENG-1); it forms by a successful approach, cover or
guard for another, or an ability (ENG-IN-1), and each forming offers the ENG-HAND-1
handovers as prompts. Declarations (actions.py) open one *exchange* at a time
(exchange.py): the attack's check, the defence and its check (defence.py says who may
guard or cover, ENG-GUARD / ENG-COVER), then the damage (ENG-ACT-1/2, ENG-BONUS in
checks.py). Each check is rolled by komasync or read from a reported BCDice line. An
attack involving a hidden character is the GM's: it is resolved in its own slot beside
the scene's (model.EngagementState.hidden_exchange) and holds up no player.
The GM's hand (gm.py): abilities that engage or part, rows (ENG-EF-3), cancel.

Every number the base game holds outside the seed (the check die, DP and HP pools,
grazes' rate, the row rule for approach) is a setting or a counter the GM sets
(model.EngagementSettings, docs/engagement.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import EngagementSettings, EngagementState, Pair, pair_key
from .scenario import EngagementScenario

if TYPE_CHECKING:
    from .subsystem import SUBSYSTEM, melee_dice, skill_bonus

__all__ = [
    "SUBSYSTEM",
    "EngagementScenario",
    "EngagementSettings",
    "EngagementState",
    "Pair",
    "melee_dice",
    "pair_key",
    "skill_bonus",
]

# The declaration and its handlers load when first asked for (the registry, a handler
# of another package); a scenario or a state needs only the models above.
__getattr__ = lazy_names(__name__, ".subsystem", ("SUBSYSTEM", "melee_dice", "skill_bonus"))
