"""Several processes on one Redis: latency through a relay, and failover time.

Two `komasync serve --store redis://…` processes (A owns the room, B relays to it) and,
as the baseline of the same run, one `komasync serve` on SQLite. The GM sends
`table.counter.add` on the owner; the time runs until the LAST of the N clients of a
group has the matching `change`: the group on A (clients on the owner), the group on B
(clients on another process, relayed), and the group on the SQLite server. Blocks
alternate (SQLite, Redis, Redis, SQLite, …) so drift in machine load hits both alike.

Failover: a GM client on B streams actions one after another; A is killed (SIGKILL);
the time runs from the kill until the first ack by the new owner (B, once A's lease has
lapsed: at most the lease TTL, `--lease-ms`). Repeated `--failovers` times (a fresh
process replaces the killed one each time).

    python bench/redis_cluster.py [--blocks 4] [--samples 60] [--clients 5] [--failovers 2]
                                  [--lease-ms 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import Goal, machine_note, pct

from komasync.engine.scenario import build_room, load_scenario_file
from komasync.server.storage import RedisStorage, Storage
from komasync.server.storage.redis_conf import redis_conf

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "examples" / "demo_table.yaml"
SECRET = "bench-secret-long-enough"
ROOM = "bench"
TIMEOUT = 30.0
KOMASYNC = [sys.executable, "-c", "from komasync.server.cli import main; raise SystemExit(main())"]
LIMITS = ["--rate", "1000000", "--connections-per-address", "100000"]


@dataclass
class Proc:
    proc: subprocess.Popen[str]
    ws: str


def serve(*args: str) -> Proc:
    proc = subprocess.Popen([*KOMASYNC, "serve", "--port", "0", *LIMITS, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"ws://[\d.]+:\d+/ws", line)
        if m:
            return Proc(proc, m.group(0))
    raise RuntimeError("komasync serve did not start")


def start_redis(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit("redis-server is not installed (scripts/setup.sh installs Debian's)")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([server, "-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(redis_conf(directory, port).encode())
    proc.stdin.close()
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(500):
        with contextlib.suppress(Exception):
            RedisStorage(url).close()
            return proc, url
        time.sleep(0.02)
    raise RuntimeError("redis-server did not start")


def make_rooms(redis_url: str, db: Path) -> None:
    state = build_room(load_scenario_file(SCENARIO), seed="bench").model_dump(mode="json")
    red = RedisStorage(redis_url)
    red.create_room(ROOM, "bench", SECRET, state)
    red.close()
    Storage(str(db)).create_room(ROOM, "bench", SECRET, state)


class Peer:
    """One GM connection that notes when each version's change reached it."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.version = 0
        self.seen: dict[int, float] = {}
        self.acks: dict[str, tuple[int, float]] = {}
        self.moved = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def join(cls, http: aiohttp.ClientSession, url: str, since: int | None = None) -> Peer:
        ws = await http.ws_connect(url, max_msg_size=0)
        auth = {"type": "auth", "room": ROOM, "secret": SECRET}
        await ws.send_str(orjson.dumps(auth if since is None else {**auth, "since": since}).decode())
        while True:
            msg = orjson.loads((await asyncio.wait_for(ws.receive(), TIMEOUT)).data)
            if msg["type"] == "welcome":
                peer = cls(ws)
                peer.version = int(msg["version"])
                return peer
            if msg["type"] in ("bye", "error"):
                raise ConnectionError(msg["code"])

    async def _read(self) -> None:
        async for frame in self.ws:
            if frame.type != aiohttp.WSMsgType.TEXT:
                break
            msg = orjson.loads(frame.data)
            now = time.perf_counter()
            if msg["type"] == "change":
                self.version = int(msg["to_version"])
                self.seen[self.version] = now
            elif msg["type"] == "snapshot":
                self.version = int(msg["version"])
            elif msg["type"] == "ack":
                self.acks[msg["id"]] = (int(msg["version"]), now)
        self.moved.set()

    async def send(self, msg_id: str, delta: int) -> None:
        await self.ws.send_str(orjson.dumps({"type": "action", "id": msg_id, "action": {
            "kind": "table.counter.add", "counter": "clock", "delta": delta}}).decode())

    async def close(self) -> None:
        self.reader.cancel()
        await self.ws.close()


