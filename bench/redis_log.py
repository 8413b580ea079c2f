"""Issue 17: the Redis log beside SQLite in the same run, in alternating blocks.

Two komasync servers run the whole time: one keeps its log in SQLite (`--durability
full`: fsync per commit), the other in Redis (`--store redis://…`, a redis-server this
bench starts with `komasync redis-conf`'s settings: AOF with `appendfsync always`, in
the same temporary directory, so on the same disk). The same rooms and invites are in
both (made in SQLite, copied to Redis by `komasync migrate`'s code). Every client is on
the process that owns the room (one process per store; clients on another process are
r17cluster's bench). Figures:

- durable actions/s per room: 2 GM connections pipeline (window 50 each) into one room
  with 4 players, a Ccfolia bridge and 3 observers (10 clients); acks per second, an ack
  leaving only once the action is in the log;
- action → last client p50/p99: the GM sends one `table.move` at a time in another room
  and the time runs until the last of its 10 clients has the matching `change`.

The file is not `redis.py`: the bench folder is first on `sys.path`, so that name would
hide the `redis` package from komasync itself.

    python bench/redis_log.py [--blocks 6] [--actions 2000] [--samples 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    Goal,
    Hub,
    KomasyncTarget,
    ServerProc,
    ack_rate,
    client_session,
    goal_table,
    pct,
    prepare_rooms,
    sequential,
    settle,
    spread,
    tmpdir,
)
from _serve import LIMITS_NOTE

from komasync.server.migrate import copy_rooms
from komasync.server.storage import RedisStorage, Storage
from komasync.server.storage.redis_conf import redis_conf

CLIENTS = 10
SENDERS = 2
STORES = ("sqlite", "redis")


class RedisServer:
    """redis-server with komasync's settings on a free loopback port, its AOF in `directory`."""

    def __init__(self, directory: Path) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise SystemExit("redis-server is not installed (scripts/setup.sh installs Debian's)")
        directory.mkdir()
        self.port = free_port()
        self.proc = subprocess.Popen([exe, "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
        assert self.proc.stdin is not None
        self.proc.stdin.write(redis_conf(directory, self.port).encode())
        self.proc.stdin.close()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(redis.ConnectionError, redis.BusyLoadingError):
                if client.ping():
                    break
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)
        client.close()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def measure(hubs: dict[str, tuple[Hub, Hub]], nblocks: int, actions: int, window: int,
                  samples: int) -> tuple[dict[str, list[float]], dict[str, list[list[float]]]]:
    """Blocks alternate between the stores (S R, R S, …): a throughput block then a latency
    block on each. Returns (acks/s per block, latencies per block) per store."""
    rates: dict[str, list[float]] = {s: [] for s in STORES}
    lats: dict[str, list[list[float]]] = {s: [] for s in STORES}
    for b in range(nblocks):
        for store in STORES if b % 2 == 0 else STORES[::-1]:
            tp, lat = hubs[store]
            rate, _ = await ack_rate(tp, SENDERS, actions // SENDERS, window)
            await settle(tp)
            rates[store].append(rate)
            lats[store].append(await sequential(lat, samples))
    return rates, lats


async def run(nblocks: int = 6, actions: int = 2000, window: int = 50, samples: int = 60,
              pieces: int = 10) -> list[Goal]:
    print("== Issue 17: the Redis log beside SQLite (alternating blocks) ==")
    print(LIMITS_NOTE)
    print(f"one process per store, every client on it; SQLite durability=full, Redis AOF "
          f"appendfsync always (komasync redis-conf); {pieces} pieces; {nblocks} blocks per "
          f"store of {actions} pipelined actions ({SENDERS} GM senders x window {window}, "
          f"{CLIENTS} clients) and {samples} sequential actions ({CLIENTS} clients)")
    async with client_session() as session:
        with tmpdir() as d:
            db = Path(d) / "bench.sqlite3"
            tp_setup, lat_setup = prepare_rooms(db, ["tp", "lat"], pieces, players=4,
                                                observers=CLIENTS, bridges=1)
            server = RedisServer(Path(d) / "redis")
            try:
                copied, _ = copy_rooms(Storage(db), RedisStorage(server.url, owner="bench"))
                assert [room for room, _v in copied] == ["tp", "lat"]
                with ServerProc("komasync", "--db", str(db), "--durability", "full") as sq, \
                        ServerProc("komasync", "--db", str(Path(d) / "unused.sqlite3"),
                                   "--store", server.url) as rd:
                    hubs = {}
                    for store, proc in (("sqlite", sq), ("redis", rd)):
                        tp = await KomasyncTarget(proc.url, session, tp_setup, pieces).open(
                            CLIENTS, gms=SENDERS, players=4, bridges=1, passive_from=SENDERS)
                        lat = await KomasyncTarget(proc.url, session, lat_setup, pieces).open(
                            CLIENTS, players=4, bridges=1)
                        await ack_rate(tp, SENDERS, 200, window)  # warm-up
                        await settle(tp)
                        await sequential(lat, 20)
                        hubs[store] = (tp, lat)
                    rates, lats = await measure(hubs, nblocks, actions, window, samples)
                    for tp, lat in hubs.values():
                        await tp.close()
                        await lat.close()
            finally:
                server.stop()
    return report(rates, lats)


def report(rates: dict[str, list[float]], lats: dict[str, list[list[float]]]) -> list[Goal]:
    flat = {s: [x for b in lats[s] for x in b] for s in STORES}
    for s in STORES:
        print(f"  {s:6} {pct(rates[s], 50):8,.0f} acks/s (blocks {min(rates[s]):,.0f}-"
              f"{max(rates[s]):,.0f})   latency p50 {pct(flat[s], 50) * 1e3:6.3f} ms  "
              f"p99 {pct(flat[s], 99) * 1e3:6.3f} ms  block p50s {spread(lats[s])} ms")
    r, q = pct(rates["redis"], 50), pct(rates["sqlite"], 50)
    goals = [Goal("17 redis (info)", f"durable actions/s, 1 room, {CLIENTS} clients, owner only",
                  f"redis {r:,.0f}/s vs sqlite {q:,.0f}/s ({r / q:.2f}x)",
                  f"blocks r {min(rates['redis']):,.0f}-{max(rates['redis']):,.0f} / "
                  f"s {min(rates['sqlite']):,.0f}-{max(rates['sqlite']):,.0f}", None)]
    for p in (50, 99):
        rv, sv = pct(flat["redis"], p) * 1e3, pct(flat["sqlite"], p) * 1e3
        goals.append(Goal("17 redis (info)",
                          f"action -> last client p{p}, {CLIENTS} clients on the owner",
                          f"redis {rv:.3f} ms vs sqlite {sv:.3f} ms ({rv / sv:.2f}x)",
                          f"block p50s r {spread(lats['redis'])} / s {spread(lats['sqlite'])} ms"
                          if p == 50 else "-", None))
    return goals


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--blocks", type=int, default=6)
    p.add_argument("--actions", type=int, default=2000)
    p.add_argument("--window", type=int, default=50)
    p.add_argument("--samples", type=int, default=60)
    p.add_argument("--pieces", type=int, default=10)
    a = p.parse_args()
    goals = asyncio.run(run(a.blocks, a.actions, a.window, a.samples, a.pieces))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
