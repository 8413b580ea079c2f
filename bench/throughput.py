"""Figure 2: durable actions per second in one room, durability "full" and "normal".

Several GM connections pipeline `table.move` actions, each with a window of frames in
flight (default 2 senders × 50 = 100 in flight); the figure is acks per second (an ack
is sent only after the action's batch is committed to SQLite). Every sender also gets
every `change`. Baseline: the raw relay's echo rate with the same client code: the same
senders and windows, a frame counts when the relay has echoed it back to its sender.

    python bench/throughput.py [--actions 8000] [--senders 2] [--window 50]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    Hub,
    KomasyncTarget,
    RelayTarget,
    Row,
    ServerProc,
    ack_rate,
    fsync_ms,
    mean_change_size,
    prepare_room,
    settle,
    table,
    tmpdir,
)
from _serve import LIMITS_NOTE

WARMUP = 200
ROUNDS = 5


async def rate(hub: Hub, senders: int, actions: int, window: int,
               label: str) -> tuple[float, float]:
    """Median of ROUNDS runs: (frames acknowledged per second, p50 ack latency in ms)."""
    await ack_rate(hub, senders, WARMUP // senders, window)
    await settle(hub)
    runs = []
    for _ in range(ROUNDS):
        runs.append(await ack_rate(hub, senders, actions // senders, window))
        await settle(hub)
    runs.sort()
    print(f"    {label:16}: " + ", ".join(f"{r:,.0f}/s" for r, _ in runs))
    return runs[len(runs) // 2]


async def komasync_rate(session: aiohttp.ClientSession, durability: str, senders: int,
                        actions: int, window: int) -> tuple[float, float, int]:
    with tmpdir() as d:
        db = Path(d) / "tp.sqlite3"
        setup = prepare_room(db, pieces=100, players=0, observers=0)
        with ServerProc("komasync", "--db", str(db), "--durability", durability) as srv:
            target = KomasyncTarget(srv.url, session, setup, pieces=100)
            hub = await target.open(senders, gms=senders)
            acks, p50 = await rate(hub, senders, actions, window, f"komasync {durability}")
            size = mean_change_size(hub)
            await hub.close()
    return acks, p50, size


async def relay_rate(session: aiohttp.ClientSession, size: int, senders: int, actions: int,
                     window: int) -> tuple[float, float]:
    with ServerProc("relay") as srv:
        hub = await RelayTarget(srv.url, session, size).open(senders)
        result = await rate(hub, senders, actions, window, "relay")
        await hub.close()
    return result


async def run(actions: int = 8000, senders: int = 2, window: int = 50) -> list[Row]:
    print("== Figure 2: durable actions/s in one room ==")
    print(LIMITS_NOTE)
    print(f"{senders} GM senders x window {window} = {senders * window} in flight, "
          f"{actions} actions per run, median of {ROUNDS} runs (after {WARMUP} warm-up), "
          "SQLite WAL in a temp dir")
    with tmpdir() as d:
        print(f"fsync of a 4 KiB write in the temp dir: {fsync_ms(d):.3f} ms (median)")
    rows: list[Row] = []
    async with aiohttp.ClientSession() as session:
        measured = {d: await komasync_rate(session, d, senders, actions, window)
                    for d in ("full", "normal")}
        size = measured["full"][2]
        relay, relay_p50 = await relay_rate(session, size, senders, actions, window)
    for durability, (acks, p50, _size) in measured.items():
        print(f"  durability={durability:6}: {acks:8,.0f} acks/s (p50 ack {p50:.2f} ms)   "
              f"relay echo {relay:8,.0f}/s (p50 {relay_p50:.2f} ms)   ratio {acks / relay:.2f}x")
        rows.append(Row("2 throughput", f"durability={durability}, {senders * window} in flight",
                        acks, relay, "actions/s"))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--actions", type=int, default=8000)
    p.add_argument("--senders", type=int, default=2)
    p.add_argument("--window", type=int, default=50)
    a = p.parse_args()
    rows = asyncio.run(run(a.actions, a.senders, a.window))
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
