"""Tower defense building blocks every action and phase step uses.

Lookups that refuse unknown ids, the phase and ownership guards, percentile checks
(rolled by the engine or read from a reported BCDice line), and the writes that keep
the rules' bookkeeping: group damage and removal (TD-REIN-1), fort damage (TD-EATK-1),
and the outcome (TD-SET-1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, cast

from ..bcdice import CocCheck, Level, NotUnderstood, coc_level, parse
from ..errors import Code, Text
from ..rng import Roll
from ..table import mover_of
from ..tx import Tx
from . import refusals as no
from .model import (
    PC,
    ROUND,
    Fort,
    Group,
    Individual,
    Phase,
    TowerDefenseState,
    Walker,
    WeaponSpec,
)
from .results import TDCheck, TDFortDamaged, TDOutcome

__all__ = [
    "DEGREES",
    "PATH",
    "at",
    "check_roll",
    "damage_fort",
    "damage_group",
    "may_act_for",
    "need_phase",
    "not_over",
    "penalty_dice",
    "remove_walker",
    "set_outcome",
    "settle_outcome",
    "td_of",
]

PATH = "tower_defense"
DEGREES: frozenset[Level] = frozenset({"critical", "extreme", "hard", "regular", "failure",
                                       "fumble"})

PHASE_NAMES: dict[str, tuple[str, str]] = ROUND.names()
LEVEL_JA: dict[str, str] = {
    "critical": "クリティカル", "extreme": "イクストリーム成功", "hard": "ハード成功",
    "regular": "レギュラー成功", "failure": "失敗", "fumble": "ファンブル",
}


def at(*parts: str | int) -> tuple[str | int, ...]:
    """A path in the tower defense state, for what a refusal reveals (`about`)."""
    return (PATH, *parts)


def td_of(tx: Tx) -> TowerDefenseState:
    """The room's tower defense, or a refusal if it has none."""
    return tx.require(PATH, TowerDefenseState, no.NO_TOWER_DEFENSE.refuse())


def pc_of(td: TowerDefenseState, pc: str) -> PC:
    if pc not in td.pcs:
        raise no.unknown("pc", pc)
    return td.pcs[pc]


def fort_of(td: TowerDefenseState, fort: str) -> Fort:
    if fort not in td.forts:
        raise no.unknown("fort", fort)
    return td.forts[fort]


def group_of(td: TowerDefenseState, group: str) -> Group:
    if group not in td.groups:
        raise no.unknown("group", group)
    return td.groups[group]


def weapon_of(td: TowerDefenseState, pc: PC, weapon: str) -> WeaponSpec:
    if weapon not in pc.weapons or weapon not in td.weapons:
        raise no.unknown("weapon", weapon)
    return td.weapons[weapon]


def phase_text(phase: str) -> tuple[str, str]:
    return PHASE_NAMES.get(phase, (phase, phase))


def not_over(td: TowerDefenseState) -> None:
    """TD-RND: rounds repeat until victory or defeat; after that nothing moves on."""
    if td.outcome != "none":
        raise no.TD_OVER.refuse(outcome=td.outcome, about=[at("outcome")])


def need_phase(tx: Tx, phases: Iterable[Phase], code: Code) -> None:
    """Refuse with `code` (per enforcement) outside `phases`; never once the outcome is
    decided."""
    td = td_of(tx)
    not_over(td)
    wanted = list(phases)
    now = phase_text(td.phase)
    need = [phase_text(p) for p in wanted]
    tx.check(td.phase in wanted, code.refuse(
        now=now[0], now_en=now[1], need="・".join(n[0] for n in need),
        need_en="/".join(n[1] for n in need), details={"phase": td.phase}, about=[at("phase")]))


def may_act_for(tx: Tx, pc: PC) -> str | None:
    """A player (or a bridge acting for one) acts only for a PC they own (TD-ATK-1); the
    GM for any; the table only for a PC no player owns. Returns the acting player id."""
    if not tx.actor.acts_for(pc.player):  # the table is told it must say who acts
        tx.check(False, no.NOT_YOUR_PC.refuse(
            name=pc.name, alt=None if tx.actor.player is not None else "nobody",
            about=[at("pcs", pc.id, "name"), at("pcs", pc.id, "player")]))
    return mover_of(tx)


