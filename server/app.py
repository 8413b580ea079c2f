"""The aiohttp application: `/ws` (the protocol), `/healthz`, `/api/rooms`, the console at `/`.

The handler parses, authenticates and authorises; everything that touches a room's state
goes through that room's inbox (see room.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hmac
import logging
import math
import secrets
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import web

from ..adapters import exports
from ..engine.scenario import Scenario, build_room
from ..engine.views import GM, Audience, View
from . import distribution, doctor
from .connection import Connection, Limits, Peer, close_socket, dumps
from .errors import (
    AUTH_FAILED,
    AUTH_THROTTLED,
    BAD_MESSAGE,
    INVITE_REVOKED,
    ROOM_QUARANTINED,
    SERVER_SHUTDOWN,
    TOO_MANY_CONNECTIONS,
    error_frame,
)
from .forwarded import TrustedProxies
from .gm_key import all_rooms, gm_key_ok, recorded_address
from .invite_limits import InviteLimits
from .offload import SETTLE, keep, offload
from .protocol import PROTOCOL_VERSION, state_schema
from .query_budget import QueryBudget
from .replay import rebuild
from .retries import RetryWindow
from .room import Call, Room
from .session import Session
from .storage import AsyncStorage, Backend, LeaseHeld, Storage, new_secret
from .throttle import AuthThrottle

if TYPE_CHECKING:
    from .cluster import Cluster

__all__ = ["SERVER_KEY", "Komasync", "make_app"]

log = logging.getLogger("komasync.server")

# The longest a throttled authentication waits for its answer (and how long a failed one
# waits on a room past its limit of failures).
THROTTLED_PAUSE = 1.0
# Credential lookups on the storage thread at once (the others wait their turn, in order).
CHECKS = 4


def _retry_window(store: Backend, room_id: str, size: int) -> RetryWindow:
    """On the storage thread: each identity's last action ids, from the log. A log that
    refuses an id it has ever logged (Redis) needs every id kept (size 0: no bound)."""
    return RetryWindow.from_log(0 if store.refuses_known_keys else size,
                                store.newest_client_keys(room_id))


class Komasync:
    """The server: storage, rooms (loaded on start or on first use), limits."""

    def __init__(self, db: str | Path, limits: Limits | None = None,
                 durability: str = "full", storage: Backend | None = None) -> None:
        # `storage` given: the backend `serve --store` chose (SQLite or Redis, same methods).
        backend = storage or Storage(db, durability)  # type: ignore[arg-type]
        self.storage = AsyncStorage(backend)
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self.quarantined: dict[str, str] = {}  # room id → why its log could not be replayed
        self.sockets: set[web.WebSocketResponse] = set()
        self.per_address: Counter[str] = Counter()
        self.throttle = AuthThrottle(self.limits.auth_failures_per_address,
                                     self.limits.auth_failures_per_room, self.limits.auth_window)
        self._checks = asyncio.Semaphore(CHECKS)
        self.invites = InviteLimits(self.limits)  # sockets and messages per invite
        self.queries = QueryBudget(self.limits)  # queries' share of the loop, answers kept
        self.cluster: Cluster | None = None  # several processes on one Redis (cluster.py)
        self.operator_token: str | None = None  # opens `/healthz?rooms=1`
        self.proxies: TrustedProxies | None = None  # `serve --behind-proxy` (forwarded.py)
        # room id → principal → a bridge's last `Connection.info()` once it disconnected,
        # since this process started: its last contact, for `komasync doctor` (doctor.py).
        self.bridges_gone: dict[str, dict[str, dict[str, Any]]] = {}

    def client_address(self, request: web.Request) -> str:
        """Where the request comes from: the TCP peer, or behind a trusted proxy the
        client it forwarded for; limits and throttles count per this address."""
        if self.proxies is None:
            return request.remote or "?"
        return self.proxies.client(request.remote, request.headers.getall("X-Forwarded-For", []))

    # -- rooms ------------------------------------------------------------------------
    async def recover_all(self) -> None:
        """On start: every room rebuilt from its snapshot and log, to its last version; a
        room that cannot be is quarantined and the others start all the same. In a
        cluster rooms load on their first join instead, so they spread over the processes."""
        if self.cluster is not None:
            return
        for room_id in await self.storage.call(self.storage.storage.room_ids):
            await self.room(room_id)
        gc.collect()  # once, before serving: then everything loaded so far is kept
        keep()

    async def room(self, room_id: str) -> Room | None:
        if room_id in self.rooms:
            return self.rooms[room_id]
        if room_id in self.quarantined:
            return None
        if room_id not in self._loading:
            self._loading[room_id] = asyncio.ensure_future(self._load(room_id))
        return await asyncio.shield(self._loading[room_id])

    async def _load(self, room_id: str) -> Room | None:
        store = self.storage.storage
        try:
            if await self.storage.call(store.room, room_id) is None:
                self._loading.pop(room_id, None)
                return None
            if store.shared() is not None:  # one writer across processes: own it first
                await self.storage.call(store.claim, room_id)
            engine = await self.storage.call(rebuild, store, room_id)
            retries = await self.storage.call(_retry_window, store, room_id,
                                              self.limits.retry_window)
            gm_view = await offload(View, GM, engine.state)  # the GM's view, off the loop
        except LeaseHeld as e:  # another process owns it (cluster.py relays to it)
            log.info("room owned elsewhere", extra={"room": room_id, "holder": e.holder})
            self._loading.pop(room_id, None)
            return None
        except store.errors:  # the store, not the log: try again later
            log.exception("room %s could not be read", room_id, extra={"room": room_id})
            self._loading.pop(room_id, None)
            return None
        except Exception as e:
            self._quarantine(room_id, e)
            return None
        room = Room(room_id, engine, self.storage, self.limits, retries, on_fail=self.forget,
                    gm_view=gm_view)
        self.rooms[room_id] = room
        if room.audiences.big:
            keep()
        SETTLE.start()  # rooms are served: keep the collector's walks short from now on
        log.info("room recovered", extra={"room": room_id, "version": engine.version})
        return room

    def _quarantine(self, room_id: str, error: Exception) -> None:
        """Its log cannot be replayed: refuse the room (until the operator repairs it and
        restarts), never the server or the other rooms."""
        why = f"{type(error).__name__}: {error}"[:500]
        self.quarantined[room_id] = why
        self._loading.pop(room_id, None)
        log.error("room %s quarantined, its log cannot be replayed: %s", room_id, why,
                  exc_info=error, extra={"room": room_id, "quarantined": why})

    def forget(self, room_id: str) -> None:
        """A room whose log could not be written is dropped; the next join reloads it."""
        self.rooms.pop(room_id, None)
        self._loading.pop(room_id, None)

    async def create_room(self, scenario: Scenario, secret: str | None = None,
                          room_id: str | None = None, seed: str | None = None,
                          scenario_name: str | None = None) -> tuple[str, str]:
        """A new room from a scenario (`scenario_name`: its file's, as `room create` keeps
        it); returns (room id, GM secret)."""
        room_id = room_id or "r" + secrets.token_hex(4)
        secret = secret or new_secret()
        state = build_room(scenario, seed=seed or secrets.token_hex(8)).model_dump(mode="json")
        await self.storage.call(self.storage.storage.create_room, room_id,
                                scenario.room.name, secret, state, scenario_name)
        return room_id, secret

    async def close(self) -> None:
        SETTLE.stop()
        for room in self.rooms.values():
            await room.stop()
        self.storage.close()

    # -- auth -------------------------------------------------------------------------
    async def authenticate(self, ws: web.WebSocketResponse, msg: Any, peer: Peer
                           ) -> tuple[Room, Connection] | dict[str, Any] | None:
        """The room and connection `msg` opens, or the error frame. Failures count against
        the address (past its limit nothing is looked up) and the room (past its limit
        failures are answered after a pause; a right credential never waits for others').
        None: the socket was relayed to the room's owner process (and is closed now)."""
        if self.cluster is not None and await self.cluster.refuse_other_room(ws, msg, peer):
            return None  # relayed for another room: its signed address is not for this one
        wait = self.throttle.wait(peer.address)
        if wait > 0:
            # Answered after a pause: a guessing socket gets one answer a second, so
            # guessing from many sockets cannot eat the CPU the rooms need either.
            await asyncio.sleep(min(wait, THROTTLED_PAUSE))
            seconds = math.ceil(wait)
            return error_frame(AUTH_THROTTLED, None, AUTH_THROTTLED.text.format(s=seconds),
                               retry_after=seconds)
        if self.cluster is not None and await self.cluster.route(ws, msg, peer):
            return None  # the owner authenticated (and throttled) it, by the real address
        result = await self._check(ws, msg, peer)
        if isinstance(result, dict) and result["code"] == AUTH_FAILED.code:
            attacked = self.throttle.under_attack(msg.room)
            self.throttle.failed(peer.address, msg.room)
            if attacked:  # many guesses on this room: each guessing socket slows down
                await asyncio.sleep(THROTTLED_PAUSE)
        return result

    async def _lookup(self, fn: Any, *args: Any) -> Any:
        """A credential lookup on the storage thread: at most `CHECKS` at once, so however
        many sockets guess, a room's commit waits behind only a few of them."""
        async with self._checks:
            return await self.storage.call(fn, *args)

    async def _check(self, ws: web.WebSocketResponse, msg: Any, peer: Peer
                     ) -> tuple[Room, Connection] | dict[str, Any]:
        room = await self.room(msg.room)
        if room is None:
            if msg.room in self.quarantined and await self._may_enter(msg):
                return error_frame(ROOM_QUARANTINED)
            return error_frame(AUTH_FAILED)
        store = self.storage.storage
        if msg.secret is not None:
            if not await self.gm_ok(msg.room, msg.secret):
                return error_frame(AUTH_FAILED)
            principal = "gm"  # the GM's retries apply once even after the secret rotates
            return room, Connection(ws, "gm", None, principal, msg.client or "GM", self.limits,
                                    peer.transport)
        if msg.token is not None:
            inv = await self._lookup(store.invite_for_token, msg.room, msg.token)
            if inv is None:
                return error_frame(AUTH_FAILED)
            if inv.revoked:
                return error_frame(INVITE_REVOKED)
            label = msg.client or inv.label or inv.player or inv.role
            conn = Connection(ws, inv.role, inv.player, "inv:" + inv.id, label, self.limits,
                              peer.transport)
            if inv.role == "bridge":
                conn.platform = msg.platform
            return room, conn
        return error_frame(AUTH_FAILED)

    async def gm_ok(self, room_id: str, secret: str) -> bool:
        """Whether `secret` opens the room as GM: the room's own secret or the server's GM
        key (gm_key.py), each compared in constant time."""
        store = self.storage.storage
        row = await self._lookup(store.room, room_id)
        if row is None:
            return False
        return row.gm_secret_ok(secret) or bool(await self._lookup(gm_key_ok, store, secret))

    async def _may_enter(self, msg: Any) -> bool:
        """Whether the credentials open the room (only they learn it is quarantined)."""
        store = self.storage.storage
        if msg.secret is not None:
            return await self.gm_ok(msg.room, msg.secret)
        if msg.token is not None:
            inv = await self._lookup(store.invite_for_token, msg.room, msg.token)
            return inv is not None and not inv.revoked
        return False

    # -- the WebSocket ----------------------------------------------------------------
    async def ws_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=self.limits.max_frame * 4)
        await ws.prepare(request)
        relayed = self.cluster.relayed_from(request) if self.cluster is not None else None
        peer = Peer(relayed.address if relayed else self.client_address(request), request.transport)
        limit = self.limits.connections_per_address
        if limit and self.per_address[peer.address] >= limit:  # 0: no limit
            code = TOO_MANY_CONNECTIONS
            await close_socket(ws, peer.transport, code.code, dumps(error_frame(
                code, None, code.text.format(limit=limit), limit=limit)))
            return ws
        session = Session(self, ws, peer)
        self.sockets.add(ws)
        self.per_address[peer.address] += 1
        if relayed is not None and self.cluster is not None:
            self.cluster.inbound[ws] = relayed.room
        try:
            await session.run()
        finally:
            self.sockets.discard(ws)
            if self.cluster is not None:
                self.cluster.inbound.pop(ws, None)
            self.per_address[peer.address] -= 1
            if not self.per_address[peer.address]:
                del self.per_address[peer.address]
            await session.close()
        return ws

    async def shutdown(self) -> None:
        """Tell every client the server is going away, then close their sockets. In a
        cluster each room is handed over first (committed, its lease released)."""
        if self.cluster is not None:
            await self.cluster.handover()
        text = SERVER_SHUTDOWN.text
        bye = orjson.dumps({"type": "bye", "code": SERVER_SHUTDOWN.code, "reason": {
            "ja": text.ja, "en": text.en}}).decode()
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.send_str(bye), 0.5)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001, message=b"server_shutdown"), 1.0)


