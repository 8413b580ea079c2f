"""Whether a character may spend a step of its main process on an action now.

Every act (`grid.act`) and every skill used in the user's own main process ([強制転移],
[地動説]: GRID-SK-3, GRID-X-5) passes the same guards: the user's process is open (so the
user can act, GRID-ST-5) and not waiting (GRID-X-3), the step is not passed or spent
(GRID-MV-1), no minor while bound (GRID-ST-3), no major action while sharing an ally's
square (GRID-MV-4).
"""

from __future__ import annotations

from typing import Literal

from ..combatants import Combatant, has_status
from ..tx import Tx
from .model import STEPS, GridState, Process
from .moves import not_in_process
from .process import STEP_NAMES
from .refusals import BOUND, SHARING_ALLY, STEP_PASSED, STEP_SPENT, WAITING_HINDRANCE
from .rules import name_of, sharing_ally, table

__all__ = ["Timing", "may_spend", "open_step", "own_process"]

Timing = Literal["move", "minor", "major"]

HOW = {"move": ("移動", "moving"), "action": ("アクション", "an action"), "skip": ("", "")}


def open_step(tx: Tx, g: GridState, c: Combatant, timing: Timing,
              sharing_ok: bool = False) -> Process:
    """`c`'s open process, if `timing` may be spent on an action in it now."""
    p = own_process(tx, g, c)
    may_spend(tx, g, c, p, timing, sharing_ok)
    return p


def own_process(tx: Tx, g: GridState, c: Combatant) -> Process:
    """`c`'s open main process, not waiting on a hindrance. `c` is able to act: the round
    settler ends the process of a character that no longer can (GRID-ST-5)."""
    p = g.process
    if p is None or p.combatant != c.id:
        raise not_in_process(tx, g, c)
    if p.waiting is not None:
        raise WAITING_HINDRANCE.refuse()
    return p


def may_spend(tx: Tx, g: GridState, c: Combatant, p: Process, timing: Timing,
              sharing_ok: bool = False) -> None:
    """Refuse unless `timing` may be spent on an action now; `sharing_ok`: the action is a
    way of moving (GRID-MV-4 allows it while sharing an ally's square)."""
    ja, en = STEP_NAMES[timing]
    if p.step == "post" or STEPS.index(timing) < STEPS.index(p.step):
        raise STEP_PASSED.refuse(step=ja, step_en=en)
    how = p.spent.get(timing) if timing == p.step else None
    if how in ("move", "action"):
        h_ja, h_en = HOW[how]
        raise STEP_SPENT.refuse(step=ja, step_en=en, how=h_ja, how_en=h_en)
    if timing == "minor" and has_status(c, "bind"):
        tx.check(False, BOUND.refuse(n=name_of(table(tx), c)))
    if timing == "major" and not sharing_ok:
        tx.check(not sharing_ally(g, table(tx), c), SHARING_ALLY.refuse())
