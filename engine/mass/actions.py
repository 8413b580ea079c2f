"""Unit actions of a turn (MASS-T-1..3) and the GM's adjustments.

A unit's player (or the GM, or a bridge naming the player in `by`) deploys it, picks its
formation, and in battle, on its turn, attacks, defends, reorganizes or delays.
Strategies are `mass.strategy` (strategies.py); the GM's step button is
`mass.next_step` (flow.py).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictInt

from ..actions import ActionBase
from ..bounds import Id
from ..errors import Text
from ..tx import Role, Tx
from . import refusals as R
from .attack import bonus_applies, start_attack, target_refusal
from .dice import Dice
from .end import set_outcome
from .model import Half, MassState, Mod, Row, Unit
from .results import MassAttackDeclared, MassDefended, MassDeployed
from .rules import (
    PATH,
    add_mod,
    formation_of,
    heal,
    lose,
    mass_of,
    may_act_for,
    need_step,
    no_prompt_open,
    not_routed,
    row_text,
    set_formation,
    set_unit,
    unit_of,
)
from .uses import mod_on

__all__ = ["Adjust", "Attack", "ChooseFormation", "Declare", "Defend", "Delay", "Deploy",
           "Reorganize"]

UNIT_ROLES = frozenset[Role]({"gm", "player", "bridge"})



class _UnitAction(ActionBase):
    """An action for one unit: its player, the GM, or a bridge naming the player."""

    roles = UNIT_ROLES
    unit: str = Field(max_length=64)
    by: Id | None = None

    def _unit(self, tx: Tx, rule: str) -> tuple[MassState, Unit]:
        m = mass_of(tx)
        unit = unit_of(m, self.unit)
        may_act_for(tx, unit, rule)
        return m, unit


class Deploy(_UnitAction):
    """MASS-T-1: front or back row; `odd` says where an odd strength's extra point goes."""

    kind: Literal["mass.deploy"] = "mass.deploy"
    table_move = True
    row: Row
    odd: Half | None = None

    def only_moves(self) -> bool:
        return self.odd is None  # where an odd point goes is the unit's player's decision

    def apply(self, tx: Tx) -> None:
        _m, unit = self._unit(tx, "MASS-T-1")
        need_step(tx, ("deployment",), "MASS-T-1")
        no_prompt_open(tx)
        not_routed(unit)
        set_unit(tx, unit, row=self.row, odd=self.odd)
        tx.report(MassDeployed(unit=unit.id, row=self.row, odd=self.odd),
                  about=[(PATH, "units", unit.id, "row")])
        tx.emit("mass.row", unit=unit.id, row=self.row)
        ja, en = row_text(self.row)
        tx.say(Text(f"「{unit.name}」は{ja}へ", f"'{unit.name}' to the {en}"))


class ChooseFormation(_UnitAction):
    """MASS-T-2: one owned formation for this turn (final values when tactics close)."""

    kind: Literal["mass.formation"] = "mass.formation"
    formation: str = Field(min_length=1, max_length=40)

    def apply(self, tx: Tx) -> None:
        m, unit = self._unit(tx, "MASS-T-2")
        formation_of(m, self.formation)
        need_step(tx, ("tactics",), "MASS-T-2")
        no_prompt_open(tx)
        not_routed(unit)
        tx.check(self.formation in unit.formations, R.NOT_OWNED.refuse(
            name=unit.name, formation=self.formation))
        set_unit(tx, unit, formation=self.formation)
        tx.emit("mass.formation.chosen", unit=unit.id, formation=self.formation)
        tx.say(Text(f"「{unit.name}」の陣形: {self.formation}",
                    f"'{unit.name}' formation: {self.formation}"))


class _TurnAction(_UnitAction):
    """A battle action: only the unit whose turn it is, once a turn (MASS-T-3)."""

    def _turn(self, tx: Tx) -> tuple[MassState, Unit]:
        m, unit = self._unit(tx, "MASS-T-3")
        need_step(tx, ("battle",), "MASS-T-3")
        no_prompt_open(tx)
        not_routed(unit)
        tx.check(not unit.acted, R.ALREADY_ACTED.refuse(name=unit.name))
        current = m.units.get(m.current or "")
        tx.check(current is not None and current.id == unit.id, R.NOT_YOUR_TURN.refuse(
            current=current.name if current else "—"))
        return m, unit

    def _done(self, tx: Tx, unit: Unit) -> None:
        set_unit(tx, unit, acted=True)


class Attack(_TurnAction):
    """MASS-T-3 attack → MASS-DMG-1..3 (attack.py). `result`: a BCDice line for the
    bonus die, used only when the attack has one."""

    kind: Literal["mass.attack"] = "mass.attack"
    target: str = Field(max_length=64)
    result: str | None = Field(default=None, max_length=2000)

    def apply(self, tx: Tx) -> None:
        m, unit = self._turn(tx)
        target = unit_of(m, self.target)
        if target.side == unit.side:
            raise R.BAD_TARGET.refuse(name=target.name)
        not_routed(target, "MASS-DMG-1")
        refusal = target_refusal(unit, target)
        if refusal is not None:
            tx.check(False, refusal)
        reporter = None
        if self.result is not None:
            if not bonus_applies(unit, target):
                raise R.UNUSED_RESULT.refuse(under="MASS-DMG-1", alt="no_bonus")
            dice = Dice(tx, m.settings, [self.result])
            dice.check(m.settings.bonus_dice)
            reporter = dice.who()
        pending = start_attack(tx, unit, target, self.result, reporter)
        tx.made("attack", pending.id, (PATH, "attack"))
        tx.report(MassAttackDeclared(attack=pending.id, attacker=unit.id, target=target.id,
                                     bonus=bonus_applies(unit, target)), about=[(PATH, "attack")])


