"""Goal 4: no event-loop stall > 5 ms from snapshots or joins on a 5,000-piece room.

The komasync process runs with a loop monitor (bench/_serve.py --loop-monitor: a task that
wakes every millisecond). A room with 5,000 pieces; then, each measured on its own:

- joins: the first GM, then the first of each other audience (a player, an observer, a
  Ccfolia bridge), then the same four again (already-built views);
- snapshots: in a second room of the same size (no bridge ever joined it, so no platform
  adapter redraws the table on every action: that cost is Goal 5's information line), the
  GM pipelines actions (window 4) across several storage snapshots (every 200 versions:
  the server's ceiling is set to 200 here, since by size a 5,000-piece room's snapshots
  would be 2,000 versions apart), with a player and an observer connected.

Per phase it prints the longest stall three ways: the CPU the loop thread spent between
two wake-ups in user time (the server's own code) and in all (user + kernel: system time
inside `send`, where on loopback the receiver's side of TCP runs too), and wall clock (how
late the monitor woke: also the OS giving the core to another process, e.g. the bench
client, or the GIL held by another thread). The relay, driven with the same number of
clients and frames, gives the wall-clock floor of this machine. Two goal lines: the
server's own work on the loop (user CPU), and the loop thread's whole CPU.

    python bench/stalls.py [--pieces 5000] [--actions 800]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    Goal,
    KomasyncTarget,
    RelayTarget,
    ServerProc,
    client_session,
    goal_table,
    pipelined,
    prepare_rooms,
    settle,
    tmpdir,
)

GOAL = 5e-3


async def stall(session: aiohttp.ClientSession, srv: ServerProc) -> dict[str, Any]:
    async with session.get(f"http://127.0.0.1:{srv.port}/_bench/stats?reset=1") as r:
        data: dict[str, Any] = await r.json()
        return data


async def run(pieces: int = 5000, actions: int = 800) -> list[Goal]:
    print(f"== Goal 4: event-loop stalls on a {pieces}-piece room ==")
    phases: dict[str, dict[str, Any]] = {}
    async with client_session() as session:
        with tmpdir() as d:
            db = Path(d) / "stall.sqlite3"
            setup, second = prepare_rooms(db, ["bench", "bench2"], pieces, players=2,
                                          observers=2, bridges=2)
            with ServerProc("komasync", "--db", str(db), "--loop-monitor",
                            "--limit", "snapshot_ceiling=200") as srv, \
                    ServerProc("relay", "--loop-monitor") as rsrv:
                target = KomasyncTarget(srv.url, session, setup, pieces)
                await asyncio.sleep(0.5)
                await stall(session, srv)
                hubs = []
                for rnd in ("first", "again"):
                    for name, kw in (("gm", {"gms": 1, "players": 0, "bridges": 0}),
                                     ("player", {"gms": 0, "players": 1, "bridges": 0}),
                                     ("bridge", {"gms": 0, "players": 0, "bridges": 1}),
                                     ("observer", {"gms": 0, "players": 0, "bridges": 0})):
                        hubs.append(await target.open(1, **kw))  # type: ignore[arg-type]
                        await settle(hubs[-1])
                        phases[f"join {name} ({rnd})"] = await stall(session, srv)
                    if rnd == "first":
                        await asyncio.gather(*(h.close() for h in hubs))
                        hubs = []
                await asyncio.gather(*(h.close() for h in hubs))
                hub = await KomasyncTarget(srv.url, session, second, pieces).open(
                    3, players=1, bridges=0)
                await stall(session, srv)
                hub.target.mark()
                await pipelined(hub, actions, 4)
                await settle(hub)
                phases[f"{actions} actions, {actions // 200} snapshots"] = await stall(session, srv)
                await hub.close()
                rhub = await RelayTarget(rsrv.url, session, 200).open(3)
                await stall(session, rsrv)
                rhub.target.mark()
                await pipelined(rhub, actions, 4)
                await settle(rhub)
                relay = await stall(session, rsrv)
                await rhub.close()
    worst_user = max(p["stall_user_max"] for p in phases.values())
    worst_cpu = max(p["stall_cpu_max"] for p in phases.values())
    worst_wall = max(p["stall_wall_max"] for p in phases.values())
    for name, p in phases.items():
        print(f"  {name:34} longest stall: user {p['stall_user_max'] * 1e3:6.2f} ms  "
              f"user+sys {p['stall_cpu_max'] * 1e3:6.2f} ms  wall {p['stall_wall_max'] * 1e3:6.2f}"
              f" ms  (longest gc {p['gc_max'] * 1e3:.2f} ms)")
    print(f"  {'relay, same actions (wall floor)':34} longest stall: user "
          f"{relay['stall_user_max'] * 1e3:6.2f} ms  user+sys {relay['stall_cpu_max'] * 1e3:6.2f}"
          f" ms  wall {relay['stall_wall_max'] * 1e3:6.2f} ms")
    cfg = f"{pieces} pieces: 8 joins, {actions // 200} snapshots"
    return [
        Goal("4 stalls", f"{cfg}; the server's code on the loop (user CPU)",
             f"longest {worst_user * 1e3:.2f} ms", "<= 5 ms", worst_user <= GOAL),
        Goal("4 stalls", f"{cfg}; loop thread incl. kernel time; wall max {worst_wall * 1e3:.1f}"
             f" ms (relay {relay['stall_wall_max'] * 1e3:.1f})",
             f"longest {worst_cpu * 1e3:.2f} ms (user+sys)", "<= 5 ms", worst_cpu <= GOAL),
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--pieces", type=int, default=5000)
    p.add_argument("--actions", type=int, default=800)
    a = p.parse_args()
    goals = asyncio.run(run(a.pieces, a.actions))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
