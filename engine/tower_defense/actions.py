"""Tower defense actions: the GM's phase button and declarations, the PCs' actions.

PC actions (`td.attack`, `td.move`, `td.reload`, `td.melee`, `td.special`, and in setup
`td.pc.place`, `td.trap.set`) are sent by the owning player, the GM, or a bridge naming
the player in `by`. What a PC did this phase is kept in `PC.acted`, which is how
TD-ATK-3 (no move and shoot in one phase; reloading takes the phase) is enforced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt

from ..actions import ActionBase
from ..bounds import MAX_NUMBER, Id, Name
from ..errors import Text
from ..tx import Role, Tx
from . import refusals as no
from .map import adjacent, reaches
from .model import PC, Group, Phase, Trap, TrapKind, Walker, WaveEntry, WeaponSpec
from .phases import NEXT, SAN_RESUME, enter, place_entry
from .results import TDAttack, TDCheck, TDEye, TDPCAt, TDReload, TDTrap
from .rules import (
    LEVEL_JA,
    PATH,
    at,
    check_roll,
    damage_group,
    fort_of,
    group_of,
    may_act_for,
    need_phase,
    not_over,
    pc_of,
    remove_walker,
    set_outcome,
    td_of,
    weapon_of,
)

__all__ = ["ACTIONS", "AddGroup", "Attack", "Declare", "Melee", "Move", "NextPhase",
           "PlacePC", "Reload", "RemoveIndividual", "SetTrap", "Special"]

PC_ROLES = frozenset[Role]({"gm", "player", "bridge"})
Results = list[Annotated[str, Field(max_length=2000)]]

SUCCESS = frozenset({"critical", "extreme", "hard", "regular"})
ACT_WORDS = {"attack": ("射撃", "shot"), "move": ("移動", "moved"),
             "reload": ("リロード", "reloaded"), "melee": ("近接攻撃", "made a melee attack")}


# -- GM: phases, outcome, ad-hoc enemies ---------------------------------------------------


class NextPhase(ActionBase):
    """GM: go to the next phase and run its automatic step (TD-RND, table in td_phases).

    `expect` (optional) is the phase the GM's screen shows; a different current phase is
    refused, so a double click never skips a phase.
    """

    kind: Literal["td.next_phase"] = "td.next_phase"
    expect: Phase | None = None

    def apply(self, tx: Tx) -> None:
        td = td_of(tx)
        not_over(td)
        if self.expect is not None and self.expect != td.phase:
            raise no.STALE_PHASE.refuse(now=td.phase, about=[at("phase")])
        if td.phase == "setup":
            for pc in td.pcs.values():  # TD-PRE-1 every PC picks a starting fort
                tx.check(pc.fort is not None, no.PC_WITHOUT_FORT.refuse(
                    name=pc.name, about=[at("pcs", pc.id, "name"), at("pcs", pc.id, "fort")]))
        if td.phase == "reinforcement":
            pending = any(p.resume == SAN_RESUME for p in tx.state.prompts.values())
            tx.check(not pending, no.SAN_PENDING.refuse())
        enter(tx, NEXT[td.phase])


class Declare(ActionBase):
    """GM: declare the outcome (a GM-declared victory condition, or any ruling)."""

    kind: Literal["td.declare"] = "td.declare"
    outcome: Literal["victory", "defeat"]
    note: str = Field(default="", max_length=500)

    def apply(self, tx: Tx) -> None:
        td_of(tx)
        set_outcome(tx, self.outcome, "gm", self.note)


class AddGroup(ActionBase):
    """GM: an extra group at a direction, outside the planned waves (GM-approved)."""

    kind: Literal["td.group.add"] = "td.group.add"
    name: str = Field(min_length=1, max_length=100)
    count: StrictInt = Field(ge=1, le=MAX_NUMBER)
    direction: Id
    tag: Name | None = None

    def apply(self, tx: Tx) -> None:
        td = td_of(tx)
        if self.direction not in td.directions:
            raise no.unknown("direction", self.direction)
        place_entry(tx, td, WaveEntry(name=self.name, count=self.count, direction=self.direction,
                                 tag=self.tag))


class RemoveIndividual(ActionBase):
    """GM: a 特異個体 is defeated by normal combat (TD-OPT-2); its field effects end."""

    kind: Literal["td.individual.remove"] = "td.individual.remove"
    individual: Id
    reason: Literal["destroyed", "left"] = "destroyed"

    def apply(self, tx: Tx) -> None:
        td = td_of(tx)
        if self.individual not in td.individuals:
            raise no.unknown("individual", self.individual)
        remove_walker(tx, td.individuals[self.individual], self.reason)


# -- setup: starting forts and traps (TD-PRE-1) ---------------------------------------------


class _PCAction(ActionBase):
    """A PC's action: `pc` acts; a bridge names the player it acts for in `by`
    (`Actor.bind`)."""

    roles = PC_ROLES
    pc: Id
    by: Id | None = None

    def _pc(self, tx: Tx) -> PC:
        pc = pc_of(td_of(tx), self.pc)
        may_act_for(tx, pc)
        return pc

    def _acted(self, tx: Tx, pc: PC, what: str) -> None:
        tx.set((PATH, "pcs", pc.id, "acted"), [*pc.acted, what])

    def _not_after(self, tx: Tx, pc: PC, *kinds: str) -> None:
        """TD-ATK-3: refuse if the PC already did one of `kinds` this phase."""
        done = [k for k in kinds if k in pc.acted]
        if done:
            ja, en = ACT_WORDS[done[0]]
            tx.check(False, no.ALREADY_ACTED.refuse(what=ja, what_en=en, details={"done": done[0]},
                                                    about=[at("pcs", pc.id, "acted")]))


class PlacePC(_PCAction):
    """TD-PRE-1: before round 1 each PC picks the fort it starts at."""

    kind: Literal["td.pc.place"] = "td.pc.place"
    table_move = True
    fort: Id

    def apply(self, tx: Tx) -> None:
        pc = self._pc(tx)
        fort = fort_of(td_of(tx), self.fort)
        need_phase(tx, ("setup",), no.NOT_SETUP)
        was = pc.fort  # read before the write: `pc` is the live state
        tx.set((PATH, "pcs", pc.id, "fort"), fort.id)
        tx.emit("td.pc.placed", pc=pc.id, fort=fort.id, cell=fort.cell.model_dump())
        tx.report(TDPCAt(pc=pc.id, fort=fort.id, cell=fort.cell, came_from=was),
                  about=[at("pcs", pc.id, "fort"), at("forts", fort.id, "cell")])
        tx.say(Text(f"{pc.name}は{fort.name}に陣取る", f"{pc.name} takes position at {fort.name}"))


class SetTrap(_PCAction):
    """TD-PRE-1 / TD-OPT-1: a PC sets a trap on a passage with 手さばき or 科学 (a check:
    rolled, or `result` a reported BCDice line). The GM may place one with `check: false`."""

    kind: Literal["td.trap.set"] = "td.trap.set"
    passage: Id
    trap: TrapKind
    skill: Name = "手さばき"
    result: str | None = Field(default=None, max_length=2000)
    check: StrictBool = True

    def apply(self, tx: Tx) -> None:
        pc, td = self._pc(tx), td_of(tx)
        if self.passage not in td.passages:
            raise no.unknown("passage", self.passage)
        need_phase(tx, ("setup",), no.NOT_SETUP)
        limit = td.settings.trap_limit
        placed = len(td.traps)
        tx.check(limit is None or placed < limit, no.TRAP_LIMIT.refuse(
            left=max((limit or 0) - placed, 0), about=[at("traps"), at("settings", "trap_limit")]))
        if not self.check:
            if tx.actor.role != "gm":
                raise no.GM_ONLY.refuse()
            return self._lay(tx, pc, None)
        skills = td.settings.trap_skills
        tx.check(self.skill in skills, no.TRAP_SKILL.refuse(
            skills="・".join(skills), about=[at("settings", "trap_skills")]))
        check = check_roll(tx, pc, self.skill, f"td.trap {pc.id}", self.result)
        level = check.level
        if level in SUCCESS:
            return self._lay(tx, pc, check)
        tx.emit("td.trap.failed", pc=pc.id, passage=self.passage, level=level)
        tx.report(TDTrap(pc=pc.id, passage=self.passage, trap_kind=self.trap, check=check),
                  about=[at("pcs", pc.id), at("passages", self.passage)])
        tx.say(Text(f"{pc.name}の罠設置は失敗（{LEVEL_JA[level]}）",
                    f"{pc.name} fails to set the trap ({level})"))

    def _lay(self, tx: Tx, pc: PC, check: TDCheck | None) -> None:
        td = td_of(tx)
        tid = tx.next_id("trap")
        cells = td.passages[self.passage].cells
        cell = cells[len(cells) // 2] if cells else None
        tx.set((PATH, "traps", tid), Trap(id=tid, passage=self.passage, kind=self.trap,
                                          pc=pc.id, cell=cell))
        tx.made("trap", tid, at("traps", tid))
        tx.report(TDTrap(pc=pc.id, passage=self.passage, trap_kind=self.trap, check=check,
                         trap=tid, cell=cell), about=[at("pcs", pc.id), at("traps", tid)])
        tx.emit("td.trap.set", trap=tid, passage=self.passage, trap_kind=self.trap, pc=pc.id)
        word = "爆破" if self.trap == "explosive" else "足止め"
        tx.say(Text(f"{pc.name}が通路に{word}トラップを仕掛けた",
                    f"{pc.name} sets a {self.trap} trap on a passage"))


# -- PC attack phase (TD-ATK-1..4) ---------------------------------------------------------


class Move(_PCAction):
    """TD-ATK-1: move along one passage to an adjacent fort, any direction (once a phase;
    not after shooting or reloading, TD-ATK-3)."""

    kind: Literal["td.move"] = "td.move"
    table_move = True
    to: Id

    def apply(self, tx: Tx) -> None:
        pc, td = self._pc(tx), td_of(tx)
        fort = fort_of(td, self.to)
        need_phase(tx, ("pc_attack",), no.WRONG_PHASE)
        self._not_after(tx, pc, "attack", "reload", "move", "melee")
        _move(tx, pc, fort.id)
        self._acted(tx, td.pcs[pc.id], "move")


def _move(tx: Tx, pc: PC, to: str) -> None:
    td = td_of(tx)
    here = pc.fort
    tx.check(here is not None and adjacent(td, here, to), no.NOT_ADJACENT.refuse(
        a=td.forts[here].name if here else "?", b=td.forts[to].name,
        about=[at("forts", to, "name"), at("passages"), at("pcs", pc.id, "fort"),
               *([at("forts", here, "name")] if here else [])]))
    tx.set((PATH, "pcs", pc.id, "fort"), to)
    tx.emit("td.pc.moved", pc=pc.id, **{"from": here}, to=to, cell=td.forts[to].cell.model_dump())
    tx.report(TDPCAt(pc=pc.id, fort=to, cell=td.forts[to].cell, came_from=here),
              about=[at("pcs", pc.id, "fort"), at("forts", to, "cell")])
    tx.say(Text(f"{pc.name}が{td.forts[to].name}へ移動", f"{pc.name} moves to {td.forts[to].name}"))


class Attack(_PCAction):
    """TD-ATK-2/3: a firearm attack on one reachable group, `shots` up to the weapon's
    per-round maximum; each shot is rolled, or read from `results` (one BCDice line each).
    `ammo: special` fires the weapon's special rounds (SDASS grenades)."""

    kind: Literal["td.attack"] = "td.attack"
    roll_check = ("TD-ATK-2", Text("命中判定", "hit check"))
    weapon: Id
    group: Id
    shots: StrictInt | None = Field(default=None, ge=1, le=20)
    results: Results | None = Field(default=None, min_length=1, max_length=20)
    ammo: Literal["normal", "special"] = "normal"

    def apply(self, tx: Tx) -> None:
        pc, td = self._pc(tx), td_of(tx)
        weapon = weapon_of(td, pc, self.weapon)
        group = group_of(td, self.group)
        need_phase(tx, ("pc_attack",), no.WRONG_PHASE)
        if weapon.kind != "firearm":
            raise no.WRONG_WEAPON.refuse(weapon=weapon.name, want="射撃", want_en="shooting",
                                         about=[at("weapons", weapon.id)])
        shots = self._shots()
        self._not_after(tx, pc, "move", "reload", "melee")
        _in_range(tx, pc, weapon, group)
        _within_limit(tx, pc, weapon, shots)
        damage = self._spend(tx, pc, weapon, shots)
        self._acted(tx, pc, "attack")
        reported: Sequence[str | None] = self.results or [None] * shots
        _resolve(tx, pc, weapon, group, damage, reported)

    def _shots(self) -> int:
        if self.results is not None and self.shots not in (None, len(self.results)):
            raise no.SHOTS_MISMATCH.refuse(shots=self.shots, lines=len(self.results))
        return len(self.results) if self.results is not None else self.shots or 1

    def _spend(self, tx: Tx, pc: PC, weapon: WeaponSpec, shots: int) -> int:
        """TD-ATK-3 ammunition: a magazine (None = ∞) or the limited special rounds."""
        state = pc.weapons[weapon.id]
        base = (PATH, "pcs", pc.id, "weapons", weapon.id)
        if self.ammo == "special":
            special = weapon.special_ammo
            if special is None:
                raise no.NO_SPECIAL_AMMO.refuse(weapon=weapon.name, about=[at("weapons", weapon.id)])
            tx.check(state.special_left >= shots, no.OUT_OF_SPECIAL.refuse(
                ammo=special.name, left=state.special_left,
                about=[at("weapons", weapon.id), (*base, "special_left")]))
            tx.set((*base, "special_left"), max(state.special_left - shots, 0))
            return special.damage
        if state.loaded is not None:
            tx.check(state.loaded >= shots, no.OUT_OF_AMMO.refuse(
                weapon=weapon.name, left=state.loaded,
                about=[at("weapons", weapon.id), (*base, "loaded")]))
            tx.set((*base, "loaded"), max(state.loaded - shots, 0))
        return weapon.damage


