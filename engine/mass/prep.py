"""The war preparation phase (戦争準備フェイズ): max strength and picks (MASS-PREP-1/3).

`mass.strength`: a 魅力 or 愛 check (ボディ/テクニック for 1 LP) whose total is the
unit's max strength; the commander-in-chief's check is 3D6. komasync rolls the dice plus
the leader's ability value, or reads a reported BCDice line (`(2D6+3) ＞ 9[4,5]+3 ＞ 12`)
whose dice and modifier must match. The GM may instead set `value` (an NPC's strength).
`mass.pick`: formations and strategies, (メンタル + 知力 or 本能 LV) ÷ 2 of them (rounded
down); 縦列陣形 and 全軍退却 are owned anyway and do not count.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt

from ..actions import ActionBase
from ..bounds import Id
from ..errors import Text
from ..tx import Role, Tx
from . import refusals as R
from .dice import Dice
from .model import MassState, Unit
from .results import MassCheck
from .rules import formation_of, mass_of, may_act_for, need_step, set_unit, strategy_of, unit_of

__all__ = ["Pick", "SetStrength", "pick_limit"]

PLAYER_ROLES = frozenset[Role]({"gm", "player", "bridge"})



def pick_limit(unit: Unit, skill: str) -> int:
    """MASS-PREP-3: (メンタル + 知力 or 本能 skill LV) ÷ 2, rounded down."""
    return max((unit.mental + unit.skills.get(skill, 0)) // 2, 0)


class SetStrength(ActionBase):
    """MASS-PREP-1: a unit's max strength from a check (rolled, reported, or the GM's value)."""

    kind: Literal["mass.strength"] = "mass.strength"
    roles = PLAYER_ROLES
    unit: str = Field(max_length=64)
    ability: str = Field(default="魅力", max_length=40)
    result: str | None = Field(default=None, max_length=2000)
    value: StrictInt | None = Field(default=None, ge=0, le=999)
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        m = mass_of(tx)
        unit = unit_of(m, self.unit)
        may_act_for(tx, unit, "MASS-PREP-1")
        need_step(tx, ("preparation",), "MASS-PREP-1")
        tx.check(unit.max_strength is None, R.STRENGTH_SET.refuse(
            name=unit.name, value=unit.max_strength))
        if self.value is not None:
            if tx.actor.role != "gm":
                raise R.GM_ONLY.refuse()
            _set(tx, unit, self.value, "GM")
            return self._tell(tx, unit, "GM", None)
        total, roller = self._check(tx, m, unit)
        _set(tx, unit, total, self.ability)
        self._tell(tx, unit, self.ability, roller)

    def _tell(self, tx: Tx, unit: Unit, ability: str, roller: Dice | None) -> None:
        """The ack's check: dice and faces (the leader's ability value is in the total, so
        it is told only to a sender shown the unit's numbers)."""
        roll = roller.last if roller is not None else None
        m = mass_of(tx)
        done = m.units[unit.id]
        tx.report(MassCheck(unit=unit.id, ability=ability, dice=roll.dice if roll else None,
                            rolled=list(roll.results) if roll else [],
                            total=done.max_strength or 0, max_strength=done.max_strength or 0),
                  about=[("mass", "units", unit.id, "ability_used")])

    def _check(self, tx: Tx, m: MassState, unit: Unit) -> tuple[int, Dice]:
        s = m.settings
        allowed = [*s.abilities, *s.lp_abilities]
        if self.ability not in allowed:
            raise R.BAD_ABILITY.refuse(abilities="・".join(s.abilities),
                                       lp_abilities="・".join(s.lp_abilities))
        base = unit.abilities.get(self.ability)
        if base is None and self.result is None:
            raise R.NO_ABILITY.refuse(name=unit.name, ability=self.ability)
        if self.ability in s.lp_abilities:  # LP 1 point switches the ability
            lp = unit.lp or 0
            tx.check(lp >= 1, R.NO_LP.refuse(name=unit.name))
            set_unit(tx, unit, lp=max(lp - 1, 0))
            tx.emit("mass.lp", unit=unit.id, lp=max(lp - 1, 0), taken=1, source="ability")
        dice = s.commander_dice if unit.commander else s.check_dice
        roller = Dice(tx, s, [self.result] if self.result else [])
        total = roller.roll(dice, f"mass.strength {unit.id} {self.ability}", base,
                            rule="MASS-PREP-1")
        roller.finish()
        return total, roller


def _set(tx: Tx, unit: Unit, total: int, source: str) -> None:
    total = max(total, 0)
    set_unit(tx, unit, max_strength=total, strength=total, ability_used=source)
    tx.emit("mass.strength.set", unit=unit.id, max_strength=total, source=source)
    who = "（総大将）" if unit.commander else ""
    tx.say(Text(f"「{unit.name}」{who}の最大戦力 {total}（{source}）",
                f"'{unit.name}'{' (commander-in-chief)' if unit.commander else ''} "
                f"max strength {total} ({source})"))


class Pick(ActionBase):
    """MASS-PREP-3: the unit's formations and strategies (replaces an earlier pick)."""

    kind: Literal["mass.pick"] = "mass.pick"
    roles = PLAYER_ROLES
    unit: str = Field(max_length=64)
    skill: str = Field(default="知力", max_length=40)
    formations: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list,
                                                                   max_length=20)
    strategies: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list,
                                                                   max_length=40)
    initiative_from: Literal["initiative", "intellect"] | None = None
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        m = mass_of(tx)
        unit = unit_of(m, self.unit)
        may_act_for(tx, unit, "MASS-PREP-3")
        need_step(tx, ("preparation",), "MASS-PREP-3")
        s = m.settings
        if self.skill not in s.pick_skills:
            raise R.BAD_SKILL.refuse(skills="か".join(s.pick_skills))
        for fid in self.formations:
            formation_of(m, fid)
        for sid in self.strategies:
            strategy_of(m, sid)
        chosen = [*self.formations, *self.strategies]
        for ident in chosen:
            if chosen.count(ident) > 1:
                raise R.DUPLICATE_PICK.refuse(id=ident)
        counted = [f for f in self.formations if f not in s.free_formations] + [
            x for x in self.strategies if x not in s.free_strategies]
        limit = pick_limit(unit, self.skill)
        tx.check(len(counted) <= limit, R.TOO_MANY_PICKS.refuse(limit=limit, n=len(counted)))
        formations = [*s.free_formations, *(f for f in self.formations
                                              if f not in s.free_formations)]
        strategies = [*s.free_strategies, *(x for x in self.strategies
                                              if x not in s.free_strategies)]
        set_unit(tx, unit, picked=True, formations=formations, strategies=strategies,
                 uses={x: m.strategies[x].uses for x in strategies})
        if self.initiative_from is not None:
            set_unit(tx, unit, initiative_from=self.initiative_from)
        tx.emit("mass.picked", unit=unit.id, formations=formations, strategies=strategies)
        tx.say(Text(f"「{unit.name}」の陣形: {'・'.join(formations)}／作戦: {'・'.join(strategies)}",
                    f"'{unit.name}' formations: {', '.join(formations)}; strategies: "
                    f"{', '.join(strategies)}"), chat=unit.player is not None)
