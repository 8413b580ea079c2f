"""A bench server in its own process: the real komasync server, or a raw relay.

    python bench/_serve.py komasync --db FILE [--durability full|normal] [--snapshot-every N]
                                        [--lazy] [--loop-monitor] [--limit NAME=VALUE ...]
                                        [--store redis://HOST:PORT/DB]
    python bench/_serve.py relay [--loop-monitor]

Prints one JSON line `{"port": …, "pid": …}` once listening on 127.0.0.1 (random port),
then serves until SIGTERM/SIGINT, until its stdin closes (the bench died) or for at most
`--lifetime` seconds. Both servers answer `GET /_bench/stats` with the process CPU time
(`time.process_time()`), RSS (after a `gc.collect()` with `?gc=1`) and, with
`--loop-monitor`, the longest event-loop stalls seen since the last `?reset=1`.

`--lazy` skips loading every room at start (rooms load on first join, as the server
does for a room it has not loaded yet), so memory can be read before and after.

Loop monitor: a task that sleeps 1 ms in a loop; each wake-up records how late it came
(wall clock: anything that kept the loop thread from running it, including the OS giving
the core to another process) and how much CPU the loop thread used meanwhile, split into
user time (the server's own code) and system time (the kernel, e.g. inside `send`).

komasync runs with its per-connection rate limit raised (see `bench_limits()`): the
default (40 msg/s, burst 80) would throttle a single benchmark sender.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import os
import resource
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from komasync.server.connection import Limits

BENCH_RATE = 1_000_000.0
BENCH_BURST = 1_000_000
BENCH_CONNECTIONS = 100_000
LIMITS_NOTE = (f"komasync runs with Limits(rate={BENCH_RATE:.0f}, burst={BENCH_BURST}, "
               f"connections_per_address={BENCH_CONNECTIONS}, invite and bridge rates as rate) "
               f"(defaults: 40/s, burst 80, 64 per address, 40/s and 120/s per invite) so the "
               f"bench's one sender and one address are not throttled (bench/flood.py runs "
               f"with the defaults)")
CLIENTS: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("clients", set)


def bench_limits(snapshot_every: int = 200, extra: dict[str, str] | None = None) -> Limits:
    """komasync's limits for the bench: only the per-connection rate limit is raised
    (`snapshot_every` stays at the server's default unless a bench asks otherwise)."""
    import dataclasses

    from komasync.server.connection import Limits

    fields = {f.name: f.type for f in dataclasses.fields(Limits)}
    kw: dict[str, object] = {}
    for name, value in (extra or {}).items():
        if name not in fields:
            raise SystemExit(f"unknown limit {name}")
        kw[name] = float(value) if "." in value else int(value)
    return Limits(**{"rate": BENCH_RATE, "burst": BENCH_BURST,  # type: ignore[arg-type]
                     "invite_rate": BENCH_RATE, "invite_burst": BENCH_BURST,
                     "bridge_rate": BENCH_RATE, "bridge_burst": BENCH_BURST,
                     "connections_per_address": BENCH_CONNECTIONS,
                     "snapshot_every": snapshot_every, **kw})


class LoopMonitor:
    """Wakes every millisecond; keeps the latest wake-ups' lateness and loop-thread CPU."""

    PERIOD = 0.001

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.user: list[float] = []
        self.gc_max = 0.0
        self.gc_started = 0.0

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        """The longest garbage collection (any thread) since the last reset."""
        if phase == "start":
            self.gc_started = time.perf_counter()
        elif self.gc_started:
            self.gc_max = max(self.gc_max, time.perf_counter() - self.gc_started)

    async def run(self) -> None:
        gc.callbacks.append(self.on_gc)
        while True:
            t0, c0 = time.perf_counter(), time.thread_time()
            u0 = resource.getrusage(resource.RUSAGE_THREAD).ru_utime
            await asyncio.sleep(self.PERIOD)
            self.wall.append(max(0.0, time.perf_counter() - t0 - self.PERIOD))
            self.cpu.append(time.thread_time() - c0)
            self.user.append(resource.getrusage(resource.RUSAGE_THREAD).ru_utime - u0)
            if len(self.wall) > 200_000:
                del self.wall[:100_000], self.cpu[:100_000], self.user[:100_000]

    def stats(self) -> dict[str, float]:
        wall, cpu = sorted(self.wall) or [0.0], sorted(self.cpu) or [0.0]
        return {"stall_wall_max": wall[-1], "stall_cpu_max": cpu[-1], "gc_max": self.gc_max,
                "stall_user_max": max(self.user, default=0.0),
                "stall_wall_p999": wall[int(len(wall) * 0.999)], "stall_samples": len(wall)}


MONITOR: web.AppKey[LoopMonitor] = web.AppKey("monitor", LoopMonitor)


class GcStats:
    """Garbage collections per generation since the last reset: count, total and longest
    pause, in wall-clock time and in the collecting thread's CPU time (on a shared machine
    the OS may run another process mid-collection; the CPU time is the collector's own).
    gc.callbacks only: no task, so it adds nothing to the loop's work."""

    def __init__(self) -> None:
        self.reset()
        gc.callbacks.append(self.on_gc)

    def stop(self) -> None:
        gc.callbacks.remove(self.on_gc)

    def reset(self) -> None:
        self.count = [0, 0, 0]
        self.total = [0.0, 0.0, 0.0]
        self.longest = [0.0, 0.0, 0.0]
        self.cpu_longest = [0.0, 0.0, 0.0]
        self.started = (0.0, 0.0)

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = (time.perf_counter(), time.thread_time())
        elif self.started[0]:
            g = info["generation"]
            took, cpu = time.perf_counter() - self.started[0], time.thread_time() - self.started[1]
            self.count[g] += 1
            self.total[g] += took
            self.longest[g] = max(self.longest[g], took)
            self.cpu_longest[g] = max(self.cpu_longest[g], cpu)

    def stats(self) -> dict[str, float]:
        out: dict[str, float] = {}  # (not gc.get_freeze_count(): it walks every frozen object)
        for g in range(3):
            out |= {f"gc{g}_count": self.count[g], f"gc{g}_total": self.total[g],
                    f"gc{g}_max": self.longest[g], f"gc{g}_cpu_max": self.cpu_longest[g]}
        return out


GC_STATS: web.AppKey[GcStats] = web.AppKey("gc_stats", GcStats)
STORAGE: web.AppKey[Any] = web.AppKey("storage")


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss_parts() -> dict[str, float]:
    """RSS split as the kernel counts it: anonymous (the heap), file-backed, shared memory
    (SQLite's WAL index is a mapped file)."""
    parts = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key = line.split(":", 1)[0]
        if key in ("RssAnon", "RssFile", "RssShmem"):
            parts[key.lower()] = float(int(line.split()[1]) * 1024)
    return parts


async def _stats(request: web.Request) -> web.Response:
    found = 0
    if request.query.get("gc"):
        found = gc.collect()  # only for memory readings: a full collection stalls the loop
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)  # freed memory back to the OS
    data: dict[str, float] = {"cpu": time.process_time(), "rss": rss_bytes(),
                              "gc_found": found, **rss_parts()}
    if request.query.get("trace"):
        data["trace"] = _trace(request.query["trace"])  # type: ignore[assignment]
    storage = request.app.get(STORAGE)
    if storage is not None:  # group commit: transactions the storage thread made, batches
        data |= {"commit_groups": storage.groups, "commit_batches": storage.batches}
    gc_stats = request.app.get(GC_STATS)
    if gc_stats is not None:
        data.update(gc_stats.stats())
        if request.query.get("reset"):
            gc_stats.reset()
    monitor = request.app.get(MONITOR)
    if monitor is not None:
        data.update(monitor.stats())
        if request.query.get("reset"):
            monitor.reset()
    return web.json_response(data)