def _in_range(tx: Tx, pc: PC, weapon: WeaponSpec, target: Walker) -> None:
    """TD-ATK-4: the target must be within the weapon's range from the PC's fort."""
    tx.check(reaches(td_of(tx), weapon, pc.fort, target), no.OUT_OF_RANGE.refuse(
        group=target.name, weapon=weapon.name,
        about=[at("weapons", weapon.id), at(_walkers(target), target.id)]))


def _walkers(walker: Walker) -> str:
    return "groups" if isinstance(walker, Group) else "individuals"


def _within_limit(tx: Tx, pc: PC, weapon: WeaponSpec, n: int) -> None:
    """TD-ATK-3: at most `attacks_per_round` uses of a weapon per round."""
    state = pc.weapons[weapon.id]
    left = weapon.attacks_per_round - state.used
    tx.check(n <= left, no.TOO_MANY_ATTACKS.refuse(
        weapon=weapon.name, left=max(left, 0),
        about=[at("weapons", weapon.id), at("pcs", pc.id, "weapons", weapon.id)]))
    tx.set((PATH, "pcs", pc.id, "weapons", weapon.id, "used"), state.used + n)


def _resolve(tx: Tx, pc: PC, weapon: WeaponSpec, group: Group, damage: int,
             reported: Sequence[str | None]) -> None:
    """TD-ATK-2: each success removes removal(level) × damage (× 魔眼); sum, then apply."""
    td = td_of(tx)
    skill = weapon.skill
    checks = [check_roll(tx, pc, skill, f"td.attack {pc.id}→{group.id}", line)
              for line in reported]
    levels = [c.level for c in checks]
    factor = td.settings.eye_multiplier if group.id in td.marks else 1
    removed = [td.settings.removal.of(lv) * damage * factor for lv in levels]
    for c, r in zip(checks, removed, strict=True):
        c.removed = r
    total = sum(removed)
    shots = [{"level": lv, "removed": r} for lv, r in zip(levels, removed, strict=True)]
    tx.emit("td.attack", pc=pc.id, weapon=weapon.id, group=group.id, shots=shots,
            removed=total, doubled=factor > 1)
    words = "、".join(LEVEL_JA[lv] for lv in levels)
    tx.say(Text(f"{pc.name}の{weapon.name}→「{group.name}」: {words} → {total}体",
                f"{pc.name}'s {weapon.name} → '{group.name}': {', '.join(levels)} → {total}"))
    damage_group(tx, group, total, f"pc:{pc.id}")
    _report_attack(tx, pc, weapon, group.id, checks, damage, factor > 1)


