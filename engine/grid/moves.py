"""Judging one move of a piece against its open main process (GRID-MV-*, GRID-SK-1/2,
GRID-ST-2, GRID-X-2/3), and saying exactly why when it is refused.

A move is legal when `movement.plan` finds a path within the process's bins (see
process.bins). A refusal names the first rule that explains it, in the order a player
would think of it: the square itself, paralysis, the step's limits, diagonal cost,
distance, then what stands in the way. Nothing hidden is on the board, so nothing
hidden can shape a refusal.
"""

from __future__ import annotations

from ..combatants import Combatant, has_status
from ..errors import Refusal, Text
from ..tx import Tx
from .geometry import Sq, manhattan, on_board
from .model import GridState, Process, Step
from .movement import Board, Plan, plan, reach
from .process import STEP_NAMES, bins, major_may_move, settle_step, spend
from .rounds import able
from .rules import WAITING, as_cell, board_for, cell, name_of, opponents, table

__all__ = ["hostile_near", "judge", "move_in_process", "move_piece", "not_in_process",
           "refusal_for"]

NOT_IN_PROCESS = Text("「{n}」はメインプロセス中ではありません。"
                      "戦闘中のコマはメインプロセスでアクションを消費して動かします。",
                      "{n} is not in its main process; during combat a piece moves only by "
                      "spending its main process's actions.")
NOT_YOURS_NOW = Text("今は「{n}」のメインプロセス中です（GRID-RND-2）。",
                     "It is {n}'s main process now (GRID-RND-2).")
OFF_BOARD = Text("マス({x}, {y})はマップの外です。", "Square ({x}, {y}) is off the map.")
SAME = Text("同じマスです。", "That is the square it already stands on.")
WALL = Text("マス({x}, {y})は障害物か移動不能エリアです（GRID-MV-3）。",
            "Square ({x}, {y}) is an obstacle or the off-map area (GRID-MV-3).")
OCCUPIED = Text("マス({x}, {y})には敵のコマがいます。敵のコマには重なれません（GRID-MV-3）。",
                "An enemy stands on ({x}, {y}); a piece cannot share an enemy's square "
                "(GRID-MV-3).")
PARALYSED = Text("「{n}」は[麻痺]で移動できません。ムーブアクションで解除できます（GRID-ST-2）。",
                 "{n} is paralysed and cannot move; a move action removes it (GRID-ST-2).")
NO_MAJOR_MOVE = Text("「{n}」はこのメインプロセスではメジャーで移動できません（GRID-SK-2）。",
                     "{n} may not move in the major this main process (GRID-SK-2).")
MAGIC = Text("魔法攻撃をしたのでこれ以上移動できません（GRID-X-2）。",
             "After a magic attack it may move no farther (GRID-X-2).")
DIRECTION = Text("ムーブ移動スキルを使ったので、同じ方向（{d}）にしか移動できません（GRID-SK-1）。",
                 "After a move skill it may move only in the same direction ({d}) (GRID-SK-1).")
DIAGONAL = Text("斜めの移動は2マス分です。{step}の残りは{left}マスです（GRID-MV-2）。",
                "A diagonal step costs 2 squares; {step_en} has {left} left (GRID-MV-2).")
TOO_FAR = Text("{cost}マス必要ですが、"
               "移動できるのは{left}マスまでです（{step}: ムーブ1・マイナー2・メジャー2、GRID-MV-1）。",
               "That takes {cost} squares; only {left} can be moved now ({step_en}: move 1, "
               "minor 2, major 2; GRID-MV-1).")
NO_STEP = Text("このメインプロセスではもう移動に使えるステップがありません（GRID-MV-1）。",
               "No step of this main process is left for moving (GRID-MV-1).")
BLOCKED = Text("敵のコマか障害物が道をふさいでいます。味方と戦闘不能のコマは通過できますが、"
               "敵は通過できません（GRID-MV-3）。",
               "Enemies or obstacles block the way; allies and incapacitated pieces can be "
               "passed, enemies cannot (GRID-MV-3).")
MOVED = Text("「{n}」が{cost}マス移動（{steps}）", "{n} moves {cost} square(s) ({steps_en})")
DIRS = {(0, -1): ("上", "up"), (1, 0): ("右", "right"), (0, 1): ("下", "down"),
        (-1, 0): ("左", "left")}


def _bad_square(board: Board, to: Sq) -> Refusal | None:
    if not on_board(to, board.width, board.height):
        return Refusal("off_map", OFF_BOARD.format(x=to[0], y=to[1]), rule="GRID-MV-3")
    if to in board.walls:
        return Refusal("blocked_square", WALL.format(x=to[0], y=to[1]), rule="GRID-MV-3")
    if to in board.blockers:
        return Refusal("occupied", OCCUPIED.format(x=to[0], y=to[1]), rule="GRID-MV-3")
    return None


