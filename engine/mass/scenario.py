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
from ..table.scenario import repeated, surroundings
from ..titles import shown
from .data import DEFAULT_FORMATIONS, DEFAULT_STRATEGIES, default_formations, default_strategies
from .model import (
    INITIATIVE_WORDS,
    ROW_WORDS,
    FormationSpec,
    MassSettings,
    MassState,
    Row,
    Side,
    StrategySpec,
    Unit,
)

__all__ = ["MassScenario", "SideSpec", "UnitSpec"]

#: A unit's formations and strategies name the file's entries or the seed's (data.py):
#: the seed's are offered by their words.
_SEED_FORMATIONS = {f.id: (f.id, f.en) for f in DEFAULT_FORMATIONS}
_SEED_STRATEGIES = {s.id: (s.id, s.en) for s in DEFAULT_STRATEGIES}
_ID = shown("ID", "id")


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SideSpec(_Spec):
    id: str = Field(min_length=1, max_length=40, pattern=r"^[\w\-.]+$", json_schema_extra=_ID)
    name: str = Field(min_length=1, max_length=100, json_schema_extra=shown("陣営名", "side name"))
    en: Name = Field(default="", json_schema_extra=shown("英語名", "English name"))


class UnitSpec(_Spec):
    """A unit and its leader's numbers (ability values are a check's modifier)."""

    id: str = Field(min_length=1, max_length=40, pattern=r"^[\w\-.]+$", json_schema_extra=_ID)
    name: str = Field(min_length=1, max_length=100, json_schema_extra=shown("部隊名", "unit name"))
    side: Id = Field(json_schema_extra=shown("陣営", "side", ref="mass.sides"))
    player: Id | None = Field(default=None, json_schema_extra=shown(
        "プレイヤー", "player", ref="players", about=("空欄ならGMの部隊", "empty: a unit of the GM's")))
    leader: Name = Field(default="", json_schema_extra=shown("指揮官", "leader"))
    commander: StrictBool = Field(default=False, json_schema_extra=shown(
        "総大将", "commander-in-chief", about=("陣営に一人まで", "at most one per side")))
    abilities: dict[str, Number] = Field(default_factory=dict, max_length=50, json_schema_extra=shown(
        "能力値", "abilities", key=("能力", "ability"), value=("能力値", "ability value"),
        about=("判定の修正値（例：魅力 3）", "a check's modifier (e.g. 魅力 3)")))
    mental: StrictInt = Field(default=0, ge=0, le=99, json_schema_extra=shown("精神力", "mental"))
    skills: dict[str, Number] = Field(default_factory=dict, max_length=50, json_schema_extra=shown(
        "技能", "skills", key=("技能名", "skill name"), value=("技能値", "skill value")))
    initiative: StrictInt = Field(default=0, ge=-99, le=999, json_schema_extra=shown(
        "行動値", "initiative"))
    intellect_base: StrictInt | None = Field(default=None, ge=-99, le=999, json_schema_extra=shown(
        "知力の基本値", "intellect base"))
    weapon_base: StrictInt | None = Field(default=None, ge=0, le=999, json_schema_extra=shown(
        "武器の基本値", "weapon base"))
    lp: StrictInt | None = Field(default=None, ge=0, le=999, json_schema_extra=shown("LP", "LP"))
    initiative_from: Literal["initiative", "intellect"] = Field(default="initiative", json_schema_extra=shown(
        "行動値の元", "initiative from", words=INITIATIVE_WORDS))
    max_strength: StrictInt | None = Field(default=None, ge=0, le=999, json_schema_extra=shown(
        "最大戦力", "max strength", rule="MASS-PREP-1",
        about=("空欄なら準備フェイズの判定で決める", "empty: decided by the preparation check")))
    strength: StrictInt | None = Field(default=None, ge=0, le=999, json_schema_extra=shown(
        "戦力", "strength", rule="MASS-PREP-2", about=("空欄なら最大戦力", "empty: the max strength")))
    formations: list[Name] | None = Field(default=None, max_length=20, json_schema_extra=shown(
        "陣形", "formations", ref="mass.formations", words=_SEED_FORMATIONS,
        about=("空欄なら準備フェイズで選ぶ", "empty: picked in the preparation phase")))
    strategies: list[Name] | None = Field(default=None, max_length=40, json_schema_extra=shown(
        "作戦", "strategies", ref="mass.strategies", words=_SEED_STRATEGIES,
        about=("空欄なら準備フェイズで選ぶ", "empty: picked in the preparation phase")))
    row: Row | None = Field(default=None, json_schema_extra=shown("配置", "row", words=ROW_WORDS))


