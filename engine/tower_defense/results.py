"""What a tower defense ack tells its sender (`Tx.report`): checks, removals, moves, phases.

Everything here is built from public state (only `waves` is secret), but each report
still names the paths it reads, so a result is dropped for anyone not shown them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from ..bounds import Count, Id, Name, Number
from ..levels import Level
from ..outcomes import Result
from ..rng import Roll
from ..table import Cell

__all__ = ["RESULTS", "TDAttack", "TDCheck", "TDEye", "TDFortDamaged", "TDOutcome", "TDPCAt",
           "TDPhase", "TDReload", "TDTrap"]


class TDCheck(BaseModel):
    """One percentile check: the dice read (1D100, then each penalty die's alternative),
    the value kept, the skill value and the success level; `removed` for an attack shot."""

    model_config = ConfigDict(extra="forbid")

    skill: Name
    dice: list[Number] = Field(default_factory=list)
    value: Number | None = None
    target: Number | None = None
    level: Level
    penalty_dice: Count = 0
    reported: StrictBool = False
    removed: Count = 0

    @classmethod
    def of(cls, skill: str, roll: Roll, level: Level, penalty: int) -> TDCheck:
        return cls(skill=skill, dice=list(roll.results), value=roll.total, target=roll.target,
                   level=level, penalty_dice=penalty, reported=roll.source != "engine")


class TDAttack(Result):
    """`td.attack` / `td.melee` (TD-ATK-2): each check, the total removed (× damage, × 魔眼)
    and the group's 個体数 after it (0: it left the board)."""

    kind: Literal["td.attack"] = "td.attack"
    pc: Id
    weapon: Id
    group: Id
    checks: list[TDCheck]
    damage: Count
    doubled: StrictBool = False
    removed: Count
    count: Count
    destroyed: StrictBool = False
    attacks_left: Count
    loaded: Count | None = None
    special_left: Count | None = None


class TDEye(Result):
    """`td.special` 魔眼 (TD-DATA): the check, and whether the group is marked this round."""

    kind: Literal["td.eye"] = "td.eye"
    pc: Id
    weapon: Id
    group: Id
    check: TDCheck
    marked: StrictBool
    multiplier: Count


class TDPCAt(Result):
    """`td.pc.place` / `td.move` (TD-PRE-1, TD-ATK-1): where the PC stands now."""

    kind: Literal["td.pc.at"] = "td.pc.at"
    pc: Id
    fort: Id
    cell: Cell
    came_from: Id | None = None


class TDReload(Result):
    """`td.reload` (TD-ATK-3): the rounds now loaded."""

    kind: Literal["td.reload"] = "td.reload"
    pc: Id
    weapon: Id
    loaded: Count


class TDTrap(Result):
    """`td.trap.set` (TD-PRE-1, TD-OPT-1): the check (none when the GM places without
    one) and the trap laid (`trap` None when the check failed)."""

    kind: Literal["td.trap"] = "td.trap"
    pc: Id
    passage: Id
    trap_kind: Literal["explosive", "snare"]
    check: TDCheck | None = None
    trap: Id | None = None
    cell: Cell | None = None


class TDPhase(Result):
    """`td.next_phase` (TD-RND): the round and phase entered."""

    kind: Literal["td.phase"] = "td.phase"
    round: Count
    phase: Name


class TDFortDamaged(Result):
    """A fort lost durability in this action (TD-EATK-1, TD-OPT-2): by whom, how much, left."""

    kind: Literal["td.fort.damaged"] = "td.fort.damaged"
    fort: Id
    by: Id
    amount: Count
    durability: Number
    broken: StrictBool = False


class TDOutcome(Result):
    """The tower defense was decided in this action (TD-SET-1)."""

    kind: Literal["td.outcome"] = "td.outcome"
    outcome: Literal["victory", "defeat"]
    reason: Name


RESULTS: tuple[type[Result], ...] = (TDAttack, TDEye, TDPCAt, TDReload, TDTrap, TDPhase,
                                     TDFortDamaged, TDOutcome)
