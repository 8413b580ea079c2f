"""Shared bench code: server processes, the one client used against both servers, stats.

The same `Peer`/`Hub` client code talks to komasync and to the raw relay; only a
`Target` knows each server's frame format (how to authenticate, what an action looks
like, how to recognise "this client received frame k" and "the sender's frame k was
acknowledged").
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import platform
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from komasync.engine.scenario import RoomSettings, Scenario, build_room
from komasync.engine.state import PlayerInfo
from komasync.engine.table import Cell, Grid, Piece, TableScenario
from komasync.server.storage import Storage

BENCH = Path(__file__).resolve().parent
TIMEOUT = 30.0
PLAYERS = ("p1", "p2", "p3", "p4")


# -- results -------------------------------------------------------------------------
@dataclass
class Goal:
    """One line of the summary: a goal of issue 16, what was measured, whether it holds."""

    goal: str
    config: str
    measured: str
    target: str
    holds: bool | None  # None: informational, no pass/fail
    # The best any server could measure here, from the baselines of the same run (the
    # relay, one commit), and whether that best meets the target: a goal the host itself
    # rules out says so, beside the goals komasync misses.
    best: str | None = None
    reachable: bool | None = None


@dataclass
class Row:
    """A figure of a bench without a goal of its own (grid.py): komasync's value and an
    optional baseline in the same unit."""

    figure: str
    config: str
    komasync: float
    baseline: float | None
    unit: str

    @property
    def ratio(self) -> str:
        if not self.baseline:
            return "-"
        return f"{self.komasync / self.baseline:.2f}x"


def fmt(v: float | None) -> str:
    if v is None:
        return "-"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.3f}"


def table(rows: list[Row]) -> str:
    head = ("figure", "configuration", "komasync", "baseline", "ratio", "unit")
    cells = [head, *[(r.figure, r.config, fmt(r.komasync), fmt(r.baseline), r.ratio, r.unit)
                     for r in rows]]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    lines = [" | ".join(c[i].ljust(widths[i]) if i < 2 else c[i].rjust(widths[i])
                        for i in range(len(head))) for c in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def goal_table(goals: list[Goal]) -> str:
    head: tuple[str, ...] = ("goal", "configuration", "measured", "target", "holds")
    cells = [head, *[(g.goal, g.config, g.measured, g.target,
                      "-" if g.holds is None else ("yes" if g.holds else "NO")) for g in goals]]
    if any(g.best is not None for g in goals):
        head = (*head, "best possible here")
        cells = [head, *[(*c, _best(g)) for c, g in zip(cells[1:], goals, strict=True)]]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    lines = [" | ".join(c[i].ljust(widths[i]) for i in range(len(head))) for c in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def _best(g: Goal) -> str:
    if g.best is None:
        return "-"
    return g.best + ("" if g.reachable is not False else " (target out of reach here)")


def held_note(goals: list[Goal]) -> str:
    """How many goal lines hold, and which of the others this host rules out."""
    judged = [g for g in goals if g.holds is not None]
    held = sum(1 for g in judged if g.holds)
    out = [g for g in judged if not g.holds and g.reachable is False]
    note = f"{held} of {len(judged)} goal lines hold"
    if out:
        note += (f"; {len(out)} of the others cannot hold on this host whatever the server "
                 f"(its best possible, from this run's baselines, misses the target): "
                 + ", ".join(f"{g.goal} ({g.config.split(',')[0]})" for g in out))
    return note


def machine_note() -> str:
    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = ""
    with contextlib.suppress(OSError):
        load = ", load " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return (f"machine: {os.cpu_count()} cores ({cpu}){load}, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


def spread(blocks: list[list[float]], q: float = 50, scale: float = 1e3) -> str:
    """The per-block percentile's range, e.g. `0.91–1.02`."""
    vals = [pct(b, q) * scale for b in blocks if b]
    return f"{min(vals):.3f}-{max(vals):.3f}"


