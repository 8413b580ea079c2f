"""Figure 1: action → last-client latency at 10 and 50 connected clients, vs a raw relay.

One sender (komasync: the GM, `table.move`) sends; the time is taken from the send until
the LAST of the N clients (sender included) has received the matching `change` frame.
Baseline: a raw aiohttp relay (bench/_serve.py relay) that broadcasts each frame to all
N clients, frames padded to komasync's mean change-frame size, same client code.

    python bench/latency.py [--samples 500] [--clients 10 50] [--window 8]
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
    mean_change_size,
    pct,
    pipelined_run,
    prepare_room,
    sequential,
    settle,
    table,
    tmpdir,
)
from _serve import LIMITS_NOTE

WARMUP = 30


async def measure(hub: Hub, samples: int, window: int) -> dict[str, list[float] | float]:
    await sequential(hub, WARMUP)
    seq = await sequential(hub, samples)
    await settle(hub)
    pipe, rate = await pipelined_run(hub, samples, window)
    await settle(hub)
    return {"seq": seq, "pipe": pipe, "rate": rate}


async def one_config(session: aiohttp.ClientSession, db: Path, clients: int, samples: int,
                     window: int) -> tuple[dict[str, dict[str, list[float] | float]], int]:
    setup = prepare_room(db, pieces=4, players=4, observers=clients)
    results: dict[str, dict[str, list[float] | float]] = {}
    with ServerProc("komasync", "--db", str(db)) as srv:
        target = KomasyncTarget(srv.url, session, setup)
        hub = await target.open(clients)
        results["komasync"] = await measure(hub, samples, window)
        size = mean_change_size(hub)
        await hub.close()
    with ServerProc("relay") as srv:
        hub = await RelayTarget(srv.url, session, size).open(clients)
        results["relay"] = await measure(hub, samples, window)
        await hub.close()
    return results, size


def report(clients: int, window: int, res: dict[str, dict[str, list[float] | float]],
           size: int) -> list[Row]:
    rows: list[Row] = []
    k, b = res["komasync"], res["relay"]
    print(f"\n{clients} clients (GM + 4 players + {clients - 5} observers; relay: {clients} "
          f"plain clients), mean change frame {size} B")
    for mode, label in (("seq", "sequential"), ("pipe", f"pipelined w={window}")):
        kl, bl = k[mode], b[mode]
        assert isinstance(kl, list) and isinstance(bl, list)
        for q in (50, 99):
            kv, bv = pct(kl, q) * 1e3, pct(bl, q) * 1e3
            print(f"  {label:16} p{q}: komasync {kv:7.3f} ms   relay {bv:7.3f} ms   "
                  f"ratio {kv / bv:5.2f}x   (n={len(kl)})")
            rows.append(Row("1 latency", f"{clients} clients, {label}, p{q}", kv, bv, "ms"))
    print(f"  pipelined rate: komasync {k['rate']:,.0f}/s   relay {b['rate']:,.0f}/s")
    return rows


async def run(samples: int = 500, clients: tuple[int, ...] = (10, 50),
              window: int = 8) -> list[Row]:
    print("== Figure 1: action -> last client latency ==")
    print(LIMITS_NOTE)
    rows: list[Row] = []
    async with aiohttp.ClientSession() as session:
        for n in clients:
            with tmpdir() as d:
                res, size = await one_config(session, Path(d) / "lat.sqlite3", n, samples, window)
            rows += report(n, window, res, size)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--samples", type=int, default=500)
    p.add_argument("--clients", type=int, nargs="+", default=[10, 50])
    p.add_argument("--window", type=int, default=8)
    a = p.parse_args()
    rows = asyncio.run(run(a.samples, tuple(a.clients), a.window))
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
