"""The main process's actions: start it, move, end a step, end it; and the GM's start/end.

Who: a PC's player (or a bridge naming them in `by`) acts for that PC; the GM for
anyone. A drop of a combatant's piece (`table.move`, what the bridges send) during
combat is judged here too, as a move of its process (`judge_table_move`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import StrictBool

from ..actions import ActionBase
from ..bounds import Id
from ..combatants import Combatant, Status, add_status, adjust_counter
from ..errors import Text
from ..prompts import Prompt
from ..table import Cell
from ..tx import Happening, Role, Tx
from .model import GridState, Process, Step
from .moves import hostile_near, move_in_process, move_piece, not_in_process
from .process import end_process as close
from .process import finish_step, put
from .refusals import (
    ALREADY_ACTED,
    ALREADY_ACTIVE,
    INCAPACITATED,
    NO_SURPRISE,
    NOT_YOUR_ROUND,
    PROCESS_OPEN,
)
from .results import report_process
from .rounds import able, begin, finish
from .rules import BASE, acting, as_cell, grid, name_of, need_active, on_map, table

__all__ = ["ACTIONS", "HINDER_RESUME", "EndProcess", "EndStep", "Move", "StartCombat",
           "StartProcess", "StopCombat", "judge_table_move", "resume_hindrance"]

ACTORS = frozenset[Role]({"gm", "player", "bridge"})

STARTS = Text("「{n}」のメインプロセス開始", "{n} begins its main process")
POISON = Text("「{n}」は[毒]で{d}ダメージ（{c} {old}→{new}）",
              "{n} takes {d} poison damage ({c} {old}→{new})")
POISON_ASK = Text("「{n}」は[毒]のダメージを受けます（規定ダメージを適用してください）",
                  "{n} takes poison damage (apply the damage the effect states)")
HINDER_Q = Text("[移動妨害]: 「{n}」が({x}, {y})を通過しました。宣言しますか？",
                "[Movement hindrance]: {n} passed ({x}, {y}). Declare it?")
PASS = Text("宣言しない", "let it pass")
HINDER_BY = Text("{d}が宣言する", "{d} declares it")
HINDERED = Text("{d}の[移動妨害]: 「{n}」は({x}, {y})で停止", "{d} hinders {n}: it stops at ({x}, {y})")


class StartCombat(ActionBase):
    """GM: seamless combat begins (GRID-RND-1; `surprise` GRID-X-1: enemy round first)."""

    kind: Literal["grid.start"] = "grid.start"
    surprise: StrictBool = False

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        if g.active:
            raise ALREADY_ACTIVE.refuse()
        if self.surprise:
            tx.check(g.settings.surprise, NO_SURPRISE.refuse())
        begin(tx, g, self.surprise)


class StopCombat(ActionBase):
    """GM: the scene changes; seamless combat ends (GRID-RND-3)."""

    kind: Literal["grid.end"] = "grid.end"

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        need_active(g)
        finish(tx, g, "ended")


def _process_of(tx: Tx, g: GridState, c: Combatant) -> Process | None:
    p = g.process
    return p if p is not None and p.combatant == c.id else None


class StartProcess(ActionBase):
    """Declare a character's main process (GRID-RND-2: in order of declaration);
    GRID-ST-1 poison strikes now."""

    kind: Literal["grid.process.start"] = "grid.process.start"
    roles = ACTORS
    combatant: Id
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g, c = acting(tx, self.combatant)
        t = table(tx)
        name = name_of(t, c)
        here = on_map(tx, c)
        if g.process is not None:
            other = g.combatants.get(g.process.combatant)
            raise PROCESS_OPEN.refuse(n=name_of(t, other) if other else "?")
        side_ja, side_en = ("プレイヤーラウンド", "player round") if g.side == "pc" else (
            "エネミーラウンド", "enemy round")
        tx.check(c.side == g.side, NOT_YOUR_ROUND.refuse(side=side_ja, side_en=side_en, n=name))
        tx.check(c.id not in g.acted, ALREADY_ACTED.refuse(n=name))
        if not able(g, tx, c):
            raise INCAPACITATED.refuse(n=name)
        put(tx, Process(combatant=c.id, start=Cell(x=here[0], y=here[1])))
        tx.emit("grid.process.started", combatant=c.id)
        tx.say(STARTS.format(n=name))
        _poison(tx, c, name)
        report_process(tx, c.id)


def _poison(tx: Tx, c: Combatant, name: str) -> None:
    """GRID-ST-1 a poisoned character takes the damage as its main process starts."""
    for s in c.statuses.values():
        if s.kind != "poison":
            continue
        changed = adjust_counter(tx, c, s.counter, -s.value) if s.value else None
        tx.emit("grid.poison", combatant=c.id, status=s.id, damage=s.value)
        if changed is None:
            tx.say(POISON_ASK.format(n=name))
        else:
            tx.say(POISON.format(n=name, d=s.value, c=s.counter, old=changed[0], new=changed[1]))


def open_process(tx: Tx, g: GridState, c: Combatant) -> Process:
    """The character's open process, or the refusal saying whose it is (GRID-MV-1)."""
    p = _process_of(tx, g, c)
    if p is None:
        raise not_in_process(tx, g, c)
    return p


