"""Figure 5: grid combat (seed 001) — legal destinations, move validation, and the server
CPU added per change by pushing legal moves to the bridges.

Map: 50×50 squares, 10 % obstacles (fixed seed), 40 pieces (20 PCs, 20 enemies) spread
at random. For each sample a PC's main process is opened at a random step, then:
- *legal destinations*: `legal_destinations(grid, table, pc)` — every square it may
  reach with the cheapest path and cost (what the query and the bridges get);
- *move validation*: `Engine.apply(grid.move)` to a random square within 6 squares
  (accepted or refused; an accepted one is measured on a fresh copy of the state);
- *push per change*: the Foundry adapter's `update` for one change (what the room task
  runs per change for each Foundry bridge: the table projection re-rendered, legal flags
  recomputed, differences to operations), over a replayed stream of processes, moves to
  legal squares and process ends — with the grid's legal squares computed and pushed,
  and with that computation switched off; the difference is what the push adds.
Times are `time.perf_counter_ns` per call (one core, in this process), as p50/p99 in µs.
There is no relay baseline for these (a relay does no rule work). For the push rows the
baseline column is the same change stream with the grid's legal computation switched off,
so komasync − baseline is what pushing legal moves adds per change, per platform bridge.
Nothing is asserted.

    python bench/grid.py [--samples 2000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from komasync.engine.core import Engine
from komasync.engine.errors import Refusal
from komasync.engine.grid.queries import legal_destinations
from komasync.engine.registry import parse_action
from komasync.engine.scenario import Scenario, build_room
from komasync.engine.tx import Actor

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import Row, pct, table

SIZE = 50
PIECES = 40
GM = Actor(role="gm", label="GM")
STEPS = ("move", "minor", "major")


def scenario(seed: int = 5) -> dict[str, Any]:
    """The bench room: a 50×50 map, 10 % obstacles, 20 PCs and 20 enemies."""
    rnd = random.Random(seed)
    squares = [(x, y) for y in range(SIZE) for x in range(SIZE)]
    rnd.shuffle(squares)
    walls, spots = squares[: SIZE * SIZE // 10], squares[SIZE * SIZE // 10:]
    pieces, combatants = [], []
    for n, (x, y) in enumerate(spots[:PIECES]):
        side = "pc" if n % 2 == 0 else "enemy"
        pid = f"{side}{n}"
        pieces.append({"id": pid, "name": pid, "owner": "p1" if side == "pc" else None,
                       "cell": {"x": x, "y": y}})
        combatants.append({"id": pid, "side": side})
    return {"room": {"name": "grid bench", "seed": "bench"},
            "players": [{"id": "p1", "name": "P1"}],
            "table": {"grid": {"width": SIZE, "height": SIZE}, "pieces": pieces},
            "grid": {"obstacles": [{"x": x, "y": y} for x, y in walls],
                     "combatants": combatants}}


def fresh() -> Engine:
    e = Engine(build_room(Scenario.model_validate(scenario()), "bench"))
    e.apply(parse_action({"kind": "grid.start"}), GM)
    return e


def opened(base: Engine, pc: str, step: str) -> Engine:
    """A copy of the room with `pc`'s main process open at `step`."""
    e = Engine(base.state.model_copy(deep=True), base.version)
    g = e.state.grid
    assert g is not None
    if g.process is not None:
        e.apply(parse_action({"kind": "grid.process.end", "combatant": g.process.combatant}), GM)
    e.apply(parse_action({"kind": "grid.process.start", "combatant": pc}), GM)
    for s in STEPS[: STEPS.index(step)]:
        e.apply(parse_action({"kind": "grid.step.end", "combatant": pc}), GM)
        del s
    return e


def us(ns: list[int]) -> tuple[float, float]:
    values = [n / 1000 for n in ns]
    return pct(values, 50), pct(values, 99)


def measure(samples: int, seed: int = 11) -> dict[str, tuple[float, float]]:
    rnd = random.Random(seed)
    base = fresh()
    pcs = [c for c, x in base.state.grid.combatants.items() if x.side == "pc"]  # type: ignore[union-attr]
    legal_ns, move_ns = [], []
    rooms = [opened(base, pc, step) for pc in pcs for step in STEPS]
    for _ in range(samples):
        e = rnd.choice(rooms)
        g, t = e.state.grid, e.state.table
        assert g is not None and g.process is not None
        t0 = time.perf_counter_ns()
        legal_destinations(g, t, g.process.combatant)
        legal_ns.append(time.perf_counter_ns() - t0)
    for _ in range(samples):
        e0 = rnd.choice(rooms)
        e = Engine(e0.state.model_copy(deep=True), e0.version)
        g = e.state.grid
        assert g is not None and g.process is not None
        cell = e.state.table.pieces[g.process.combatant].cell
        assert cell is not None
        to = {"x": min(SIZE - 1, max(0, cell.x + rnd.randint(-3, 3))),
              "y": min(SIZE - 1, max(0, cell.y + rnd.randint(-3, 3)))}
        action = parse_action({"kind": "grid.move", "combatant": g.process.combatant, "to": to})
        t0 = time.perf_counter_ns()
        try:
            e.apply(action, GM)
        except Refusal:
            pass
        move_ns.append(time.perf_counter_ns() - t0)
    return {"legal": us(legal_ns), "move": us(move_ns)}


