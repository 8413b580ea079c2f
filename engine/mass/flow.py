"""The turn machine (MASS-T-1..3, MASS-END) as tables: steps, follow-ups, battle order,
turn end.

The steps and what comes after each are `model.TURN`; `CLOSE` says what the GM's
`mass.next_step` does to close each (preparation, deployment and tactics; battle ends by
itself when every unit has acted). `FOLLOW_UPS` is what moves the war on without anyone's
answer or action: walk the pending attack, close deployment, end the turn (投石部隊 land,
turn-long changes reset, the next turn's deployment begins), pick the next unit to act.
`advance` is the subsystem's settler: one follow-up a call while no war prompt is open and
the war is not decided; the core's loop calls it again until nothing is due.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple, cast

from ..actions import ActionBase
from ..errors import Text
from ..prompts import Prompt
from ..registry_types import Resumer
from ..tx import Tx
from . import refusals as R
from .attack import REACT_RESUME, proceed_attack, resume_react
from .damage import LP_RESUME, deal, mass_prompts, resume_lp
from .deploy import ODD_RESUME, REBALANCE_RESUME, close_deployment, resume_odd, resume_rebalance
from .end import settle
from .model import TURN, MassState, Step, Unit
from .results import MassAwaits, MassStepResult
from .rules import (
    PATH,
    active_units,
    formation_of,
    mass_of,
    need_step,
    no_prompt_open,
    not_over,
    set_formation,
    set_unit,
    step_text,
)

__all__ = ["CLOSE", "FOLLOW_UPS", "RESUMERS", "FollowUp", "NextStep", "advance", "battle_order",
           "war_initiative"]



def war_initiative(unit: Unit) -> int:
    """MASS-T-3: the PC's initiative or its 知力 check base value, as the player chose."""
    if unit.initiative_from == "intellect" and unit.intellect_base is not None:
        return unit.intellect_base
    return unit.initiative


def battle_order(m: MassState) -> list[str]:
    """疾風陣 first, then war initiative high to low; ties by raw initiative, then the
    scenario's order of sides and units."""
    sides = list(m.sides)
    index = {uid: i for i, uid in enumerate(m.units)}

    def key(u: Unit) -> tuple[int, int, int, int, int]:
        first = m.formations.get(u.formation or "")
        return (0 if first is not None and first.effect == "first" else 1,
                -war_initiative(u), -u.initiative, sides.index(u.side), index[u.id])

    return [u.id for u in sorted(active_units(m), key=key)]


def advance(tx: Tx) -> bool:
    """Settler: the end check, then the first follow-up due (True when one ran)."""
    m = tx.part(PATH, MassState)
    if m is None:
        return False
    if m.outcome == "none":
        settle(tx)
    waiting = mass_prompts(tx)
    _awaits(tx, waiting)
    if m.outcome != "none" or waiting:
        return False
    for follow_up in FOLLOW_UPS:
        if follow_up.due(m):
            follow_up.run(tx, m)
            return True
    return False


def _awaits(tx: Tx, prompts: list[Prompt]) -> None:
    """The ack says what the war waits for once the action is done: each open war
    prompt, told only to a sender shown it (the settler runs again, so this replaces)."""
    tx.results[:] = [r for r in tx.results if not isinstance(r, MassAwaits)]
    for p in prompts:
        tx.report(MassAwaits(prompt=p.id, prompt_kind=p.kind, to=p.to, about=p.about),
                  about=[("prompts", p.id)])


def _following(step: Step) -> Step:
    """The step `TURN` names after `step` (every step but `over` has one)."""
    nxt = TURN.next_of(step)
    assert nxt is not None, step
    return cast(Step, nxt)


def _needs_actor(m: MassState) -> bool:
    unit = m.units.get(m.current or "")
    return unit is None or unit.acted or unit.routed


def _next_actor(tx: Tx, m: MassState) -> None:
    """The next unit in order that has not acted; delayers last, by raw initiative."""
    waiting = [m.units[u] for u in m.order if not m.units[u].routed and not m.units[u].acted]
    now = [u for u in waiting if not u.delayed]
    later = sorted((u for u in waiting if u.delayed), key=lambda u: -u.initiative)
    nxt = (now or later)[0] if now or later else None
    if nxt is None:
        tx.set((PATH, "current"), None)
        tx.set((PATH, "closing"), "turn_end")
        return
    tx.set((PATH, "current"), nxt.id)
    tx.emit("mass.acting", unit=nxt.id, turn=m.turn)
    tx.say(Text(f"「{nxt.name}」の行動", f"'{nxt.name}' to act"), chat=False)


def _end_turn(tx: Tx, m: MassState) -> None:
    """Turn end: 投石部隊 land one by one (each may ask LP), then everything turn-long resets."""
    if m.stones:
        stone, rest = m.stones[0], m.stones[1:]
        tx.set((PATH, "stones"), rest)
        user, target = m.units[stone.user], m.units[stone.target]
        if user.routed or target.routed:
            return
        n = tx.roll("1D6", f"mass.stones {stone.id}").total or 0
        tx.emit("mass.stone.thrown", stone=stone.id, unit=user.id, target=target.id, damage=n)
        tx.say(Text(f"投石部隊（{user.name}）→「{target.name}」に{n}ダメージ",
                    f"Stone throwers ({user.name}) → '{target.name}': {n} damage"))
        deal(tx, target, n, f"strategy:投石部隊:{user.id}")
        return
    for unit in m.units.values():
        set_unit(tx, unit, mods=[], active=None, acted=False, delayed=False, reroll_used=False,
                 surges_left=0, odd=None, split_pending=False)
    tx.emit("mass.turn.ended", turn=m.turn)
    tx.set((PATH, "order"), [])
    tx.set((PATH, "closing"), None)
    tx.set((PATH, "turn"), m.turn + 1)
    _enter(tx, m, _following("battle"))


