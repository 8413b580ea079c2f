"""What a mass combat ack tells its sender (engine/outcomes.py): the dice of a check, an
attack's die and damage, the halves of a deployment, what the war now waits for.

Each is reported where it happens (in the action, or in the answer that moved the war on)
and names in `about` the state it is built from: a sender not shown a GM-run unit's
numbers or the GM's prompt is not told them (`outcomes.told`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictInt

from ..bounds import Count, Id, Name
from ..outcomes import Result
from .model import Half, Row, Step

__all__ = ["RESULTS", "MassAttackDeclared", "MassAttackResolved", "MassAwaits", "MassCheck",
           "MassDefended", "MassDeployed", "MassLp", "MassSplit", "MassStepResult",
           "MassStrategyUsed"]

Faces = list[StrictInt]


class MassCheck(Result):
    """MASS-PREP-1 the max-strength check: its dice, the faces, the total set."""

    kind: Literal["mass.strength"] = "mass.strength"
    unit: Id
    ability: Name
    dice: Name | None = None
    rolled: Faces = Field(default_factory=list, max_length=20)
    total: StrictInt
    max_strength: Count


class MassDeployed(Result):
    """MASS-T-1 the row taken (and where an odd point goes, if said with it)."""

    kind: Literal["mass.deploy"] = "mass.deploy"
    unit: Id
    row: Row
    odd: Half | None = None


class MassSplit(Result):
    """MASS-T-1 a unit's halves: final, or pending on its odd point (`split_pending`)."""

    kind: Literal["mass.split"] = "mass.split"
    unit: Id
    attack: Count
    defence: Count
    split_pending: StrictBool = False


class MassStepResult(Result):
    """MASS-T-1..3 the step the war is in now."""

    kind: Literal["mass.step"] = "mass.step"
    turn: Count
    step: Step


class MassDefended(Result):
    """MASS-T-3 defend: the die and the unit's effective defence after it."""

    kind: Literal["mass.defend"] = "mass.defend"
    unit: Id
    die: StrictInt
    defence: Count


class MassAttackDeclared(Result):
    """MASS-DMG-1 an attack declared: its id, and whether the +1D6 front bonus applies."""

    kind: Literal["mass.attack"] = "mass.attack"
    attack: Id
    attacker: Id
    target: Id
    bonus: StrictBool


class MassAttackResolved(Result):
    """MASS-DMG-1 an attack's damage: its dice pool (the bonus die), attack − defence."""

    kind: Literal["mass.attack.resolved"] = "mass.attack.resolved"
    attack: Id
    attacker: Id
    target: Id
    bonus: StrictBool
    die: StrictInt | None = None
    fixed: StrictBool = False
    white_flag: StrictBool = False
    attack_value: StrictInt
    defence_value: StrictInt
    damage: Count


class MassLp(Result):
    """MASS-DMG-2 damage split between the leader's LP and the unit's strength."""

    kind: Literal["mass.lp"] = "mass.lp"
    unit: Id
    on_lp: Count
    on_strength: Count
    lp: Count
    strength: Count


class MassStrategyUsed(Result):
    """MASS-T-3 a strategy used: its dice totals in the order rolled, uses left."""

    kind: Literal["mass.strategy"] = "mass.strategy"
    unit: Id
    strategy: Name
    target: Id | None = None
    rolled: Faces = Field(default_factory=list, max_length=10)
    uses_left: Count | None = None


class MassAwaits(Result):
    """What the war waits for after the action: one open prompt the sender is shown."""

    kind: Literal["mass.awaits"] = "mass.awaits"
    prompt: Id
    prompt_kind: Name
    to: Name
    about: dict[Name, Id] = Field(default_factory=dict, max_length=8)


RESULTS: tuple[type[Result], ...] = (
    MassCheck, MassDeployed, MassSplit, MassStepResult, MassDefended, MassAttackDeclared,
    MassAttackResolved, MassLp, MassStrategyUsed, MassAwaits)
