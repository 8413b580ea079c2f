"""Goal 1: action → last-client latency at 10, 50 and 200 clients, komasync and a raw relay
measured in alternating blocks, with the cost of one durable commit measured in between.

komasync: the GM sends `table.move` and the time runs until the LAST of the N clients
(GM + 4 players + a Ccfolia bridge + observers: the gm, player:* and table audiences)
has the matching `change`. Relay: the same client code, N plain clients, each frame padded
to komasync's mean change-frame size and broadcast unparsed. Both servers run the whole
time; the blocks alternate (K R, R K, K R, …) so drift in machine load hits both alike.
Between blocks the bench commits action-sized rows to SQLite (WAL, the server's
durability) in the server's directory: the one cost a durable server cannot remove.

    python bench/latency.py [--blocks 8] [--samples 80] [--clients 10 50 200] [--stages]

`--stages`: the komasync server is started through `_stages.py`, which times each
one-action batch's stages (receive, engine, record, projection, commit hand-over,
commit, the way back, fan-out, redraw) and the medians are printed per client count.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import aiohttp
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import (
    CommitProbe,
    Goal,
    Hub,
    KomasyncTarget,
    RelayTarget,
    ServerProc,
    client_session,
    goal_table,
    mean_change_size,
    pct,
    prepare_room,
    sequential,
    spread,
    tmpdir,
)
from _serve import LIMITS_NOTE

WARMUP = 40
COMMITS_PER_BLOCK = 25
ADDED_BUDGET = 0.1e-3  # Goal 1: at 10 clients, added latency ≤ one commit + 100 µs
RATIO_BUDGET = 1.3  # Goal 1: at 50 and 200 clients, p50 ratio ≤ 1.3× the relay


@dataclass
class Blocks:
    komasync: list[list[float]] = field(default_factory=list)
    relay: list[list[float]] = field(default_factory=list)
    commit: list[list[float]] = field(default_factory=list)
    frame: int = 0
    stages: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def flat(blocks: list[list[float]]) -> list[float]:
        return [x for b in blocks for x in b]


async def one_config(session: aiohttp.ClientSession, clients: int, blocks: int,
                     samples: int, durability: str, stages: bool = False) -> Blocks:
    out = Blocks()
    with tmpdir() as d:
        db = Path(d) / "lat.sqlite3"
        setup = prepare_room(db, pieces=10, players=4, observers=clients, bridges=1)
        probe = CommitProbe(d, durability)
        staged = Path(d) / "stages.json"
        with _staged(staged if stages else None), \
                ServerProc("komasync", "--db", str(db), "--durability", durability) as ksrv, \
                ServerProc("relay") as rsrv:
            khub = await KomasyncTarget(ksrv.url, session, setup, pieces=10).open(
                clients, players=4, bridges=1)
            await sequential(khub, WARMUP)
            out.frame = mean_change_size(khub)
            rhub = await RelayTarget(rsrv.url, session, out.frame).open(clients)
            await sequential(rhub, WARMUP)
            probe.run(COMMITS_PER_BLOCK)
            hubs: dict[str, Hub] = {"komasync": khub, "relay": rhub}
            for b in range(blocks):
                order = ("komasync", "relay") if b % 2 == 0 else ("relay", "komasync")
                for name in order:
                    getattr(out, name).append(await sequential(hubs[name], samples))
                out.commit.append(probe.run(COMMITS_PER_BLOCK))
            await khub.close()
            await rhub.close()
        probe.close()
        if stages and staged.exists():
            out.stages = orjson.loads(staged.read_bytes())
    return out


@contextlib.contextmanager
def _staged(path: Path | None) -> Iterator[None]:
    """Start the servers through `_stages.py` (komasync's stages timed) when asked."""
    if path is None:
        yield
        return
    with mock.patch.dict(os.environ, {
            "KOMASYNC_BENCH_SERVE": str(Path(__file__).resolve().parent / "_stages.py"),
            "KOMASYNC_STAGES_OUT": str(path)}):
        yield

def report(clients: int, res: Blocks) -> list[Goal]:
    k, r, c = (Blocks.flat(x) for x in (res.komasync, res.relay, res.commit))
    kp, rp, cp = pct(k, 50), pct(r, 50), pct(c, 50)
    print(f"\n{clients} clients (komasync: GM + 4 players + 1 bridge + {clients - 6} observers; "
          f"relay: {clients} plain clients), mean change frame {res.frame} B, "
          f"{len(res.komasync)} blocks each")
    for name, blocks, flat in (("komasync", res.komasync, k), ("relay", res.relay, r),
                               ("commit", res.commit, c)):
        print(f"  {name:8} p50 {pct(flat, 50) * 1e3:7.3f} ms  p99 {pct(flat, 99) * 1e3:7.3f} ms"
              f"  block p50s {spread(blocks)} ms  (n={len(flat)})")
    ratio = kp / rp
    added = kp - rp
    # A durable server relays as the relay does and commits before it sends: relay + one
    # commit is the best any durable server can measure here.
    floor = (rp + cp) / rp
    print(f"  added p50 {added * 1e3:.3f} ms, ratio {ratio:.2f}x, one commit p50 {cp * 1e3:.3f} ms"
          f" (relay + commit: ratio {floor:.2f}x)")
    if res.stages.get("us"):
        print(f"  komasync stages, µs (p50 of {res.stages['n']} one-action batches): "
              + ", ".join(f"{k} {v}" for k, v in res.stages["us"].items()))
    cfg = f"{clients} clients, block p50 k {spread(res.komasync)} / r {spread(res.relay)} ms"
    if clients == 10:
        return [Goal("1 latency", cfg,
                     f"added {added * 1e3:.3f} ms (k {kp * 1e3:.3f} - r {rp * 1e3:.3f})",
                     f"<= commit {cp * 1e3:.3f} + 0.100 ms", added <= cp + ADDED_BUDGET,
                     best=f"added {cp * 1e3:.3f} ms (relay + commit)")]
    return [Goal("1 latency", cfg, f"ratio {ratio:.2f}x (k {kp * 1e3:.3f} / r {rp * 1e3:.3f} ms)",
                 f"<= {RATIO_BUDGET}x", ratio <= RATIO_BUDGET,
                 best=f"ratio {floor:.2f}x (relay + commit)", reachable=floor <= RATIO_BUDGET)]


async def run(blocks: int = 8, samples: int = 80, clients: tuple[int, ...] = (10, 50, 200),
              durability: str = "full", stages: bool = False) -> list[Goal]:
    print("== Goal 1: action -> last client latency (alternating blocks) ==")
    print(LIMITS_NOTE)
    print(f"durability={durability}; {blocks} blocks of {samples} sequential actions per server "
          f"per client count, {COMMITS_PER_BLOCK} probe commits between blocks")
    goals: list[Goal] = []
    async with client_session() as session:
        for n in clients:
            per = max(20, samples * 10 // max(n, 10)) if n > 50 else samples
            goals += report(n, await one_config(session, n, blocks, per, durability, stages))
    return goals


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--samples", type=int, default=80)
    p.add_argument("--clients", type=int, nargs="+", default=[10, 50, 200])
    p.add_argument("--durability", choices=["full", "normal"], default="full")
    p.add_argument("--stages", action="store_true",
                   help="time komasync's stages per action (bench/_stages.py)")
    a = p.parse_args()
    goals = asyncio.run(run(a.blocks, a.samples, tuple(a.clients), a.durability, a.stages))
    print()
    print(goal_table(goals))


if __name__ == "__main__":
    main()
