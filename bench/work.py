"""The work komasync does for one action before its commit, in-process and without I/O.

Goal 1 at 10 clients allows komasync the commit + 100 µs over the relay. This is what the
rules ask of each action before that commit, at its cheapest: a real `Room` (10 pieces;
views for the GM, 4 players and the table, as in goal 1's room; no sockets, no storage
call) takes `table.move` actions one at a time through the server's own step
(`Room._apply_one`: the engine, the log row, the projection per distinct view), in a
tight loop on a warm cache. Each call is timed, and the engine's and the projection's
share of it. Information only: the live server's figures (`latency.py --stages`) are
higher, as its caches are shared with the sockets, the clients and the other process.

    python bench/work.py [--actions 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import PLAYERS, Goal, goal_table, pct, scenario, tmpdir

from komasync.engine.core import Engine
from komasync.engine.registry import parse_action
from komasync.engine.scenario import build_room
from komasync.engine.tx import Actor
from komasync.engine.views import Audience
from komasync.server.connection import Limits
from komasync.server.retries import RetryWindow
from komasync.server.room import Room, Submit
from komasync.server.storage import AsyncStorage, Storage

ALLOWANCE = 100.0  # µs: goal 1's allowance beyond the commit at 10 clients
PIECES = 10


def _timed(fn: Callable[..., Any], into: list[int]) -> Callable[..., Any]:
    def timed(*args: Any) -> Any:
        t0 = time.perf_counter_ns()
        try:
            return fn(*args)
        finally:
            into.append(time.perf_counter_ns() - t0)
    return timed


async def measure(actions: int, rounds: int) -> dict[str, list[float]]:
    """Per round, the median µs of the whole step, the engine and the projection."""
    out: dict[str, list[float]] = {"step": [], "engine": [], "projection": []}
    with tmpdir() as d:
        storage = AsyncStorage(Storage(Path(d) / "work.sqlite3"))
        room = Room("work", Engine(build_room(scenario(PIECES), "seed")), storage, Limits(),
                    RetryWindow(Limits().retry_window))
        for who in [Audience("player", p) for p in PLAYERS] + [Audience("table")]:
            await room.audiences.view(who)
        engine: list[int] = []
        projection: list[int] = []
        room.engine.apply = _timed(room.engine.apply, engine)  # type: ignore[method-assign]
        room.audiences.project = _timed(  # type: ignore[method-assign]
            room.audiences.project, projection)
        gm = Actor(role="gm", label="gm")
        n = 0
        for r in range(rounds + 1):  # the first round warms up
            steps: list[int] = []
            engine.clear()
            projection.clear()
            for _ in range(actions):
                n += 1
                action = parse_action({"kind": "table.move", "piece": f"pc{n % PIECES}",
                                       "to": {"x": n % 97, "y": (n // 97) % 97}})
                sub = Submit(None, f"m{n}", action, actor_override=gm)
                t0 = time.perf_counter_ns()
                applied = room._apply_one(sub)
                steps.append(time.perf_counter_ns() - t0)
                if applied.refusal is not None:
                    raise RuntimeError(f"the bench's move was refused: {applied.refusal}")
            if r:
                for name, got in (("step", steps), ("engine", engine),
                                  ("projection", projection)):
                    out[name].append(statistics.median(got) / 1e3)
        room.task.cancel()
        storage.close()
    return out


def run(actions: int = 20000, rounds: int = 5) -> list[Goal]:
    print("== Goal 1 (information): the work before the commit, in-process, no I/O ==")
    got = asyncio.run(measure(actions, rounds))
    step, eng, proj = (pct(got[k], 50) for k in ("step", "engine", "projection"))
    print(f"  {rounds} rounds of {actions} table.move, {PIECES} pieces, audiences gm, "
          f"{len(PLAYERS)} players, table; medians of the rounds' medians (µs):")
    print(f"  Room._apply_one {step:.1f} (rounds {min(got['step']):.1f}-{max(got['step']):.1f}):"
          f" engine {eng:.1f}, projection {proj:.1f}, log row and the rest {step - eng - proj:.1f}")
    return [Goal("1 latency (info)",
                 f"in-process, no I/O: one table.move through Room._apply_one, {PIECES} pieces, "
                 f"audiences gm, {len(PLAYERS)} players, table",
                 f"{step:.0f} µs (engine {eng:.0f}, projection {proj:.0f}, "
                 f"rest {step - eng - proj:.0f})",
                 f"{ALLOWANCE:.0f} µs beyond the commit at 10 clients", None)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--actions", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    goals = run(a.actions, a.rounds)
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
