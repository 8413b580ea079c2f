"""The `mass:` part of a scenario: two sides, their units, settings, and the data set.

The seed's formations and strategies (data.py) are always there; `formations:` and
`strategies:` entries replace one of them by id or add new ones (e.g. an effect for
全軍突撃). A unit may come with its max strength and picks already decided (an NPC
unit of the GM's); a PC's unit usually decides them in the preparation phase.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from ..bounds import Id, Name, Number
from .data import default_formations, default_strategies
from .model import FormationSpec, MassSettings, MassState, Row, Side, StrategySpec, Unit

__all__ = ["MassScenario", "SideSpec", "UnitSpec"]

class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SideSpec(_Spec):
    id: str = Field(min_length=1, max_length=40, pattern=r"^[\w\-.]+$")
    name: str = Field(min_length=1, max_length=100)
    en: Name = ""


class UnitSpec(_Spec):
    """A unit and its leader's numbers (ability values are a check's modifier)."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[\w\-.]+$")
    name: str = Field(min_length=1, max_length=100)
    side: Id
    player: Id | None = None
    leader: Name = ""
    commander: StrictBool = False
    abilities: dict[str, Number] = Field(default_factory=dict, max_length=50)
    mental: StrictInt = Field(default=0, ge=0, le=99)
    skills: dict[str, Number] = Field(default_factory=dict, max_length=50)
    initiative: StrictInt = Field(default=0, ge=-99, le=999)
    intellect_base: StrictInt | None = Field(default=None, ge=-99, le=999)
    weapon_base: StrictInt | None = Field(default=None, ge=0, le=999)
    lp: StrictInt | None = Field(default=None, ge=0, le=999)
    initiative_from: Literal["initiative", "intellect"] = "initiative"
    max_strength: StrictInt | None = Field(default=None, ge=0, le=999)
    strength: StrictInt | None = Field(default=None, ge=0, le=999)
    formations: list[Name] | None = Field(default=None, max_length=20)
    strategies: list[Name] | None = Field(default=None, max_length=40)
    row: Row | None = None


class MassScenario(_Spec):
    """Sides (exactly two), units, settings and data-set changes, checked whole at load."""

    settings: MassSettings = Field(default_factory=MassSettings)
    formations: list[FormationSpec] = Field(default_factory=list)
    strategies: list[StrategySpec] = Field(default_factory=list)
    sides: list[SideSpec] = Field(min_length=2, max_length=2)
    units: list[UnitSpec] = Field(min_length=2, max_length=100)

    @model_validator(mode="after")
    def _references(self) -> MassScenario:
        sides = {s.id for s in self.sides}
        if len(sides) != len(self.sides):
            raise ValueError("side ids must be unique")
        ids = [u.id for u in self.units]
        if len(set(ids)) != len(ids):
            raise ValueError("unit ids must be unique")
        formations = {*default_formations(), *(f.id for f in self.formations)}
        strategies = {*default_strategies(), *(s.id for s in self.strategies)}
        s = self.settings
        for name in [*s.free_formations, s.default_formation]:
            if name not in formations:
                raise ValueError(f"settings name an unknown formation '{name}'")
        for name in s.free_strategies:
            if name not in strategies:
                raise ValueError(f"settings name an unknown strategy '{name}'")
        for u in self.units:
            if u.side not in sides:
                raise ValueError(f"unit '{u.id}': unknown side '{u.side}'")
            for f in u.formations or []:
                if f not in formations:
                    raise ValueError(f"unit '{u.id}': unknown formation '{f}'")
            for x in u.strategies or []:
                if x not in strategies:
                    raise ValueError(f"unit '{u.id}': unknown strategy '{x}'")
            if u.strength is not None and (u.max_strength is None or u.strength > u.max_strength):
                raise ValueError(f"unit '{u.id}': strength needs a max_strength at least as big")
        for side in sides:
            if sum(u.commander for u in self.units if u.side == side) > 1:
                raise ValueError(f"side '{side}' has more than one commander-in-chief (総大将)")
            if not any(u.side == side for u in self.units):
                raise ValueError(f"side '{side}' has no units")
        return self

    def build(self) -> MassState:
        formations = default_formations() | {f.id: f for f in self.formations}
        strategies = default_strategies() | {s.id: s for s in self.strategies}
        sides = {s.id: Side(id=s.id, name=s.name, en=s.en, commander=next(
            (u.id for u in self.units if u.side == s.id and u.commander), None))
            for s in self.sides}
        units = {u.id: self._unit(u, strategies) for u in self.units}
        return MassState(settings=self.settings, formations=formations, strategies=strategies,
                         sides=sides, units=units)

    def _unit(self, u: UnitSpec, strategies: dict[str, StrategySpec]) -> Unit:
        s = self.settings
        owned_f = [*s.free_formations, *(f for f in u.formations or [] if f not in
                                         s.free_formations)]
        owned_s = [*s.free_strategies, *(x for x in u.strategies or [] if x not in
                                         s.free_strategies)]
        strength = u.strength if u.strength is not None else u.max_strength or 0
        return Unit(
            id=u.id, name=u.name, side=u.side, player=u.player, leader=u.leader,
            commander=u.commander, abilities=u.abilities, mental=u.mental, skills=u.skills,
            initiative=u.initiative, intellect_base=u.intellect_base,
            weapon_base=u.weapon_base, lp=u.lp, initiative_from=u.initiative_from,
            max_strength=u.max_strength, strength=strength,
            picked=u.formations is not None or u.strategies is not None,
            formations=owned_f, strategies=owned_s,
            uses={x: strategies[x].uses for x in owned_s}, row=u.row)
