"""Rounds: start, the player round and the enemy round in turn, effect durations, the end.

GRID-RND-1 the GM starts seamless combat; it opens with the player round (GRID-X-1: the
enemy round on a surprise). GRID-RND-2 a side's round ends when every character of that
side in the scene and able to act has completed its main process. GRID-RND-3 it ends
when no enemy is left standing in the scene, or when the GM ends the scene.
GRID-DUR-1 scene-duration effects vanish at the start; GRID-DUR-2 one-round and
until-cleanup effects last one cycle (see `expiry_turn`).
"""

from __future__ import annotations

from ..combatants import Combatant, Status, expire_statuses, is_down
from ..errors import Text
from ..tx import Tx
from .model import GridState, Outcome, RoundSide, side_label
from .process import end_process
from .refusals import NO_PIECE
from .rules import BASE, in_scene, name_of, table

__all__ = ["able", "begin", "expiry_turn", "finish", "settle_grid", "side_of_turn"]

STARTED = Text("シームレス戦闘開始（{side}から）", "Seamless combat begins ({side_en} first)")
ROUND = Text("ラウンド{n} {side}開始", "Round {n}: the {side_en} begins")
ENDED = {
    "wiped": Text("エネミーが全滅しました。シームレス戦闘終了。",
                  "Every enemy is down; seamless combat is over."),
    "ended": Text("GMがシーンを切り替えました。シームレス戦闘終了。",
                  "The GM changed the scene; seamless combat is over."),
}
EXPIRED = Text("「{n}」の{s}が消滅しました", "{s_en} on {n} has ended")
DUE = Text("イベント: {ja}", "Event: {en}")


def side_of_turn(g: GridState, turn: int) -> RoundSide:
    """Side-rounds alternate from the first side."""
    if turn % 2 == 0:
        return g.first
    return "enemy" if g.first == "pc" else "pc"


def expiry_turn(g: GridState, status: Status) -> int | None:
    """GRID-DUR-2 a one-round or until-cleanup effect ends as the next round of the side
    during whose round it came (two side-rounds later) begins."""
    if status.duration not in ("round", "cleanup"):
        return None
    return g.turn + 2 if g.active else 2


def able(g: GridState, tx: Tx, c: Combatant) -> bool:
    """In the scene and able to act (GRID-ST-5: incapacitated characters do nothing)."""
    return in_scene(table(tx), c) and not is_down(c)


def begin(tx: Tx, g: GridState, surprise: bool) -> None:
    """GRID-RND-1 (GRID-X-1): round 1, the first side's round; GRID-DUR-1."""
    t = table(tx)
    for c in g.combatants.values():
        if c.piece not in t.pieces:
            raise NO_PIECE.refuse(id=c.id)
    first: RoundSide = "enemy" if surprise else "pc"
    for name, value in (("active", True), ("outcome", "none"), ("round", 1), ("turn", 0),
                        ("first", first), ("side", first), ("acted", []), ("process", None),
                        ("last", None)):
        tx.set(("grid", name), value)
    for c, s in expire_statuses(tx, BASE, g.combatants.values(), -1, ("scene",)):
        _expired(tx, c, s)
    for c in g.combatants.values():  # one-cycle effects from before count from round 1
        for s in c.statuses.values():
            if s.duration in ("round", "cleanup") and s.expires_turn is None:
                tx.set((*BASE, c.id, "statuses", s.id, "expires_turn"), 2)
    ja, en = side_label(first)
    tx.emit("grid.started", side=first)
    tx.say(STARTED.format(side=ja, side_en=en))
    _round_begins(tx, g)


def _expired(tx: Tx, c: Combatant, s: Status) -> None:
    ja, en = s.label()
    tx.emit("grid.status.expired", combatant=c.id, status=s.id)
    if not c.hidden:
        tx.say(EXPIRED.format(n=name_of(table(tx), c), s=ja, s_en=en))


def _round_begins(tx: Tx, g: GridState) -> None:
    """A side-round begins: announce it, end due one-cycle effects, fire due events."""
    side = g.side or "pc"
    ja, en = side_label(side)
    tx.emit("grid.round.started", round=g.round, side=side, turn=g.turn)
    tx.say(ROUND.format(n=g.round, side=ja, side_en=en))
    for c, s in expire_statuses(tx, BASE, g.combatants.values(), g.turn):
        _expired(tx, c, s)
    for e in g.events.values():
        if not e.done and e.round == g.round and e.side == side:
            tx.set(("grid", "events", e.id, "done"), True)
            tx.emit("grid.event.due", event=e.id)
            tx.say(DUE.format(ja=e.ja, en=e.en or e.ja), chat=e.announced)


def _next_turn(tx: Tx, g: GridState) -> None:
    turn = g.turn + 1
    tx.set(("grid", "turn"), turn)
    tx.set(("grid", "round"), turn // 2 + 1)
    tx.set(("grid", "side"), side_of_turn(g, turn))
    tx.set(("grid", "acted"), [])
    tx.set(("grid", "last"), None)
    _round_begins(tx, g)


def finish(tx: Tx, g: GridState, outcome: Outcome) -> None:
    """GRID-RND-3 seamless combat is over."""
    for name, value in (("active", False), ("outcome", outcome), ("side", None),
                        ("process", None), ("last", None)):
        tx.set(("grid", name), value)
    tx.emit("grid.ended", outcome=outcome)
    tx.say(ENDED[outcome])


def _sync_hidden(tx: Tx, g: GridState) -> None:
    """A combatant is hidden exactly when its piece is (the GM hides and reveals pieces)."""
    pieces = table(tx).pieces
    for c in g.combatants.values():
        piece = pieces.get(c.piece)
        hidden = piece.hidden if piece is not None else c.hidden
        if hidden != c.hidden:
            tx.set((*BASE, c.id, "hidden"), hidden)
            if hidden and g.last is not None and g.last.combatant == c.id:
                tx.set(("grid", "last"), None)  # its id is the GM's alone now


def settle_grid(tx: Tx) -> None:
    """Settler: keep hidden in step; close a process whose character went down; end the
    combat when the enemies are gone (GRID-RND-3); end a side's round when all of it has
    acted (GRID-RND-2)."""
    g = tx.part("grid", GridState)
    if g is None:
        return
    _sync_hidden(tx, g)
    if not g.active:
        return
    p = g.process
    if p is not None:
        c = g.combatants.get(p.combatant)
        if c is None or not able(g, tx, c):
            if c is None:
                tx.set(("grid", "process"), None)
            else:
                end_process(tx, g, c)
    if not any(c.side == "enemy" and able(g, tx, c) for c in g.combatants.values()):
        finish(tx, g, "wiped")
        return
    if g.process is None and all(c.id in g.acted for c in g.combatants.values()
                                 if c.side == g.side and able(g, tx, c)):
        _next_turn(tx, g)
