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
from ..errors import Refusal, Text
from ..tx import Tx
from .model import STEPS, GridState, Process
from .moves import not_in_process
from .process import STEP_NAMES
from .rules import WAITING, name_of, sharing_ally, table

__all__ = ["Timing", "may_spend", "open_step", "own_process"]

Timing = Literal["move", "minor", "major"]

PASSED = Text("{step}はもう終わっています（ムーブ→マイナー→メジャーの順、GRID-MV-1）。",
              "The {step_en} is over (move → minor → major, GRID-MV-1).")
SPENT = Text("{step}はもう{how}に使いました。1つのタイミングは移動かアクションのどちらかです（GRID-MV-1）。",
             "The {step_en} was already spent on {how_en}; a timing is either a move or an "
             "action (GRID-MV-1).")
BOUND = Text("「{n}」は[束縛]でマイナーアクションを行えません（移動はできます、GRID-ST-3）。",
             "{n} is bound: no minor action (moving is still allowed; GRID-ST-3).")
SHARING = Text("味方とコマが重なっているので、メジャーは移動にしか使えません（GRID-MV-4）。",
               "Sharing a square with an ally, the major can only be used to move (GRID-MV-4).")
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
        raise Refusal("waiting_hindrance", WAITING, rule="GRID-X-3")
    return p


def may_spend(tx: Tx, g: GridState, c: Combatant, p: Process, timing: Timing,
              sharing_ok: bool = False) -> None:
    """Refuse unless `timing` may be spent on an action now; `sharing_ok`: the action is a
    way of moving (GRID-MV-4 allows it while sharing an ally's square)."""
    ja, en = STEP_NAMES[timing]
    if p.step == "post" or STEPS.index(timing) < STEPS.index(p.step):
        raise Refusal("step_passed", PASSED.format(step=ja, step_en=en), rule="GRID-MV-1")
    how = p.spent.get(timing) if timing == p.step else None
    if how in ("move", "action"):
        h_ja, h_en = HOW[how]
        raise Refusal("step_spent", SPENT.format(step=ja, step_en=en, how=h_ja, how_en=h_en),
                      rule="GRID-MV-1")
    if timing == "minor" and has_status(c, "bind"):
        tx.check(False, Refusal("bound", BOUND.format(n=name_of(table(tx), c)), rule="GRID-ST-3"))
    if timing == "major" and not sharing_ok:
        tx.check(not sharing_ally(g, table(tx), c),
                 Refusal("sharing_ally", SHARING, rule="GRID-MV-4"))
