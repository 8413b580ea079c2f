"""Issue 26, finding 3: one player floods queries from 32 sockets on one invite while
another room takes actions; that room's ack p50/p90/p99 with and without the flood,
in alternating blocks in one run.

One komasync process holds two rooms: the *flooded* room (examples/seamless_combat.yaml,
the 16×12 demo map with its pillars) and the *measured* room (10 pieces, GM + 2 players
+ an observer). The flooder has one player invite of the flooded room and opens 32
sockets with it, then sends `grid.range` with `range: 50` from every square in turn (so
no kept answer can be reused) at `--rate` queries/s in all (1,100: the issue's figure),
spread over the sockets that got in. The measured room's GM sends `table.move` one at a
time (the next `--gap` ms after the ack); latency = send → ack. Blocks alternate calm
and flooded (C F, F C, …) so drift in the machine's load hits both alike.

Three server configurations, one after the other (each its own process):
- `defaults`: the server's own limits (4 sockets per invite, 40 messages/s shared by
  them, 40/s per socket, the query budget) — what a deployment gets;
- `budget only`: the per-invite limits lifted (the 32 sockets all get in, each within
  its own 40/s: the issue's 1,100 queries/s reach the room), so only the board-bounded
  query cost, the kept answers and the query budget stand between the flood and the
  other room;
- `budget only, 100x100`: the same on a 100×100 map with 400 pillars, where a range of
  50 is 5,101 squares (~1.5 ms with its frame): the flood asks for more than the room's
  share of the loop, and the budget must refuse the rest (`busy`).

There is no relay baseline: a relay has no rooms, invites or queries; the baseline is
the same room unflooded, in the same run.

    python bench/flood.py [--blocks 8] [--samples 80] [--rate 1100] [--sockets 32] [--gap 25]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    TIMEOUT,
    Goal,
    Hub,
    KomasyncTarget,
    RawDrain,
    ServerProc,
    client_session,
    goal_table,
    pct,
    prepare_room,
    spread,
    tmpdir,
)

from komasync.engine.scenario import Scenario, build_room, load_scenario_file
from komasync.server.connection import Limits
from komasync.server.storage import Storage

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "seamless_combat.yaml"
FLOODED = "flooded"
WARMUP = 30
SETTLE = 0.3  # s: the flood is steady before a flooded block, drained after it
GOAL_RATIO = 2.0  # flooded p99 ≤ 2× unflooded p99


def default_limits() -> list[str]:
    """`_serve.py --limit` flags that put back the server's own limits (the bench raises
    the rates and the per-address cap for every other script)."""
    d = Limits()
    names = ("rate", "burst", "invite_rate", "invite_burst", "bridge_rate", "bridge_burst",
             "connections_per_address")
    return [x for n in names for x in ("--limit", f"{n}={getattr(d, n)!r}")]


LIFTED = ["--limit", "invite_connections=0", "--limit", "invite_rate=1000000.0",
          "--limit", "invite_burst=1000000"]
# name: (the server's limits over its defaults, the flooded map's side: 16 = the demo map)
CONFIGS: dict[str, tuple[list[str], int]] = {"defaults": ([], 16), "budget only": (LIFTED, 16),
                                             "budget only, 100x100": (LIFTED, 100)}
OBSTACLES = 400  # on the 100×100 map (fixed seed), as in the sight figure


def big_map(side: int) -> Scenario:
    """A `side`×`side` grid room with 400 pillars and one PC of the flooder's player."""
    rnd = random.Random(26)
    squares = rnd.sample([(x, y) for y in range(side) for x in range(side)], OBSTACLES + 1)
    (px, py), pillars = squares[0], squares[1:]
    return Scenario.model_validate({
        "room": {"name": "flooded"}, "players": [{"id": "alice", "name": "Alice"}],
        "table": {"grid": {"width": side, "height": side}, "pieces": [
            {"id": "pc", "name": "PC", "owner": "alice", "cell": {"x": px, "y": py}}]},
        "grid": {"obstacles": [{"x": x, "y": y} for x, y in pillars],
                 "combatants": [{"id": "pc", "side": "pc"}]}})


def prepare_flooded(db: Path, side: int) -> str:
    """The flooded room and the flooder's one player invite, in the bench's database."""
    store = Storage(db, "normal")
    scenario = load_scenario_file(EXAMPLE) if side == 16 else big_map(side)
    state = build_room(scenario, seed="bench").model_dump(mode="json")
    store.create_room(FLOODED, "flooded", "flood-gm-secret", state)
    _, token = store.create_invite(FLOODED, "player", scenario.players[0].id, "flooder")
    store.close()
    return str(token)