class MassScenario(_Spec):
    """Sides (exactly two), units, settings and data-set changes, checked whole at load."""

    settings: MassSettings = Field(default_factory=MassSettings, json_schema_extra=shown(
        "設定", "settings"))
    formations: list[FormationSpec] = Field(default_factory=list, json_schema_extra=shown(
        "陣形", "formations", rule="MASS-DATA",
        about=("データの陣形に加える・置き換える", "added to, or replacing, the seed's formations")))
    strategies: list[StrategySpec] = Field(default_factory=list, json_schema_extra=shown(
        "作戦", "strategies", rule="MASS-DATA",
        about=("データの作戦に加える・置き換える", "added to, or replacing, the seed's strategies")))
    sides: list[SideSpec] = Field(min_length=2, max_length=2, json_schema_extra=shown(
        "陣営", "sides", about=("ちょうど2つ", "exactly two")))
    units: list[UnitSpec] = Field(min_length=2, max_length=100, json_schema_extra=shown(
        "部隊", "units"))

    @model_validator(mode="after")
    def _references(self) -> MassScenario:
        problems = [*repeated(("陣営", "side"), (x.id for x in self.sides)),
                    *repeated(("部隊", "unit"), (u.id for u in self.units))]
        problems += _data_problems(self)
        problems += [p for u in self.units for p in _unit_problems(self, u)]
        problems += _side_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
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


def _data_problems(m: MassScenario) -> list[str]:
    """The settings' free and default formations and strategies exist (MASS-DATA)."""
    formations = {*default_formations(), *(f.id for f in m.formations)}
    strategies = {*default_strategies(), *(x.id for x in m.strategies)}
    s = m.settings
    out = [f"settings: 陣形「{name}」はありません / settings: unknown formation '{name}'"
           for name in [*s.free_formations, s.default_formation] if name not in formations]
    out += [f"settings: 作戦「{name}」はありません / settings: unknown strategy '{name}'"
            for name in s.free_strategies if name not in strategies]
    return out


def _unit_problems(m: MassScenario, u: UnitSpec) -> list[str]:
    """A unit's side, player, formations and strategies resolve; its strength is within
    its max. Each problem names the offending id last (the line shown is that id's)."""
    formations = {*default_formations(), *(f.id for f in m.formations)}
    strategies = {*default_strategies(), *(x.id for x in m.strategies)}
    out: list[str] = []
    if u.side not in {x.id for x in m.sides}:
        out.append(f"部隊 {u.id}: 陣営 {u.side} はありません / unit {u.id}: unknown side {u.side}")
    players = surroundings().players
    if players is not None and u.player is not None and u.player not in players:
        out.append(f"部隊 {u.id}: プレイヤー {u.player} は players にいません / unit {u.id}: "
                   f"player {u.player} is not in players")
    out += [f"部隊 {u.id}: 陣形「{f}」はありません / unit {u.id}: unknown formation '{f}'"
            for f in u.formations or [] if f not in formations]
    out += [f"部隊 {u.id}: 作戦「{x}」はありません / unit {u.id}: unknown strategy '{x}'"
            for x in u.strategies or [] if x not in strategies]
    if u.strength is not None and (u.max_strength is None or u.strength > u.max_strength):
        out.append(f"部隊 {u.id}: strength には同じかそれ以上の max_strength が必要です / unit "
                   f"{u.id}: strength needs a max_strength at least as big")
    return out + _prep_problems(m, u)


def _prep_problems(m: MassScenario, u: UnitSpec) -> list[str]:
    """MASS-PREP-1: a PC's unit whose max strength is not given gets it by a check of
    one of the settings' abilities, so its leader needs a value for one of them."""
    usable = [*m.settings.abilities, *m.settings.lp_abilities]
    if u.player is None or u.max_strength is not None or any(a in u.abilities for a in usable):
        return []
    return [f"最大戦力の判定（MASS-PREP-1）には {'・'.join(usable)} のどれかの値が要ります: 部隊 "
            f"{u.id} / unit {u.id}: its max strength check (MASS-PREP-1) needs a value for one "
            f"of {', '.join(usable)} in abilities (or a max_strength)"]


def _side_problems(m: MassScenario) -> list[str]:
    """MASS-PREP-1, MASS-END: at most one commander-in-chief per side; every side has units."""
    out: list[str] = []
    for side in dict.fromkeys(x.id for x in m.sides):
        units = [u for u in m.units if u.side == side]
        if not units:
            out.append(f"陣営 {side} に部隊がありません / side {side} has no units")
        chiefs = [u.id for u in units if u.commander]
        if len(chiefs) > 1:
            out.append(f"陣営 {side} に総大将が複数います（MASS-PREP-1）: {', '.join(chiefs)} / "
                       f"side {side} has more than one commander-in-chief (総大将): "
                       f"{', '.join(chiefs)}")
    return out
