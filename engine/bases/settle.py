"""The settler of the base battle: constant effects, level blocks, end conditions.

How this works: `settle` runs after every action once the triggers are quiet. While the
battle runs it switches constant effects on/off by their *level* blocks (BASE-EL-1) and
fires GP change conditions and events whose level block holds, as often as their counts
allow (BASE-COND-2); then it checks the end conditions (`end`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..errors import CascadeTooDeep
from . import refusals as no
from .blocks import Block
from .end import check_end
from .eval import Ctx, block_holds, ready, suppressed
from .fire import fire
from .lookup import locations
from .model import BasesState, ConstantEffect, Element, Event
from .results import ConstantSwitched
from .reveal import reveal_element

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["MAX_LEVEL_FIRES", "settle"]

MAX_LEVEL_FIRES: Final = 200


def settle(tx: Tx) -> None:
    """After every action: constants, level-triggered elements, then the end conditions."""
    bs = tx.part("bases", BasesState)
    if bs is None:
        return
    if bs.running:
        _constants(tx, bs)
        _level(tx, bs)
    check_end(tx, bs)


def _constants(tx: Tx, bs: BasesState) -> None:
    """Constant effects apply while a block holds (BASE-EL-1), revealed when first met."""
    for loc in locations(bs, ("constants",)):
        element, ctx = loc.element, Ctx(bs, loc.base)
        assert isinstance(element, ConstantEffect)
        auto = any(b.mode == "level" and block_holds(ctx, b) for b in element.conditions)
        on = not suppressed(loc.base, element) and (auto or element.manual_on)
        if on != element.active:
            tx.set((*loc.path, "active"), on)
            tx.emit("bases.constant.changed", base=loc.base.id, element=element.id, active=on)
            tx.report(ConstantSwitched(base=loc.base.id, element=element.id, active=on),
                      about=[(*loc.path, "active")])
            if on:
                reveal_element(tx, loc)  # BASE-OPT-2


def _unbounded(element: Element, block: Block) -> bool:
    if isinstance(element, Event):
        return element.count is None and block.per_round is None and not block.once
    return not block.once


def _level(tx: Tx, bs: BasesState) -> None:
    """Level blocks fire while they hold, as often as the counts allow (BASE-COND-2).

    With no limit at all (∞, no 【ラウンドX回】) an element fires once each time its
    block comes to hold (`latched` until it stops holding), so the rule cannot loop.
    """
    fires = 0
    for loc in locations(bs):
        while True:
            element, ctx = loc.element, Ctx(bs, loc.base)
            levels = [b for b in element.conditions if b.mode == "level"]
            block = next((b for b in levels if ready(ctx, element, b)), None)
            if block is None or element.latched:
                if element.latched and not any(block_holds(ctx, b) for b in levels):
                    tx.set((*loc.path, "latched"), False)
                break
            fires += 1
            if fires > MAX_LEVEL_FIRES:
                raise CascadeTooDeep(no.CASCADE_TOO_DEEP, no.CASCADE_TOO_DEEP.text)
            fire(tx, loc)
            if _unbounded(element, block):
                tx.set((*loc.path, "latched"), True)
                break