async def until(cond: object, what: str) -> None:
    deadline = time.perf_counter() + TIMEOUT
    while not cond():  # type: ignore[operator]
        if time.perf_counter() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.0002)


async def block(sender: Peer, groups: dict[str, list[Peer]], samples: int, tag: str,
                out: dict[str, list[float]]) -> None:
    """`samples` sequential actions; per group, send → last client of the group."""
    everyone = [p for g in groups.values() for p in g]
    for i in range(samples):
        t0 = time.perf_counter()
        msg_id = f"{tag}-{i}"
        await sender.send(msg_id, 1 if i % 2 == 0 else -1)
        await until(lambda m=msg_id: m in sender.acks, "ack")  # type: ignore[misc]
        v = sender.acks[msg_id][0]
        await until(lambda v=v: all(v in p.seen for p in everyone), "fan-out")  # type: ignore[misc]
        for name, group in groups.items():
            out.setdefault(name, []).append(max(p.seen[v] for p in group) - t0)


async def latency(args: argparse.Namespace, http: aiohttp.ClientSession, a: Proc, b: Proc,
                  lite: Proc) -> dict[str, list[float]]:
    sender = await Peer.join(http, a.ws)  # the first join: A claims the room
    on_a = [await Peer.join(http, a.ws) for _ in range(args.clients)]
    on_b = [await Peer.join(http, b.ws) for _ in range(args.clients)]
    lite_sender = await Peer.join(http, lite.ws)
    on_lite = [await Peer.join(http, lite.ws) for _ in range(args.clients)]
    out: dict[str, list[float]] = {}
    await block(sender, {"warm": on_a + on_b}, 20, "warm-r", {})
    await block(lite_sender, {"warm": on_lite}, 20, "warm-s", {})
    for n in range(args.blocks):
        order = ("redis", "sqlite") if n % 2 == 0 else ("sqlite", "redis")
        for which in order:
            if which == "redis":
                await block(sender, {"redis: clients on the owner": on_a,
                                     "redis: clients on another process": on_b},
                            args.samples, f"r{n}", out)
            else:
                await block(lite_sender, {"sqlite: one process (baseline)": on_lite},
                            args.samples, f"s{n}", out)
    for p in [sender, *on_a, *on_b, lite_sender, *on_lite]:
        await p.close()
    return out


async def failover(http: aiohttp.ClientSession, owner: Proc, other: Proc) -> float:
    """Kill the owner mid-stream; seconds from the kill to the first ack by the new one."""
    first = await Peer.join(http, owner.ws)  # make sure `owner` owns the room
    await first.close()
    c = await Peer.join(http, other.ws)
    killed_at = 0.0
    i = 0
    tag = f"f{time.monotonic_ns()}"
    while True:
        msg_id = f"{tag}-{i}"  # the same id when resent: applied once
        await c.send(msg_id, 1 if i % 2 == 0 else -1)
        got = await _ack_or_moved(c, msg_id)
        if got is None:  # the relay said the room moved: reconnect (its next join waits)
            c = await _rejoin(http, other.ws, c.version)
            continue
        if killed_at:
            await c.close()
            return got - killed_at
        i += 1
        if i == 20:
            killed_at = time.perf_counter()
            owner.proc.send_signal(signal.SIGKILL)


async def _ack_or_moved(c: Peer, msg_id: str) -> float | None:
    deadline = time.perf_counter() + TIMEOUT
    while msg_id not in c.acks:
        if c.moved.is_set():
            return None
        if time.perf_counter() > deadline:
            raise TimeoutError("no ack")
        await asyncio.sleep(0.0002)
    return c.acks[msg_id][1]


