"""`komasync serve`: settings, the demo rooms, binding the port, running until a signal."""

from __future__ import annotations

import argparse
import asyncio
import errno
import signal
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import web

from ..engine.errors import Text
from ..engine.registry import SUBSYSTEMS
from ..engine.scenario import build_room
from ..examples import DEMOS
from . import distribution
from .app import Komasync, make_app
from .cli_common import CliError, read_scenario
from .cluster import Cluster
from .connection import Limits
from .gm_key import GM_KEY_LINE, ensure_gm_key, record_address
from .logs import setup_logging
from .settings import Settings, load_settings
from .storage import Backend, new_secret, open_backend

__all__ = ["DEMO_ROOM", "DEMO_ROOMS", "example_path", "serve"]


def _demo_rooms() -> dict[str, str]:
    """Room id → example file: the demo of each registered subsystem, in the order the
    examples offer them."""
    registered = {s.name for s in SUBSYSTEMS}
    return {d.room: d.example for d in DEMOS if d.subsystem in registered}


# The demo rooms, all opened by the one GM secret printed at start; the first is `demo`.
DEMO_ROOMS = _demo_rooms()
DEMO_ROOM = next(iter(DEMO_ROOMS))
PORT_IN_USE = Text("ポート {port} は既に使われています。"
                   "--port で別の番号を指定するか、使っているプログラムを止めてください。",
                   "Port {port} is already in use; pick another with --port or stop the program "
                   "using it.")
NO_BIND = Text("{host}:{port} で待ち受けできません（{why}）。", "Cannot listen on {host}:{port} ({why}).")


def example_path(name: str) -> Path:
    return Path(str(resources.files("komasync.examples") / name))


def _ensure_demo(store: Backend, scenario_file: str | None) -> str:
    """Create the demo rooms if missing; a fresh GM secret opens them all, at every start."""
    secret = new_secret()
    rooms = {DEMO_ROOM: scenario_file} if scenario_file else dict(DEMO_ROOMS)
    for room_id, name in rooms.items():
        if store.room(room_id) is None:
            path = Path(name) if scenario_file else example_path(name)
            scenario = read_scenario(path)
            state = build_room(scenario, seed=new_secret()).model_dump(mode="json")
            store.create_room(room_id, scenario.room.name, secret, state, path.name)
        else:
            store.set_gm_secret(room_id, secret)
    return secret


def invite_limits(settings: Settings) -> dict[str, Any]:
    """The per-invite and query limits of `Limits` from the settings (bursts: 2 s worth,
    as for `--rate`; all rooms' queries may use three times one room's share)."""
    return {"invite_connections": settings.invite_connections,
            "bridge_connections": settings.bridge_connections,
            "invite_rate": settings.invite_rate,
            "invite_burst": max(1, int(settings.invite_rate * 2)),
            "bridge_rate": settings.bridge_rate,
            "bridge_burst": max(1, int(settings.bridge_rate * 2)),
            "query_share": settings.query_share,
            "queries_share": round(min(1.0, settings.query_share * 3), 6)}


def serve(args: argparse.Namespace) -> int:
    settings = load_settings(host=args.host, port=args.port, db=args.db, store=args.store,
                             lease_ms=args.lease_ms, cluster_url=getattr(args, "cluster_url", None),
                             public_url=args.public_url,
                             behind_proxy=getattr(args, "behind_proxy", None),
                             durability=args.durability, snapshot_every=args.snapshot_every,
                             max_frame=args.max_frame, rate=args.rate, log=args.log,
                             outbox_bytes=args.outbox_bytes,
                             connections_per_address=args.connections_per_address,
                             auth_failures_per_address=args.auth_failures_per_address,
                             auth_failures_per_room=args.auth_failures_per_room,
                             invite_connections=args.invite_connections,
                             bridge_connections=args.bridge_connections,
                             invite_rate=args.invite_rate, bridge_rate=args.bridge_rate,
                             query_share=args.query_share)
    setup_logging(settings.log)
    demo_secret = None
    if args.demo:
        store = open_backend(settings.store, settings.db, lease_ms=settings.lease_ms)
        demo_secret = _ensure_demo(store, args.demo_scenario)
        store.close()
    limits = Limits(max_frame=settings.max_frame, rate=settings.rate,
                    burst=int(settings.rate * 2), snapshot_every=settings.snapshot_every,
                    outbox_bytes=settings.outbox_bytes,
                    connections_per_address=settings.connections_per_address,
                    auth_failures_per_address=settings.auth_failures_per_address,
                    auth_failures_per_room=settings.auth_failures_per_room,
                    **invite_limits(settings))
    backend = open_backend(settings.store, settings.db, settings.durability, settings.lease_ms)
    gm_key = ensure_gm_key(backend)  # before serving: the same key at every start
    server = Komasync(settings.db, limits, settings.durability, storage=backend)
    server.operator_token = settings.operator_token
    server.proxies = settings.proxies()
    if (shared := backend.shared()) is not None:  # every process on it serves every room
        server.cluster = Cluster(server, shared)
    asyncio.run(_run(server, settings, demo_secret, gm_key))
    return 0


async def _bind(runner: web.AppRunner, settings: Settings) -> int:
    try:
        await web.TCPSite(runner, settings.host, settings.port).start()
    except OSError as e:
        await runner.cleanup()
        if e.errno == errno.EADDRINUSE:
            raise CliError(PORT_IN_USE.format(port=settings.port)) from None
        raise CliError(NO_BIND.format(host=settings.host, port=settings.port,
                                      why=e.strerror or e)) from None
    return int(runner.addresses[0][1]) if runner.addresses else settings.port


async def _run(server: Komasync, settings: Settings, demo_secret: str | None,
               gm_key: str) -> None:
    app = make_app(server)
    distribution.configure(app, settings.public_url)
    runner = web.AppRunner(app, access_log=None)
    if server.cluster is not None:
        await server.cluster.start()
    await runner.setup()
    settings.port = await _bind(runner, settings)
    local = settings.model_copy(update={"public_url": None}).base_url()
    if server.cluster is not None:
        server.cluster.announce(settings.cluster_url or local.replace("http", "ws", 1) + "/ws")
    # `komasync invite` (another process) makes its links with the address players use.
    await server.storage.call(record_address, server.storage.storage, settings.base_url())
    print(f"komasync: {local}/  (GMコンソール / GM console)", flush=True)
    print(f"komasync: {local.replace('http', 'ws', 1)}/ws", flush=True)
    if settings.public_url:
        urls = distribution.links(settings.base_url())
        print(f"komasync: players open / プレイヤー用URL: {urls['console']}  ({urls['ws']})", flush=True)
        print(f"komasync: Ccfolia userscript / ユーザースクリプト: {urls['userscript']}", flush=True)
    print(f"komasync: {GM_KEY_LINE}: {gm_key}", flush=True)
    if demo_secret:
        print(f"komasync: demo room / デモルーム: {DEMO_ROOM}", flush=True)
        others = ", ".join(r for r in DEMO_ROOMS if r != DEMO_ROOM)
        print(f"komasync: more demo rooms / 他のデモルーム: {others}", flush=True)
        print(f"komasync: GM secret / GM秘密鍵: {demo_secret}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