def penalty_dice(td: TowerDefenseState) -> int:
    """TD-OPT-2 凍てつく者: penalty dice on PC attack-phase checks while it is on the field."""
    n = sum(i.penalty_dice for i in td.individuals.values())
    return min(n, td.settings.max_penalty_dice)


def check_roll(tx: Tx, pc: PC, skill: str, purpose: str, reported: str | None) -> TDCheck:
    """A CoC 7th check of `pc`'s `skill`: rolled (seeded) or read from a BCDice line; what
    the ack tells of it (dice, value, target, level)."""
    td = td_of(tx)
    n = penalty_dice(td) if td.phase == "pc_attack" else 0
    if reported is not None:
        roll = _reported(tx, pc, skill, purpose, reported, n)
    else:
        roll = _rolled(tx, _skill(pc, skill), purpose, n)
    level = cast(Level, roll.level)
    return TDCheck.of(skill, roll, level, n)


def _skill(pc: PC, skill: str) -> int:
    if skill not in pc.skills:
        raise no.NO_SKILL.refuse(name=pc.name, skill=skill,
                                 about=[at("pcs", pc.id, "name"), at("pcs", pc.id, "skills")])
    return pc.skills[skill]


def _rolled(tx: Tx, target: int, purpose: str, penalty: int) -> Roll:
    """1D100 from the room's dice; each penalty die is an extra tens die, keep the worst."""
    roll = tx.roll("1D100", purpose)
    value = roll.total or 0
    if penalty:
        units = value % 10
        extra = tx.roll(f"{penalty}D10", f"{purpose} (penalty)")
        alts = [(t - 1) * 10 + units or 100 for t in extra.results]
        value = max([value, *alts])
        roll.results = [roll.total or 0, *alts]
        roll.total = value
    roll.level, roll.target = coc_level(value, target), target
    return roll


def _reported(tx: Tx, pc: PC, skill: str, purpose: str, line: str, penalty: int) -> Roll:
    """A reported BCDice line: understood, degree known, consistent; kept with provenance."""
    td = td_of(tx)
    tx.check_reported_roll()  # before reading the line: a typed one is not read at all
    if tx.actor.role not in td.settings.reported_results_from:
        raise no.NO_REPORTED_RESULTS.refuse(role=tx.actor.role,
                                            about=[at("settings", "reported_results_from")])
    result = parse(line)
    if isinstance(result, NotUnderstood):
        raise no.BAD_RESULT.refuse(line=line[:80], reason=result.why.en, reason_ja=result.why.ja)
    if isinstance(result, CocCheck) and result.difficulty:
        raise no.BAD_RESULT.refuse(alt="difficulty", line=line[:80])
    if (not isinstance(result, CocCheck) or result.kind != "check" or result.target is None
            or result.level not in DEGREES):
        raise no.BAD_RESULT.refuse(alt="not_a_degree", line=line[:80])
    level, target = result.level, result.target
    want = pc.skills.get(skill)
    tx.check(want is None or want == target, no.RESULT_TARGET_MISMATCH.refuse(
        got=target, want=want, skill=skill, about=[at("pcs", pc.id, "skills")]))
    tx.check(coc_level(result.value, target) == level,
             no.RESULT_INCONSISTENT.refuse(line=line[:80]))
    tx.check(result.bonus <= -penalty, no.PENALTY_DIE_MISSING.refuse(
        n=penalty, bonus=result.bonus,
        about=[at("individuals"), at("settings", "max_penalty_dice")]))
    reporter = mover_of(tx) or tx.actor.label or tx.actor.role
    roll = Roll(dice="1D100", results=list(result.dice), total=result.value, purpose=purpose,
                source="external", raw=line, reporter=reporter, level=level, target=target)
    tx.record_roll(roll)
    return roll


def damage_group(tx: Tx, group: Group, amount: int, source: str) -> None:
    """Lower a group's 個体数; at ≤ 0 it leaves the board at once (TD-REIN-1)."""
    if amount <= 0:
        return
    old = group.count
    count = old - amount
    tx.emit("td.group.damaged", group=group.id, amount=amount, count=max(count, 0),
            source=source)
    if count <= 0:
        remove_walker(tx, group, "destroyed")
        return
    tx.set((PATH, "groups", group.id, "count"), count)
    tx.say(Text(f"「{group.name}」の個体数 {old} → {count}",
                f"'{group.name}' count {old} → {count}"))


