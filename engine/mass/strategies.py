"""Strategies (作戦, MASS-T-3, MASS-STRAT-1, MASS-DATA): `mass.strategy` and each effect.

A strategy costs no action and may be used in any step of a turn, by a unit still in the
war that owns it and has a use left; 投石部隊 only in the tactics step (MASS-T-2). The
reactions (囮作戦, 情報操作, 偽りの白旗) are offered in an attack's windows (attack.py).
Effects that change attack or defence, or leave a condition, are turn-long `Mod`s that
reset at turn end; recovery and damage stay. Effect readings (docs/mass.md):

- "味方全体" = every unit of the user's side still in the war, the user included; one die
  for all of them (全軍防御・強, 統率回復・強), one die for every unit (雨乞い).
- 爆裂部隊: the target loses (what the user actually lost + 1D6).
- 煙攻め / 分断作戦: for the user's side (its back row hidden; its front-to-back attacks).
- 陣形変更(・速): to a formation the unit owns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from ..actions import ActionBase
from ..bounds import Id
from ..errors import Text
from ..tx import Role, Tx, parse_dice
from . import refusals as R
from .damage import deal
from .dice import Dice
from .model import Flag, MassState, Mod, Stone, StrategySpec, Unit
from .results import MassStrategyUsed
from .rules import (
    PATH,
    allies,
    enemies,
    heal,
    lose,
    mass_of,
    may_act_for,
    need_step,
    no_prompt_open,
    not_routed,
    rout,
    row_of,
    set_formation,
    unit_of,
)
from .uses import activate, check_usable, mod_on, spend

__all__ = ["HANDLERS", "UseStrategy"]

REACTIONS = frozenset({"decoy", "information", "white_flag"})

MANUAL = Text("「{strategy}」: 効果はシナリオに定めがないため、GMが調整してください。",
              "'{strategy}': the seed gives no effect; the GM applies it (mass.adjust).")
USED = Text("「{name}」が作戦「{strategy}」を使用", "'{name}' uses '{strategy}'")


@dataclass
class Use:
    """One use of a strategy: who, what, on whom, and its dice."""

    tx: Tx
    m: MassState
    unit: Unit
    spec: StrategySpec
    target: Unit | None
    formation: str | None
    dice: Dice

    @property
    def front(self) -> bool:
        return row_of(self.unit) == "front"

    def d6(self) -> int:
        return self.dice.roll("1D6", f"mass.strategy {self.spec.id} {self.unit.id}")

    def amount(self, value: int | str) -> int:
        """A flat number, or dice (`1D6`) rolled or reported."""
        if isinstance(value, int):
            return value
        sign = -1 if value.startswith("-") else 1
        dice = value.lstrip("+-")
        parse_dice(dice)
        return sign * self.dice.roll(dice, f"mass.strategy {self.spec.id} {self.unit.id}")

    def mod(self, on: Unit, attack: int = 0, defence: int = 0,
            flags: tuple[Flag, ...] = ()) -> None:
        mod_on(self.tx, on, Mod(strategy=self.spec.id, source=self.unit.id, attack=attack,
                                defence=defence, flags=list(flags)))

    def mod_all(self, units: list[Unit], attack: int = 0, defence: int = 0,
                flags: tuple[Flag, ...] = ()) -> None:
        """The same change on several units, skipping those that already carry it."""
        fresh = [u for u in units if all(d.strategy != self.spec.id for d in u.mods)]
        self.tx.check(bool(fresh), R.NO_STACKING.refuse(alt="nobody", strategy=self.spec.id))
        for u in fresh:
            self.mod(u, attack, defence, flags)

    def pick(self, pool: list[Unit], what: tuple[str, str]) -> Unit:
        """The named target, which must be one of `pool`."""
        if self.target is None:
            raise R.NEED_TARGET.refuse(strategy=self.spec.id, what=what[0], what_en=what[1])
        ok = any(u.id == self.target.id for u in pool)
        self.tx.check(ok, R.BAD_TARGET.refuse(
            under="MASS-DATA", alt="strategy", target=self.target.name,
            strategy=self.spec.id, what=what[0], what_en=what[1]))
        return self.target

    def others(self, row: str) -> list[Unit]:
        return [u for u in allies(self.m, self.unit) if u.id != self.unit.id and row_of(u) == row]


BACK_ALLY = ("後列の味方部隊", "an allied back-row unit")
FRONT_ALLY = ("前列の味方部隊", "an allied front-row unit")
ENEMY = ("敵部隊", "an enemy unit")


def _manual(u: Use) -> None:
    u.tx.emit("mass.strategy.manual", unit=u.unit.id, strategy=u.spec.id)
    u.tx.say(MANUAL.format(strategy=u.spec.id))


def _modifier(u: Use) -> None:
    """A scenario's own effect: flat or dice changes to the user, its side, or a target."""
    eff = u.spec.modifier
    if eff is None:
        return _manual(u)
    if eff.scope == "self":
        units = [u.unit]
    elif eff.scope == "allies":
        units = allies(u.m, u.unit)
    else:
        units = [u.pick([*allies(u.m, u.unit), *enemies(u.m, u.unit)], ("部隊", "a unit"))]
    attack, defence, strength = u.amount(eff.attack), u.amount(eff.defence), u.amount(eff.strength)
    if attack or defence:
        u.mod_all(units, attack=attack, defence=defence)
    for unit in units:
        if strength > 0:
            heal(u.tx, unit, strength, u.spec.id)
        elif strength < 0:
            lose(u.tx, unit, -strength, u.spec.id)


