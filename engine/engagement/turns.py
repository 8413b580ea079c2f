"""The turn (komasync's ENG-TURN): the GM starts the battle at turn 1's setup and moves
setup → initiative/main → cleanup → the next turn's setup. The end of a setup dissolves
every engagement from an earlier turn (ENG-EF-3); the end of the battle dissolves all."""

from __future__ import annotations

from typing import Literal

from ..actions import ActionBase
from ..combatants import sync_hidden
from ..errors import Text
from ..tx import Tx
from .awaiting import refresh_awaiting
from .model import TURN, EngagementState, Phase
from .refusals import ALREADY_ACTIVE, EXCHANGE_OPEN, WRONG_PHASE
from .relation import dissolve, end_setup
from .results import TurnMoved
from .rules import BASE, PATH, eng, name, need_active, table

__all__ = ["PHASE_NAMES", "TURN_ACTIONS", "EndBattle", "NextPhase", "StartBattle", "settle"]

PHASE_NAMES: dict[str, tuple[str, str]] = TURN.names()
STARTED = Text("戦闘開始: ターン1 セットアップ", "The battle begins: turn 1, setup")
PHASE = Text("ターン{turn} {phase}", "Turn {turn}: {phase_en}")
ENDED = Text("戦闘終了: すべての接近状態が解消されました", "The battle is over: every engagement has ended")


def _announce(tx: Tx, s: EngagementState) -> None:
    ja, en = PHASE_NAMES[s.phase]
    tx.emit("engagement.phase", turn=s.turn, phase=s.phase)
    tx.say(PHASE.format(turn=s.turn, phase=ja, phase_en=en))
    tx.report(TurnMoved(turn=s.turn, phase=s.phase), about=[(PATH, "phase")])


class StartBattle(ActionBase):
    """GM: the battle begins at turn 1's setup (ENG-TURN)."""

    kind: Literal["engagement.start"] = "engagement.start"

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        if s.active:
            raise ALREADY_ACTIVE.refuse()
        tx.set((PATH, "active"), True)
        tx.set((PATH, "turn"), 1)
        tx.set((PATH, "phase"), "setup")
        tx.set((PATH, "used"), {})
        tx.emit("engagement.started")
        tx.say(STARTED)
        tx.report(TurnMoved(turn=1, phase="setup"), about=[(PATH, "phase")])


class NextPhase(ActionBase):
    """GM: on to the next phase (`to` names it, as a check of what the GM expects).
    Leaving a setup ends every engagement from an earlier turn (ENG-EF-3)."""

    kind: Literal["engagement.phase"] = "engagement.phase"
    to: Phase | None = None

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        need_active(s)
        busy = s.open_exchanges()  # the hidden one too: the GM finishes it first
        if busy:
            raise EXCHANGE_OPEN.refuse(alt="phase", n=name(tx, busy[0].attacker))
        nxt = TURN.next_of(s.phase)
        assert nxt is not None  # the turn is a cycle: every phase has a successor
        if self.to is not None and self.to != nxt:
            now, then = PHASE_NAMES[s.phase], PHASE_NAMES[nxt]
            raise WRONG_PHASE.refuse(phase=now[0], phase_en=now[1], next=then[0], next_en=then[1])
        if s.phase == "setup":
            end_setup(tx, s)
        if nxt == "setup":
            tx.set((PATH, "turn"), s.turn + 1)
        tx.set((PATH, "phase"), nxt)
        _announce(tx, s)


class EndBattle(ActionBase):
    """GM: the battle is over; every engagement and pending question ends."""

    kind: Literal["engagement.end"] = "engagement.end"

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        need_active(s)
        tx.set((PATH, "exchange"), None)
        tx.set((PATH, "hidden_exchange"), None)
        for key in list(s.pairs):
            dissolve(tx, s, key, "ended")
        for pid in list(s.offers):
            tx.delete((PATH, "offers", pid))
            tx.delete(("prompts", pid))
        tx.set((PATH, "left"), {})
        tx.set((PATH, "active"), False)
        tx.emit("engagement.ended")
        tx.say(ENDED)


def settle(tx: Tx) -> None:
    """Settler: combatants hidden exactly when their pieces are; pairs, offers and the
    exchange hidden while they involve a hidden character."""
    s = tx.part(PATH, EngagementState)
    if s is None:
        return
    sync_hidden(tx, BASE, s.combatants.values(), table(tx).pieces)

    def hidden(*ids: str) -> bool:
        return any((c := s.combatants.get(i)) is not None and c.hidden for i in ids)

    for key, p in s.pairs.items():
        if p.hidden != hidden(p.a, p.b):
            tx.set((PATH, "pairs", key, "hidden"), not p.hidden)
    for pid, o in s.offers.items():
        if o.hidden != hidden(o.leaver, o.partner, *o.formed.split("|")):
            tx.set((PATH, "offers", pid, "hidden"), not o.hidden)
    for key, gone in s.left.items():
        if gone.hidden != hidden(gone.leaver, gone.partner):
            tx.set((PATH, "left", key, "hidden"), not gone.hidden)
    for cid, u in s.used.items():
        if u.hidden != hidden(cid):
            tx.set((PATH, "used", cid, "hidden"), not u.hidden)
    for field in ("exchange", "hidden_exchange"):
        ex = getattr(s, field)
        if ex is not None:
            ids = [ex.attacker, ex.target, *([ex.defence.by] if ex.defence else [])]
            if ex.hidden != hidden(*ids):
                tx.set((PATH, field, "hidden"), not ex.hidden)
    _reslot(tx, s)
    refresh_awaiting(tx, s)


def _reslot(tx: Tx, s: EngagementState) -> None:
    """An attack whose character was hidden or revealed mid-way moves to its slot when
    that is free (until then it stays where it is: the GM's call to finish it)."""
    ex, lurking = s.exchange, s.hidden_exchange
    if ex is not None and ex.hidden and lurking is None:
        tx.set((PATH, "hidden_exchange"), ex)
        tx.set((PATH, "exchange"), None)
    elif lurking is not None and not lurking.hidden and ex is None:
        tx.set((PATH, "exchange"), lurking)
        tx.set((PATH, "hidden_exchange"), None)


TURN_ACTIONS: tuple[type[ActionBase], ...] = (StartBattle, NextPhase, EndBattle)
