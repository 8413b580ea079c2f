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
from .refusals import (
    ALREADY_ACTED,
    BLOCKED_SQUARE,
    DIAGONAL_COSTS_TWO,
    MAGIC_ATTACK_MOVED,
    NO_FLYING_STEP,
    NO_MAJOR_MOVE,
    NO_STEP_LEFT,
    NOT_IN_PROCESS,
    NOT_THIS_STEP,
    OCCUPIED,
    OFF_MAP,
    OTHERS_PROCESS,
    PARALYSED,
    PATH_BLOCKED,
    SAME_DIRECTION,
    SAME_SQUARE,
    TOO_FAR,
    WAITING_HINDRANCE,
)
from .results import report_moved
from .rounds import able
from .rules import as_cell, board_for, cell, name_of, opponents, table

__all__ = ["hostile_near", "judge", "move_in_process", "move_piece", "not_in_process",
           "refusal_for"]

#: The move as the timeline, the undo dialog and the player's log say it: where to and the
#: squares each step spent (issue 30: 「剣士レオが(4,4)へ移動（ムーブ1・マイナー2）」).
MOVED = Text("{n}が({x},{y})へ移動（{steps}）", "{n} moves to ({x},{y}) ({steps_en})")
DIRS = {(0, -1): ("上", "up"), (1, 0): ("右", "right"), (0, 1): ("下", "down"),
        (-1, 0): ("左", "left")}


def _bad_square(board: Board, to: Sq) -> Refusal | None:
    if not on_board(to, board.width, board.height):
        return OFF_MAP.refuse(x=to[0], y=to[1])
    if to in board.walls:
        return BLOCKED_SQUARE.refuse(x=to[0], y=to[1])
    if to in board.blockers:
        return OCCUPIED.refuse(x=to[0], y=to[1])
    return None


def refusal_for(g: GridState, c: Combatant, p: Process, board: Board, start: Sq, to: Sq,
                name: str) -> Refusal:
    """Why `to` is not a legal destination now (the move has already failed)."""
    bad = _bad_square(board, to)
    if bad is not None:
        return bad
    if has_status(c, "paralysis"):
        return PARALYSED.refuse(n=name)
    caps = [cap for _s, cap in bins(g, c, p)]
    step_ja, step_en = STEP_NAMES[p.step]
    if p.step == "major" and not major_may_move(c, p) and sum(caps) == 0:
        if p.magic:
            return MAGIC_ATTACK_MOVED.refuse(alt="after")
        return NO_MAJOR_MOVE.refuse(n=name)
    later = _fits_later(g, c, p, board, start, to)
    if sum(caps) == 0:
        return later or NO_STEP_LEFT.refuse()
    if p.direction is not None:
        d = (p.direction.x, p.direction.y)
        along = [(start[0] + d[0] * k, start[1] + d[1] * k) for k in range(1, board.width + board.height)]
        if to not in along:
            ja, en = DIRS.get(d, ("?", "?"))
            return SAME_DIRECTION.refuse(d=f"{ja} / {en}")
    dist = manhattan(start, to)
    longest = max(caps)
    chebyshev = max(abs(start[0] - to[0]), abs(start[1] - to[1]))
    if chebyshev <= longest < dist and dist <= 2:
        return DIAGONAL_COSTS_TWO.refuse(step=step_ja, step_en=step_en, left=longest)
    if later is not None:
        return later
    if dist > sum(caps):
        return TOO_FAR.refuse(cost=dist, left=sum(caps), step=step_ja, step_en=step_en)
    open_map = Board(board.width, board.height, board.walls, frozenset(), board.corner_cutting)
    if plan(open_map, start, to, caps) is None:
        around = reach(open_map, start, [99]).get(to)
        cost = around.cost if around is not None else dist
        return TOO_FAR.refuse(cost=cost, left=sum(caps), step=step_ja, step_en=step_en)
    return PATH_BLOCKED.refuse()


def _fits_later(g: GridState, c: Combatant, p: Process, board: Board, start: Sq, to: Sq
                ) -> Refusal | None:
    """GRID-MV-1 under `drop_spans_steps: false`: a move that the later unused steps would
    allow, refused because the current step must be ended first (not "no step left")."""
    if g.settings.drop_spans_steps:
        return None
    spanning = bins(g.model_copy(update={"settings": g.settings.model_copy(
        update={"drop_spans_steps": True})}), c, p)
    lock = (p.direction.x, p.direction.y) if p.direction is not None else None
    if len(spanning) < 2 or plan(board, start, to, [cap for _s, cap in spanning], lock) is None:
        return None
    step_ja, step_en = STEP_NAMES[p.step]
    left = spanning[0][1]
    return NOT_THIS_STEP.refuse(alt="used" if left == 0 else None, step=step_ja,
                                step_en=step_en, left=left)


def judge(g: GridState, tx: Tx, c: Combatant, p: Process, to: Sq
          ) -> tuple[Plan | None, list[tuple[Step, int]], Refusal | None]:
    """The plan for moving `c` to `to` in its process, or why not."""
    t = table(tx)
    start = cell(t, c)
    assert start is not None
    board = board_for(g, t, c)
    caps = bins(g, c, p)
    if p.waiting is not None:
        return None, caps, WAITING_HINDRANCE.refuse()
    if start == to:
        return None, caps, SAME_SQUARE.refuse()
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
    tx.emit("grid.moved", combatant=c.id, **{"from": as_cell(start) if start else None},
            to=as_cell(to), path=[as_cell(s) for s in found.path], cost=found.cost, steps=steps)
    spent = [(STEP_NAMES[caps[leg.bin][0]], leg.cost) for leg in found.legs]
    tx.say(MOVED.format(n=name_of(table(tx), c), x=to[0], y=to[1],
                        steps="・".join(f"{ja}{n}" for (ja, _en), n in spent),
                        steps_en=", ".join(f"{en} {n}" for (_ja, en), n in spent)))
    settle_step(tx, g, c, q)
    if start is not None:
        report_moved(tx, c.id, start, to, list(found.path), found.cost, steps)
    return [(caps[leg.bin][0], leg.squares) for leg in found.legs]


def not_in_process(tx: Tx, g: GridState, c: Combatant) -> Refusal:
    """GRID-MV-1 a piece in combat moves only in its main process: the refusal names the
    real reason — another's process is open (GRID-RND-2), or its own closed itself and
    why (GRID-ST-4 flying's step not taken, GRID-X-2 the magic attack, GRID-RND-2)."""
    t = table(tx)
    other = g.combatants.get(g.process.combatant) if g.process is not None else None
    name = name_of(t, c)
    if other is not None:
        return OTHERS_PROCESS.refuse(n=name_of(t, other))
    last = g.last if g.last is not None and g.last.combatant == c.id else None
    if c.id not in g.acted:
        return NOT_IN_PROCESS.refuse(n=name)
    if last is not None and has_status(c, "flying"):
        if last.magic and g.settings.magic_move_limit and last.total_moved() > 0:
            return MAGIC_ATTACK_MOVED.refuse(alt="over", n=name)
        if last.moved.get("major", 0) or last.spent.get("major") == "move":
            return NO_FLYING_STEP.refuse(n=name)
    return ALREADY_ACTED.refuse(n=name)


def hostile_near(g: GridState, tx: Tx, c: Combatant, sq: Sq) -> list[Combatant]:
    """Opponents able to act whose range 0 holds `sq` (GRID-X-3 possible declarers)."""
    t = table(tx)
    return [o for o in g.combatants.values() if opponents(c, o) and able(g, tx, o)
            and (here := cell(t, o)) is not None and manhattan(here, sq) <= 1]