SERVER_KEY = web.AppKey("komasync", Komasync)


async def _healthz(request: web.Request) -> web.Response:
    """Liveness for the operator, without auth: counts only, never a room id (those of
    quarantined rooms are in the server log). `?rooms=1` with the operator token
    (`Authorization: Bearer …`) also names the rooms this process owns."""
    server = request.app[SERVER_KEY]
    health: dict[str, Any] = {"ok": True, "protocol": PROTOCOL_VERSION, "rooms": {
        "loaded": len(server.rooms), "quarantined": len(server.quarantined)}}
    if request.query.get("rooms"):
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        token = server.operator_token
        if not token or not hmac.compare_digest(given.encode(), token.encode()):
            return web.json_response(error_frame(AUTH_FAILED), status=403)
        cluster = server.cluster
        health["owned"] = cluster.owned() if cluster is not None else sorted(server.rooms)
        if cluster is not None:
            health["node"] = cluster.store.owner
    return web.json_response(health)


async def _rooms(request: web.Request) -> web.Response:
    """POST {secret}: the rooms this GM secret opens, every room for the server's GM key
    (the secret never goes in a URL). Failures are counted and throttled per address."""
    server = request.app[SERVER_KEY]
    try:
        body = await request.json()
        secret = str(body["secret"])
    except Exception:
        return web.json_response(_malformed("need {secret}"), status=400)
    address = server.client_address(request)
    if (throttled := _throttled(server, address)) is not None:
        return throttled
    rooms = await _gm_rooms(server, secret, address, "/api/rooms")
    for r in rooms:
        room = server.rooms.get(r["id"])
        r["version"] = room.version if room else None
        if room is None and server.cluster is not None:  # owned by another process
            r["version"] = await server.storage.call(server.cluster.store.last_version, r["id"])
    return web.json_response({"rooms": rooms})