def _changes(base: Engine, count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """A replayable sequence of changes: processes opened, moves to legal squares, ends."""
    rnd = random.Random(seed)
    e = Engine(base.state.model_copy(deep=True), base.version)
    out: list[tuple[str, dict[str, Any]]] = []
    g = e.state.grid
    assert g is not None
    while len(out) < count:
        if g.process is None:
            side = g.side
            todo = [c for c, x in g.combatants.items() if x.side == side and c not in g.acted]
            action = {"kind": "grid.process.start", "combatant": rnd.choice(todo)}
        else:
            legal = sorted(legal_destinations(g, e.state.table, g.process.combatant))
            if legal and rnd.random() < 0.7:
                x, y = rnd.choice(legal)
                action = {"kind": "grid.move", "combatant": g.process.combatant, "to": {"x": x, "y": y}}
            else:
                action = {"kind": "grid.process.end", "combatant": g.process.combatant}
        e.apply(parse_action(action), GM)
        out.append(("gm", action))
    return out


def push_cost(changes: int, seed: int = 13) -> dict[str, tuple[float, float]]:
    """Foundry adapter update per change, with the grid's legal push and without it: two
    copies of the room take the same changes, timed alternately (so load hits both)."""
    from komasync.adapters.foundry import FoundryAdapter
    from komasync.adapters.subsystems import grid as grid_adapter
    from komasync.engine.views import Audience, View

    base = fresh()
    sequence = _changes(base, changes, seed)
    real = grid_adapter._legal_squares

    def off(tree: Any, g: Any) -> None:
        return None

    rooms = []
    for legal_on in (True, False):
        e = Engine(base.state.model_copy(deep=True), base.version)
        view = View(Audience("table"), e.state)
        adapter = FoundryAdapter.from_tree(view.tree)
        grid_adapter._legal_squares = real if legal_on else off
        adapter.reset(view.tree)
        rooms.append((legal_on, e, view, adapter, []))
    grid_adapter._legal_squares = real
    alone: list[int] = []
    try:
        for _who, action in sequence:
            for legal_on, e, view, adapter, ns in rooms:
                out = e.apply(parse_action(action), GM)
                ops = view.update(e.state, out.units)
                grid_adapter._legal_squares = real if legal_on else off
                t0 = time.perf_counter_ns()
                adapter.update(view.tree, ops, [])
                ns.append(time.perf_counter_ns() - t0)
                if legal_on:  # the push's own work: validate the projection, legal squares
                    t0 = time.perf_counter_ns()
                    real(view.tree, view.tree["grid"])
                    alone.append(time.perf_counter_ns() - t0)
    finally:
        grid_adapter._legal_squares = real
    figures = {"with" if on else "without": us(ns) for on, _e, _v, _a, ns in rooms}
    figures["push"] = us(alone)
    return figures


def run(samples: int = 2000) -> list[Row]:
    print("== Figure 5: grid combat (seed 001), 50×50 map, 40 pieces, 10 % obstacles ==")
    print(f"{samples} samples each; one core, in-process; p50 / p99 in µs")
    figures = measure(samples)
    rows: list[Row] = []
    for key, label in (("legal", "legal destinations of a piece"),
                       ("move", "grid.move validated + applied")):
        p50, p99 = figures[key]
        rows.append(Row("5 grid", f"{label} p50", p50, None, "µs"))
        rows.append(Row("5 grid", f"{label} p99", p99, None, "µs"))
    push = push_cost(max(50, samples // 10))
    rows.append(Row("5 grid", "legal push computed per change p50", push["push"][0], None, "µs"))
    rows.append(Row("5 grid", "legal push computed per change p99", push["push"][1], None, "µs"))
    rows.append(Row("5 grid", "Foundry update per change, legal push p50", push["with"][0],
                    push["without"][0], "µs"))
    rows.append(Row("5 grid", "Foundry update per change, legal push p99", push["with"][1],
                    push["without"][1], "µs"))
    print("baseline column of the push rows: the same changes with the legal push switched off")
    print(table(rows))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--samples", type=int, default=2000)
    run(p.parse_args().samples)


if __name__ == "__main__":
    main()