class Move(ActionBase):
    """Move a piece in its main process: the cheapest legal path within what is left
    (GRID-MV-1/2/3, GRID-SK-1/2, GRID-ST-2, GRID-X-2); GRID-X-3 may stop it."""

    kind: Literal["grid.move"] = "grid.move"
    roles = ACTORS
    combatant: Id
    to: Cell
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g, c = acting(tx, self.combatant)
        on_map(tx, c)
        move_combatant(tx, g, c, (self.to.x, self.to.y))


def move_combatant(tx: Tx, g: GridState, c: Combatant, to: tuple[int, int]) -> None:
    """A move of `c` to `to`: judged in its open process; without one, GRID-MV-1 refuses
    (under `warn`/`off` the piece is placed)."""
    p = _process_of(tx, g, c)
    if p is None:
        tx.check(False, not_in_process(tx, g, c))
        move_piece(tx, c, to)
        return
    legs = move_in_process(tx, g, c, p, to)
    if legs and g.settings.hindrance:
        _offer_hindrance(tx, g, c, legs)


def _offer_hindrance(tx: Tx, g: GridState, c: Combatant,
                     legs: list[tuple[Step, tuple[tuple[int, int], ...]]]) -> None:
    """GRID-X-3 at the first square passed inside an opponent's range 0 (not by the move
    action's movement, not the square it ends on) that side may declare [移動妨害]."""
    end = legs[-1][1][-1]
    passed = [sq for step, squares in legs if step != "move" for sq in squares if sq != end]
    for sq in passed:
        near = hostile_near(g, tx, c, sq)
        if not near:
            continue
        t = table(tx)
        owners = {t.pieces[o.piece].owner for o in near if o.piece in t.pieces}
        owner = next(iter(owners)) if len(owners) == 1 else None
        to = "gm" if near[0].side == "enemy" else (f"player:{owner}" if owner else "players")
        choices = [(f"hinder:{o.id}", HINDER_BY.format(d=name_of(t, o))) for o in near]
        pid = tx.ask(to, HINDER_Q.format(n=name_of(t, c), x=sq[0], y=sq[1]), HINDER_RESUME,
                     [*choices, ("pass", PASS)], kind="grid.hindrance", about={"mover": c.id},
                     mover=c.id, x=sq[0], y=sq[1])
        if g.process is not None and g.process.combatant == c.id:
            put(tx, g.process.model_copy(update={"waiting": pid}))
        return


def resume_hindrance(tx: Tx, prompt: Prompt, choice: str) -> None:
    """GRID-X-3 answered: on a declaration the mover stops at that square, its step's
    movement ends, and nobody may pass over it this side-round."""
    g = grid(tx)
    mover = g.combatants.get(str(prompt.context.get("mover")))
    if mover is None:
        return
    p = _process_of(tx, g, mover)
    if p is not None:
        stopped = choice.startswith("hinder:")
        put(tx, p.model_copy(update={"waiting": None, "left": 0 if stopped else p.left}))
    if not choice.startswith("hinder:"):
        return
    sq = (int(prompt.context["x"]), int(prompt.context["y"]))
    move_piece(tx, mover, sq)
    declarer = g.combatants.get(choice.split(":", 1)[1])
    add_status(tx, BASE, mover, Status(id=tx.next_id("st"), kind="hindered",
                                       expires_turn=g.turn + 1))
    t = table(tx)
    tx.emit("grid.hindered", combatant=mover.id, by=declarer.id if declarer else None,
            at=as_cell(sq))
    tx.say(HINDERED.format(n=name_of(t, mover), d=name_of(t, declarer) if declarer else "?",
                           x=sq[0], y=sq[1]))


HINDER_RESUME = "grid.hinder"


class EndStep(ActionBase):
    """End the current step (move → minor → major → flying's step → done)."""

    kind: Literal["grid.step.end"] = "grid.step.end"
    roles = ACTORS
    combatant: Id
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g, c = acting(tx, self.combatant)
        p = open_process(tx, g, c)
        finish_step(tx, g, c, p)
        report_process(tx, c.id)


class EndProcess(ActionBase):
    """Complete the main process now, leaving what is unused (GRID-RND-2)."""

    kind: Literal["grid.process.end"] = "grid.process.end"
    roles = ACTORS
    combatant: Id
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g, c = acting(tx, self.combatant)
        open_process(tx, g, c)
        close(tx, g, c)
        report_process(tx, c.id)


def judge_table_move(tx: Tx, h: Happening) -> None:
    """Trigger on `piece.moved`: in combat, a combatant's piece dropped on the table is a
    move of its process, judged like `grid.move`. The GM (or a bridge naming no player)
    may still place a piece whose process is not open."""
    g = tx.part("grid", GridState)
    if g is None or not g.active:
        return
    pid = str(h.data.get("piece"))
    c = next((x for x in g.combatants.values() if x.piece == pid), None)
    if c is None or c.hidden:
        return
    by = h.data.get("by")
    gm_like = tx.actor.role == "gm" or (tx.actor.role == "bridge" and by is None)
    if gm_like and _process_of(tx, g, c) is None:
        return
    path = ("table", "pieces", pid, "cell")
    before = next((ch.old for ch in tx.changes if ch.path == path), None)
    to = h.data.get("to")
    if not isinstance(before, Cell) or not isinstance(to, dict):
        return  # placed from off the board: a placement, not a move
    tx.set(path, before)
    move_combatant(tx, g, c, (int(to["x"]), int(to["y"])))


ACTIONS: tuple[type[ActionBase], ...] = (StartCombat, StopCombat, StartProcess, Move, EndStep,
                                         EndProcess)
