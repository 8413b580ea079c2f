"""Goal 3: 1,000 active rooms in one process, and the memory of an active room.

Rooms: 1,000 rooms (10 pieces each) in one komasync process (durability full), 5 clients
per room (GM, 2 players, a Ccfolia bridge, an observer: 5,000 sockets). Every room's GM
sends one `table.move` per second, the rooms spread evenly over the second; latency is
from the send until the last of the room's 5 clients has the `change`. The clients are
RawDrains that spot each change's version in its first bytes (5,000 aiohttp clients
parsing JSON would make the bench process the bottleneck); the server's and the bench
process's CPU over the run are printed. Saturation: the
server is saturated if it completes fewer actions than were offered (< 99 %), if the last
third's p50 is more than twice the first third's (a queue building up), or if any action
waits longer than 1 s.

Memory: `--mem-rooms` rooms (default 12), each with the same 5 clients, take 10,000
actions each (their GMs pipelining; the other clients only drain their sockets). The
server starts without loading any room; one more room first takes as many actions, so
what the process keeps once however many rooms it has (SQLite's page cache, allocator
pools) is in the first reading. RSS is read (after `gc.collect()` and glibc's
`malloc_trim`, so freed memory is not counted) before the measured rooms join and after
their last action: (after − before) ÷ rooms is everything an active room keeps: its
state, views, history, retry window, platform adapter, connections and their buffers.
Twelve rooms, not fewer: the allocator returns memory in 1 MiB arenas, so with 6 rooms
one arena more or less kept moved the figure by 0.17 MiB per room between runs.

    python bench/rooms.py [--rooms 1000] [--seconds 15] [--mem-rooms 12] [--mem-actions 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import aiohttp

from komasync.server.offload import Settle

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    TIMEOUT,
    Goal,
    Hub,
    KomasyncTarget,
    ServerProc,
    client_session,
    goal_table,
    pct,
    pipelined,
    prepare_rooms,
    raise_nofile,
    settle,
    tmpdir,
)
from _serve import LIMITS_NOTE, GcStats

MIB = 1024 * 1024
PER_ROOM = 5
PIECES = 10
P99_GOAL = 20e-3
MEM_GOAL = 0.5 * MIB
LATE = 1.0  # an action waiting longer than this means the server fell behind


async def open_rooms(session: aiohttp.ClientSession, url: str, setups: list,  # type: ignore[type-arg]
                     limit: int = 64, passive_from: int | None = None,
                     raw: bool = False) -> list[Hub]:
    sem = asyncio.Semaphore(limit)
    targets = [KomasyncTarget(url, session, s, PIECES) for s in setups]
    return list(await asyncio.gather(*(t.open(PER_ROOM, players=2, bridges=1, limit=sem,
                                              passive_from=passive_from, raw=raw)
                                       for t in targets)))


async def drive(hub: Hub, offset: float, start: float, seconds: float,
                out: list[tuple[float, float]]) -> int:
    """One action per second from the room's GM; (send time, latency) per action."""
    target = hub.target
    target.mark()
    sent = 0
    for seq in range(1, int(seconds) + 1):
        due = start + offset + (seq - 1)
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        text, key, _ack = target.action(0, seq)
        fut = hub.changes.expect(key)
        t0 = time.perf_counter()
        await hub.peers[0].send(text)
        sent += 1

        def done(f: asyncio.Future[float], t0: float = t0) -> None:
            if not f.cancelled() and f.exception() is None:
                out.append((t0 - start, f.result() - t0))

        fut.add_done_callback(done)
    return sent


