"""The GM's roll ledger: the last rolls each bridge delivered and what became of each.

A bridge's `table.event` that carried a roll (its adapter's `EventResult.roll`, see
adapters/base.py `RollSeen`) is kept here once the room has answered it: used (by which
action, for which rule's check) or not (the refusal's code and reason: the adapter's, such
as "no check is waiting", or the engine's). The last `KEEP` per bridge (its principal, so
a reconnect keeps them) are kept in memory only; each is sent to the GMs as a `notice` of
kind `roll`, and a joining GM is sent every kept one, oldest first. So a GM can tell "the
VTT's dice module prints lines komasync cannot read" from "nobody rolled".
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from ..adapters.base import RollSeen
from ..engine.actions import ActionBase
from ..engine.errors import Refusal, Text
from ..engine.outcomes import Result
from .connection import Connection

__all__ = ["KEEP", "RollLedger", "used_for"]

KEEP = 20
"""Rolls kept per bridge."""

USED = Text("{rule} の{what}に使いました", "used for the {rule} {what}")
USED_BY = Text("{kind} に使いました", "used by {kind}")


def used_for(action: ActionBase, results: Sequence[Result]) -> tuple[str | None, Text]:
    """The rule and the sentence of what a roll was used for by `action`: the check one of
    its results reports (`Result.roll_check`), else the action's own (`ActionBase.roll_check`)."""
    check = next((c for r in results if (c := r.roll_check(action)) is not None),
                 action.roll_check)
    if check is not None:
        rule, what = check
        return rule, _used(rule, what)
    kind = str(getattr(action, "kind", "?"))
    return None, Text(USED_BY.ja.format(kind=kind), USED_BY.en.format(kind=kind))


def _used(rule: str, what: Text) -> Text:
    return Text(USED.ja.format(rule=rule, what=what.ja), USED.en.format(rule=rule, what=what.en))


def _text(t: Text | None) -> dict[str, str] | None:
    return None if t is None else {"ja": t.ja, "en": t.en}


class RollLedger:
    """The last `keep` rolls of each bridge of one room, as the GM's notices show them."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self.kept: dict[str, deque[dict[str, Any]]] = {}
        self.seq = 0  # each entry's id: a GM that rejoins replaces what it already has

    def used(self, conn: Connection, roll: RollSeen, action: ActionBase,
             results: Sequence[Result]) -> dict[str, Any]:
        """A roll that made an action the engine applied."""
        rule, said = used_for(action, results)
        return self._add(conn, roll, {"used": True, "action": getattr(action, "kind", "?"),
                                      "rule": rule, "text": _text(said)})

    def refused(self, conn: Connection, roll: RollSeen, refusal: Refusal,
                why: Text | None, action: ActionBase | None) -> dict[str, Any]:
        """A roll that made no action (`why`: the adapter's reason) or whose action the
        engine refused (the GM reads every refusal whole)."""
        reason = why or Text(refusal.ja, refusal.en)
        return self._add(conn, roll, {"used": False, "code": refusal.code, "rule": refusal.rule,
                                      "action": getattr(action, "kind", None),
                                      "text": _text(reason)})

    def _add(self, conn: Connection, roll: RollSeen, outcome: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        entry = {
            "id": self.seq, "at": time.time(),
            "bridge": {"principal": conn.principal, "label": conn.label,
                       "platform": conn.platform},
            "text": roll.text, "speaker": roll.speaker, "formula": roll.formula,
            "dice": roll.dice, "total": roll.total,
            "pc": {"id": roll.pc, "name": roll.pc_name or roll.pc} if roll.pc else None,
            "player": ({"id": roll.player, "name": roll.player_name or roll.player}
                       if roll.player else None),
            "note": _text(roll.note), "outcome": outcome,
        }
        kept = self.kept.setdefault(conn.principal, deque(maxlen=self.keep))
        kept.append(entry)
        return entry

    def entries(self) -> list[dict[str, Any]]:
        """Every kept entry, oldest first."""
        return sorted((e for kept in self.kept.values() for e in kept), key=lambda e: e["id"])
