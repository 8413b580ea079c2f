"""Using a strategy: ownership, uses left, one active at a time, no stacking (MASS-STRAT-1).

A unit has one active strategy (MASS-T-3: several cannot be used at once; it may be
changed at any time). Switching takes back the turn-long changes the previous one made
(its `Mod`s, on whichever units); recovery and damage already done stay. A strategy whose
turn-long change is already on a target cannot be put on it again that turn.
"""

from __future__ import annotations

from ..tx import Tx
from . import refusals as R
from .model import MassState, Mod, StrategySpec, Unit
from .rules import PATH, add_mod, set_unit, strategy_of

__all__ = ["activate", "check_usable", "mod_on", "owns_usable", "spend"]



def owns_usable(unit: Unit, sid: str) -> bool:
    """Owned, with a use left (None = unlimited), and the unit still in the war."""
    if unit.routed or sid not in unit.strategies:
        return False
    left = unit.uses.get(sid)
    return left is None or left > 0


def check_usable(tx: Tx, m: MassState, unit: Unit, sid: str) -> StrategySpec:
    """MASS-PREP-3 owned; MASS-DATA a use left."""
    spec = strategy_of(m, sid)
    tx.check(sid in unit.strategies, R.NOT_OWNED.refuse(
        under="MASS-PREP-3", alt="strategy", name=unit.name, strategy=sid))
    left = unit.uses.get(sid, spec.uses)
    tx.check(left is None or left > 0, R.NO_USES_LEFT.refuse(strategy=sid))
    return spec


def activate(tx: Tx, m: MassState, unit: Unit, sid: str) -> None:
    """Make `sid` the unit's active strategy; the previous one's turn-long changes end."""
    previous = unit.active
    if previous is not None and previous != sid:
        for other in m.units.values():
            kept = [d for d in other.mods if not (d.source == unit.id and d.strategy == previous)]
            if len(kept) != len(other.mods):
                set_unit(tx, other, mods=kept)
    set_unit(tx, unit, active=sid)


def spend(tx: Tx, m: MassState, unit: Unit, sid: str) -> None:
    """Count one use (unlimited ones are not counted); uses never go below 0."""
    spec = strategy_of(m, sid)
    left = unit.uses.get(sid, spec.uses)
    if left is not None:
        tx.set((PATH, "units", unit.id, "uses", sid), max(left - 1, 0))


def mod_on(tx: Tx, target: Unit, mod: Mod) -> None:
    """Put a turn-long change on `target`; the same strategy twice is refused (MASS-STRAT-1)."""
    tx.check(all(d.strategy != mod.strategy for d in target.mods), R.NO_STACKING.refuse(
        target=target.name, strategy=mod.strategy))
    add_mod(tx, target, mod)
