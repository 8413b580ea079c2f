"""What an open exchange waits for and from whom (`Exchange.awaiting`): kept current by
the settler after every action, so a client never has to work it out from the stage."""

from __future__ import annotations

from ..tx import Tx
from .defence import coverers, defenders
from .model import ATTACKS, Awaited, Awaiting, EngagementState, Exchange
from .rules import PATH, controller

__all__ = ["awaiting_of", "refresh_awaiting"]


def awaiting_of(tx: Tx, s: EngagementState, ex: Exchange) -> Awaiting | None:
    """A reported line (`attack_check`, `defence_check`, `damage`) from the one who rolls
    it; else an approach's `cover` from the allies who could still cover, the target
    deciding; else the `defence` from the target and the allies who could answer."""
    check = ex.check
    if check is not None and check.total is None:
        what: Awaited = ("attack_check" if check.purpose in ATTACKS else
                         "damage" if check.purpose == "damage" else "defence_check")
        return _from(tx, s, what, [check.who], None)
    if ex.stage == "cover":
        return _from(tx, s, "cover", [c.id for c in coverers(tx, s, ex)], ex.target)
    if ex.stage == "defence":
        return _from(tx, s, "defence", defenders(tx, s, ex), ex.target)
    return None


def _from(tx: Tx, s: EngagementState, what: Awaited, who: list[str], decides: str | None
          ) -> Awaiting:
    players: list[str] = []
    gm = False
    for cid in [*who, *([decides] if decides else [])]:
        c = s.combatants.get(cid)
        addressee = controller(tx, c) if c is not None else "gm"
        player = addressee.removeprefix("player:")
        if addressee == "gm":
            gm = True
        elif player not in players:
            players.append(player)
    return Awaiting(what=what, who=who, decides=decides, players=players, by_gm=gm)


def refresh_awaiting(tx: Tx, s: EngagementState) -> None:
    """Settler part: each open exchange's `awaiting` as the state now stands (a row move
    or a new pair changes who could still cover)."""
    for field in ("exchange", "hidden_exchange"):
        ex = getattr(s, field)
        if ex is None:
            continue
        now = awaiting_of(tx, s, ex)
        if now != ex.awaiting:
            tx.set((PATH, field, "awaiting"), now)
