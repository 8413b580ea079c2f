"""Firing one element: an event or a GP change condition (BASE-EL-1, BASE-OPT-2).

`fire` is what the trigger, the settler and the GM's / a player's action all end in: it
counts the activation, reveals the element the first time (BASE-OPT-2), emits the
happening and applies the effect. `check_fire` is the gate for fires that a person asks
for (`bases.fire`, `bases.trigger`): the automatic paths check the same with `ready`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import Text
from . import refusals as no
from .blocks import Block
from .effects import run_effects
from .eval import Ctx, block_holds, can_fire, suppressed, tags_hold
from .gp import change_gp
from .lookup import Located, base_path, battle, say
from .model import Event, GpCondition
from .results import ElementFired
from .reveal import reveal_element

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["check_fire", "fire"]



def fire(tx: Tx, loc: Located, triggerer: str | None = None) -> None:
    """Fire an event or apply a GP change condition (counts, reveal, effects)."""
    element = loc.element
    if isinstance(element, GpCondition):
        _apply_gp_condition(tx, loc, element)
    elif isinstance(element, Event):
        _fire_event(tx, loc, element, triggerer)


def _apply_gp_condition(tx: Tx, loc: Located, element: GpCondition) -> None:
    applied = element.applied + 1  # before the write: `element` is the live state
    tx.set((*loc.path, "applied"), applied)
    reveal_element(tx, loc)  # BASE-OPT-2: a GP change condition shows when first applied
    tx.emit("bases.gp_condition.applied", base=loc.base.id, element=element.id,
            delta=element.delta)
    tx.report(ElementFired(base=loc.base.id, element=element.id, element_kind="gp",
                           fired=applied), about=[(*loc.path, "applied")])
    change_gp(tx, loc.base, element.delta)  # BASE-EL-1


def _fire_event(tx: Tx, loc: Located, event: Event, triggerer: str | None) -> None:
    fired = event.fired + 1  # before the write: `event` is the live state
    tx.set((*loc.path, "fired"), fired)
    tx.set((*loc.path, "fired_round"), event.fired_round + 1)
    if triggerer is not None:
        tx.set((*loc.path, "triggerer"), triggerer)  # BASE-COND-3 誘発者
    reveal_element(tx, loc)  # BASE-OPT-2: an event shows when first fired
    tx.emit("bases.event.fired", base=loc.base.id, element=event.id, name=event.name,
            triggerer=triggerer)
    left = None if event.count is None else max(event.count - fired, 0)
    tx.report(ElementFired(base=loc.base.id, element=event.id, element_kind="event",
                           fired=fired, left=left, triggerer=triggerer),
              about=[(*loc.path, "fired"), *([(*loc.path, "count")] if left is not None else [])])
    say(tx, loc.base, Text(f"拠点「{loc.base.name}」のイベント「{event.name}」が発動しました。",
                           f"Event '{event.name}' of base '{loc.base.name}' fired."))
    run_effects(tx, loc.base.id, event.effects, triggerer, element=event.id)


def check_fire(tx: Tx, loc: Located, blocks: Sequence[Block], full: bool = False) -> None:
    """Checks before a GM/active firing: running, not stopped, count left, a block holds.

    Each refusal names (in `about`) the parts it reveals, so a player or the table is told
    only what they may see (BASE-OPT-2)."""
    element, base, name = loc.element, loc.base, loc.label
    tx.check(battle(tx).running, no.BATTLE_NOT_RUNNING.refuse())
    tx.check(not suppressed(base, element),
             no.BASE_STOPPED.refuse(name=base.name, about=[
                 (*base_path(base), "name"), (*base_path(base), "state"),
                 *loc.about("conditions")]))
    if isinstance(element, Event) and element.count is not None:
        tx.check(element.fired < element.count,
                 no.EVENT_EXHAUSTED.refuse(name=name, n=element.count,
                                           about=loc.about("count", "fired")))
    ctx = Ctx(battle(tx), base)
    holds = block_holds if full else tags_hold  # the GM judges a manual block's text
    ok = any(holds(ctx, b) and can_fire(element, b) for b in blocks)
    text = " / ".join(b.text for b in blocks)
    tx.check(ok, no.CONDITION_NOT_MET.refuse(name=name, text=text,
                                             about=loc.about("conditions")))
