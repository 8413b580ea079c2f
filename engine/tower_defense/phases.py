"""The round as a table (TD-RND): each phase's successor and what happens on entering it.

    setup ─► reinforcement ─► advance ─► pc_attack ─► enemy_attack ─┐
              ▲                                     (round ends here) │
              └──────────────────────────────────────────────────────┘

`td.next_phase` (GM) moves one step and runs the automatic work of the phase entered:
reinforcement places the round's wave (TD-REIN-1, SAN prompt to the GM), advance walks
every group inward and fires traps (TD-ADV-1/2, TD-OPT-1), enemy attack damages forts
(TD-EATK-1/2, TD-OPT-2) and then ends the round (victory/defeat check, TD-SET-1).
The PC attack phase is the players' (TD-ATK-*); nothing automatic happens in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeVar, cast

from ..errors import Text
from ..prompts import Prompt
from ..table import Cell
from ..tx import Tx
from .map import route_from
from .model import (
    PHASES,
    ROUND,
    Group,
    Individual,
    Phase,
    TowerDefenseState,
    Walker,
    WaveEntry,
)
from .results import TDPhase
from .rules import (
    PATH,
    damage_fort,
    damage_group,
    groups_at,
    individuals_at,
    phase_text,
    remove_walker,
    set_outcome,
    td_of,
)

__all__ = ["ENTER", "NEXT", "SAN_RESUME", "enter", "place_entry", "resume_san"]

#: TD-RND: the phase after each phase, as `ROUND` declares it.
NEXT: dict[Phase, Phase] = {p: cast(Phase, ROUND.next_of(p)) for p in PHASES}
SAN_RESUME = "td.san"


class Preset(NamedTuple):
    """TD-OPT-2 field effects of a 特異個体 kind (a wave entry may override each)."""

    fort_damage: int = 0
    penalty_dice: int = 0
    doubles_attack: bool = False


PRESETS: dict[str, Preset] = {
    "priest": Preset(doubles_attack=True),  # 深きもの共の司祭: counts double in enemy attack
    "frozen": Preset(penalty_dice=1),       # 凍てつく者: one penalty die on PC attack checks
    "nofke": Preset(fort_damage=4),         # ノフケー: 4 damage to a fort
    "other": Preset(),
}
T = TypeVar("T")


def _pick(value: T | None, default: T) -> T:
    return default if value is None else value


def enter(tx: Tx, phase: Phase) -> None:
    """Set the phase, announce it, run its automatic step."""
    td = td_of(tx)
    if phase == "reinforcement":
        tx.set((PATH, "round"), td.round + 1)
    tx.set((PATH, "phase"), phase)
    ja, en = phase_text(phase)
    tx.emit("td.phase", round=td.round, phase=phase)
    tx.report(TDPhase(round=td.round, phase=phase), about=[(PATH, "round"), (PATH, "phase")])
    tx.say(Text(f"第{td.round}ラウンド {ja}", f"Round {td.round}: {en} phase"))
    ENTER[phase](tx)


# -- 1. reinforcement (TD-REIN-1) ------------------------------------------------------


def reinforcement(tx: Tx) -> None:
    """A new round: clear the round's marks and counters, place the wave, ask for SAN."""
    td = td_of(tx)
    _new_round(tx, td)
    entries = _wave(tx, td)
    placed = [(entry, place_entry(tx, td, entry)) for entry in entries]
    san = [(e, ident) for e, ident in placed if e.san]
    if san:
        names = "、".join(f"{e.name}（{e.san}）" for e, _ in san)
        tx.ask("gm", Text(f"SANチェックを行ってください: {names}",
                          f"Run the SAN checks now: {names}"),
               SAN_RESUME, [("done", Text("SANチェック済み", "SAN checks done"))],
               kind="td.san", about=_san_about(td.round, [(e, i) for e, i in san]),
               round=td.round, names=[e.name for e, _ in san])


def _san_about(round_: int, san: list[tuple[WaveEntry, str]]) -> dict[str, str]:
    """The SAN prompt's `about`: the round, and the groups / 特異個体 calling for a check
    (`group`, `group_2`…; at most 7 of them, the prompt's text names all)."""
    about, seen = {"round": str(round_)}, dict[str, int]()
    for entry, ident in san[:7]:
        role = "group" if entry.special is None else "individual"
        seen[role] = seen.get(role, 0) + 1
        about[role if seen[role] == 1 else f"{role}_{seen[role]}"] = ident
    return about


def _new_round(tx: Tx, td: TowerDefenseState) -> None:
    tx.emit("td.round.started", round=td.round)
    if td.marks:
        tx.set((PATH, "marks"), {})
    for pc in td.pcs.values():
        for wid, w in pc.weapons.items():
            if w.used:
                tx.set((PATH, "pcs", pc.id, "weapons", wid, "used"), 0)
        if pc.acted:
            tx.set((PATH, "pcs", pc.id, "acted"), [])