async def _schema(request: web.Request) -> web.Response:
    """The state tree's JSON Schema (types, bounds, ja/en titles) for the override editor:
    public, the same for every room (no room's data)."""
    return web.json_response(state_schema())


async def _scenario_schema(request: web.Request) -> web.Response:
    """A scenario file's JSON Schema, titled for the scenario editor's forms: public."""
    from ..engine.scenario import scenario_schema

    return web.json_response(scenario_schema())


def _throttled(server: Komasync, address: str) -> web.Response | None:
    """The answer to an address past its limit of failed secrets, as a guessing socket's."""
    if (wait := server.throttle.wait(address)) <= 0:
        return None
    seconds = math.ceil(wait)
    return web.json_response(error_frame(AUTH_THROTTLED, None, AUTH_THROTTLED.text.format(
        s=seconds), retry_after=seconds), status=429)


async def _gm_rooms(server: Komasync, secret: str, address: str, where: str
                    ) -> list[dict[str, Any]]:
    """The rooms `secret` opens as GM: every room for the server's GM key. None opened
    counts as a failure against the address, as on /ws."""
    store = server.storage.storage
    if await server._lookup(gm_key_ok, store, secret):
        rooms: list[dict[str, Any]] = await server._lookup(all_rooms, store)
    else:
        rooms = await server._lookup(store.rooms_for_secret, secret)
    if not rooms:
        server.throttle.failed(address, where)
    return rooms