async def many_rooms(rooms: int, seconds: float) -> list[Goal]:
    print(f"== Goal 3a: {rooms} active rooms, 1 action/s each, {PER_ROOM} clients per room ==")
    print(f"bench client open-file limit {raise_nofile()}")
    async with client_session() as session:
        with tmpdir() as d:
            db = Path(d) / "rooms.sqlite3"
            t0 = time.perf_counter()
            setups = prepare_rooms(db, [f"r{i}" for i in range(rooms)], PIECES, players=2,
                                   observers=1, bridges=1)
            with ServerProc("komasync", "--db", str(db), "--gc-stats") as srv:
                print(f"  {rooms} rooms created and loaded in {time.perf_counter() - t0:.1f} s")
                t0 = time.perf_counter()
                hubs = await open_rooms(session, srv.url, setups, raw=True)
                print(f"  {rooms * PER_ROOM} clients joined in {time.perf_counter() - t0:.1f} s")
                rss_idle = (await srv.stats(session, gc=True))["rss"]
                # The bench process's own collections would delay what it timestamps (its
                # 5,000 clients' objects: 35-110 ms measured): it settles as the server does.
                bench_settle = Settle()
                bench_settle.start()
                mine_gc = GcStats()
                first = await srv.stats(session, reset=True)
                cpu0, mine0, wall0 = first["cpu"], time.process_time(), time.perf_counter()
                samples: list[tuple[float, float]] = []
                print("  actions start", flush=True)
                start = time.perf_counter() + 0.5
                sent = sum(await asyncio.gather(*(
                    drive(h, i / rooms, start, seconds, samples) for i, h in enumerate(hubs))))
                deadline = time.perf_counter() + TIMEOUT
                while len(samples) < sent and time.perf_counter() < deadline:
                    await asyncio.sleep(0.05)
                during = await srv.stats(session)
                server_cpu = during["cpu"] - cpu0
                mine_gc.stop()
                bench_settle.stop()
                client_cpu = time.process_time() - mine0
                busy = server_cpu / (time.perf_counter() - wall0)
                mine = client_cpu / (time.perf_counter() - wall0)
                rss = (await srv.stats(session, gc=True))["rss"]
                await asyncio.gather(*(h.close() for h in hubs))
    lat = [x for _t, x in samples]
    third = seconds / 3
    early = [x for t, x in samples if t < third] or [0.0]
    late = [x for t, x in samples if t >= 2 * third] or [0.0]
    done = len(samples) / max(1, sent)
    p50, p99, worst = pct(lat, 50), pct(lat, 99), max(lat)
    saturated = done < 0.99 or pct(late, 50) > 2 * pct(early, 50) or worst > LATE
    print(f"  {sent} actions offered over {seconds:.0f} s, {len(samples)} completed ({done:.1%})")
    print(f"  latency p50 {p50 * 1e3:.2f} ms  p99 {p99 * 1e3:.2f} ms  max {worst * 1e3:.1f} ms; "
          f"p50 first third {pct(early, 50) * 1e3:.2f} ms, last third {pct(late, 50) * 1e3:.2f} ms")
    print(f"  CPU during the run: server {busy:.0%} of a core, bench client {mine:.0%} "
          f"(2 cores in all); per action: server {server_cpu / max(1, len(samples)) * 1e6:.0f} µs, "
          f"bench client {client_cpu / max(1, len(samples)) * 1e6:.0f} µs")
    print("  garbage collections during the run (generation: count, longest wall/CPU, total "
          "wall): " + ", ".join(
              f"{g}: {during[f'gc{g}_count']:.0f}, {during[f'gc{g}_max'] * 1e3:.1f}/"
              f"{during[f'gc{g}_cpu_max'] * 1e3:.1f} ms, {during[f'gc{g}_total'] * 1e3:.0f} ms"
              for g in range(3)))
    groups = during["commit_groups"] - first["commit_groups"]
    batches = during["commit_batches"] - first["commit_batches"]
    print(f"  group commit on the storage thread: {groups:.0f} transactions, "
          f"{batches / max(1, groups):.2f} rooms' batches each; "
          f"{len(samples) - batches:.0f} batches committed on the loop thread")
    if "stall_wall_max" in during:  # a server started with --loop-monitor
        print(f"  server loop stalls: longest {during['stall_wall_max'] * 1e3:.1f} ms wall, "
              f"{during['stall_cpu_max'] * 1e3:.1f} ms loop-thread CPU")
    print("  the bench client's own collections: " + ", ".join(
        f"{g}: {mine_gc.count[g]}, longest {mine_gc.longest[g] * 1e3:.1f} ms" for g in range(3)))
    print(f"  server RSS with {rooms} rooms and {rooms * PER_ROOM} clients: idle "
          f"{rss_idle / MIB:.0f} MiB, after the run {rss / MIB:.0f} MiB "
          f"({rss / rooms / 1024:.0f} KiB per room incl. the process itself)")
    return [
        Goal("3 many rooms", f"{rooms} rooms x {PER_ROOM} clients, 1 action/s each, full",
             f"p99 {p99 * 1e3:.2f} ms (p50 {p50 * 1e3:.2f}, max {worst * 1e3:.1f})",
             "p99 <= 20 ms", p99 <= P99_GOAL),
        Goal("3 many rooms", f"{rooms} rooms: completed {done:.1%}, p50 first/last third "
             f"{pct(early, 50) * 1e3:.2f}/{pct(late, 50) * 1e3:.2f} ms",
             "saturated" if saturated else "not saturated", "no saturation", not saturated),
    ]