def _wave(tx: Tx, td: TowerDefenseState) -> list[WaveEntry]:
    """TD-SET-1: this round's entries — fixed, odd/even alternation, or a seeded draw."""
    plan = td.waves
    if plan.mode == "fixed":
        return list(plan.rounds.get(td.round, []))
    if plan.mode == "alternate":
        return list(plan.odd if td.round % 2 else plan.even)
    pick = tx.roll(f"1D{len(plan.table)}", f"td.wave round {td.round}").total or 1
    tx.emit("td.wave.drawn", round=td.round, row=pick)
    return list(plan.table[pick - 1])


def _fresh_id(td: TowerDefenseState, base: str) -> str:
    taken = td.groups.keys() | td.individuals.keys()
    ident, n = base, 1
    while ident in taken:
        n += 1
        ident = f"{base}-{n}"
    return ident


def place_entry(tx: Tx, td: TowerDefenseState, e: WaveEntry) -> str:
    """Put one group or 特異個体 at its direction and publish its data (TD-REIN-1); its id."""
    d = td.directions[e.direction]
    base = Walker(id="", name=e.name, direction=d.id, route=route_from(td.passages, d.id),
                  cell=d.cell, tag=e.tag, san=e.san, round=td.round)
    if e.special is None:
        gid = _fresh_id(td, f"r{td.round}-{d.id}")
        tx.set((PATH, "groups", gid), Group(**{**base.model_dump(), "id": gid}, count=e.count,
                                                     max_count=e.count))
        tx.made("group", gid, (PATH, "groups", gid))
        tx.emit("td.group.placed", group=gid, name=e.name, count=e.count, direction=d.id,
                cell=d.cell.model_dump())
        tx.say(Text(f"{d.name}に「{e.name}」（個体数{e.count}）が出現",
                    f"'{e.name}' (count {e.count}) appears at {d.name}"))
        return gid
    preset = PRESETS[e.special]
    iid = _fresh_id(td, f"r{td.round}-{e.special}")
    ind = Individual(
        **{**base.model_dump(), "id": iid}, special=e.special, hp=e.hp,
        fort_damage=_pick(e.fort_damage, preset.fort_damage),
        penalty_dice=_pick(e.penalty_dice, preset.penalty_dice),
        doubles_attack=_pick(e.doubles_attack, preset.doubles_attack))
    tx.set((PATH, "individuals", iid), ind)
    tx.made("individual", iid, (PATH, "individuals", iid))
    tx.emit("td.individual.placed", individual=iid, name=e.name, special=e.special,
            direction=d.id, cell=d.cell.model_dump())
    tx.say(Text(f"{d.name}に特異個体「{e.name}」が出現",
                f"Special individual '{e.name}' appears at {d.name}"))
    return iid


def resume_san(tx: Tx, prompt: Prompt, choice: str) -> None:
    """The GM says the round's SAN checks are done (TD-REIN-1)."""
    tx.emit("td.san.done", round=prompt.context.get("round"))
    tx.say(Text("SANチェック完了", "SAN checks done"), chat=False)


# -- 2. advance (TD-ADV-1/2, TD-OPT-1) ---------------------------------------------------


def advance(tx: Tx) -> None:
    """Every group with 個体数 ≥ 1, then every 特異個体, walks inward; traps fire."""
    td = td_of(tx)
    fired: set[str] = set()
    for gid in list(td.groups):
        group = td.groups.get(gid)
        if group is not None and group.count >= 1:
            _walk(tx, td, group, fired)
    for iid in list(td.individuals):
        _walk(tx, td, td.individuals[iid], None)
    if not td.settings.traps_persist:
        for tid in sorted(fired):
            tx.set((PATH, "traps", tid, "spent"), True)
            tx.emit("td.trap.spent", trap=tid)


def _walk(tx: Tx, td: TowerDefenseState, w: Walker, fired: set[str] | None) -> None:
    """TD-ADV-1: walk passages until a fort with 耐久力 ≥ 1 (with room) stops the walker."""
    coll = "groups" if isinstance(w, Group) else "individuals"
    if (w.fort is not None and not w.waiting and td.forts[w.fort].durability >= 1
            and td.settings.group_at_intact_fort == "stay"):
        return
    at, cells, walked = w.at, list[Cell](), list[str]()
    stop: str | None = None
    waiting = False
    resume = w.waiting
    while at < len(w.route):
        p = td.passages[w.route[at]]
        walked.append(p.id)
        if not resume:
            cells.extend(p.cells)
            if fired is not None and isinstance(w, Group) and not _traps(tx, td, w, p.id, fired):
                return
        resume = False
        fort = td.forts[p.inner]
        if fort.durability >= 1 and not _has_room(td, w, fort.id):
            waiting = True
            break
        at += 1
        cells.append(fort.cell)
        if fort.durability >= 1:
            stop = fort.id
            break
    else:
        if not walked:
            return
        if td.settings.when_all_broken == "remove":
            remove_walker(tx, w, "broke_through")
            return
        stop = td.passages[w.route[-1]].inner
    if not cells and waiting:
        return  # still waiting for room where it was
    _moved(tx, w, coll, at, stop, waiting, cells, walked)