def _enter(tx: Tx, m: MassState, step: Step) -> None:
    tx.set((PATH, "step"), step)
    tx.report(MassStepResult(turn=m.turn, step=step), about=[(PATH, "step")])
    tx.emit("mass.step", step=step, turn=m.turn)
    ja, en = step_text(step)
    tx.say(Text(f"第{m.turn}ターン {ja}", f"Turn {m.turn}: {en}"))


def _close_tactics(tx: Tx, m: MassState) -> None:
    """MASS-T-2: every unit's formation fixes its attack/defence; then the battle order."""
    for unit in active_units(m):
        fid = unit.formation or m.settings.default_formation
        formation_of(m, fid)
        tx.check(fid in unit.formations, R.NOT_OWNED.refuse(name=unit.name, formation=fid))
        set_formation(tx, m, unit, fid)
        tx.emit("mass.formation", unit=unit.id, formation=fid, attack=unit.attack,
                defence=unit.defence, attack_base=unit.attack_base,
                defence_base=unit.defence_base)
    order = battle_order(m)
    tx.set((PATH, "order"), order)
    tx.set((PATH, "current"), None)
    _enter(tx, m, _following("tactics"))
    tx.emit("mass.order", order=order)
    names = " → ".join(m.units[u].name for u in order)
    tx.say(Text(f"行動順: {names}", f"Order: {names}"))


def _close_preparation(tx: Tx, m: MassState) -> None:
    """MASS-PREP-1: every unit has its max strength; turn 1 begins."""
    for unit in m.units.values():
        tx.check(unit.max_strength is not None, R.STRENGTH_MISSING.refuse(name=unit.name))
    tx.set((PATH, "turn"), 1)
    _enter(tx, m, _following("preparation"))


def _close_deployment(tx: Tx, m: MassState) -> None:
    """MASS-T-1: every unit has a row; the follow-up asks for the rest (rebalance, odd point)."""
    for unit in active_units(m):
        tx.check(unit.row is not None, R.UNIT_UNPLACED.refuse(name=unit.name))
    tx.set((PATH, "closing"), "deployment")


def _close_battle(tx: Tx, m: MassState) -> None:
    """MASS-T-3: only once every unit has acted; then the turn end follows."""
    need_step(tx, ("battle",), "MASS-T-3")
    left = [u for u in active_units(m) if not u.acted]
    tx.check(not left, R.UNITS_TO_ACT.refuse(names="、".join(u.name for u in left)))
    tx.set((PATH, "attack"), None)
    tx.set((PATH, "current"), None)
    tx.set((PATH, "closing"), "turn_end")


#: What `mass.next_step` does in each step (any other step: `_close_battle` refuses it).
CLOSE: dict[Step, Callable[[Tx, MassState], None]] = {
    "preparation": _close_preparation,
    "deployment": _close_deployment,
    "tactics": _close_tactics,
    "battle": _close_battle,
}


class FollowUp(NamedTuple):
    """Something the war does by itself once it is due (one a pass, in table order)."""

    name: str
    rule: str
    due: Callable[[MassState], bool]
    run: Callable[[Tx, MassState], None]


FOLLOW_UPS: tuple[FollowUp, ...] = (
    FollowUp("attack", "MASS-DMG-1", lambda m: m.attack is not None,
             lambda tx, _m: proceed_attack(tx)),
    FollowUp("close_deployment", "MASS-T-1", lambda m: m.closing in ("deployment", "split"),
             lambda tx, _m: close_deployment(tx)),
    FollowUp("turn_end", "MASS-T-3", lambda m: m.closing == "turn_end", lambda tx, m: _end_turn(tx, m)),
    FollowUp("next_actor", "MASS-T-3", lambda m: m.step == "battle" and _needs_actor(m),
             lambda tx, m: _next_actor(tx, m)),
)


class NextStep(ActionBase):
    """GM: close the current step (preparation → deployment → tactics → battle).

    `expect` (optional) is the step the GM's screen shows; a different step is refused,
    so a double click never skips one."""

    kind: Literal["mass.next_step"] = "mass.next_step"
    expect: Step | None = None

    def apply(self, tx: Tx) -> None:
        m = mass_of(tx)
        not_over(m)
        if self.expect is not None and self.expect != m.step:
            now = step_text(m.step)
            raise R.STALE_STEP.refuse(now=now[0], now_en=now[1])
        no_prompt_open(tx)
        CLOSE.get(m.step, _close_battle)(tx, m)


#: Each prompt's resume; the war moves on after the answer through the settler (`advance`).
RESUMERS: dict[str, Resumer] = {
    REBALANCE_RESUME: resume_rebalance,
    ODD_RESUME: resume_odd,
    REACT_RESUME: resume_react,
    LP_RESUME: resume_lp,
}
