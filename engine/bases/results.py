"""What a base-battle ack tells its sender (`Tx.report`): what the action's fires did.

Reported where the rules write (gp, moves, fire, settle, end), so an action's ack lists
every GP change, state move, firing and constant switch it caused, cascades included.
Each names the state it reads in `about`: a hidden base, a hidden GP (BASE-OPT-2) drops
the result for a player or the table, as the views drop the state itself.
"""

from __future__ import annotations

from typing import Literal

from pydantic import StrictBool

from ..bounds import Count, Id, Name, Number
from ..outcomes import Result
from .states import CharSide

__all__ = ["RESULTS", "BaseGp", "BaseState", "BasesEnded", "BasesRound", "ConstantSwitched",
           "ElementFired"]


class BaseGp(Result):
    """A base's GP changed (BASE-GP-1..3, BASE-EL-1): `old` is None when the GP was hidden
    when it changed (so its reveal at 0 does not tell the value before)."""

    kind: Literal["bases.gp"] = "bases.gp"
    base: Id
    old: Number | None = None
    gp: Number


class BaseState(Result):
    """A base's state moved through the table (BASE-ST-*, BASE-TR-*)."""

    kind: Literal["bases.state"] = "bases.state"
    base: Id
    old: Name
    new: Name
    via: Name


class ElementFired(Result):
    """An event fired or a GP change condition applied (BASE-EL-1): activations so far,
    and those left (None: ∞, or not an event)."""

    kind: Literal["bases.fired"] = "bases.fired"
    base: Id
    element: Id
    element_kind: Literal["event", "gp"]
    fired: Count
    left: Count | None = None
    triggerer: Name | None = None


class ConstantSwitched(Result):
    """A constant effect started or stopped applying (BASE-EL-1, BASE-ST-2)."""

    kind: Literal["bases.constant"] = "bases.constant"
    base: Id
    element: Id
    active: StrictBool


class BasesRound(Result):
    """`bases.round`: the round that started."""

    kind: Literal["bases.round"] = "bases.round"
    round: Count


class BasesEnded(Result):
    """The battle ended in this action (BASE-TYPE-*, BASE-ATTR-2): who lost, by which rule."""

    kind: Literal["bases.ended"] = "bases.ended"
    losers: list[CharSide]
    rule: Name


RESULTS: tuple[type[Result], ...] = (BaseGp, BaseState, ElementFired, ConstantSwitched,
                                     BasesRound, BasesEnded)