def _report_attack(tx: Tx, pc: PC, weapon: WeaponSpec, gid: str, checks: list[TDCheck],
                   damage: int, doubled: bool) -> None:
    """The ack's `td.attack`: checks, removals, the group's 個体数 left, the weapon's state."""
    td = td_of(tx)
    group, held = td.groups.get(gid), td.pcs[pc.id].weapons[weapon.id]
    where = at("groups", gid, "count") if group is not None else at("groups")
    tx.report(TDAttack(
        pc=pc.id, weapon=weapon.id, group=gid, checks=checks, damage=damage, doubled=doubled,
        removed=sum(c.removed for c in checks), count=group.count if group else 0,
        destroyed=group is None, attacks_left=max(weapon.attacks_per_round - held.used, 0),
        loaded=held.loaded, special_left=held.special_left if weapon.special_ammo else None),
        about=[where, at("pcs", pc.id, "weapons", weapon.id)])


class Reload(_PCAction):
    """TD-ATK-3: reloading a firearm takes the PC's whole phase; melee never reloads."""

    kind: Literal["td.reload"] = "td.reload"
    weapon: Id

    def apply(self, tx: Tx) -> None:
        pc, td = self._pc(tx), td_of(tx)
        weapon = weapon_of(td, pc, self.weapon)
        need_phase(tx, ("pc_attack",), no.WRONG_PHASE)
        if weapon.kind != "firearm" or weapon.magazine is None:
            raise no.NO_RELOAD.refuse(weapon=weapon.name, about=[at("weapons", weapon.id)])
        self._not_after(tx, pc, "attack", "move", "melee", "reload")
        tx.set((PATH, "pcs", pc.id, "weapons", weapon.id, "loaded"), weapon.magazine)
        self._acted(tx, pc, "reload")
        tx.emit("td.reloaded", pc=pc.id, weapon=weapon.id, loaded=weapon.magazine)
        tx.report(TDReload(pc=pc.id, weapon=weapon.id, loaded=weapon.magazine),
                  about=[at("pcs", pc.id, "weapons", weapon.id, "loaded")])
        tx.say(Text(f"{pc.name}が{weapon.name}をリロード", f"{pc.name} reloads {weapon.name}"))