@dataclass
class Flood:
    """32 sockets on one invite, paced queries over those that got in, replies counted."""

    url: str
    token: str
    sockets: int
    rate: float
    side: int
    open: list[RawDrain] = field(default_factory=list)
    refused: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("sent", "answered", "busy", "rate_limited", "other"), 0))
    readers: list[asyncio.Task[Any]] = field(default_factory=list)
    pacer: asyncio.Task[None] | None = None
    n: int = 0

    async def connect(self) -> None:
        for _ in range(self.sockets):
            d = await RawDrain.connect(self.url)
            d.send(orjson.dumps({"type": "auth", "room": FLOODED, "token": self.token}).decode())
            if await asyncio.wait_for(d.drain(until=b'{"type":"snapshot"'), TIMEOUT):
                d.on_frame = self._count
                self.open.append(d)
                self.readers.append(asyncio.create_task(d.drain()))
            else:  # refused (too_many_connections_for_invite) and closed by the server
                self.refused += 1
        if not self.open:
            raise RuntimeError("no flood socket got in")

    def _count(self, head: bytes) -> None:
        if head.startswith(b'{"type":"query.result"'):
            self.counts["answered"] += 1
        elif b'"code":"busy"' in head:
            self.counts["busy"] += 1
        elif b'"code":"rate_limited"' in head:
            self.counts["rate_limited"] += 1
        else:
            self.counts["other"] += 1

    def start(self) -> None:
        self.pacer = asyncio.create_task(self._pace())

    async def stop(self) -> None:
        if self.pacer is not None:
            self.pacer.cancel()
            await asyncio.gather(self.pacer, return_exceptions=True)
            self.pacer = None

    async def _pace(self) -> None:
        t0, sent = time.perf_counter(), 0
        while True:
            await asyncio.sleep(0.005)
            due = int((time.perf_counter() - t0) * self.rate) - sent
            for _ in range(due):
                self.n += 1
                x, y = self.n % self.side, self.n // self.side % self.side  # every square
                frame = {"type": "query", "id": f"f{self.n}", "query": {
                    "kind": "grid.range", "range": 50, "from": {"x": x, "y": y}}}
                self.open[self.n % len(self.open)].send(orjson.dumps(frame).decode())
            sent += due
            self.counts["sent"] += due

    async def close(self) -> None:
        await self.stop()
        for r in self.readers:
            r.cancel()
        await asyncio.gather(*(d.close() for d in self.open), return_exceptions=True)


async def acks(hub: Hub, n: int, gap: float) -> list[float]:
    """`n` actions from the GM one at a time, `gap` s after each ack: send → ack."""
    target, lat = hub.target, []
    target.mark()
    for seq in range(1, n + 1):
        text, _change, ack = target.action(0, seq)
        fut = hub.acks.expect(ack)
        t0 = time.perf_counter()
        await hub.peers[0].send(text)
        lat.append(await asyncio.wait_for(fut, TIMEOUT) - t0)
        await asyncio.sleep(gap)
    return lat


@dataclass
class Result:
    config: str
    calm: list[list[float]] = field(default_factory=list)
    flooded: list[list[float]] = field(default_factory=list)
    admitted: int = 0
    refused: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0  # flooded time in all
    cpu: dict[str, float] = field(default_factory=dict)  # server CPU share per block kind


async def one_config(session: aiohttp.ClientSession, name: str, blocks: int, samples: int,
                     rate: float, sockets: int, gap: float) -> Result:
    out = Result(name)
    cpu = {"calm": 0.0, "flooded": 0.0}
    wall = {"calm": 0.0, "flooded": 0.0}
    with tmpdir() as d:
        db = Path(d) / "flood.sqlite3"
        setup = prepare_room(db, pieces=10, players=2, observers=1)
        flags, side = CONFIGS[name]
        token = prepare_flooded(db, side)
        with ServerProc("komasync", "--db", str(db), *default_limits(), *flags) as srv:
            hub = await KomasyncTarget(srv.url, session, setup, pieces=10).open(4, players=2)
            await acks(hub, WARMUP, gap)
            flood = Flood(srv.url, token, sockets, rate, side)
            await flood.connect()
            out.admitted, out.refused = len(flood.open), flood.refused
            for b in range(blocks):
                for kind in (("calm", "flooded") if b % 2 == 0 else ("flooded", "calm")):
                    if kind == "flooded":
                        flood.start()
                        await asyncio.sleep(SETTLE)
                    s0, t0 = (await srv.stats(session))["cpu"], time.perf_counter()
                    lat = await acks(hub, samples, gap)
                    cpu[kind] += (await srv.stats(session))["cpu"] - s0
                    wall[kind] += time.perf_counter() - t0
                    if kind == "flooded":
                        out.seconds += time.perf_counter() - t0 + SETTLE
                        await flood.stop()
                        await asyncio.sleep(SETTLE)  # its last replies drain
                    getattr(out, kind).append(lat)
            out.counts = dict(flood.counts)
            await flood.close()
            await hub.close()
    out.cpu = {k: cpu[k] / wall[k] for k in cpu if wall[k]}
    return out


