"""Turn step 1, deployment (戦力配置, MASS-T-1): rows, the front ≥ back rebalance, halves.

Each unit's player picks front or back (`mass.deploy`). When the GM closes the step,
for each side whose front row has fewer units than its back row the players of the
back-row units are asked who moves forward (each may volunteer one of theirs or stay);
if that does not settle it, the GM picks (the GM's default). Then each unit with an odd
strength whose player did not say where the odd point goes is asked. Only then are
attack and defence set to strength ÷ 2 (+1 on the chosen half) and the tactics step
begins. Reading of the seed: the front must end with at least as many units as the back.
"""

from __future__ import annotations

from ..errors import Text
from ..prompts import Prompt
from ..tx import Tx
from .damage import mass_prompts, withdraw
from .model import MassState, Unit
from .results import MassSplit, MassStepResult
from .rules import PATH, active_units, mass_of, owner_key, row_text, set_unit

__all__ = ["ODD_RESUME", "REBALANCE_RESUME", "close_deployment", "halves", "needs_rebalance",
           "resume_odd", "resume_rebalance", "rows_count"]

REBALANCE_RESUME = "mass.rebalance"
ODD_RESUME = "mass.odd"

ASK_MOVE = Text("{side}: 前列{front}部隊・後列{back}部隊。前列が後列より少ないため、後列から前列へ"
                "あと{need}部隊移る必要があります。あなたの部隊を前列へ移しますか？",
                "{side_en}: {front} unit(s) in front, {back} in back. The front may not have "
                "fewer units than the back: {need} more must move forward. Move one of yours?")
ASK_GM = Text("{side}: 前列{front}部隊・後列{back}部隊。前列へ移す部隊を選んでください"
              "（あと{need}部隊）。",
              "{side_en}: {front} in front, {back} in back. Choose a unit to move forward "
              "({need} more).")
ASK_ODD = Text("「{name}」の戦力{strength}は奇数です。余りの1点を攻撃力と防御力のどちらに振りますか？",
               "'{name}' has an odd strength ({strength}). Put the extra point on attack or "
               "defence?")
MOVE = Text("「{name}」を前列へ", "Move '{name}' forward")
STAY = Text("移さない（他の部隊に任せる）", "Stay (let another unit move)")
ODD_CHOICES = [("attack", Text("攻撃力に+1", "+1 attack")),
               ("defence", Text("防御力に+1", "+1 defence"))]


def rows_count(m: MassState, side: str) -> tuple[int, int]:
    """(front, back) among a side's units still in the war."""
    units = active_units(m, side)
    return (sum(u.row == "front" for u in units), sum(u.row == "back" for u in units))


def needs_rebalance(m: MassState, side: str) -> int:
    """How many back-row units must still move forward for front ≥ back (MASS-T-1)."""
    front, back = rows_count(m, side)
    return max(-(-(back - front) // 2), 0)


def close_deployment(tx: Tx) -> None:
    """One step of closing deployment: the rebalance, then every unit's halves (those
    awaiting their odd point marked `split_pending`) and the odd points asked; once
    answered, the tactics step."""
    m = mass_of(tx)
    for side in m.sides:
        if needs_rebalance(m, side):
            _ask_rebalance(tx, m, side)
            return
    if m.closing == "deployment":
        tx.set((PATH, "closing"), "split")
        for unit in active_units(m):
            halves(tx, unit)
        odd = [u for u in active_units(m) if u.split_pending]
        for unit in odd:
            tx.ask(owner_key(unit), ASK_ODD.format(name=unit.name, strength=unit.strength),
                   ODD_RESUME, ODD_CHOICES, kind="mass.odd_point",
                   about={"unit": unit.id, "side": unit.side}, unit=unit.id)
        if odd:
            return
    tx.set((PATH, "closing"), None)
    tx.set((PATH, "rebalance_asked"), [])
    tx.set((PATH, "step"), "tactics")
    tx.report(MassStepResult(turn=m.turn, step="tactics"), about=[(PATH, "step")])
    tx.emit("mass.step", step="tactics", turn=m.turn)
    tx.say(Text(f"第{m.turn}ターン 戦術決定: 各部隊は陣形を選んでください。",
                f"Turn {m.turn}, tactics: each unit picks a formation."))


def halves(tx: Tx, unit: Unit) -> None:
    """MASS-T-1: attack and defence = strength ÷ 2, the odd point where the player put it;
    an odd strength whose point is not placed yet is published rounded down, pending."""
    half, extra = divmod(unit.strength, 2)
    pending = bool(extra) and unit.odd is None
    attack = half + (extra if unit.odd == "attack" else 0)
    defence = half + (extra if unit.odd == "defence" else 0)
    set_unit(tx, unit, attack_half=attack, defence_half=defence, attack_base=attack,
             defence_base=defence, split_pending=pending)
    tx.report(MassSplit(unit=unit.id, attack=attack, defence=defence, split_pending=pending),
              about=[(PATH, "units", unit.id, "attack_half")])
    if pending:
        return  # told once the point is placed (resume_odd)
    tx.emit("mass.deployed", unit=unit.id, row=unit.row, attack=attack, defence=defence)
    ja, en = row_text(unit.row)
    tx.say(Text(f"「{unit.name}」{ja}・戦力{unit.strength} → 攻撃力{attack}／防御力{defence}",
                f"'{unit.name}' {en}, strength {unit.strength} → attack {attack} / "
                f"defence {defence}"))


def _ask_rebalance(tx: Tx, m: MassState, side: str) -> None:
    """Players of the back-row units first; if they leave it unsettled, the GM picks."""
    front, back = rows_count(m, side)
    need = needs_rebalance(m, side)
    backs = [u for u in active_units(m, side) if u.row == "back"]
    s = m.sides[side]
    words = {"side": s.name, "side_en": s.en or s.name, "front": front, "back": back,
             "need": need}
    if side not in m.rebalance_asked:
        tx.set((PATH, "rebalance_asked"), [*m.rebalance_asked, side])
        players = sorted({u.player for u in backs if u.player})
        for player in players:
            mine = [u for u in backs if u.player == player]
            tx.ask(f"player:{player}", ASK_MOVE.format(**words), REBALANCE_RESUME,
                   [*((u.id, MOVE.format(name=u.name)) for u in mine), ("stay", STAY)],
                   kind="mass.rebalance", about={"side": side}, side=side)
        if players:
            return
    tx.ask("gm", ASK_GM.format(**words), REBALANCE_RESUME,
           [(u.id, MOVE.format(name=u.name)) for u in backs], kind="mass.rebalance",
           about={"side": side}, side=side)


def resume_rebalance(tx: Tx, prompt: Prompt, choice: str) -> None:
    """A unit moves forward (or its player stays); once balanced, other asks are withdrawn."""
    m = mass_of(tx)
    side = str(prompt.context["side"])
    if choice != "stay":
        unit = m.units[choice]
        set_unit(tx, unit, row="front")
        tx.emit("mass.rebalanced", unit=unit.id, side=side)
        tx.say(Text(f"「{unit.name}」が前列へ移った（前列≧後列）",
                    f"'{unit.name}' moves to the front row (front ≥ back)"))
    if not needs_rebalance(m, side):
        withdraw(tx, mass_prompts(tx, REBALANCE_RESUME, side=side))


def resume_odd(tx: Tx, prompt: Prompt, choice: str) -> None:
    """The odd point placed: the unit's halves are final at once."""
    unit = mass_of(tx).units[str(prompt.context["unit"])]
    set_unit(tx, unit, odd=choice)
    halves(tx, unit)