class Melee(_PCAction):
    """TD-ATK-3: one melee attack per action, optionally after moving (`to`) in the same
    phase; `result` is a reported BCDice line, else the engine rolls."""

    kind: Literal["td.melee"] = "td.melee"
    roll_check = ("TD-ATK-2", Text("近接攻撃の命中判定", "melee hit check"))
    weapon: Id
    group: Id
    to: Id | None = None
    result: str | None = Field(default=None, max_length=2000)

    def apply(self, tx: Tx) -> None:
        pc, td = self._pc(tx), td_of(tx)
        weapon = weapon_of(td, pc, self.weapon)
        group = group_of(td, self.group)
        if self.to is not None:
            fort_of(td, self.to)
        need_phase(tx, ("pc_attack",), no.WRONG_PHASE)
        if weapon.kind != "melee":
            raise no.WRONG_WEAPON.refuse(weapon=weapon.name, want="近接攻撃", want_en="melee",
                                         about=[at("weapons", weapon.id)])
        moving = self.to is not None and self.to != pc.fort
        self._not_after(tx, pc, "attack", "reload", "melee", *(("move",) if moving else ()))
        if self.to is not None and moving:
            _move(tx, pc, self.to)
        pc = td.pcs[pc.id]
        _in_range(tx, pc, weapon, group)
        _within_limit(tx, pc, weapon, 1)
        self._acted(tx, pc, "melee")
        _resolve(tx, pc, weapon, group, weapon.damage, [self.result])