def _moved(tx: Tx, w: Walker, coll: str, at: int, stop: str | None, waiting: bool,
           cells: list[Cell], walked: list[str]) -> None:
    """Write the walker's new place and tell the table the way it went."""
    td = td_of(tx)
    cell = td.forts[stop].cell if stop else (cells[-1] if cells else w.cell)
    for field, value in (("at", at), ("fort", stop), ("waiting", waiting), ("cell", cell)):
        if getattr(w, field) != value:
            tx.set((PATH, coll, w.id, field), value)
    kind = "td.group.moved" if coll == "groups" else "td.individual.moved"
    tx.emit(kind, **{"group" if coll == "groups" else "individual": w.id}, fort=stop,
            waiting=waiting, passages=walked, cells=[c.model_dump() for c in cells])
    where = td.forts[stop].name if stop else "通路上"
    where_en = td.forts[stop].name if stop else "a passage (waiting for room)"
    tx.say(Text(f"「{w.name}」が{where}へ進軍", f"'{w.name}' advances to {where_en}"))


def _has_room(td: TowerDefenseState, w: Walker, fort: str) -> bool:
    """Setting `max_groups_per_fort`: groups only; 特異個体 never wait."""
    limit = td.settings.max_groups_per_fort
    if limit is None or not isinstance(w, Group):
        return True
    return sum(1 for g in groups_at(td, fort) if g.id != w.id) < limit


def _traps(tx: Tx, td: TowerDefenseState, g: Group, passage: str, fired: set[str]) -> bool:
    """TD-ADV-2 / TD-OPT-1: traps on a passage a group moves along; False if it died."""
    for trap in [t for t in td.traps.values() if t.passage == passage and not t.spent]:
        fired.add(trap.id)
        tx.emit("td.trap.fired", trap=trap.id, passage=passage, trap_kind=trap.kind,
                group=g.id)
        if trap.kind == "snare":
            if not g.snared:
                tx.set((PATH, "groups", g.id, "snared"), True)
            tx.say(Text(f"足止めトラップ: 「{g.name}」は次の敵攻撃フェイズに攻撃できない",
                        f"Snare trap: '{g.name}' cannot attack in the next enemy attack phase"))
            continue
        tx.say(Text(f"爆破トラップ: 「{g.name}」に1ダメージ",
                    f"Explosive trap: 1 damage to '{g.name}'"))
        damage_group(tx, td.groups[g.id], 1, f"trap:{trap.id}")
        if g.id not in td.groups:
            return False
    return True


# -- 3. PC attack: the players' phase -----------------------------------------------------


def pc_attack(tx: Tx) -> None:
    """Nothing automatic: PCs act in any order (TD-ATK-1); per-phase flags start clean."""
    td = td_of(tx)
    for pc in td.pcs.values():
        if pc.acted:
            tx.set((PATH, "pcs", pc.id, "acted"), [])


# -- 4. enemy attack, then the end of the round (TD-EATK-1/2, TD-OPT-2) -----------------------


def enemy_attack(tx: Tx) -> None:
    """Every group with 個体数 ≥ 1 hits its fort; a fort at ≤ 0 stops further attacks."""
    td = td_of(tx)
    double = any(i.doubles_attack for i in td.individuals.values())
    for fort in td.forts.values():
        _attack_fort(tx, td, fort.id, double)
    for g in td.groups.values():
        if g.snared:
            tx.set((PATH, "groups", g.id, "snared"), False)
    _end_round(tx, td)


def _attack_fort(tx: Tx, td: TowerDefenseState, fort_id: str, double: bool) -> None:
    attackers: list[Group | Individual] = [
        *groups_at(td, fort_id), *(i for i in individuals_at(td, fort_id) if i.fort_damage)]
    for a in attackers:
        fort = td.forts[fort_id]
        if fort.durability <= 0:
            tx.emit("td.enemy_attack.stopped", fort=fort_id, by=a.id)  # TD-EATK-2
            continue
        if isinstance(a, Individual):
            damage_fort(tx, fort, a.fort_damage, by=a.id)  # TD-OPT-2 ノフケー
        elif a.snared:
            tx.emit("td.group.held", group=a.id)  # TD-OPT-1 足止め
            tx.say(Text(f"「{a.name}」は足止めされて攻撃できない",
                        f"'{a.name}' is snared and cannot attack"))
        elif a.count >= 1:
            damage_fort(tx, fort, a.count * (2 if double else 1), by=a.id)


def _end_round(tx: Tx, td: TowerDefenseState) -> None:
    """The round ends: defeat if a final fort broke, else victory after the last round."""
    tx.emit("td.round.ended", round=td.round)
    tx.say(Text(f"第{td.round}ラウンド終了", f"Round {td.round} ends"))
    if td.outcome != "none":
        return
    if td.victory.defeat_on_final_fort and any(f.final and f.durability <= 0
                                               for f in td.forts.values()):
        set_outcome(tx, "defeat", "final_fort_broken")
    elif td.victory.kind == "survive" and td.round >= td.victory.rounds:
        set_outcome(tx, "victory", "survived")


ENTER: dict[Phase, Callable[[Tx], None]] = {
    "setup": lambda tx: None,
    "reinforcement": reinforcement,
    "advance": advance,
    "pc_attack": pc_attack,
    "enemy_attack": enemy_attack,
}
