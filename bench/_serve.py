"""A bench server in its own process: the real komasync server, or a raw relay.

    python bench/_serve.py komasync --db FILE [--durability full|normal] [--snapshot-every N]
    python bench/_serve.py relay

Prints one JSON line `{"port": …, "pid": …}` once listening on 127.0.0.1 (random port),
then serves until SIGTERM/SIGINT, until its stdin closes (the bench died) or for at most
`--lifetime` seconds. Both servers answer `GET /_bench/stats` with the process CPU time
(`time.process_time()`) and RSS, so the bench reads them with ns resolution.

komasync runs with its per-connection rate limit raised (see `bench_limits()`): the
default (40 msg/s, burst 80) would throttle a single benchmark sender.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from komasync.server.connection import Limits

BENCH_RATE = 1_000_000.0
BENCH_BURST = 1_000_000
LIMITS_NOTE = (f"komasync runs with Limits(rate={BENCH_RATE:.0f}, burst={BENCH_BURST}) "
               f"(default rate=40/s, burst=80) so the bench sender is not throttled")
CLIENTS: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("clients", set)


def bench_limits(snapshot_every: int = 200) -> Limits:
    """komasync's limits for the bench: only the per-connection rate limit is raised
    (`snapshot_every` stays at the server's default unless a bench asks otherwise)."""
    from komasync.server.connection import Limits

    return Limits(rate=BENCH_RATE, burst=BENCH_BURST, snapshot_every=snapshot_every)


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size from /proc/<pid>/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def _stats(_request: web.Request) -> web.Response:
    return web.json_response({"cpu": time.process_time(), "rss": rss_bytes()})


async def _relay(request: web.Request) -> web.WebSocketResponse:
    """Broadcast every text frame, as received, to every connected client (sender too)."""
    ws = web.WebSocketResponse(max_msg_size=1 << 20)
    await ws.prepare(request)
    clients = request.app[CLIENTS]
    clients.add(ws)
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            for client in list(clients):
                with contextlib.suppress(ConnectionResetError, RuntimeError):
                    await client.send_str(msg.data)
    finally:
        clients.discard(ws)
    return ws


def relay_app() -> web.Application:
    app = web.Application()
    app[CLIENTS] = set()
    app.router.add_get("/ws", _relay)
    app.router.add_get("/_bench/stats", _stats)
    return app


def komasync_app(db: str, durability: str, snapshot_every: int) -> web.Application:
    """The real komasync app; imported here so that the relay process never loads it."""
    from komasync.server.app import Komasync, make_app

    app = make_app(Komasync(db, bench_limits(snapshot_every), durability))
    app.router.add_get("/_bench/stats", _stats)
    return app


async def _stdin_closed() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def serve(app: web.Application, lifetime: float) -> None:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    print(orjson.dumps({"port": port, "pid": os.getpid()}).decode(), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    watch = asyncio.ensure_future(_stdin_closed())
    watch.add_done_callback(lambda _f: stop.set())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), lifetime)
    await runner.cleanup()
    os._exit(0)  # the stdin reader thread would otherwise keep the process alive


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("kind", choices=["komasync", "relay"])
    p.add_argument("--db", default="")
    p.add_argument("--durability", choices=["full", "normal"], default="full")
    p.add_argument("--snapshot-every", type=int, default=200)
    p.add_argument("--lifetime", type=float, default=300.0)
    args = p.parse_args()
    if args.kind == "komasync":
        app = komasync_app(args.db, args.durability, args.snapshot_every)
    else:
        app = relay_app()
    asyncio.run(serve(app, args.lifetime))


if __name__ == "__main__":
    main()
