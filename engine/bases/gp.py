"""GP of a base (BASE-GP-*): changes, the floor at 0, destruction at 0, regeneration.

Every GP write goes through here and emits `bases.gp.changed {base, old, new}`. A destroyed
base gains no GP (BASE-ST-4) except by regeneration (BASE-TR-1), which is here too because
it is the one move that also writes GP.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Text
from .lookup import base_path, say
from .model import Base
from .moves import move, set_state
from .results import BaseGp
from .reveal import reveal_base
from .states import Move, Status, next_status

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["change_gp", "regenerate", "set_gp"]


def change_gp(tx: Tx, base: Base, delta: int) -> None:
    """GP changes by `delta` (BASE-GP-2 floor at 0; BASE-ST-4 nothing gained while destroyed)."""
    set_gp(tx, base, base.gp + delta)


def set_gp(tx: Tx, base: Base, value: int) -> None:
    """GP becomes `value`, floored at 0; 0 destroys the base (BASE-GP-3)."""
    if base.state is Status.DESTROYED and value > base.gp:
        return  # BASE-ST-4: only 再生 gives a destroyed base GP
    new = max(0, value)  # BASE-GP-2
    old = base.gp
    if _record(tx, base, new) and not base.gp_hidden:
        say(tx, base, Text(f"拠点「{base.name}」のGP: {old} → {new}",
                           f"Base '{base.name}' GP: {old} → {new}"))
    if new == 0:
        reveal_base(tx, base, "gp")  # BASE-OPT-2: GP shows when it reaches 0
        move(tx, base, Move.DESTROY)  # BASE-GP-3 (no effect on permanent bases, BASE-ATTR-3)


def regenerate(tx: Tx, base: Base, gp: int, state: Status = Status.ACTIVE) -> None:
    """BASE-TR-1: only a destroyed base; GP becomes `gp`, state the named one (default 活動)."""
    if next_status(base.state, Move.REGENERATE, base.permanent) is None:
        return
    _record(tx, base, max(0, gp))
    set_state(tx, base, state, Move.REGENERATE)


def _record(tx: Tx, base: Base, new: int) -> bool:
    """Write GP and its happening; False when it does not change."""
    old, hidden = base.gp, base.hidden or base.gp_hidden
    if new == old:
        return False
    tx.set((*base_path(base), "gp"), new)
    tx.emit("bases.gp.changed", base=base.id, old=old, new=new)
    tx.report(BaseGp(base=base.id, old=None if hidden else old, gp=new),
              about=[(*base_path(base), "gp")])
    return True