class Special(_PCAction):
    """TD-DATA 魔眼: on a success of the eye's skill (目星), one group takes double damage
    for the rest of this round; `result` is a reported BCDice line, else rolled."""

    kind: Literal["td.special"] = "td.special"
    roll_check = ("TD-DATA", Text("魔眼の〈目星〉判定", "evil eye Spot Hidden check"))
    group: Id
    weapon: Id | None = None
    result: str | None = Field(default=None, max_length=2000)

    def apply(self, tx: Tx) -> None:
        pc, td = self._pc(tx), td_of(tx)
        wid = self.weapon or next((w for w in pc.weapons
                                   if td.weapons[w].kind == "eye"), "魔眼")
        weapon = weapon_of(td, pc, wid)
        group = group_of(td, self.group)
        need_phase(tx, ("pc_attack",), no.WRONG_PHASE)
        if weapon.kind != "eye":
            raise no.NOT_AN_EYE.refuse(weapon=weapon.name, about=[at("weapons", weapon.id)])
        _in_range(tx, pc, weapon, group)
        _within_limit(tx, pc, weapon, 1)
        self._acted(tx, pc, "special")
        check = check_roll(tx, pc, weapon.skill or "目星", f"td.special {pc.id}→{group.id}",
                           self.result)
        level = check.level
        ok = level in SUCCESS
        x = td.settings.eye_multiplier
        tx.emit("td.special.used", pc=pc.id, weapon=wid, group=group.id, level=level,
                success=ok)
        if ok:
            tx.set((PATH, "marks", group.id), pc.id)
            tx.emit("td.eye.marked", pc=pc.id, group=group.id, round=td.round)
        tx.report(TDEye(pc=pc.id, weapon=wid, group=group.id, check=check, marked=ok,
                        multiplier=x), about=[at("groups", group.id), at("marks")])
        tx.say(Text(f"{pc.name}の{weapon.name}→「{group.name}」: {LEVEL_JA[level]}"
                    + (f"（このラウンド被ダメージ{x}倍）" if ok else ""),
                    f"{pc.name}'s {weapon.name} → '{group.name}': {level}"
                    + (f" (damage ×{x} this round)" if ok else "")))


ACTIONS: tuple[type[ActionBase], ...] = (
    NextPhase, Declare, AddGroup, RemoveIndividual, PlacePC, SetTrap, Move, Attack, Reload,
    Melee, Special,
)