def _commander_charge(u: Use) -> None:
    u.tx.check(u.unit.weapon_base is not None, R.NO_WEAPON_BASE.refuse(name=u.unit.name))
    u.mod(u.unit, flags=("charge", "lp_only"))


def _rear_advance(u: Use) -> None:
    if u.front:
        u.mod(u.unit, defence=1)
    else:
        u.mod(u.unit, attack=1)


def _front_advance(u: Use) -> None:
    if u.front:
        u.mod(u.unit, attack=1)
    else:
        u.mod(u.unit, defence=1)


def _advance_attack(u: Use) -> None:
    if u.front:
        heal(u.tx, u.pick(u.others("back"), BACK_ALLY), 1, u.spec.id)
    else:
        u.mod(u.pick(u.others("front"), FRONT_ALLY), attack=1)


def _retreat_attack(u: Use) -> None:
    if u.front:
        u.mod(u.unit, flags=("no_front_bonus",))
    else:
        u.mod(u.unit, attack=1)


def _strong_advance(u: Use) -> None:
    if u.front:
        u.mod(u.unit, attack=u.d6())
    else:
        heal(u.tx, u.unit, 1, u.spec.id)


def _blast(u: Use) -> None:
    target = u.pick(enemies(u.m, u.unit), ENEMY)
    lost = lose(u.tx, u.unit, u.d6(), u.spec.id)
    deal(u.tx, target, lost + u.d6(), f"strategy:{u.spec.id}:{u.unit.id}")


def _full_retreat(u: Use) -> None:
    gained = heal(u.tx, u.unit, u.d6(), u.spec.id)
    u.mod(u.unit, defence=-gained)


def _full_defence(u: Use) -> None:
    u.mod(u.unit, defence=u.d6())
    lose(u.tx, u.unit, 1, u.spec.id)


def _full_defence_strong(u: Use) -> None:
    u.mod_all(allies(u.m, u.unit), defence=u.d6())


def _rally(u: Use) -> None:
    heal(u.tx, u.unit, u.d6(), u.spec.id)


def _rally_strong(u: Use) -> None:
    n = u.d6()
    for unit in allies(u.m, u.unit):
        heal(u.tx, unit, n, u.spec.id)


def _formation_change(u: Use, penalty: bool) -> None:
    fid = u.formation
    if fid is None:
        raise R.NEED_FORMATION.refuse()
    u.tx.check(fid in u.unit.formations, R.NOT_OWNED.refuse(
        under="MASS-PREP-3", name=u.unit.name, formation=fid))
    set_formation(u.tx, u.m, u.unit, fid)
    u.tx.emit("mass.formation", unit=u.unit.id, formation=fid)
    heal(u.tx, u.unit, 1, u.spec.id)
    if penalty:
        u.mod(u.unit, defence=-1)