def refusal_for(g: GridState, c: Combatant, p: Process, board: Board, start: Sq, to: Sq,
                name: str) -> Refusal:
    """Why `to` is not a legal destination now (the move has already failed)."""
    bad = _bad_square(board, to)
    if bad is not None:
        return bad
    if has_status(c, "paralysis"):
        return Refusal("paralysed", PARALYSED.format(n=name), rule="GRID-ST-2")
    caps = [cap for _s, cap in bins(g, c, p)]
    step_ja, step_en = STEP_NAMES[p.step]
    if p.step == "major" and not major_may_move(c, p) and sum(caps) == 0:
        if p.magic:
            return Refusal("magic_attack_moved", MAGIC, rule="GRID-X-2")
        return Refusal("no_major_move", NO_MAJOR_MOVE.format(n=name), rule="GRID-SK-2")
    if sum(caps) == 0:
        return Refusal("no_step_left", NO_STEP, rule="GRID-MV-1")
    if p.direction is not None:
        d = (p.direction.x, p.direction.y)
        along = [(start[0] + d[0] * k, start[1] + d[1] * k) for k in range(1, board.width + board.height)]
        if to not in along:
            ja, en = DIRS.get(d, ("?", "?"))
            return Refusal("same_direction", DIRECTION.format(d=f"{ja} / {en}"), rule="GRID-SK-1")
    dist = manhattan(start, to)
    longest = max(caps)
    chebyshev = max(abs(start[0] - to[0]), abs(start[1] - to[1]))
    if chebyshev <= longest < dist and dist <= 2:
        return Refusal("diagonal_costs_two", DIAGONAL.format(
            step=step_ja, step_en=step_en, left=longest), rule="GRID-MV-2")
    if dist > sum(caps):
        return Refusal("too_far", TOO_FAR.format(cost=dist, left=sum(caps), step=step_ja,
                                                 step_en=step_en), rule="GRID-MV-1")
    open_map = Board(board.width, board.height, board.walls, frozenset(), board.corner_cutting)
    if plan(open_map, start, to, caps) is None:
        around = reach(open_map, start, [99]).get(to)
        cost = around.cost if around is not None else dist
        return Refusal("too_far", TOO_FAR.format(cost=cost, left=sum(caps), step=step_ja,
                                                 step_en=step_en), rule="GRID-MV-1")
    return Refusal("path_blocked", BLOCKED, rule="GRID-MV-3")


def judge(g: GridState, tx: Tx, c: Combatant, p: Process, to: Sq
          ) -> tuple[Plan | None, list[tuple[Step, int]], Refusal | None]:
    """The plan for moving `c` to `to` in its process, or why not."""
    t = table(tx)
    start = cell(t, c)
    assert start is not None
    board = board_for(g, t, c)
    caps = bins(g, c, p)
    if p.waiting is not None:
        return None, caps, Refusal("waiting_hindrance", WAITING, rule="GRID-X-3")
    if start == to:
        return None, caps, Refusal("same_square", SAME)
    lock = (p.direction.x, p.direction.y) if p.direction is not None else None
    found = plan(board, start, to, [cap for _s, cap in caps], lock)
    if found is not None and _bad_square(board, to) is None:
        return found, caps, None
    return None, caps, refusal_for(g, c, p, board, start, to, name_of(t, c))


def move_piece(tx: Tx, c: Combatant, to: Sq) -> None:
    tx.set(("table", "pieces", c.piece, "cell"), as_cell(to))


def move_in_process(tx: Tx, g: GridState, c: Combatant, p: Process, to: Sq
                    ) -> list[tuple[Step, tuple[Sq, ...]]]:
    """Move `c` in its open process, spending the steps its path runs through; returns
    the squares entered per step.

    Under `warn`/`off` a refused move still lands: it spends what is left of the
    current step (the GM was told).
    """
    found, caps, refusal = judge(g, tx, c, p, to)
    if refusal is not None:
        if refusal.code in ("waiting_hindrance", "same_square"):
            raise refusal
        tx.check(False, refusal)
        move_piece(tx, c, to)
        settle_step(tx, g, c, spend(p, p.step, "move", p.left))
        return []
    assert found is not None
    start = cell(table(tx), c)
    q = p
    for leg in found.legs:
        q = spend(q, caps[leg.bin][0], "move", leg.cost)
    move_piece(tx, c, to)
    steps = [caps[leg.bin][0] for leg in found.legs]
    tx.emit("grid.moved", combatant=c.id, frm=list(start or ()), to=list(to),
            path=[list(s) for s in found.path], cost=found.cost, steps=steps)
    tx.say(MOVED.format(n=name_of(table(tx), c), cost=found.cost,
                        steps="・".join(STEP_NAMES[s][0] for s in steps),
                        steps_en=", ".join(STEP_NAMES[s][1] for s in steps)))
    settle_step(tx, g, c, q)
    return [(caps[leg.bin][0], leg.squares) for leg in found.legs]


def not_in_process(tx: Tx, g: GridState, c: Combatant) -> Refusal:
    """GRID-MV-1 a piece in combat moves only in its main process (GRID-RND-2 names
    whose process is open)."""
    t = table(tx)
    other = g.combatants.get(g.process.combatant) if g.process is not None else None
    if other is not None:
        return Refusal("not_in_process", NOT_YOURS_NOW.format(n=name_of(t, other)),
                       rule="GRID-RND-2")
    return Refusal("not_in_process", NOT_IN_PROCESS.format(n=name_of(t, c)), rule="GRID-MV-1")


def hostile_near(g: GridState, tx: Tx, c: Combatant, sq: Sq) -> list[Combatant]:
    """Opponents able to act whose range 0 holds `sq` (GRID-X-3 possible declarers)."""
    t = table(tx)
    return [o for o in g.combatants.values() if opponents(c, o) and able(g, tx, o)
            and (here := cell(t, o)) is not None and manhattan(here, sq) <= 1]
