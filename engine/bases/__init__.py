"""Subsystem `bases` (seed 000 拠点戦闘, rules.md BASE-*): its declaration.

The pieces, bottom up: `states` (the state table); `blocks`, `vocabulary` and `tags`
(conditions in the seed's notation); `model` (state and secrets); `lookup`, `eval`
(conditions against the state), `moves`, `reveal`, `gp`, `effects`, `fire` (the rules);
`trigger` and `settle` (+ `end`) run them automatically; `scenario` reads the `bases:`
part of a scenario file. Happenings it listens to are in `blocks.REPORTABLE` plus
`round.*`, `battle.started` and its own `bases.*`; see docs/bases.md for the vocabulary.
"""

from __future__ import annotations

from ..registry_types import Subsystem, Trigger
from .actions import ACTIONS
from .blocks import REPORTABLE
from .effects import resume_choice
from .model import BasesState
from .refusals import CODES
from .results import RESULTS
from .scenario import BasesScenario
from .settle import settle
from .trigger import ADVANCE, on_happening

__all__ = ["SUBSYSTEM", "BasesScenario", "BasesState"]

TRIGGER_KINDS = frozenset({*REPORTABLE, "round.started", "round.ended", "battle.started",
                           "bases.state.changed", "bases.gp.changed", "bases.event.fired",
                           ADVANCE})

SUBSYSTEM = Subsystem(
    name="bases",
    actions=ACTIONS,
    triggers=(Trigger(on_happening, TRIGGER_KINDS),),
    resumers={"bases.choose": resume_choice},
    settlers=(settle,),
    refusals=CODES,
    results=RESULTS,
)
