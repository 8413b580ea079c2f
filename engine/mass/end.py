"""The end of the war (MASS-END): a side loses when all its units are routed or its
commander-in-chief (総大将) is; both at once is a draw. Also a settler, so a GM override
that zeroes a strength routs the unit and ends the war just the same."""

from __future__ import annotations

from ..errors import Text
from ..tx import Tx
from .damage import mass_prompts, withdraw
from .model import MassState
from .rules import PATH, rout

__all__ = ["lost_sides", "set_outcome", "settle"]

REASONS: dict[str, tuple[str, str]] = {
    "wiped_out": ("全部隊が敗走", "every unit routed"),
    "commander_routed": ("総大将が敗走", "the commander-in-chief was routed"),
    "gm": ("GMの宣言", "declared by the GM"),
}


def lost_sides(m: MassState) -> dict[str, str]:
    """Sides that have lost, with why."""
    out: dict[str, str] = {}
    for side in m.sides.values():
        units = [u for u in m.units.values() if u.side == side.id]
        if side.commander is not None and m.units[side.commander].routed:
            out[side.id] = "commander_routed"
        elif units and all(u.routed for u in units):
            out[side.id] = "wiped_out"
    return out


def set_outcome(tx: Tx, winner: str | None, reason: str, note: str = "") -> None:
    """Decide the war: `winner` side, or None for a draw; open war prompts are withdrawn."""
    m = tx.part(PATH, MassState)
    assert m is not None
    tx.set((PATH, "outcome"), "won" if winner else "draw")
    tx.set((PATH, "winner"), winner)
    tx.set((PATH, "outcome_reason"), reason)
    tx.set((PATH, "step"), "over")
    tx.set((PATH, "attack"), None)
    tx.set((PATH, "current"), None)
    tx.set((PATH, "closing"), None)
    withdraw(tx, mass_prompts(tx))
    tx.emit("mass.outcome", winner=winner, reason=reason, note=note)
    ja, en = REASONS.get(reason, (reason, reason))
    if winner is None:
        tx.say(Text(f"戦争は引き分け（{ja}）。{note}", f"The war is a draw ({en}). {note}".strip()))
    else:
        side = m.sides[winner]
        tx.say(Text(f"{side.name}の勝利（{ja}）。{note}",
                    f"{side.en or side.name} wins ({en}). {note}".strip()))


def settle(tx: Tx) -> None:
    """Settler: strength 0 means routed (MASS-PREP-2); then the end check (MASS-END)."""
    m = tx.part(PATH, MassState)
    if m is None or m.outcome != "none" or m.step == "preparation":
        return
    for unit in m.units.values():
        if unit.strength <= 0 and not unit.routed:
            rout(tx, unit, "strength")
    lost = lost_sides(m)
    if not lost:
        return
    left = [s for s in m.sides if s not in lost]
    reason = next(iter(lost.values())) if len(left) == 1 else "wiped_out"
    set_outcome(tx, left[0] if len(left) == 1 else None, reason)