async def _rejoin(http: aiohttp.ClientSession, url: str, since: int) -> Peer:
    for _ in range(100):
        with contextlib.suppress(ConnectionError, aiohttp.ClientError, TimeoutError):
            return await Peer.join(http, url, since)
        await asyncio.sleep(0.01)
    raise RuntimeError("could not rejoin")


def row(name: str, values: list[float]) -> str:
    return (f"{name:<38} | {len(values):>7} | {pct(values, 50) * 1e3:>8.3f} | "
            f"{pct(values, 99) * 1e3:>8.3f}")


async def measure(args: argparse.Namespace) -> tuple[dict[str, list[float]], list[float]]:
    """Latency per group (seconds) and each failover's time (seconds), in one run."""
    tmp = Path(tempfile.mkdtemp(prefix="komasync-cluster-"))
    (tmp / "redis").mkdir()
    red, url = start_redis(tmp / "redis")
    make_rooms(url, tmp / "lite.sqlite3")
    store = ["--store", url, "--lease-ms", str(args.lease_ms)]
    procs = [serve(*store), serve(*store)]
    lite = serve("--db", str(tmp / "lite.sqlite3"))
    times: list[float] = []
    try:
        async with aiohttp.ClientSession() as http:
            lat = await latency(args, http, procs[0], procs[1], lite)
            for _ in range(args.failovers):
                times.append(await failover(http, procs[0], procs[1]))
                procs[0].proc.wait()
                procs = [procs[1], serve(*store)]  # the survivor owns it now
    finally:
        for p in [*procs, lite]:
            p.proc.kill()
            p.proc.wait()
        red.kill()
        red.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return lat, times


def setup_note(args: argparse.Namespace) -> str:
    return (f"{args.clients} clients per group, GM sender on the owner; {args.blocks} blocks × "
            f"{args.samples} actions, alternating; lease TTL {args.lease_ms} ms; Redis AOF "
            f"appendfsync always, SQLite synchronous=FULL")


def goal_lines(args: argparse.Namespace, lat: dict[str, list[float]],
               times: list[float]) -> list[Goal]:
    """The figures as information lines of bench/run_all.py's table."""
    lines = [Goal("17 cluster (info)", f"action -> last of {args.clients}, {name}",
                  f"p50 {pct(v, 50) * 1e3:.2f} / p99 {pct(v, 99) * 1e3:.2f} ms", "-", None)
             for name, v in lat.items()]
    if times:
        each = ", ".join(f"{t * 1e3:.0f}" for t in times)
        lines.append(Goal("17 cluster (info)",
                          f"failover, owner killed -> first ack (lease {args.lease_ms} ms)",
                          f"median {pct(times, 50) * 1e3:.0f} ms (each {each})", "-", None))
    return lines


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--clients", type=int, default=5)
    parser.add_argument("--failovers", type=int, default=2)
    parser.add_argument("--lease-ms", type=int, default=1500)
    return parser.parse_args(argv)


async def main(args: argparse.Namespace) -> None:
    lat, times = await measure(args)
    print(machine_note())
    print(setup_note(args))
    print(f"{'action -> last client of the group':<38} | {'actions':>7} | {'p50 ms':>8} | "
          f"{'p99 ms':>8}")
    print("-" * 70)
    for name, values in lat.items():
        print(row(name, values))
    if times:
        each = ", ".join(f"{t * 1e3:.0f}" for t in times)
        print(f"{'failover: owner killed -> first ack':<38} | {len(times):>7} | "
              f"{pct(times, 50) * 1e3:>8.0f} | {max(times) * 1e3:>8.0f}  (median, max; each: "
              f"{each} ms)")


if __name__ == "__main__":
    asyncio.run(main(options()))