async def _doctor(request: web.Request) -> web.Response:
    """GET with `Authorization: Bearer <GM key or a room's GM secret>`: the doctor's
    findings (doctor.py) for the rooms it opens, as this running server sees them."""
    server = request.app[SERVER_KEY]
    address = server.client_address(request)
    if (throttled := _throttled(server, address)) is not None:
        return throttled
    secret = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    rooms = await _gm_rooms(server, secret, address, "/api/doctor") if secret else []
    if not rooms:
        if not secret:
            server.throttle.failed(address, "/api/doctor")
        return web.json_response(error_frame(AUTH_FAILED), status=403)
    configured = request.app.get(distribution.PUBLIC_URL)
    recorded = await server.storage.call(recorded_address, server.storage.storage)
    base = configured or recorded or distribution.base_url(request)
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    port = int(sockname[1]) if sockname else None
    findings = await doctor.server_findings(server, base, configured is not None, port,
                                            [r["id"] for r in rooms])
    return web.json_response({"ok": not doctor.needs_action(findings),
                              "findings": [f.model_dump(mode="json") for f in findings]})


def _malformed(detail: str) -> dict[str, Any]:
    return error_frame(BAD_MESSAGE, None, BAD_MESSAGE.text.format(detail=detail))


async def _export(request: web.Request) -> web.Response:
    """POST {secret, room, format}: the room as the table sees it, for Ccfolia without a
    bridge — a room ZIP, or the clipboard JSON of every character."""
    server = request.app[SERVER_KEY]
    try:
        body = await request.json()
        secret, room_id = str(body["secret"]), str(body["room"])
        fmt = str(body.get("format", "zip"))
    except Exception:
        return web.json_response(_malformed("need {secret, room, format}"),
                                 status=400)
    allowed = fmt in ("zip", "clipboard") and await server.gm_ok(room_id, secret)
    room = await server.room(room_id) if allowed else None
    if room is None and allowed and server.cluster is not None:
        tree = await server.cluster.table_tree(room_id)  # owned by another process
    elif room is None:
        return web.json_response(error_frame(AUTH_FAILED), status=403)
    else:
        tree = await _table_tree(room)
    # The console warns when the room has no Ccfolia calibration (issue 14).
    calibrated = {"X-Komasync-Calibrated": "yes" if exports.export_notice(tree)["calibrated"]
                  else "no"}
    if fmt == "clipboard":
        return web.json_response(exports.clipboard_document(tree), headers=calibrated)
    return web.Response(body=exports.room_zip(tree), content_type="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{room_id}-ccfolia.zip"', **calibrated})


async def _table_tree(room: Room) -> dict[str, Any]:
    """The table's view, in the room's order: after every change before it is durable."""

    async def table_tree() -> dict[str, Any]:
        return (await room.audiences.view(Audience("table"))).tree

    call = Call(table_tree)
    await room.inbox.put(call)
    return await call.done  # type: ignore[no-any-return]


def _console_dir() -> Path:
    return Path(str(resources.files("komasync.server") / "console"))


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(_console_dir() / "index.html")


CSP = ("default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
       "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """The console loads only its own files and talks only to this server."""
    if not isinstance(response, web.WebSocketResponse):
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")


def make_app(server: Komasync) -> web.Application:
    app = web.Application(client_max_size=1024 * 1024)
    app.on_response_prepare.append(_security_headers)
    app[SERVER_KEY] = server
    app.router.add_get("/ws", server.ws_handler)
    app.router.add_get("/healthz", _healthz)
    app.router.add_post("/api/rooms", _rooms)
    app.router.add_post("/api/export", _export)
    app.router.add_get("/api/schema", _schema)
    app.router.add_get("/api/scenario/schema", _scenario_schema)
    app.router.add_get("/api/doctor", _doctor)
    app.router.add_get("/", _index)
    distribution.add_routes(app)
    from .scenario_api import add_routes  # the editor's routes (it imports this module)
    add_routes(app)
    console = _console_dir()
    if console.is_dir():
        app.router.add_static("/console/", console)

    async def on_startup(app: web.Application) -> None:
        await server.recover_all()

    async def on_shutdown(app: web.Application) -> None:
        await server.shutdown()

    async def on_cleanup(app: web.Application) -> None:
        if server.cluster is not None:
            await server.cluster.stop()
        await server.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app

