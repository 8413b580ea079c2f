"""Mass combat building blocks: lookups, guards, rows, effective attack/defence, writes.

Everything here reads the state or writes one fact through `Tx`; the step machine
(flow.py), the attack pipeline (attack.py) and the actions build on these.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import Refusal, Text
from ..prompts import Prompt
from ..tx import Tx
from . import refusals as R
from .model import TURN, FormationSpec, MassState, Mod, Row, Step, StrategySpec, Unit

__all__ = [
    "PATH",
    "STEP_NAMES",
    "active_units",
    "allies",
    "attack_of",
    "defence_of",
    "enemies",
    "formation_values",
    "has_flag",
    "mass_of",
    "may_act_for",
    "need_step",
    "not_over",
    "owner_key",
    "row_of",
    "set_unit",
    "unit_of",
]

PATH = "mass"

STEP_NAMES: dict[str, tuple[str, str]] = TURN.names()
ROW_NAMES: dict[str, tuple[str, str]] = {"front": ("前列", "front row"),
                                         "back": ("後列", "back row")}

def mass_of(tx: Tx) -> MassState:
    """The room's mass combat, or a refusal if it has none."""
    return tx.require(PATH, MassState, R.NO_MASS.refuse())


def unit_of(m: MassState, uid: str) -> Unit:
    if uid not in m.units:
        raise R.UNKNOWN_UNIT.missing(uid)
    return m.units[uid]


def formation_of(m: MassState, fid: str) -> FormationSpec:
    if fid not in m.formations:
        raise R.UNKNOWN_FORMATION.missing(fid)
    return m.formations[fid]


def strategy_of(m: MassState, sid: str) -> StrategySpec:
    if sid not in m.strategies:
        raise R.UNKNOWN_STRATEGY.missing(sid)
    return m.strategies[sid]


def step_text(step: str) -> tuple[str, str]:
    return STEP_NAMES.get(step, (step, step))


def not_over(m: MassState) -> None:
    """MASS-END: once a side has won, nothing moves on."""
    if m.outcome != "none":
        raise R.MASS_OVER.refuse()


def need_step(tx: Tx, steps: Iterable[Step], rule: str) -> None:
    """Refuse (per enforcement) outside `steps`; never once the war is decided."""
    m = mass_of(tx)
    not_over(m)
    wanted = list(steps)
    now = step_text(m.step)
    need = [step_text(s) for s in wanted]
    tx.check(m.step in wanted, R.WRONG_STEP.refuse(
        under=rule, now=now[0], now_en=now[1], need="・".join(n[0] for n in need),
        need_en="/".join(n[1] for n in need), details={"step": m.step}))


def no_prompt_open(tx: Tx) -> None:
    """The war waits while one of its prompts is open (a rebalance, an odd point, an LP
    choice, a reaction): refused with that prompt's own rule and reason, naming the
    prompt only to a sender shown it."""
    for prompt in tx.state.prompts.values():
        if prompt.resume.startswith("mass."):
            raise waiting_on(tx, prompt)


def waiting_on(tx: Tx, prompt: Prompt) -> Refusal:
    """Why the war waits on `prompt`: the rule it asks under; names and the prompt's id
    only for a sender shown the prompt."""
    m = mass_of(tx)
    context = prompt.context
    code = {"mass.rebalance": R.REBALANCE_PENDING, "mass.reaction": R.REACTION_PENDING,
            "mass.lp": R.LP_PENDING}.get(prompt.kind, R.ODD_POINT_PENDING)
    if not prompt.visible_to(tx.audience):
        return code.refuse(alt="elsewhere")
    details = {"prompt": prompt.id}
    if prompt.kind == "mass.rebalance":
        side = m.sides[str(context["side"])]
        return code.refuse(side=side.name, side_en=side.en or side.name, details=details)
    if prompt.kind == "mass.reaction":
        attacker = m.units.get(m.attack.attacker) if m.attack else None
        return code.refuse(attacker=attacker.name if attacker else "—", details=details)
    return code.refuse(name=m.units[str(context["unit"])].name, details=details)


def mover_of(tx: Tx) -> str | None:
    """The player an action is sent for: the player themself, or the one a bridge acts for
    (bound from its `by` by the engine)."""
    return tx.actor.player if tx.actor.role in ("player", "bridge") else None


def may_act_for(tx: Tx, unit: Unit, rule: str = "MASS-T-3") -> None:
    """A player acts only for a unit they lead; the GM for any. A bridge acts for the
    player the VTT identified, or, naming no one, as the table: only for units no player
    leads."""
    alt = None if tx.actor.player is not None else "for_nobody"
    tx.check(tx.actor.acts_for(unit.player),
             R.NOT_YOUR_UNIT.refuse(under=rule, alt=alt, name=unit.name))


def not_routed(unit: Unit, rule: str = "MASS-PREP-2") -> None:
    if unit.routed:
        raise R.UNIT_ROUTED.refuse(under=rule, name=unit.name)


def owner_key(unit: Unit) -> str:
    """Whom a prompt about this unit goes to: its player, else the GM."""
    return f"player:{unit.player}" if unit.player else "gm"


def active_units(m: MassState, side: str | None = None) -> list[Unit]:
    return [u for u in m.units.values() if not u.routed and (side is None or u.side == side)]


def allies(m: MassState, unit: Unit) -> list[Unit]:
    return active_units(m, unit.side)