def report(res: Result, rate: float) -> list[Goal]:
    calm = [x for b in res.calm for x in b]
    flooded = [x for b in res.flooded for x in b]
    c = res.counts
    per_s = {k: v / res.seconds for k, v in c.items()} if res.seconds else c
    print(f"\n{res.config}: {res.admitted} flood sockets in, {res.refused} refused; "
          f"{len(res.calm)} blocks each, {len(calm) // max(1, len(res.calm))} acks a block")
    print(f"  flood: sent {per_s['sent']:.0f}/s (target {rate:.0f}), answered "
          f"{per_s['answered']:.0f}/s, busy {per_s['busy']:.0f}/s, rate_limited "
          f"{per_s['rate_limited']:.0f}/s, other {per_s['other']:.0f}/s")
    print(f"  server CPU (share of one core): calm {res.cpu.get('calm', 0):.2f}, "
          f"flooded {res.cpu.get('flooded', 0):.2f}")
    for name, blocks, flat in (("calm", res.calm, calm), ("flooded", res.flooded, flooded)):
        print(f"  {name:8} ack p50 {pct(flat, 50) * 1e3:7.3f} ms  p90 {pct(flat, 90) * 1e3:7.3f} ms"
              f"  p99 {pct(flat, 99) * 1e3:7.3f} ms  block p99s {spread(blocks, 99)} ms"
              f"  (n={len(flat)})")
    ratio = pct(flooded, 99) / pct(calm, 99)
    cfg = (f"{res.config}: {res.admitted}/{res.admitted + res.refused} sockets in, "
           f"{per_s['sent']:.0f} q/s sent, block p99 c {spread(res.calm, 99)} / "
           f"f {spread(res.flooded, 99)} ms")
    return [Goal("flood (issue 26)", cfg,
                 f"p99 {ratio:.2f}x (f {pct(flooded, 99) * 1e3:.2f} / c {pct(calm, 99) * 1e3:.2f} ms)",
                 f"<= {GOAL_RATIO}x unflooded p99", ratio <= GOAL_RATIO)]


async def run(blocks: int = 8, samples: int = 80, rate: float = 1100.0, sockets: int = 32,
              gap: float = 0.025, configs: tuple[str, ...] = tuple(CONFIGS)) -> list[Goal]:
    print("== Issue 26, finding 3: another room's acks under a query flood (alternating "
          "blocks) ==")
    print(f"flood: {sockets} sockets on one player invite of a grid room, grid.range "
          f"range 50 from every square in turn, {rate:.0f} q/s in all; measured room: GM "
          f"table.move one at a time, {gap * 1e3:.0f} ms after each ack, {samples} a block")
    print("limits: the server's defaults (" + ", ".join(
        f"{f.name}={getattr(Limits(), f.name)}" for f in dataclasses.fields(Limits)
        if f.name.startswith(("invite", "bridge", "quer", "rate", "burst"))) + ")")
    goals: list[Goal] = []
    async with client_session() as session:
        for name in configs:
            goals += report(await one_config(session, name, blocks, samples, rate, sockets,
                                             gap), rate)
    return goals


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--samples", type=int, default=80)
    p.add_argument("--rate", type=float, default=1100.0)
    p.add_argument("--sockets", type=int, default=32)
    p.add_argument("--gap", type=float, default=25.0,
                   help="ms between an ack and the next action (under the GM socket's 40/s)")
    p.add_argument("--config", choices=list(CONFIGS), action="append")
    a = p.parse_args()
    goals = asyncio.run(run(a.blocks, a.samples, a.rate, a.sockets, a.gap / 1e3,
                            tuple(a.config or CONFIGS)))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
