"""Subsystem `bases` (seed 000 拠点戦闘, rules.md BASE-*): its declaration.

The pieces, bottom up: `states` (the state table); `blocks`, `vocabulary` and `tags`
(conditions in the seed's notation); `model` (state and secrets); `lookup`, `eval`
(conditions against the state), `moves`, `reveal`, `gp`, `effects`, `fire` (the rules);
`trigger` and `settle` (+ `end`) run them automatically; `scenario` reads the `bases:`
part of a scenario file. Happenings it listens to are in `blocks.REPORTABLE` plus
`round.*`, `battle.started` and its own `bases.*`; see docs/bases.md for the vocabulary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import BasesState
from .scenario import BasesScenario

if TYPE_CHECKING:
    from .subsystem import SUBSYSTEM

__all__ = ["SUBSYSTEM", "BasesScenario", "BasesState"]

# The declaration and its handlers load when first asked for (the registry, a handler
# of another package); a scenario or a state needs only the models above.
__getattr__ = lazy_names(__name__, ".subsystem", ("SUBSYSTEM",))
