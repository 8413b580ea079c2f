"""Goal 5: server CPU per action, snapshots included, flat from 10 to 1,000 pieces.

Three komasync processes (rooms of 10, 100 and 1,000 pieces; GM + one player + one
observer: audiences gm, player:p1, table; durability full; storage snapshots as the server
takes them by default: at least 200 versions apart, due once the log has grown by the last
one's size, so about every 640 versions at 1,000 pieces) run side by side; blocks of pipelined
`table.move` actions (window 50, over all pieces round-robin) alternate between them, and
each block's CPU is the server process's `time.process_time()` (every thread: parse,
engine, projections, SQLite, snapshots, fan-out) after − before, ÷ actions. Every block
spans several snapshots. Flat: the largest median ÷ the smallest ≤ 1.10.

Informational lines: the raw relay's CPU per frame (3 clients, same frames), and the
three sizes again with a Ccfolia bridge connected (the platform adapter's cost).

    python bench/cpu.py [--blocks 8] [--actions 1200] [--pieces 10 100 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    Goal,
    Hub,
    KomasyncTarget,
    RelayTarget,
    ServerProc,
    client_session,
    goal_table,
    pct,
    pipelined_run,
    prepare_room,
    settle,
    tmpdir,
)
from _serve import LIMITS_NOTE

WINDOW = 50
WARMUP = 300
FLAT = 1.10


async def block_cpu(session: aiohttp.ClientSession, srv: ServerProc, hub: Hub,
                    actions: int) -> float:
    before = (await srv.stats(session))["cpu"]
    await pipelined_run(hub, actions, WINDOW)
    await settle(hub)
    return ((await srv.stats(session))["cpu"] - before) / actions


async def measure(session: aiohttp.ClientSession, d: str, sizes: tuple[int, ...], blocks: int,
                  actions: int, bridge: bool) -> dict[int, list[float]]:
    servers: dict[int, tuple[ServerProc, Hub]] = {}
    out: dict[int, list[float]] = {k: [] for k in sizes}
    try:
        for k in sizes:
            db = Path(d) / f"cpu{k}{'b' if bridge else ''}.sqlite3"
            setup = prepare_room(db, pieces=k, players=1, observers=1, bridges=1)
            srv = ServerProc("komasync", "--db", str(db))
            hub = await KomasyncTarget(srv.url, session, setup, k).open(
                3 + bridge, players=1, bridges=int(bridge))
            servers[k] = (srv, hub)
            await pipelined_run(hub, WARMUP, WINDOW)
            await settle(hub)
        for b in range(blocks):
            order = sizes if b % 2 == 0 else sizes[::-1]
            for k in order:
                srv, hub = servers[k]
                out[k].append(await block_cpu(session, srv, hub, actions))
    finally:
        for srv, hub in servers.values():
            await hub.close()
            srv.stop()
    return out


async def relay_cpu(session: aiohttp.ClientSession, actions: int) -> float:
    with ServerProc("relay") as srv:
        hub = await RelayTarget(srv.url, session, 150).open(3)
        await pipelined_run(hub, WARMUP, WINDOW)
        cpu = await block_cpu(session, srv, hub, actions)
        await hub.close()
    return cpu


async def run(blocks: int = 8, actions: int = 1200,
              sizes: tuple[int, ...] = (10, 100, 1000)) -> list[Goal]:
    print("== Goal 5: server CPU per action vs number of pieces (snapshots included) ==")
    print(LIMITS_NOTE)
    print(f"{blocks} blocks of {actions} actions per size, alternating sizes, window {WINDOW}")
    async with client_session() as session:
        with tmpdir() as d:
            main = await measure(session, d, sizes, blocks, actions, bridge=False)
            bridged = await measure(session, d, sizes, max(2, blocks // 2), actions // 2,
                                    bridge=True)
        relay = await relay_cpu(session, actions)
    med = {k: pct(v, 50) for k, v in main.items()}
    for k in sizes:
        print(f"  {k:5} pieces: {med[k] * 1e6:7.1f} us/action (blocks "
              f"{min(main[k]) * 1e6:.1f}-{max(main[k]) * 1e6:.1f})   with a Ccfolia bridge "
              f"{pct(bridged[k], 50) * 1e6:9.1f} us/action")
    print(f"  relay: {relay * 1e6:.1f} us per frame (3 clients)")
    # Blocks of one round run back to back: their ratio cancels the machine's drift
    # between rounds, which the medians of a few noisy blocks do not (information only).
    paired = [max(r) / min(r) for r in zip(*main.values(), strict=True)]
    print(f"  max/min within each round of blocks: median {pct(paired, 50):.2f} "
          f"(rounds {min(paired):.2f}-{max(paired):.2f})")
    ratio = max(med.values()) / min(med.values())
    shown = ", ".join(f"{k}: {med[k] * 1e6:.0f}" for k in sizes)
    return [
        Goal("5 cpu/action", f"gm + player + observer; us/action {shown}; relay "
             f"{relay * 1e6:.0f} us/frame", f"max/min {ratio:.2f}", f"<= {FLAT:.2f}",
             ratio <= FLAT),
        Goal("5 cpu/action (info)", "same, with a Ccfolia bridge connected",
             ", ".join(f"{k}: {pct(bridged[k], 50) * 1e6:.0f}" for k in sizes) + " us", "-",
             None),
    ]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--actions", type=int, default=1200)
    p.add_argument("--pieces", type=int, nargs="+", default=[10, 100, 1000])
    a = p.parse_args()
    goals = asyncio.run(run(a.blocks, a.actions, tuple(a.pieces)))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
