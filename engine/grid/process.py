"""The main process walked by its table (model.PROCESS): move → minor → major (→ flying's step).

GRID-MV-1: each step has its allowance (move 1, minor 2, major 2) and is spent either on
moving or on an action, never both; steps come in order and a later one passes over
the earlier unused ones. GRID-ST-4: a flying character gets one more square after its
major unless it moved in the major (the table's `when="flying"`, resolved by `WHEN`).
The process is replaced whole on every write (one unit for the views, nothing mutated
in place, so a refusal rolls back cleanly).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ..combatants import Combatant, has_status
from ..errors import Text
from ..tx import Tx
from .model import ALLOWANCE, PROCESS, GridState, Process, Spent, Step
from .rules import name_of, table

__all__ = ["MOVING_STEPS", "WHEN", "bins", "end_process", "finish_step", "major_may_move",
           "next_step", "post_allowed", "put", "settle_step", "skip_to", "spend"]

#: The steps every process has, in order (a conditional one is entered only from its
#: predecessor, never spanned by a drop).
MOVING_STEPS: tuple[Step, ...] = tuple(cast(Step, s.id) for s in PROCESS.phases if s.when is None)
ENDED = Text("「{n}」のメインプロセス終了", "{n} ends its main process")
STEP_NAMES: dict[str, tuple[str, str]] = PROCESS.names()


def put(tx: Tx, p: Process | None) -> None:
    tx.set(("grid", "process"), p)


def updated(p: Process, **changes: Any) -> Process:
    """A copy of the process with `changes` (dicts copied, never shared)."""
    base = {"spent": dict(p.spent), "moved": dict(p.moved)}
    base.update(changes)
    return p.model_copy(update=base)


def major_may_move(c: Combatant, p: Process) -> bool:
    """GRID-SK-2 ([ニーズショット] and the like) forbids moving in the major; a magic
    attack (GRID-X-2) is the major's action, so it moves nothing either."""
    return not has_status(c, "no_major_move") and not p.magic


def bins(g: GridState, c: Combatant, p: Process) -> list[tuple[Step, int]]:
    """The allowance a drop may use now: what is left of the current step, then (setting
    `drop_spans_steps`) each later unused step that may move. GRID-ST-2: none when
    paralysed."""
    if has_status(c, "paralysis") or p.waiting is not None:
        return []
    left = 0 if p.spent.get(p.step) in ("action", "skip") else p.left
    if p.step == "major" and not major_may_move(c, p):
        left = 0
    out: list[tuple[Step, int]] = [(p.step, left)]
    if not g.settings.drop_spans_steps:
        return out
    for spec in PROCESS.after(p.step):
        s = cast(Step, spec.id)
        if spec.when is not None or (s == "major" and not major_may_move(c, p)):
            continue
        out.append((s, ALLOWANCE[s]))
    return out


def skip_to(p: Process, step: Step) -> Process:
    """Go forward to `step`, marking the unused steps passed over as skipped."""
    spent = dict(p.spent)
    ids = PROCESS.ids()
    for s in ids[ids.index(p.step):ids.index(step)]:
        spent.setdefault(s, "skip")
    left = p.left if step == p.step else ALLOWANCE[step]
    return updated(p, step=step, left=left, spent=spent)


def spend(p: Process, step: Step, how: Spent, squares: int = 0) -> Process:
    """Spend `step` (going forward to it): on moving `squares`, or on an action."""
    q = skip_to(p, step)
    spent, moved = dict(q.spent), dict(q.moved)
    spent[step] = how
    if squares:
        moved[step] = moved.get(step, 0) + squares
    left = q.left - squares if how == "move" else 0
    return updated(q, spent=spent, moved=moved, left=max(0, left))


def post_allowed(g: GridState, c: Combatant, p: Process) -> bool:
    """GRID-ST-4 flying: one square after the major unless it moved in the major;
    GRID-X-2 after a magic attack only if it has not moved at all in this process."""
    if not has_status(c, "flying") or p.moved.get("major", 0) or p.spent.get("major") == "move":
        return False
    return not (p.magic and g.settings.magic_move_limit and p.total_moved() > 0)


#: The table's step conditions (`PhaseSpec.when`).
WHEN: dict[str, Callable[[GridState, Combatant, Process], bool]] = {"flying": post_allowed}


def finish_step(tx: Tx, g: GridState, c: Combatant, p: Process) -> None:
    """End the current step: on to the next one the table names, or end the process
    after the last."""
    q = updated(p, spent={**p.spent, p.step: p.spent.get(p.step, "skip")})
    nxt = next_step(g, c, q)
    if nxt is None:
        end_process(tx, g, c, q)
    else:
        put(tx, skip_to(q, nxt))


def next_step(g: GridState, c: Combatant, p: Process) -> Step | None:
    """The step after the current one, passing over a step whose condition fails."""
    nxt = PROCESS.next_of(p.step)
    while nxt is not None:
        spec = PROCESS.get(nxt)
        if spec.when is None or WHEN[spec.when](g, c, p):
            return cast(Step, nxt)
        nxt = spec.next
    return None


def settle_step(tx: Tx, g: GridState, c: Combatant, p: Process) -> None:
    """After a write: a step that ends once spent (the major, flying's step) ends on its
    own after an action, or after moving with nothing left."""
    how = p.spent.get(p.step)
    if PROCESS.get(p.step).ends == "spent" and (how == "action" or (how == "move" and p.left == 0)):
        finish_step(tx, g, c, p)
    else:
        put(tx, p)


def end_process(tx: Tx, g: GridState, c: Combatant, last: Process | None = None) -> None:
    """GRID-RND-2 the main process is complete: the character has acted this round
    (`last`: the process as it ended, kept to explain a later move's refusal)."""
    put(tx, None)
    tx.set(("grid", "last"), last if last is not None else g.process)
    if c.id not in g.acted:
        tx.set(("grid", "acted"), [*g.acted, c.id])
    tx.emit("grid.process.ended", combatant=c.id)
    tx.say(ENDED.format(n=name_of(table(tx), c)))