def raise_nofile() -> int:
    """Lift this process's open-file limit to the hard limit (thousands of sockets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


# -- the cost of one durable commit --------------------------------------------------------
ACTION_ROW = orjson.dumps({"kind": "table.move", "piece": "pc1", "to": {"x": 3, "y": 4}})
OPS_ROW = orjson.dumps([{"op": "set", "path": ["table", "pieces", "pc1", "cell"],
                         "value": {"x": 3, "y": 4}}])


class CommitProbe:
    """One SQLite commit of one action-sized row, in WAL mode at the given durability: the
    part of an action a durable server cannot skip. Lives beside the server's database."""

    def __init__(self, directory: str, durability: str) -> None:
        self.db = sqlite3.connect(str(Path(directory) / "commit-probe.sqlite3"),
                                  isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={durability.upper()}")
        self.db.execute("CREATE TABLE IF NOT EXISTS t (v INTEGER PRIMARY KEY, action BLOB, "
                        "ops BLOB)")
        self.n = 0

    def run(self, count: int) -> list[float]:
        times = []
        for _ in range(count):
            self.n += 1
            t0 = time.perf_counter()
            # one statement in autocommit, as the server writes a batch that fits one
            self.db.execute("INSERT INTO t VALUES (?, ?, ?)", (self.n, ACTION_ROW, OPS_ROW))
            times.append(time.perf_counter() - t0)
        return times

    def close(self) -> None:
        self.db.close()


# -- scenarios and databases ------------------------------------------------------------
def scenario(pieces: int) -> Scenario:
    """A table with `pieces` pieces spread over a 100×100 grid, owned round-robin."""
    side = 100
    return Scenario(
        room=RoomSettings(name=f"bench {pieces}"),
        players=[PlayerInfo(id=p, name=p.upper()) for p in PLAYERS],
        table=TableScenario(grid=Grid(width=side, height=side), pieces=[
            Piece(id=f"pc{i}", name=f"Piece {i}", owner=PLAYERS[i % len(PLAYERS)],
                  cell=Cell(x=i % side, y=(i // side) % side)) for i in range(pieces)]),
    )


@dataclass
class RoomSetup:
    room: str
    secret: str
    players: list[tuple[str, str]]  # (player id, token)
    observers: list[str]
    bridges: list[str] = field(default_factory=list)


def prepare_room(db: Path, pieces: int, players: int, observers: int, bridges: int = 0,
                 room: str = "bench") -> RoomSetup:
    """Create a room and invites directly in the SQLite file, before the server starts."""
    return prepare_rooms(db, [room], pieces, players, observers, bridges)[0]


def prepare_rooms(db: Path, rooms: list[str], pieces: int, players: int, observers: int,
                  bridges: int = 0) -> list[RoomSetup]:
    """Many rooms with their invites, written in one transaction."""
    store = Storage(db, "normal")
    secret = "bench-gm-secret"
    state = build_room(scenario(pieces), seed="bench").model_dump(mode="json")
    setups = []
    store.db.execute("BEGIN")
    for room in rooms:
        store.create_room(room, f"bench {pieces}", secret, state)
        ps = [(PLAYERS[i % len(PLAYERS)], store.create_invite(room, "player",
                                                             PLAYERS[i % len(PLAYERS)], "")[1])
              for i in range(players)]
        brs = [store.create_invite(room, "bridge", None, f"bridge{i}")[1] for i in range(bridges)]
        obs = [store.create_invite(room, "observer", None, f"obs{i}")[1]
               for i in range(observers)]
        setups.append(RoomSetup(room, secret, ps, obs, brs))
    store.db.execute("COMMIT")
    store.close()
    return setups


def client_session() -> aiohttp.ClientSession:
    """The bench's HTTP/WebSocket client: no cap on simultaneous connections."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))


def tmpdir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="komasync-bench-")


# -- server processes -------------------------------------------------------------------
class ServerProc:
    """`bench/_serve.py` in a subprocess; stops itself if we die (stdin closes)."""

    def __init__(self, kind: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, os.environ.get("KOMASYNC_BENCH_SERVE", str(BENCH / "_serve.py")),
             kind, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.stop()
            raise RuntimeError(f"bench server {kind} did not start")
        info = orjson.loads(line)
        self.port: int = info["port"]
        self.pid: int = info["pid"]
        self.url = f"ws://127.0.0.1:{self.port}/ws"

    async def stats(self, session: aiohttp.ClientSession, gc: bool = False,
                    reset: bool = False, trace: str = "") -> dict[str, Any]:
        query = "?" + "&".join([*(k + "=1" for k, on in (("gc", gc), ("reset", reset)) if on),
                                *([f"trace={trace}"] if trace else [])])
        async with session.get(f"http://127.0.0.1:{self.port}/_bench/stats{query}") as r:
            data: dict[str, Any] = await r.json()
            return data

    def stop(self) -> None:
        if self.proc.stdin:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def __enter__(self) -> ServerProc:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


# -- clients ----------------------------------------------------------------------------
@dataclass
class _Wait:
    left: int
    fut: asyncio.Future[float]


class Tracker:
    """Resolves a key's future (with the arrival time) once `n` peers have seen it."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.waiting: dict[Hashable, _Wait] = {}

    def expect(self, key: Hashable) -> asyncio.Future[float]:
        fut = asyncio.get_running_loop().create_future()
        self.waiting[key] = _Wait(self.n, fut)
        return fut

    def hit(self, key: Hashable) -> None:
        w = self.waiting.get(key)
        if w is None:
            return
        w.left -= 1
        if w.left == 0:
            del self.waiting[key]
            if not w.fut.done():
                w.fut.set_result(time.perf_counter())

    def fail(self, exc: Exception) -> None:
        for w in self.waiting.values():
            if not w.fut.done():
                w.fut.set_exception(exc)
        self.waiting.clear()


def _masked(opcode: int, payload: bytes) -> bytes:
    """One client → server WebSocket frame (clients must mask)."""
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, 0x80 | n])
    elif n < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + n.to_bytes(8, "big")
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + body


class RawDrain:
    """A WebSocket client that does as little as it can: the handshake by hand, then it
    only splits the byte stream into frames (to count them, answer pings and spot one
    marker) - no UTF-8 decoding, no JSON. Used for clients whose frames nobody times, so
    the bench process's own cost stays small beside the server's."""

    CHANGE = re.compile(rb'\{"type":"change","from_version":\d+,"to_version":(\d+)')

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.buf = bytearray()
        self.frames = 0
        self.on_change: Callable[[int], None] | None = None  # to_version of each change
        self.on_frame: Callable[[bytes], None] | None = None  # each text frame's first bytes

    @classmethod
    async def connect(cls, url: str) -> RawDrain:
        host, port = url.split("//")[1].split("/")[0].split(":")
        reader, writer = await asyncio.open_connection(host, int(port), limit=1 << 20)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"no WebSocket upgrade: {head[:80]!r}")
        return cls(reader, writer)

    def send(self, text: str) -> None:
        self.writer.write(_masked(0x1, text.encode()))

    async def drain(self, until: bytes | None = None) -> bool:
        """Read frames until the socket closes, or until a frame starting with `until`."""
        while True:
            chunk = await self.reader.read(1 << 16)
            if not chunk:
                return False
            self.buf += chunk
            if self._frames(until):
                return True

    def _frames(self, until: bytes | None) -> bool:
        buf = self.buf
        while len(buf) >= 2:
            op, n, pos = buf[0] & 0x0F, buf[1] & 0x7F, 2
            if n >= 126:
                pos = 4 if n == 126 else 10
                if len(buf) < pos:
                    return False
                n = int.from_bytes(buf[2:pos], "big")
            if len(buf) < pos + n:
                return False
            if op == 0x9:
                self.writer.write(_masked(0xA, bytes(buf[pos:pos + n])))
            elif self.on_change is not None and (m := self.CHANGE.match(buf, pos, pos + 64)):
                self.on_change(int(m.group(1)))
            if self.on_frame is not None and op == 0x1:
                self.on_frame(bytes(buf[pos:pos + min(n, 160)]))
            self.frames += 1
            found = until is not None and buf[pos:pos + len(until)] == until
            del buf[:pos + n]
            if found:
                return True
        return False

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.write(_masked(0x8, (1000).to_bytes(2, "big")))
            self.writer.close()


@dataclass
class Peer:
    index: int
    ws: Any  # aiohttp.ClientWebSocketResponse, or a RawDrain for a passive peer
    version: int = 0
    change_bytes: int = 0
    changes: int = 0
    frames: int = 0
    passive: bool = False  # only drains its socket (counts frames), parses nothing
    tracked: bool = False  # a passive peer whose changes are timed all the same
    reader: asyncio.Task[Any] | None = None

    async def send(self, text: str) -> None:
        if self.passive:
            self.ws.send(text)
        else:
            await self.ws.send_str(text)


@dataclass
class Hub:
    """Every peer's reader feeds the hub; the target says what each frame means."""

    target: Target
    peers: list[Peer] = field(default_factory=list)
    changes: Tracker = field(default_factory=lambda: Tracker(0))
    acks: Tracker = field(default_factory=lambda: Tracker(1))

    def start(self) -> None:
        self.changes = Tracker(sum(1 for p in self.peers if not p.passive or p.tracked))
        for p in self.peers:
            if p.tracked:
                p.ws.on_change = self.changes.hit
            p.reader = asyncio.create_task(self._drain(p) if p.passive else self._read(p))

    async def _drain(self, peer: Peer) -> None:
        await peer.ws.drain()

    async def _read(self, peer: Peer) -> None:
        async for m in peer.ws:
            if m.type != aiohttp.WSMsgType.TEXT:
                continue
            peer.frames += 1
            msg = orjson.loads(m.data)
            try:
                change, ack = self.target.keys(peer, msg, len(m.data))
            except RuntimeError as e:
                self.changes.fail(e)
                self.acks.fail(e)
                return
            if change is not None:
                self.changes.hit(change)
            if ack is not None:
                self.acks.hit(ack)

    async def close(self) -> None:
        for p in self.peers:
            if p.reader:
                p.reader.cancel()
        await asyncio.gather(*(p.ws.close() for p in self.peers), return_exceptions=True)


class Target:
    """What differs between komasync and the relay: handshake and frame format."""

    name = "?"

    def __init__(self, url: str, session: aiohttp.ClientSession) -> None:
        self.url = url
        self.session = session
        self.base = 0
        self.latest = 0
        self.counter = 0

    async def connect(self, index: int, passive: bool = False) -> Peer:
        if passive:
            return Peer(index, await RawDrain.connect(self.url), passive=True)
        ws = await self.session.ws_connect(self.url, max_msg_size=0, autoping=True)
        return Peer(index, ws)

    def mark(self) -> int:
        """Start a run (all quiet): keys of frames 1..n are base+1..base+n."""
        self.base = self.latest
        return self.base

    def action(self, sender: int, seq: int) -> tuple[str, Hashable, Hashable]:
        """(frame text, change key every peer will see, ack key the sender will see)."""
        raise NotImplementedError

    def keys(self, peer: Peer, msg: dict[str, Any], size: int) -> tuple[Hashable, Hashable]:
        raise NotImplementedError

    def msg_id(self, sender: int) -> str:
        self.counter += 1
        return f"s{sender}-{self.counter}"


class KomasyncTarget(Target):
    """komasync: the GM sends `table.move`; every client gets a `change`, the GM an `ack`."""

    name = "komasync"

    def __init__(self, url: str, session: aiohttp.ClientSession, setup: RoomSetup,
                 pieces: int = 1) -> None:
        super().__init__(url, session)
        self.setup = setup
        self.pieces = pieces
        self.errors: list[dict[str, Any]] = []

    def auths(self, clients: int, gms: int, players: int | None,
              bridges: int | None) -> list[dict[str, Any]]:
        """`gms` GM connections, then players, bridges (ccfolia), then observers."""
        s = self.setup
        nplayers = min(len(s.players), clients - gms) if players is None else players
        nbridges = min(len(s.bridges), clients - gms - nplayers) if bridges is None else bridges
        auths: list[dict[str, Any]] = [{"secret": s.secret}] * gms
        auths += [{"token": tok} for _, tok in s.players[:nplayers]]
        auths += [{"token": tok, "platform": "ccfolia"} for tok in s.bridges[:nbridges]]
        auths += [{"token": tok} for tok in s.observers[:clients - len(auths)]]
        if len(auths) < clients:
            raise ValueError("not enough invites prepared for this many clients")
        return [{"type": "auth", "room": s.room, **a} for a in auths]

    async def open(self, clients: int, gms: int = 1, players: int | None = None,
                   bridges: int | None = None, passive_from: int | None = None,
                   limit: asyncio.Semaphore | None = None, raw: bool = False) -> Hub:
        """Join `clients` peers; peers from index `passive_from` on only drain; `raw`:
        every peer is a RawDrain whose changes are still timed (cheapest for the bench)."""
        hub = Hub(self)
        auths = self.auths(clients, gms, players, bridges)
        limit = limit or asyncio.Semaphore(32)

        async def one(i: int) -> Peer:
            async with limit:
                passive = raw or (passive_from is not None and i >= passive_from)
                peer = await self._join(i, auths[i], passive)
                peer.tracked = raw
                return peer

        hub.peers = list(await asyncio.gather(*(one(i) for i in range(clients))))
        self.latest = max(p.version for p in hub.peers)
        hub.start()
        return hub

    async def _join(self, index: int, auth: dict[str, Any], passive: bool) -> Peer:
        peer = await self.connect(index, passive)
        if passive:
            peer.ws.send(orjson.dumps(auth).decode())
            if not await asyncio.wait_for(peer.ws.drain(until=b'{"type":"snapshot"'), TIMEOUT):
                raise RuntimeError("komasync closed a bench client before its snapshot")
            return peer
        await peer.ws.send_str(orjson.dumps(auth).decode())
        while True:
            msg = orjson.loads(await asyncio.wait_for(peer.ws.receive_str(), TIMEOUT))
            if msg["type"] == "snapshot":
                peer.version = msg["version"]
                return peer
            if msg["type"] in ("error", "bye"):
                raise RuntimeError(f"komasync refused the bench client: {msg}")

    def action(self, sender: int, seq: int) -> tuple[str, Hashable, Hashable]:
        n = self.base + seq
        piece = f"pc{n % self.pieces}"
        to = {"x": n % 97, "y": (n // 97) % 97}
        msg_id = self.msg_id(sender)
        frame = {"type": "action", "id": msg_id,
                 "action": {"kind": "table.move", "piece": piece, "to": to}}
        return orjson.dumps(frame).decode(), n, msg_id

    def keys(self, peer: Peer, msg: dict[str, Any], size: int) -> tuple[Hashable, Hashable]:
        kind = msg["type"]
        if kind == "change":
            peer.version = msg["to_version"]
            peer.change_bytes += size
            peer.changes += 1
            self.latest = max(self.latest, peer.version)
            return msg["to_version"], None
        if kind == "ack":
            return None, msg["id"]
        if kind in ("reject", "error", "bye"):
            self.errors.append(msg)
            raise RuntimeError(f"komasync answered {kind}: {msg}")
        return None, None


class RelayTarget(Target):
    """The raw relay: a frame padded to komasync's change size, echoed to everyone."""

    name = "relay"

    def __init__(self, url: str, session: aiohttp.ClientSession, frame_size: int) -> None:
        super().__init__(url, session)
        self.frame_size = frame_size

    async def open(self, clients: int, passive_from: int | None = None) -> Hub:
        hub = Hub(self)
        for i in range(clients):
            hub.peers.append(await self.connect(i, passive_from is not None and i >= passive_from))
        hub.start()
        await asyncio.sleep(0.05)  # let the relay register the last socket
        return hub

    def action(self, sender: int, seq: int) -> tuple[str, Hashable, Hashable]:
        n = self.base + seq
        msg_id = self.msg_id(sender)
        frame = {"type": "change", "seq": n, "id": msg_id, "from": sender, "pad": ""}
        pad = max(0, self.frame_size - len(orjson.dumps(frame)))
        frame["pad"] = "x" * pad
        return orjson.dumps(frame).decode(), n, msg_id

    def keys(self, peer: Peer, msg: dict[str, Any], size: int) -> tuple[Hashable, Hashable]:
        peer.change_bytes += size
        peer.changes += 1
        self.latest = max(self.latest, msg["seq"])
        return msg["seq"], msg["id"] if msg["from"] == peer.index else None


# -- driving ----------------------------------------------------------------------------
async def sequential(hub: Hub, n: int) -> list[float]:
    """Send frame k+1 only after every peer got frame k; latency = send → last arrival."""
    target, lat = hub.target, []
    target.mark()
    frames = [target.action(0, s) for s in range(1, n + 1)]
    for text, key, _ack in frames:
        fut = hub.changes.expect(key)
        t0 = time.perf_counter()
        await hub.peers[0].send(text)
        lat.append(await asyncio.wait_for(fut, TIMEOUT) - t0)
    return lat


async def pipelined(hub: Hub, n: int, window: int, sender: int = 0, track: str = "changes",
                    first: int = 1, stride: int = 1) -> list[float]:
    """Keep `window` frames in flight from one sender; latency per frame until tracked."""
    target = hub.target
    tracker = hub.changes if track == "changes" else hub.acks
    slots = asyncio.Semaphore(window)
    lat: list[float] = []
    futs: list[asyncio.Future[float]] = []

    def done(t0: float) -> Any:
        def cb(f: asyncio.Future[float]) -> None:
            slots.release()
            if not f.cancelled() and f.exception() is None:
                lat.append(f.result() - t0)
        return cb

    for seq in range(first, first + n * stride, stride):
        await asyncio.wait_for(slots.acquire(), TIMEOUT)
        text, change, ack = target.action(sender, seq)
        fut = tracker.expect(change if track == "changes" else ack)
        fut.add_done_callback(done(time.perf_counter()))
        futs.append(fut)
        await hub.peers[sender].send(text)
    await asyncio.wait_for(asyncio.gather(*futs), TIMEOUT)
    return lat


async def pipelined_run(hub: Hub, n: int, window: int) -> tuple[list[float], float]:
    """One sender, `window` in flight; returns (latencies, frames per second)."""
    hub.target.mark()
    t0 = time.perf_counter()
    lat = await pipelined(hub, n, window)
    return lat, n / (time.perf_counter() - t0)


async def ack_rate(hub: Hub, senders: int, per_sender: int, window: int) -> tuple[float, float]:
    """Several senders pipelining; returns (acks per second, p50 ack latency in ms)."""
    hub.target.mark()
    t0 = time.perf_counter()
    lats = await asyncio.gather(*(pipelined(hub, per_sender, window, s, "acks", s + 1, senders)
                                  for s in range(senders)))
    elapsed = time.perf_counter() - t0
    flat = [x for lat in lats for x in lat]
    return senders * per_sender / elapsed, pct(flat, 50) * 1e3


async def settle(hub: Hub) -> None:
    """Wait until the socket buffers are drained (nothing new arrives for a moment)."""
    def seen() -> int:
        return sum(p.ws.frames if p.passive else p.frames for p in hub.peers)

    while True:
        before = seen()
        await asyncio.sleep(0.05)
        if seen() == before:
            return


def mean_change_size(hub: Hub) -> int:
    total = sum(p.change_bytes for p in hub.peers)
    count = sum(p.changes for p in hub.peers)
    return round(total / count) if count else 200
