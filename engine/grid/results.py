"""What a grid action tells its sender in the ack (`Subsystem.results`): a move's cost,
steps and path; the step an act spent; which step is current after the process moved on.

Each is reported about the combatant it concerns, so a sender not shown that character
is not told (hidden characters have no process, but the GM may hide one after it acted).
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, StrictInt

from ..bounds import Id
from ..outcomes import Result
from ..table import Cell
from ..tx import Tx
from .geometry import Sq
from .model import Process, Step
from .rules import BASE, as_cell

__all__ = ["RESULTS", "GridActed", "GridMoved", "GridProcess", "current_step",
           "report_acted", "report_moved", "report_process"]


class GridMoved(Result):
    """A move in a main process (`grid.move`, or a bridge's `table.move` judged as one):
    the cheapest legal path's cost, the steps it spent, the squares entered, and the step
    current after it (`step: null`: the process is over)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    kind: Literal["grid.move"] = "grid.move"
    combatant: Id
    frm: Cell = Field(alias="from")
    to: Cell
    path: list[Cell]
    cost: StrictInt
    steps: list[Step]
    step: Step | None


class GridActed(Result):
    """A `grid.act`: the step it spent (`spent`) and the step current after it."""

    kind: Literal["grid.act"] = "grid.act"
    combatant: Id
    spent: Step
    step: Step | None


class GridProcess(Result):
    """The main process began, moved on to a step or ended: the step now current
    (`step: null`: it is over and the character has acted this round)."""

    kind: Literal["grid.process"] = "grid.process"
    combatant: Id
    step: Step | None


RESULTS: tuple[type[Result], ...] = (GridMoved, GridActed, GridProcess)


def current_step(tx: Tx, cid: str) -> Step | None:
    """The step of `cid`'s open process as the action left it (None: no process open)."""
    p = tx.get(("grid", "process"))
    return p.step if isinstance(p, Process) and p.combatant == cid else None


def report_moved(tx: Tx, cid: str, start: Sq, to: Sq, path: list[Sq], cost: int,
                 steps: list[Step]) -> None:
    tx.report(GridMoved(combatant=cid, frm=as_cell(start), to=as_cell(to),
                        path=[as_cell(s) for s in path], cost=cost, steps=steps,
                        step=current_step(tx, cid)), about=[(*BASE, cid)])


def report_acted(tx: Tx, cid: str, spent: Step) -> None:
    tx.report(GridActed(combatant=cid, spent=spent, step=current_step(tx, cid)),
              about=[(*BASE, cid)])


def report_process(tx: Tx, cid: str) -> None:
    tx.report(GridProcess(combatant=cid, step=current_step(tx, cid)), about=[(*BASE, cid)])