async def memory(rooms: int, actions: int, window: int = 50, trace: int = 0) -> list[Goal]:
    print(f"== Goal 3b: memory of {rooms} active rooms after {actions:,} actions each ==")
    async with client_session() as session:
        with tmpdir() as d:
            db = Path(d) / "mem.sqlite3"
            setups = prepare_rooms(db, [f"m{i}" for i in range(rooms + 1)], PIECES, players=2,
                                   observers=1, bridges=1)
            tracing = ["--tracemalloc", str(trace)] if trace else []
            with ServerProc("komasync", "--db", str(db), "--lazy", *tracing) as srv:
                # One room first takes as many actions as each measured room will, so what
                # the process keeps once whatever the room count (SQLite's page cache,
                # allocator pools, code paths) is in `before`, not divided among the rooms.
                warm = await open_rooms(session, srv.url, setups[:1])
                await run_actions(warm[0], actions, window)
                await settle(warm[0])
                before_parts = await srv.stats(session, gc=True)
                before = before_parts["rss"]
                if trace:
                    await srv.stats(session, trace="mark")
                hubs = await open_rooms(session, srv.url, setups[1:], passive_from=1)
                t0 = time.perf_counter()
                await asyncio.gather(*(run_actions(h, actions, window) for h in hubs))
                elapsed = time.perf_counter() - t0
                for h in hubs:
                    await settle(h)
                after_parts = await srv.stats(session, gc=True)
                after = after_parts["rss"]
                per_room = (after - before) / rooms
                if trace:  # what the measured rooms keep, by allocation site
                    print("\n".join((await srv.stats(session, trace="top"))["trace"]))
                await asyncio.gather(*(h.close() for h in [*warm, *hubs]))
    print(f"  {rooms * actions:,} actions in {elapsed:.1f} s ({rooms * actions / elapsed:,.0f}/s); "
          f"RSS before the rooms {before / MIB:.1f} MiB, after {after / MIB:.1f} MiB")
    print(f"  per active room: {per_room / MIB:.3f} MiB (" + ", ".join(
        f"{k[3:]} {(after_parts[k] - before_parts[k]) / rooms / MIB:+.3f}"
        for k in ("rssanon", "rssfile", "rssshmem")) + ")")
    return [Goal("3 memory", f"{rooms} rooms x {PER_ROOM} clients after {actions:,} actions each",
                 f"{per_room / MIB:.3f} MiB per active room", "<= 0.5 MiB", per_room <= MEM_GOAL)]


async def run_actions(hub: Hub, actions: int, window: int) -> None:
    hub.target.mark()
    await pipelined(hub, actions, window)


async def run(rooms: int = 1000, seconds: float = 15, mem_rooms: int = 12,
              mem_actions: int = 10_000, trace: int = 0) -> list[Goal]:
    print(LIMITS_NOTE)
    goals = await many_rooms(rooms, seconds) if rooms > 0 else []  # 0: the memory half only
    print()
    if mem_rooms > 0:  # 0: the many-rooms half only
        goals += await memory(mem_rooms, mem_actions, trace=trace)
    return goals


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rooms", type=int, default=1000)
    p.add_argument("--seconds", type=float, default=15)
    p.add_argument("--mem-rooms", type=int, default=12)
    p.add_argument("--mem-actions", type=int, default=10_000)
    p.add_argument("--trace", type=int, default=0, metavar="FRAMES",
                   help="memory half: trace allocations (slow) and list what the rooms keep")
    a = p.parse_args()
    goals = asyncio.run(run(a.rooms, a.seconds, a.mem_rooms, a.mem_actions, a.trace))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
