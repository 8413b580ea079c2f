"""Damage to a unit's strength, and the commanding PC's LP (MASS-DMG-2).

Damage an enemy deals (an attack, 爆裂部隊, 投石部隊) may be taken in part on the
leader's LP: the unit's player is asked how much (a prompt), and the strength loses the
rest. Under 指揮官突撃 all of it goes to LP without asking (until LP runs out). Only a
unit with a player has a commanding PC; a GM-run unit's leader takes nothing on LP.
Self-inflicted costs (爆裂部隊's own loss, 全軍防御) and 雨乞い's rain are not combat
damage and never reach LP.
"""

from __future__ import annotations

from ..errors import Text
from ..prompts import Prompt
from ..tx import Tx
from .model import MassState, Unit
from .results import MassLp
from .rules import has_flag, lose, mass_of, owner_key, set_unit

__all__ = ["LP_RESUME", "deal", "mass_prompts", "resume_lp", "withdraw"]

LP_RESUME = "mass.lp"

ASK_LP = Text("「{name}」に{amount}点のダメージ。指揮官{leader}のLP（残り{lp}）で何点受けますか？"
              "残りは戦力が減ります。",
              "'{name}' takes {amount} damage. How much will {leader} take on LP ({lp} left)? "
              "The rest comes off strength.")


def mass_prompts(tx: Tx, resume: str | None = None, **match: object) -> list[Prompt]:
    """Open prompts of mass combat (of one kind, matching context values)."""
    return [p for p in tx.state.prompts.values()
            if p.resume.startswith("mass.") and (resume is None or p.resume == resume)
            and all(p.context.get(k) == v for k, v in match.items())]


def withdraw(tx: Tx, prompts: list[Prompt]) -> None:
    """Take back prompts that no longer need an answer."""
    for p in prompts:
        tx.delete(("prompts", p.id))
        tx.emit("prompt.withdrawn", prompt=p.id)


def deal(tx: Tx, unit: Unit, amount: int, source: str) -> None:
    """MASS-DMG-1/2: an enemy's damage; the leader's LP may absorb part (asked)."""
    if amount <= 0 or unit.routed:
        return
    # MASS-DMG-2 is the commanding PC's: a GM-run unit takes nothing on LP, so whether the
    # war waits never tells the players what the GM's leaders hold.
    lp = unit.lp or 0 if unit.player is not None else 0
    if lp <= 0:
        lose(tx, unit, amount, source)
        return
    if has_flag(unit, "lp_only"):  # 指揮官突撃: the damage goes to the PC's LP
        _split(tx, unit, amount, min(amount, lp), source)
        return
    top = min(amount, lp)
    tx.ask(owner_key(unit), ASK_LP.format(name=unit.name, amount=amount, leader=unit.leader or
                                          unit.name, lp=lp),
           LP_RESUME, [(str(n), Text(f"LPで{n}点", f"{n} on LP")) for n in range(top + 1)],
           kind="mass.lp", about=_lp_about(unit, source), unit=unit.id, amount=amount,
           source=source)


def _lp_about(unit: Unit, source: str) -> dict[str, str]:
    """The damaged unit, and the enemy unit whose attack or strategy dealt the damage."""
    about = {"unit": unit.id, "side": unit.side}
    if source.startswith(("attack:", "strategy:")):
        about["from"] = source.rsplit(":", 1)[1]
    return about


def _split(tx: Tx, unit: Unit, amount: int, on_lp: int, source: str) -> None:
    lp = unit.lp or 0
    if on_lp:
        set_unit(tx, unit, lp=lp - on_lp)
        tx.emit("mass.lp", unit=unit.id, lp=lp - on_lp, taken=on_lp, source=source)
        tx.say(Text(f"{unit.leader or unit.name}がLPで{on_lp}点受けた（LP {lp} → {lp - on_lp}）",
                    f"{unit.leader or unit.name} takes {on_lp} on LP (LP {lp} → {lp - on_lp})"))
    lose(tx, unit, amount - on_lp, source)
    tx.report(MassLp(unit=unit.id, on_lp=on_lp, on_strength=amount - on_lp, lp=unit.lp or 0,
                     strength=unit.strength), about=[("mass", "units", unit.id, "lp")])


def resume_lp(tx: Tx, prompt: Prompt, choice: str) -> None:
    """The player's answer: `choice` points on LP, the rest on strength."""
    m: MassState = mass_of(tx)
    unit = m.units[str(prompt.context["unit"])]
    amount = int(prompt.context["amount"])
    on_lp = min(int(choice), unit.lp or 0, amount)
    _split(tx, unit, amount, on_lp, str(prompt.context["source"]))