_TRACE_MARK: list[object] = []


def _trace(what: str) -> list[str]:
    """`mark`: remember the traced allocations now; `top`: the 40 allocation sites that grew
    most since the mark (needs `--tracemalloc`)."""
    import tracemalloc

    if not tracemalloc.is_tracing():
        return ["tracemalloc is off: start the server with --tracemalloc"]
    snap = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)])
    if what == "mark" or not _TRACE_MARK:
        _TRACE_MARK[:] = [snap]
        return []
    stats = snap.compare_to(_TRACE_MARK[0], "lineno")  # type: ignore[arg-type]
    total = sum(s.size_diff for s in stats)
    lines = [f"traced total {total / 1024:+.0f} KiB", *(str(s) for s in stats[:40])]
    if tracemalloc.get_traceback_limit() > 1:  # where the largest growth was made from
        for s in snap.compare_to(_TRACE_MARK[0], "traceback")[:12]:  # type: ignore[arg-type]
            lines += [f"-- {s}", *s.traceback.format()]
    return lines


def raise_nofile() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def _relay(request: web.Request) -> web.WebSocketResponse:
    """Broadcast every text frame, as received, to every connected client (sender too)."""
    ws = web.WebSocketResponse(max_msg_size=1 << 20)
    await ws.prepare(request)
    clients = request.app[CLIENTS]
    clients.add(ws)
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            for client in list(clients):
                with contextlib.suppress(ConnectionResetError, RuntimeError):
                    await client.send_str(msg.data)
    finally:
        clients.discard(ws)
    return ws


