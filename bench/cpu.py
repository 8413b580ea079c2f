"""Figure 3: CPU per action at 10, 100 and 1,000 pieces — server process and pure engine.

Server: a room with K pieces; GM + one player + one observer connected (audiences gm,
player:p1, table); the GM pipelines N `table.move` actions over all pieces round-robin.
CPU = the server process's `time.process_time()` (all threads, incl. the SQLite one)
after − before, divided by N. Includes the snapshot written every 200 versions.
Engine: `Engine.apply(MovePiece)` + `View.update` for gm, table and player:p1, no
server, no I/O, in this process (`time.process_time()`).
Baseline: the raw relay's CPU per frame, 3 clients, same frame count and window.
One more server run at the largest size with snapshots off (`--snapshot-every 10**9`)
shows what the periodic full-state snapshot costs.

    python bench/cpu.py [--actions 3000] [--pieces 10 100 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import aiohttp

from komasync.engine.core import Engine
from komasync.engine.scenario import build_room
from komasync.engine.table import Cell, MovePiece
from komasync.engine.tx import Actor
from komasync.engine.views import Audience, View

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    Hub,
    KomasyncTarget,
    RelayTarget,
    Row,
    ServerProc,
    mean_change_size,
    pipelined_run,
    prepare_room,
    scenario,
    settle,
    table,
    tmpdir,
)
from _serve import LIMITS_NOTE

WINDOW = 50
WARMUP = 200
ROUNDS = 3
NO_SNAPSHOTS = 10**9
AUDIENCES = (Audience("gm"), Audience("table"), Audience("player", "p1"))


async def server_cpu(session: aiohttp.ClientSession, srv: ServerProc, hub: Hub,
                     actions: int) -> float:
    """Seconds of server CPU per frame over `actions` pipelined frames (median of ROUNDS)."""
    await pipelined_run(hub, WARMUP, WINDOW)
    await settle(hub)
    per_frame = []
    for _ in range(ROUNDS):
        before = (await srv.stats(session))["cpu"]
        await pipelined_run(hub, actions, WINDOW)
        await settle(hub)
        per_frame.append(((await srv.stats(session))["cpu"] - before) / actions)
    return sorted(per_frame)[ROUNDS // 2]


async def komasync_cpu(session: aiohttp.ClientSession, pieces: int, actions: int,
                       snapshot_every: int = 200) -> tuple[float, int]:
    with tmpdir() as d:
        db = Path(d) / "cpu.sqlite3"
        setup = prepare_room(db, pieces=pieces, players=1, observers=1)
        with ServerProc("komasync", "--db", str(db),
                        "--snapshot-every", str(snapshot_every)) as srv:
            hub = await KomasyncTarget(srv.url, session, setup, pieces).open(3)
            cpu = await server_cpu(session, srv, hub, actions)
            size = mean_change_size(hub)
            await hub.close()
    return cpu, size


async def relay_cpu(session: aiohttp.ClientSession, size: int, actions: int) -> float:
    with ServerProc("relay") as srv:
        hub = await RelayTarget(srv.url, session, size).open(3)
        cpu = await server_cpu(session, srv, hub, actions)
        await hub.close()
    return cpu


def engine_cpu(pieces: int, actions: int) -> tuple[float, float]:
    """(CPU per Engine.apply + 3 View.update, CPU of one full-state model_dump)."""
    engine = Engine(build_room(scenario(pieces), seed="bench"))
    views = [View(a, engine.state) for a in AUDIENCES]
    gm = Actor(role="gm", label="GM")
    moves = [MovePiece(piece=f"pc{n % pieces}", to=Cell(x=n % 97, y=(n // 97) % 97))
             for n in range(1, WARMUP + actions + 1)]

    def apply(batch: list[MovePiece]) -> None:
        for move in batch:
            units = engine.apply(move, gm).units
            for view in views:
                view.update(engine.state, units)

    apply(moves[:WARMUP])
    t0 = time.process_time()
    apply(moves[WARMUP:])
    per_action = (time.process_time() - t0) / actions
    t0 = time.process_time()
    for _ in range(5):
        engine.state.model_dump(mode="json")
    return per_action, (time.process_time() - t0) / 5


async def run(actions: int = 3000, sizes: tuple[int, ...] = (10, 100, 1000)) -> list[Row]:
    print("== Figure 3: CPU per action vs number of pieces ==")
    print(LIMITS_NOTE)
    print(f"{actions} table.move actions per size, GM pipelining {WINDOW} in flight, "
          f"3 clients (gm, player:p1, table), durability=full; median of {ROUNDS} runs")
    rows: list[Row] = []
    async with aiohttp.ClientSession() as session:
        server = {k: await komasync_cpu(session, k, actions) for k in sizes}
        no_snap, _ = await komasync_cpu(session, sizes[-1], actions, NO_SNAPSHOTS)
        relay = await relay_cpu(session, server[sizes[0]][1], actions)
    for k in sizes:
        cpu, _size = server[k]
        eng, dump = engine_cpu(k, actions)
        print(f"  {k:5} pieces: server {cpu * 1e6:7.1f} us/action   engine {eng * 1e6:6.1f} "
              f"us/action   relay {relay * 1e6:5.1f} us/frame   (full-state dump {dump * 1e3:.2f} "
              f"ms, every 200 versions = {dump / 200 * 1e6:.1f} us/action)")
        rows.append(Row("3 cpu/action", f"{k} pieces, server process", cpu * 1e6, relay * 1e6,
                        "us"))
        rows.append(Row("3 cpu/action", f"{k} pieces, engine only", eng * 1e6, relay * 1e6, "us"))
    print(f"  {sizes[-1]:5} pieces, snapshots off (snapshot_every={NO_SNAPSHOTS}): server "
          f"{no_snap * 1e6:7.1f} us/action")
    rows.append(Row("3 cpu/action", f"{sizes[-1]} pieces, server, snapshots off",
                    no_snap * 1e6, relay * 1e6, "us"))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--actions", type=int, default=3000)
    p.add_argument("--pieces", type=int, nargs="+", default=[10, 100, 1000])
    a = p.parse_args()
    rows = asyncio.run(run(a.actions, tuple(a.pieces)))
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