def remove_walker(tx: Tx, walker: Walker, reason: str) -> None:
    """Take a group or individual off the board; tagged ones count for `destroy` victory."""
    td = td_of(tx)
    kind = "groups" if isinstance(walker, Group) else "individuals"
    tx.delete((PATH, kind, walker.id))
    if walker.id in td.marks:
        tx.delete((PATH, "marks", walker.id))
    if reason == "destroyed" and walker.tag and walker.tag not in td.destroyed_tags:
        tx.set((PATH, "destroyed_tags"), [*td.destroyed_tags, walker.tag])
    event = "td.group.removed" if isinstance(walker, Group) else "td.individual.removed"
    tx.emit(event, **{"group" if kind == "groups" else "individual": walker.id},
            reason=reason)
    why = {"destroyed": ("全滅", "destroyed"), "broke_through": ("突破", "broke through"),
           "left": ("退場", "left")}
    ja, en = why.get(reason, (reason, reason))
    tx.say(Text(f"「{walker.name}」は盤面から除外されました（{ja}）。",
                f"'{walker.name}' leaves the board ({en})."))


def damage_fort(tx: Tx, fort: Fort, amount: int, by: str) -> None:
    """TD-EATK-1: lower a fort's 耐久力 (not below 0); `fort.broken` when it reaches 0."""
    if amount <= 0:
        return
    new = max(fort.durability - amount, 0)
    old = fort.durability
    tx.set((PATH, "forts", fort.id, "durability"), new)
    tx.emit("fort.damaged", fort=fort.id, amount=amount, durability=new, by=by)
    tx.report(TDFortDamaged(fort=fort.id, by=by, amount=amount, durability=new,
                            broken=new <= 0 < old), about=[at("forts", fort.id, "durability")])
    tx.say(Text(f"{fort.name}に{amount}ダメージ（耐久力 {old} → {new}）",
                f"{fort.name} takes {amount} damage (durability {old} → {new})"))
    if new <= 0 < old:
        tx.emit("fort.broken", fort=fort.id)
        tx.say(Text(f"{fort.name}が陥落しました。", f"{fort.name} has fallen."))


OUTCOME_TEXT: dict[str, tuple[str, str]] = {
    "survived": ("規定ラウンドを守り抜きました", "the forts held for the required rounds"),
    "final_fort_broken": ("最終砦の耐久力が0になりました",
                          "the final fort's durability fell to 0"),
    "target_destroyed": ("目標の敵を撃破しました", "the target enemy was destroyed"),
    "gm": ("GMが宣言しました", "declared by the GM"),
}


def set_outcome(tx: Tx, outcome: str, reason: str, note: str = "") -> None:
    """Decide the tower defense (TD-SET-1); the phase stays where it was."""
    tx.set((PATH, "outcome"), outcome)
    tx.set((PATH, "outcome_reason"), reason)
    tx.emit("td.outcome", outcome=outcome, reason=reason, note=note)
    tx.report(TDOutcome(outcome=cast(Literal["victory", "defeat"], outcome), reason=reason),
              about=[at("outcome"), at("outcome_reason")])
    ja, en = OUTCOME_TEXT.get(reason, (reason, reason))
    word = ("PC側の勝利", "victory") if outcome == "victory" else ("PC側の敗北", "defeat")
    tx.say(Text(f"{word[0]}: {ja}。{note}", f"{word[1].capitalize()}: {en}. {note}".strip()))


def settle_outcome(tx: Tx) -> None:
    """Settler: a broken final fort is defeat at once; a destroyed target is victory."""
    td = tx.part("tower_defense", TowerDefenseState)
    if td is None or td.outcome != "none" or td.phase == "setup":
        return
    if td.victory.defeat_on_final_fort and any(
            f.final and f.durability <= 0 for f in td.forts.values()):
        set_outcome(tx, "defeat", "final_fort_broken")
    elif td.victory.kind == "destroy" and td.victory.tag in td.destroyed_tags:
        set_outcome(tx, "victory", "target_destroyed")


def individuals_at(td: TowerDefenseState, fort: str) -> list[Individual]:
    return [i for i in td.individuals.values() if i.fort == fort and not i.waiting]


def groups_at(td: TowerDefenseState, fort: str) -> list[Group]:
    return [g for g in td.groups.values() if g.fort == fort and not g.waiting]