class Defend(_TurnAction):
    """MASS-T-3 defend: no attack; defence +1D6 for the rest of the turn."""

    kind: Literal["mass.defend"] = "mass.defend"
    result: str | None = Field(default=None, max_length=2000)

    def apply(self, tx: Tx) -> None:
        m, unit = self._turn(tx)
        dice = Dice(tx, m.settings, [self.result] if self.result else [])
        n = dice.roll("1D6", f"mass.defend {unit.id}")
        dice.finish()
        mod_on(tx, unit, Mod(strategy="防御", source=unit.id, defence=n))
        tx.report(MassDefended(unit=unit.id, die=n, defence=unit.defence),
                  about=[(PATH, "units", unit.id, "defence")])
        tx.emit("mass.defend", unit=unit.id, defence=n)
        tx.say(Text(f"「{unit.name}」は防御: 防御力+{n}", f"'{unit.name}' defends: defence +{n}"))
        self._done(tx, unit)


class Reorganize(_TurnAction):
    """MASS-T-3 reorganize: the formation becomes 縦列陣形 and strength recovers 1."""

    kind: Literal["mass.reorganize"] = "mass.reorganize"

    def apply(self, tx: Tx) -> None:
        m, unit = self._turn(tx)
        fid = m.settings.default_formation
        set_formation(tx, m, unit, fid)
        tx.emit("mass.reorganize", unit=unit.id, formation=fid)
        tx.say(Text(f"「{unit.name}」は再編成（{fid}）", f"'{unit.name}' reorganizes ({fid})"))
        heal(tx, unit, 1, "再編成")
        self._done(tx, unit)


class Delay(_TurnAction):
    """MASS-T-3 delay: act at the end of the turn (delayers by raw initiative), once."""

    kind: Literal["mass.delay"] = "mass.delay"

    def apply(self, tx: Tx) -> None:
        _m, unit = self._turn(tx)
        tx.check(not unit.delayed, R.ALREADY_DELAYED.refuse(name=unit.name))
        set_unit(tx, unit, delayed=True)
        tx.set((PATH, "current"), None)
        tx.emit("mass.delay", unit=unit.id)
        tx.say(Text(f"「{unit.name}」は行動を遅らせた", f"'{unit.name}' delays"))


class Adjust(ActionBase):
    """GM: a ruling the seed leaves open (全軍突撃, say): attack/defence for this turn
    (reset at turn end like a strategy's) and/or strength (within 0..max)."""

    kind: Literal["mass.adjust"] = "mass.adjust"
    unit: str = Field(max_length=64)
    attack: StrictInt = Field(default=0, ge=-99, le=99)
    defence: StrictInt = Field(default=0, ge=-99, le=99)
    strength: StrictInt = Field(default=0, ge=-999, le=999)
    note: str = Field(default="", max_length=500)

    def apply(self, tx: Tx) -> None:
        m = mass_of(tx)
        unit = unit_of(m, self.unit)
        if self.attack or self.defence:
            add_mod(tx, unit, Mod(strategy=self.note or "GM", source="gm",
                                  attack=self.attack, defence=self.defence))
        if self.strength > 0:
            heal(tx, unit, self.strength, "GM")
        elif self.strength < 0:
            lose(tx, unit, -self.strength, "GM")
        tx.emit("mass.adjusted", unit=unit.id, attack=self.attack, defence=self.defence,
                strength=self.strength, note=self.note)
        tx.say(Text(f"GM調整: 「{unit.name}」攻撃{self.attack:+d}・防御{self.defence:+d}・"
                    f"戦力{self.strength:+d}（{self.note}）",
                    f"GM adjustment: '{unit.name}' attack {self.attack:+d}, defence "
                    f"{self.defence:+d}, strength {self.strength:+d} ({self.note})"))


class Declare(ActionBase):
    """GM: decide the war by ruling (`winner` a side id, or null for a draw)."""

    kind: Literal["mass.declare"] = "mass.declare"
    winner: str | None = Field(default=None, max_length=64)
    note: str = Field(default="", max_length=500)

    def apply(self, tx: Tx) -> None:
        m = mass_of(tx)
        if self.winner is not None and self.winner not in m.sides:
            raise R.UNKNOWN_SIDE.missing(self.winner)
        set_outcome(tx, self.winner, "gm", self.note)


ACTIONS: tuple[type[ActionBase], ...] = (Deploy, ChooseFormation, Attack, Defend, Reorganize,
                                         Delay, Adjust, Declare)