def _flag_allies(flag: Flag) -> Callable[[Use], None]:
    def handler(u: Use) -> None:
        u.mod_all(allies(u.m, u.unit), flags=(flag,))
    return handler


def _retreat(u: Use) -> None:
    rout(u.tx, u.unit, "retreat")


def _rain(u: Use) -> None:
    n = u.d6()
    for unit in [x for x in u.m.units.values() if not x.routed]:
        lose(u.tx, unit, n, u.spec.id)


def _stones(u: Use) -> None:
    target = u.pick(enemies(u.m, u.unit), ENEMY)
    sid = u.tx.next_id("stone")
    u.tx.set((PATH, "stones"), [*u.m.stones, Stone(id=sid, user=u.unit.id, target=target.id)])
    u.tx.made("stone", sid, (PATH, "stones"))
    u.tx.emit("mass.stone.declared", stone=sid, unit=u.unit.id, target=target.id)


HANDLERS: dict[str, Callable[[Use], None]] = {
    "manual": _manual, "modifier": _modifier, "commander_charge": _commander_charge,
    "rear_advance": _rear_advance, "front_advance": _front_advance,
    "advance_attack": _advance_attack, "retreat_attack": _retreat_attack,
    "strong_advance": _strong_advance, "blast": _blast, "full_retreat": _full_retreat,
    "full_defence": _full_defence, "full_defence_strong": _full_defence_strong,
    "rally": _rally, "rally_strong": _rally_strong,
    "formation_change": lambda u: _formation_change(u, True),
    "formation_change_fast": lambda u: _formation_change(u, False),
    "rapid_front": _flag_allies("treat_front"), "rapid_back": _flag_allies("treat_back"),
    "divide": _flag_allies("divide"), "smoke": _flag_allies("smoke"), "retreat": _retreat,
    "rain": _rain, "stones": _stones,
}


class UseStrategy(ActionBase):
    """MASS-T-3: use an owned strategy (no action spent), on `target` / to `formation`.

    `results` are BCDice lines for its dice, in the order the effect rolls them."""

    kind: Literal["mass.strategy"] = "mass.strategy"
    roles = frozenset[Role]({"gm", "player", "bridge"})
    unit: str = Field(max_length=64)
    strategy: str = Field(min_length=1, max_length=40)
    target: str | None = Field(default=None, max_length=64)
    formation: str | None = Field(default=None, max_length=64)
    results: list[Annotated[str, Field(max_length=2000)]] | None = Field(default=None, max_length=4)
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        m = mass_of(tx)
        unit = unit_of(m, self.unit)
        may_act_for(tx, unit)
        target = unit_of(m, self.target) if self.target is not None else None
        need_step(tx, ("deployment", "tactics", "battle"), "MASS-T-3")
        no_prompt_open(tx)
        not_routed(unit)
        spec = check_usable(tx, m, unit, self.strategy)
        if spec.effect in REACTIONS:
            raise R.REACTION_ONLY.refuse(strategy=spec.id)
        if spec.effect == "stones":
            tx.check(m.step == "tactics", R.WRONG_STEP.refuse(under="MASS-T-2", alt="stones"))
        dice = Dice(tx, m.settings, list(self.results or []))
        tx.emit("mass.strategy", unit=unit.id, strategy=spec.id, target=self.target)
        tx.say(USED.format(name=unit.name, strategy=spec.id))
        activate(tx, m, unit, spec.id)
        HANDLERS[spec.effect](Use(tx, m, unit, spec, target, self.formation, dice))
        spend(tx, m, unit, spec.id)
        dice.finish()
        tx.report(MassStrategyUsed(unit=unit.id, strategy=spec.id, target=self.target,
                                   rolled=dice.totals, uses_left=unit.uses.get(spec.id)),
                  about=[(PATH, "units", unit.id, "uses")])