def relay_app() -> web.Application:
    app = web.Application()
    app[CLIENTS] = set()
    app.router.add_get("/ws", _relay)
    app.router.add_get("/_bench/stats", _stats)
    return app


def komasync_app(db: str, durability: str, snapshot_every: int, lazy: bool,
                 extra: dict[str, str], store: str | None = None) -> web.Application:
    """The real komasync app; imported here so that the relay process never loads it.
    `store`: the log in Redis (as `komasync serve --store`) instead of the SQLite file."""
    from komasync.server.app import Komasync, make_app
    from komasync.server.storage import open_backend

    backend = open_backend(store, db, durability)  # type: ignore[arg-type]
    server = Komasync(db, bench_limits(snapshot_every, extra), durability, backend)
    app = make_app(server)
    app[STORAGE] = server.storage
    if lazy:
        app.on_startup.clear()  # only the recovery of every room is registered there
    app.router.add_get("/_bench/stats", _stats)
    return app


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def serve(app: web.Application, lifetime: float) -> None:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    print(orjson.dumps({"port": port, "pid": os.getpid()}).decode(), flush=True)
    monitor = app.get(MONITOR)
    probe = asyncio.ensure_future(monitor.run()) if monitor is not None else None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    watch = asyncio.ensure_future(_stdin_closed())
    watch.add_done_callback(lambda _f: stop.set())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), lifetime)
    if probe is not None:
        probe.cancel()
    await runner.cleanup()
    os._exit(0)  # the stdin reader thread would otherwise keep the process alive


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("kind", choices=["komasync", "relay"])
    p.add_argument("--db", default="")
    p.add_argument("--durability", choices=["full", "normal"], default="full")
    p.add_argument("--snapshot-every", type=int, default=200)
    p.add_argument("--lifetime", type=float, default=600.0)
    p.add_argument("--lazy", action="store_true", help="do not load every room at start")
    p.add_argument("--loop-monitor", action="store_true")
    p.add_argument("--gc-stats", action="store_true",
                   help="count garbage collections and their pauses per generation")
    p.add_argument("--tracemalloc", type=int, default=0, metavar="FRAMES",
                   help="trace allocations with FRAMES frames (slow); "
                        "/_bench/stats?trace=mark|top reads them")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--store", default=None, help="redis://… (default: the SQLite file --db)")
    args = p.parse_args()
    raise_nofile()
    if args.tracemalloc:
        import tracemalloc

        tracemalloc.start(args.tracemalloc)
    if args.kind == "komasync":
        extra = dict(x.split("=", 1) for x in args.limit)
        app = komasync_app(args.db, args.durability, args.snapshot_every, args.lazy, extra,
                           args.store)
    else:
        app = relay_app()
    if args.loop_monitor:
        app[MONITOR] = LoopMonitor()
    if args.gc_stats:
        app[GC_STATS] = GcStats()
    asyncio.run(serve(app, args.lifetime))


if __name__ == "__main__":
    main()
