"""The `tower_defense:` part of a scenario file, checked whole, and the state it builds.

TD-SET-1: the GM fixes before play the victory condition, the map and durabilities,
each PC's attack means and the waves. TD-MAP-1: forts in tiers, passages from the
directions inward. References are checked here so a bad file fails at load with its
line, never in the middle of a round.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from ..bounds import MAX_NUMBER, Count, Name, Number
from ..table import Cell
from ..table.scenario import OnBoard, surroundings
from ..titles import shown
from .map import inward_passages, route_from
from .model import (
    PC,
    TRAP_WORDS,
    Direction,
    Fort,
    Passage,
    TDSettings,
    TowerDefenseState,
    Trap,
    TrapKind,
    Victory,
    WavePlan,
    WeaponSpec,
    WeaponState,
)

__all__ = ["DirectionSpec", "FortSpec", "PCSpec", "PassageSpec", "TowerDefenseScenario",
           "TrapSpec"]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: What a scenario's ids name (dotted paths of the file's lists).
_DIRECTIONS, _FORTS = "tower_defense.directions", "tower_defense.forts"
_ID = shown("ID", "id")


class FortSpec(_Spec):
    """A fort: tier 1 outermost; `final` defaults to the innermost tier (TD-MAP-1)."""

    id: str = Field(json_schema_extra=_ID)
    name: str = Field(json_schema_extra=shown("砦名", "fort name"))
    tier: StrictInt = Field(ge=1, le=MAX_NUMBER, json_schema_extra=shown(
        "段", "tier", rule="TD-MAP-1", about=("1が最も外側、数が大きいほど内側（最終砦）",
                                             "1 is outermost; higher tiers lie further in")))
    durability: Count = Field(json_schema_extra=shown("耐久力", "durability"))
    cell: OnBoard = Field(json_schema_extra=shown("マス", "square"))
    final: StrictBool | None = Field(default=None, json_schema_extra=shown(
        "最終砦", "final fort", about=("空欄なら最も内側の段の砦", "empty: the forts of the innermost tier")))


class DirectionSpec(_Spec):
    id: str = Field(json_schema_extra=_ID)
    name: str = Field(json_schema_extra=shown("方角名", "direction name"))
    cell: OnBoard = Field(json_schema_extra=shown("マス", "square"))


class PassageSpec(_Spec):
    """A passage from `outer` (direction or fort) to `inner` (fort); `cells` in order."""

    id: str = Field(json_schema_extra=_ID)
    outer: str = Field(json_schema_extra=shown(
        "外側の砦・方角", "outer end", ref=(_DIRECTIONS, _FORTS),
        about=("敵が来る側：方角か外側の段の砦", "where enemies come from: a direction or an outer fort")))
    inner: str = Field(json_schema_extra=shown("内側の砦", "inner fort", ref=_FORTS))
    cells: list[OnBoard] = Field(default_factory=list, json_schema_extra=shown(
        "マス", "squares", cells="path", about=("外側から内側へ順に", "in order, from outer to inner")))


class PCSpec(_Spec):
    """A PC: `player` owns it (None = the GM's NPC); `fort` its start (TD-PRE-1)."""

    id: str = Field(json_schema_extra=_ID)
    name: str = Field(json_schema_extra=shown("名前", "name"))
    player: str | None = Field(default=None, json_schema_extra=shown(
        "プレイヤー", "player", ref="players", about=("空欄ならGMのNPC", "empty: the GM's NPC")))
    fort: str | None = Field(default=None, json_schema_extra=shown(
        "開始時の砦", "starting fort", ref=_FORTS, rule="TD-PRE-1"))
    weapons: list[str] = Field(default_factory=list, json_schema_extra=shown(
        "武器", "weapons", ref="tower_defense.weapons"))
    skills: dict[Name, Number] = Field(default_factory=dict, json_schema_extra=shown(
        "技能", "skills", key=("技能名", "skill name"), value=("技能値", "skill value"),
        about=("武器の判定に使う技能の値（例：射撃 60）",
               "the values of the skills its weapons' checks use")))


class TrapSpec(_Spec):
    """A trap laid before play (TD-PRE-1 / TD-OPT-1)."""

    id: str = Field(json_schema_extra=_ID)
    passage: str = Field(json_schema_extra=shown("通路", "passage", ref="tower_defense.passages"))
    kind: TrapKind = Field(json_schema_extra=shown("罠の種類", "trap kind", words=TRAP_WORDS))
    pc: str | None = Field(default=None, json_schema_extra=shown(
        "仕掛けたPC", "set by", ref="tower_defense.pcs"))


class TowerDefenseScenario(_Spec):
    """TD-SET-1 everything the GM decides before play; `build()` makes the state."""

    settings: TDSettings = Field(default_factory=TDSettings, json_schema_extra=shown("設定", "settings"))
    victory: Victory = Field(default_factory=Victory, json_schema_extra=shown(
        "勝利条件", "victory condition", rule="TD-SET-1"))
    directions: list[DirectionSpec] = Field(default_factory=list, json_schema_extra=shown(
        "方角", "directions", rule="TD-MAP-1"))
    forts: list[FortSpec] = Field(default_factory=list, json_schema_extra=shown(
        "砦", "forts", rule="TD-MAP-1"))
    passages: list[PassageSpec] = Field(default_factory=list, json_schema_extra=shown(
        "通路", "passages", rule="TD-MAP-1"))
    weapons: list[WeaponSpec] = Field(default_factory=list, json_schema_extra=shown(
        "武器", "weapons", rule="TD-DATA"))
    pcs: list[PCSpec] = Field(default_factory=list, json_schema_extra=shown("PC", "PCs"))
    traps: list[TrapSpec] = Field(default_factory=list, json_schema_extra=shown(
        "罠", "traps", rule="TD-OPT-1"))
    waves: WavePlan = Field(default_factory=WavePlan, json_schema_extra=shown(
        "ウェーブ", "waves", rule="TD-SET-1"))

    @model_validator(mode="after")
    def _check(self) -> TowerDefenseScenario:
        problems = [*_unique(self), *_map_problems(self), *_reference_problems(self)]
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def build(self) -> TowerDefenseState:
        """The initial state: round 0, phase `setup`."""
        top = max((f.tier for f in self.forts), default=1)
        forts = {f.id: Fort(id=f.id, name=f.name, tier=f.tier, durability=f.durability,
                            max_durability=f.durability, cell=f.cell,
                            final=f.tier == top if f.final is None else f.final)
                 for f in self.forts}
        passages = {p.id: Passage(id=p.id, outer=p.outer, inner=p.inner, cells=p.cells,
                                  lateral=_lateral(self, p)) for p in self.passages}
        weapons = {w.id: w for w in self.weapons}
        return TowerDefenseState(
            settings=self.settings, victory=self.victory, weapons=weapons, forts=forts,
            directions={d.id: Direction(id=d.id, name=d.name, cell=d.cell)
                        for d in self.directions},
            passages=passages,
            pcs={p.id: _pc(p, weapons) for p in self.pcs},
            traps={t.id: Trap(id=t.id, passage=t.passage, kind=t.kind, pc=t.pc,
                              cell=_middle(passages[t.passage].cells)) for t in self.traps},
            waves=self.waves,
        )


def _pc(spec: PCSpec, weapons: dict[str, WeaponSpec]) -> PC:
    states = {}
    for wid in spec.weapons:
        w = weapons[wid]
        states[wid] = WeaponState(weapon=wid, loaded=w.magazine,
                                  special_left=w.special_ammo.uses if w.special_ammo else 0)
    return PC(id=spec.id, name=spec.name, player=spec.player, fort=spec.fort,
              skills=dict(spec.skills), weapons=states)


def _middle(cells: list[Cell]) -> Cell | None:
    return cells[len(cells) // 2] if cells else None


def _tier(s: TowerDefenseScenario, node: str) -> int:
    """Tier of a node; directions are tier 0."""
    return next((f.tier for f in s.forts if f.id == node), 0)


def _lateral(s: TowerDefenseScenario, p: PassageSpec) -> bool:
    return _tier(s, p.outer) == _tier(s, p.inner)


def _unique(s: TowerDefenseScenario) -> list[str]:
    out: list[str] = []
    places: list[FortSpec | DirectionSpec] = [*s.forts, *s.directions]
    for what, ids in (("fort/direction", [x.id for x in places]),
                      ("passage", [p.id for p in s.passages]),
                      ("weapon", [w.id for w in s.weapons]), ("pc", [p.id for p in s.pcs]),
                      ("trap", [t.id for t in s.traps])):
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            out.append(f"{what} の id が重複しています: {', '.join(dupes)} / duplicate {what} id(s): "
                       f"{', '.join(dupes)}")
    return out


def _map_problems(s: TowerDefenseScenario) -> list[str]:
    """TD-MAP-1: passages point inward, one inward way per node, every direction leads in."""
    forts, directions = {f.id for f in s.forts}, {d.id for d in s.directions}
    out: list[str] = []
    for p in s.passages:
        if p.outer not in forts | directions or p.inner not in forts:
            out.append(f"通路 {p.id}: outer は方向か砦、inner は砦の id です / passage {p.id}: outer must "
                       "be a direction or fort, inner a fort")
        elif _tier(s, p.inner) < _tier(s, p.outer):
            out.append(f"通路 {p.id} が外向きです（段 {_tier(s, p.outer)} → {_tier(s, p.inner)}）。"
                       f"外側から内側の順に書きます / passage {p.id}: goes outward (tier "
                       f"{_tier(s, p.outer)} → {_tier(s, p.inner)}); list passages from outer to inner")
    if out:
        return out
    built = {p.id: Passage(id=p.id, outer=p.outer, inner=p.inner, lateral=_lateral(s, p))
             for p in s.passages}
    for node in sorted(forts | directions):
        if len(inward_passages(built, node)) > 1:
            out.append(f"{node}: 内向きの通路が複数あります（群れの道は一本です） / {node}: more than one "
                       "inward passage (a group's way must be unique)")
    for d in s.directions:
        if not route_from(built, d.id):
            out.append(f"方向 {d.id}: 内側へ向かう通路がありません / direction {d.id}: no passage leads "
                       "inward from it")
    return out or _unreachable(s)


def _unreachable(s: TowerDefenseScenario) -> list[str]:
    """TD-MAP-1: every fort lies on some way in from a direction (a fort no group and
    no passage from outside can reach is a map drawn wrong)."""
    seen = {d.id for d in s.directions}
    todo = list(seen)
    while todo:
        node = todo.pop()
        for p in s.passages:
            if p.outer == node and p.inner not in seen:
                seen.add(p.inner)
                todo.append(p.inner)
    return [f"砦 {f.id}: どの方角からも通路でたどり着けません（TD-MAP-1） / fort {f.id}: no "
            "passage leads to it from any direction (TD-MAP-1)"
            for f in s.forts if f.id not in seen] if s.directions else []


def _reference_problems(s: TowerDefenseScenario) -> list[str]:
    forts, directions = {f.id for f in s.forts}, {d.id for d in s.directions}
    weapons, passages = {w.id for w in s.weapons}, {p.id for p in s.passages}
    out = [f"PC {p.id}: 武器 {w} はありません / pc {p.id}: unknown weapon {w}"
           for p in s.pcs for w in p.weapons if w not in weapons]
    out += [f"PC {p.id}: 砦 {p.fort} はありません / pc {p.id}: unknown fort {p.fort}"
            for p in s.pcs if p.fort is not None and p.fort not in forts]
    out += [f"罠 {t.id}: 通路 {t.passage} はありません / trap {t.id}: unknown passage {t.passage}"
            for t in s.traps if t.passage not in passages]
    pcs = {p.id for p in s.pcs}
    out += [f"罠 {t.id}: PC {t.pc} はいません / trap {t.id}: unknown pc {t.pc}"
            for t in s.traps if t.pc is not None and t.pc not in pcs]
    out += [*_player_problems(s), *_skill_problems(s), *_wave_problems(s, directions)]
    return out


def _player_problems(s: TowerDefenseScenario) -> list[str]:
    """A PC's player is one of the file's `players:` (else nobody can act for it)."""
    players = surroundings().players
    return [f"PC {p.id}: プレイヤー {p.player} は players にいません / pc {p.id}: player "
            f"{p.player} is not in players" for p in s.pcs
            if players is not None and p.player is not None and p.player not in players]


def _skill_problems(s: TowerDefenseScenario) -> list[str]:
    """TD-SET-1, TD-ATK-2: a PC attacks with a weapon by a check of the weapon's skill,
    so the PC needs a value for it (else every attack is refused in play)."""
    weapons = {w.id: w for w in s.weapons}
    out = []
    for p in s.pcs:
        for wid in (w for w in p.weapons if w in weapons):
            skill = _check_skill(weapons[wid])
            if skill not in p.skills:  # the PC's id last: its line is the one shown
                out.append(f"武器 {wid} の技能「{skill}」の値が PC {p.id} の skills にありません"
                           f"（TD-SET-1） / pc {p.id}: weapon {wid} needs the skill '{skill}', "
                           "which its skills lack (TD-SET-1)")
    return out


def _check_skill(w: WeaponSpec) -> str:
    """The skill a weapon's check is made with (魔眼: 目星 unless it names one)."""
    return (w.skill or "目星") if w.kind == "eye" else w.skill


def _wave_problems(s: TowerDefenseScenario, directions: set[str]) -> list[str]:
    entries = s.waves.entries()
    out = [f"ウェーブ「{e.name}」: 方向 {e.direction} はありません / wave entry {e.name}: "
           f"unknown direction {e.direction}" for e in entries if e.direction not in directions]
    out += [f"ウェーブ「{e.name}」: 群れの個体数は1以上です / wave entry {e.name}: a group needs "
            "count ≥ 1" for e in entries if e.special is None and e.count < 1]
    if s.waves.mode == "random" and not s.waves.table:
        out.append("waves: mode random には table が必要です / waves: mode random needs a table")
    if s.victory.kind == "destroy":
        tags: set[Any] = {e.tag for e in entries}
        if s.victory.tag is None or s.victory.tag not in tags:
            out.append("victory: kind destroy には、ウェーブの項目が持つ tag が必要です / "
                       "victory: kind destroy needs a tag that a wave entry carries")
    return out
