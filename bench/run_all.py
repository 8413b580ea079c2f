"""Run every benchmark and print ONE table: each goal of issue 16, what was measured in
this run and whether it holds.

    python bench/run_all.py [--quick]

Goals (each measured beside its baseline in this run; see bench/README.md):
1. added latency at 10 clients ≤ one durable SQLite commit + 100 µs; ≤ 1.3× the relay
   at 50 and 200 clients;
2. ≥ 10,000 durable actions/s in one room, 10 clients of three audiences, sync FULL;
3. 1,000 active rooms, 1 action/s each, 5 clients per room: p99 ≤ 20 ms, no saturation,
   ≤ 0.5 MiB per active room after 10,000 actions;
4. no event-loop stall > 5 ms from snapshots or joins on a 5,000-piece room;
5. server CPU per action flat (±10 %) from 10 to 1,000 pieces, snapshots included.

And issue 26's flood case (bench/flood.py): one player floods queries from 32 sockets on
one invite while another room takes actions; that room's ack p99 flooded ≤ 2× unflooded,
with the server's default limits and with the per-invite limits lifted (budget only).

Then issue 17's information lines, under their own heading: the Redis log beside SQLite
in the same run (bench/redis_log.py; needs Debian's redis-server), and two processes on one
Redis: clients on the owner vs on another process, failover time (bench/redis_cluster.py).

`--quick` is a smoke run (fewer blocks, 200 rooms, shorter runs): its figures are noisier
and its goal lines are not the goals' configurations.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cpu
import flood
import grid
import latency
import redis_cluster
import redis_log
import rooms
import stalls
import throughput
import work
from _lib import Goal, Row, fmt, goal_table, held_note, machine_note
from _serve import LIMITS_NOTE


def run(quick: bool) -> list[Goal]:
    goals: list[Goal] = []
    if quick:
        goals += asyncio.run(latency.run(blocks=4, samples=40))
        goals += work.run(actions=3000, rounds=2)
        goals += asyncio.run(throughput.run(nblocks=2, actions=2000))
        goals += asyncio.run(rooms.run(rooms=200, seconds=6, mem_rooms=2, mem_actions=2000))
        goals += asyncio.run(stalls.run(actions=400))
        goals += asyncio.run(cpu.run(blocks=2, actions=600))
        goals += asyncio.run(flood.run(blocks=2, samples=40))
        return goals + info(grid.run(samples=400))
    goals += asyncio.run(latency.run())
    print()
    goals += work.run()
    print()
    goals += asyncio.run(throughput.run())
    print()
    goals += asyncio.run(rooms.run())
    print()
    goals += asyncio.run(stalls.run())
    print()
    goals += asyncio.run(cpu.run())
    print()
    goals += asyncio.run(flood.run())
    print()
    return goals + info(grid.run(samples=2000))


def info(rows: list[Row]) -> list[Goal]:
    """Figures without a goal of issue 16 (grid combat), as information lines."""
    return [Goal("grid (info)", r.config, f"{fmt(r.komasync)} {r.unit}",
                 "-" if r.baseline is None else f"base {fmt(r.baseline)} {r.unit}", None)
            for r in rows]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="a smoke run with fewer samples")
    a = p.parse_args()
    t0 = time.perf_counter()
    goals = run(a.quick)
    redis_lines = issue17(a.quick)
    cluster_args = redis_cluster.options(["--blocks", "2", "--samples", "30"] if a.quick else [])
    cluster_lines = redis_cluster.goal_lines(cluster_args,
                                             *asyncio.run(redis_cluster.measure(cluster_args)))
    print("\n== Summary: the goals of issue 16 and issue 26's flood case, measured in this run ==")
    print(machine_note())
    print(LIMITS_NOTE)
    print(goal_table(goals))
    print(held_note(goals))
    print("\n== issue 17: the Redis log beside SQLite, same run (information lines) ==")
    print(goal_table(redis_lines))
    print(f"\n== issue 17: two processes on one Redis ({redis_cluster.setup_note(cluster_args)})"
          " beside one SQLite process, same run (information lines) ==")
    print(goal_table(cluster_lines))
    print(f"total bench time {time.perf_counter() - t0:.0f} s")


def issue17(quick: bool) -> list[Goal]:
    """bench/redis_log.py: durable actions/s and action → last client, Redis vs SQLite."""
    if quick:
        return asyncio.run(redis_log.run(nblocks=2, actions=1000, samples=30))
    return asyncio.run(redis_log.run())


if __name__ == "__main__":
    main()
