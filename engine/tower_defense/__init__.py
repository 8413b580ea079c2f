"""Subsystem `tower_defense` (seed 003, rules.md TD-*): forts, passages, enemy groups.

How this works
--------------
A scenario's `tower_defense:` part (`TowerDefenseScenario`, in scenario.py) fixes
the map, weapons, PCs, victory and waves (TD-SET-1, TD-MAP-1); `build()` gives the state
(`TowerDefenseState`, in model.py) in phase `setup`. The GM drives the round with one
action, `td.next_phase`; the phase table and each phase's automatic step live in
phases.py (TD-RND, TD-REIN-1, TD-ADV-1/2, TD-EATK-1/2, TD-OPT-1/2). Players act for
their PCs in the PC attack phase (actions.py: TD-ATK-1..4, 魔眼 of TD-DATA) and in
setup (TD-PRE-1: starting forts, traps). A settler declares defeat the moment a final
fort breaks, and victory when a `destroy` target falls (rules.py).

Table display (TD-MAP-2): the state carries every cell an adapter needs — forts
(`cell`, `durability` → dice symbol), directions, passages (`cells`, in walking order),
groups/individuals (`cell`, `count`), traps (`cell` = the passage's middle square) —
and `td.group.moved` carries the squares walked so a piece can be shown moving.

Secrets: `waves` (future waves) is the GM's alone; everything else is public.

Seed ambiguities (rules.md, end of TD) are scenario `settings` (model.TDSettings):

=========================  ==============  =============================================
setting                    default         meaning
=========================  ==============  =============================================
range_mode                 same_fort_is_1  range N reaches forts ≤ N-1 passages away
                                           (seed ex. 2: the range-1 shotgun hits only its
                                           own fort); `steps`: ≤ N passages. ∞ = any.
removal                    3/2/1/1         groups removed by critical/extreme/hard/regular
                                           (hard counts as regular), × weapon damage
eye_multiplier             2               魔眼: damage factor on the marked group
max_groups_per_fort        None            no limit; else a group waits on its passage
when_all_broken            stay_at_last    every fort on its path broken: stand at the
                                           innermost one (or `remove`: it leaves)
group_at_intact_fort       stay            a group at an intact fort stays (or `advance`)
traps_persist              false           a trap fires for all groups on its passage in
                                           one advance phase, then is spent
trap_limit                 None            traps the GM allows (TD-PRE-1)
trap_skills                手さばき, 科学   skills a trap may be set with
reported_results_from      gm,player,bridge  who may send BCDice lines instead of rolling
max_penalty_dice           2               cap on 凍てつく者 penalty dice
=========================  ==============  =============================================

Damage figures: weapon `damage` is data. Section V gives the SDASS shotgun damage 1;
example 2's 12-gauge shotgun deals 2 — the example scenario keeps the data (1) and the
tests reproduce example 2 with a damage-2 shotgun. Fort durability never goes below 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names
from .model import TDSettings, TowerDefenseState
from .scenario import TowerDefenseScenario

if TYPE_CHECKING:
    from .subsystem import SUBSYSTEM

__all__ = ["SUBSYSTEM", "TDSettings", "TowerDefenseScenario", "TowerDefenseState"]

# The declaration and its handlers load when first asked for (the registry, a handler
# of another package); a scenario or a state needs only the models above.
__getattr__ = lazy_names(__name__, ".subsystem", ("SUBSYSTEM",))
