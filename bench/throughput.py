"""Goal 2: durable actions per second in one room with 10 clients of three audiences.

komasync (durability full): 2 GM connections each keep a window of `table.move` actions in
flight; 4 players, a Ccfolia bridge and 3 observers are connected too (audiences gm,
player:p1..p4, table, plus the bridge's platform ops), so every action is projected and
fanned out to 10 sockets. The figure is acks per second: an ack leaves only after the
action is committed to SQLite. Relay: the same 2 senders and windows, 10 clients, every
frame broadcast to all of them; a frame counts when it is echoed to its sender. The two
servers alternate in blocks. Non-sending clients only drain their sockets (they do not
parse), in both cases, so the bench client costs as little as it can.

    python bench/throughput.py [--blocks 6] [--actions 3000] [--window 50] [--pieces 10]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    Goal,
    Hub,
    KomasyncTarget,
    RelayTarget,
    ServerProc,
    ack_rate,
    client_session,
    goal_table,
    pct,
    prepare_room,
    settle,
    tmpdir,
)
from _serve import LIMITS_NOTE

CLIENTS = 10
SENDERS = 2
GOAL = 10_000.0
FRAME = 150  # bytes the relay pads its frames to (komasync's change frame here is ~150 B)


async def blocks(hub: Hub, n: int, per_block: int, window: int) -> list[float]:
    rates = []
    for _ in range(n):
        rate, _p50 = await ack_rate(hub, SENDERS, per_block // SENDERS, window)
        await settle(hub)
        rates.append(rate)
    return rates


async def run(nblocks: int = 6, actions: int = 3000, window: int = 50, pieces: int = 10,
              durability: str = "full") -> list[Goal]:
    print("== Goal 2: durable actions/s in one room, 10 clients (alternating blocks) ==")
    print(LIMITS_NOTE)
    print(f"komasync: {SENDERS} GM senders x window {window}, + 4 players, 1 Ccfolia bridge, "
          f"3 observers; {pieces} pieces; durability={durability}. relay: {SENDERS} senders, "
          f"{CLIENTS} clients. {nblocks} blocks of {actions} actions per server.")
    k_rates: list[float] = []
    r_rates: list[float] = []
    async with client_session() as session:
        with tmpdir() as d:
            db = Path(d) / "tp.sqlite3"
            setup = prepare_room(db, pieces=pieces, players=4, observers=CLIENTS, bridges=1)
            with ServerProc("komasync", "--db", str(db), "--durability", durability) as ks, \
                    ServerProc("relay") as rs:
                khub = await KomasyncTarget(ks.url, session, setup, pieces).open(
                    CLIENTS, gms=SENDERS, players=4, bridges=1, passive_from=SENDERS)
                rhub = await RelayTarget(rs.url, session, FRAME).open(
                    CLIENTS, passive_from=SENDERS)
                for hub in (khub, rhub):  # warm-up
                    await ack_rate(hub, SENDERS, 200, window)
                    await settle(hub)
                for b in range(nblocks):
                    order = ((khub, k_rates), (rhub, r_rates))
                    for hub, out in order if b % 2 == 0 else order[::-1]:
                        out += await blocks(hub, 1, actions, window)
                await khub.close()
                await rhub.close()
    k, r = pct(k_rates, 50), pct(r_rates, 50)
    print(f"  komasync {k:8,.0f} acks/s (blocks {min(k_rates):,.0f}-{max(k_rates):,.0f})")
    print(f"  relay    {r:8,.0f} echo/s (blocks {min(r_rates):,.0f}-{max(r_rates):,.0f})"
          f"   ratio {k / r:.2f}x")
    return [Goal("2 throughput",
                 f"1 room, 10 clients (gm, 4 players, bridge), {pieces} pieces, {durability}; "
                 f"relay {r:,.0f}/s",
                 f"{k:,.0f} actions/s (blocks {min(k_rates):,.0f}-{max(k_rates):,.0f})",
                 f">= {GOAL:,.0f}/s", k >= GOAL)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--blocks", type=int, default=6)
    p.add_argument("--actions", type=int, default=3000)
    p.add_argument("--window", type=int, default=50)
    p.add_argument("--pieces", type=int, default=10)
    p.add_argument("--durability", choices=["full", "normal"], default="full")
    a = p.parse_args()
    goals = asyncio.run(run(a.blocks, a.actions, a.window, a.pieces, a.durability))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