def enemies(m: MassState, unit: Unit) -> list[Unit]:
    return [u for u in active_units(m) if u.side != unit.side]


def has_flag(unit: Unit, flag: str) -> bool:
    return any(flag in mod.flags for mod in unit.mods)


def row_of(unit: Unit) -> Row | None:
    """The row a unit counts as: 速攻前進/速攻後退 (the latest used) override its place."""
    row = unit.row
    for mod in unit.mods:
        if "treat_front" in mod.flags:
            row = "front"
        elif "treat_back" in mod.flags:
            row = "back"
    return row


def row_text(row: str | None) -> tuple[str, str]:
    return ROW_NAMES.get(row or "", ("未配置", "unplaced"))


def attack_of(unit: Unit) -> int:
    """The attack this turn: the tactics-step value plus strategy changes, never below 0."""
    return max(unit.attack_base + sum(m.attack for m in unit.mods), 0)


def defence_of(unit: Unit) -> int:
    return max(unit.defence_base + sum(m.defence for m in unit.mods), 0)


def formation_values(unit: Unit, spec: FormationSpec) -> tuple[int, int]:
    """MASS-T-2: the deployment halves changed by the formation (背水の陣 replaces them)."""
    if spec.effect == "backwater":
        return max((unit.max_strength or 0) - unit.strength, 0), 0
    return (max(unit.attack_half + spec.attack, 0), max(unit.defence_half + spec.defence, 0))


#: The fields the published (effective) attack and defence are computed from.
EFFECTIVE_FROM = frozenset({"attack_base", "defence_base", "mods"})


def set_unit(tx: Tx, unit: Unit, **values: object) -> None:
    """Write several fields of one unit; the effective attack/defence follow their base
    and mods, so no client recomputes a rule."""
    for key, value in values.items():
        tx.set((PATH, "units", unit.id, key), value)
    if EFFECTIVE_FROM & values.keys():
        for key, value in (("attack", attack_of(unit)), ("defence", defence_of(unit))):
            if getattr(unit, key) != value:
                tx.set((PATH, "units", unit.id, key), value)


def set_formation(tx: Tx, m: MassState, unit: Unit, fid: str) -> None:
    """Put `unit` in formation `fid` and recompute its attack/defence (MASS-T-2)."""
    spec = formation_of(m, fid)
    attack, defence = formation_values(unit, spec)
    set_unit(tx, unit, formation=fid, attack_base=attack, defence_base=defence)
    if spec.effect == "surge":
        set_unit(tx, unit, surges_left=spec.value)


def add_mod(tx: Tx, unit: Unit, mod: Mod) -> None:
    set_unit(tx, unit, mods=[*unit.mods, mod])


def source_text(tx: Tx, source: str) -> tuple[str, str]:
    """A change's source for the log: `attack:<unit>` → 「name」の攻撃, `strategy:<id>:<unit>`
    → 「name」の<id>; anything else (a strategy's name, GM, 再編成) as it is."""
    m = tx.part(PATH, MassState)
    parts = source.split(":")
    who = m.units[parts[-1]].name if m is not None and parts[-1] in m.units else parts[-1]
    if parts[0] == "attack" and len(parts) == 2:
        return f"「{who}」の攻撃", f"attack by '{who}'"
    if parts[0] == "strategy" and len(parts) == 3:
        return f"「{who}」の{parts[1]}", f"{parts[1]} by '{who}'"
    return source, source


def heal(tx: Tx, unit: Unit, amount: int, source: str) -> int:
    """Recover strength, never above the maximum (recovery stays, MASS-STRAT-1)."""
    top = unit.max_strength or 0
    new = min(unit.strength + max(amount, 0), top)
    gained = new - unit.strength
    if gained:
        old = unit.strength
        set_unit(tx, unit, strength=new)
        tx.emit("mass.strength", unit=unit.id, strength=new, change=gained, source=source)
        ja, en = source_text(tx, source)
        tx.say(Text(f"「{unit.name}」の戦力 {old} → {new}（{ja}）",
                    f"'{unit.name}' strength {old} → {new} ({en})"))
    return gained


def lose(tx: Tx, unit: Unit, amount: int, source: str) -> int:
    """Lower strength (never below 0); at 0 the unit is routed (MASS-PREP-2)."""
    new = max(unit.strength - max(amount, 0), 0)
    lost = unit.strength - new
    if lost:
        old = unit.strength
        set_unit(tx, unit, strength=new)
        tx.emit("mass.strength", unit=unit.id, strength=new, change=-lost, source=source)
        ja, en = source_text(tx, source)
        tx.say(Text(f"「{unit.name}」の戦力 {old} → {new}（{ja}）",
                    f"'{unit.name}' strength {old} → {new} ({en})"))
    if new == 0 and not unit.routed:
        rout(tx, unit, "strength")
    return lost


def rout(tx: Tx, unit: Unit, why: str) -> None:
    """MASS-PREP-2 / 全軍退却: the unit leaves the war; the end check follows (MASS-END)."""
    set_unit(tx, unit, routed=True, retreated=why == "retreat")
    tx.emit("mass.unit.routed", unit=unit.id, side=unit.side, reason=why)
    if why == "retreat":
        tx.say(Text(f"「{unit.name}」は戦場から離脱した（敗走）。",
                    f"'{unit.name}' leaves the field (routed)."))
    else:
        tx.say(Text(f"「{unit.name}」は戦力0で敗走した。", f"'{unit.name}' is routed (strength 0)."))
