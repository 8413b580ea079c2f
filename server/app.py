"""The aiohttp application: `/ws` (the protocol), `/healthz`, `/api/rooms`, the console at `/`.

The handler parses, authenticates and authorises; everything that touches a room's state
goes through that room's inbox (see room.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
from aiohttp import WSMsgType, web
from pydantic import ValidationError

from ..engine.control import AddPlayer, Answer
from ..engine.errors import Text
from ..engine.registry import ACTIONS
from ..engine.scenario import Scenario, build_room
from ..engine.tx import Actor
from . import distribution
from .connection import Connection, Limits
from .protocol import PROTOCOL_VERSION, client_adapter
from .replay import rebuild
from .room import Call, Join, Room, Submit
from .storage import AsyncStorage, Storage, hash_secret, new_secret

__all__ = ["SERVER_KEY", "Komasync", "make_app"]

log = logging.getLogger("komasync.server")

T = Text
E_JSON = T("JSONとして読めません。", "The message is not valid JSON.")
E_SHAPE = T("メッセージの形が正しくありません: {detail}", "The message is malformed: {detail}")
E_KIND = T("「{kind}」という操作はありません。", "There is no action kind '{kind}'.")
E_AUTH_FIRST = T("最初に認証してください。", "Authenticate first.")
E_AUTH = T("認証できません（ルームまたは秘密鍵・招待が違います）。",
           "Authentication failed (wrong room, secret or invite).")
E_REVOKED = T("この招待は取り消されています。", "This invite has been revoked.")
E_BIG = T("メッセージが大きすぎます（上限{limit}バイト）。",
          "The message is too large (limit {limit} bytes).")
E_RATE = T("送信が速すぎます。少し待ってください。", "Too many messages; slow down.")
E_GM_ONLY = T("GMだけができる操作です。", "Only the GM may do this.")
E_TIMEOUT = T("認証が時間内に行われませんでした。", "No authentication in time.")
E_BINARY = T("テキストのJSONで送ってください。", "Send text JSON frames.")
E_AGAIN = T("すでに認証済みです。", "Already authenticated.")


def _err(code: str, text: Text, msg_id: str | None = None, **details: Any) -> dict[str, Any]:
    return {"type": "error", "id": msg_id, "code": code,
            "reason": {"ja": text.ja, "en": text.en}, "details": details}


class Komasync:
    """The server: storage, rooms (loaded on start or on first use), limits."""

    def __init__(self, db: str | Path, limits: Limits | None = None,
                 durability: str = "full") -> None:
        self.storage = AsyncStorage(Storage(db, durability))  # type: ignore[arg-type]
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self.sockets: set[web.WebSocketResponse] = set()

    # -- rooms ------------------------------------------------------------------------
    async def recover_all(self) -> None:
        """On start: every room rebuilt from its snapshot and log, to its last version."""
        for room_id in await self.storage.call(self.storage.storage.room_ids):
            await self.room(room_id)

    async def room(self, room_id: str) -> Room | None:
        if room_id in self.rooms:
            return self.rooms[room_id]
        if room_id not in self._loading:
            self._loading[room_id] = asyncio.ensure_future(self._load(room_id))
        return await asyncio.shield(self._loading[room_id])

    async def _load(self, room_id: str) -> Room | None:
        store = self.storage.storage
        if await self.storage.call(store.room, room_id) is None:
            self._loading.pop(room_id, None)
            return None
        engine = await self.storage.call(rebuild, store, room_id)
        keys = await self.storage.call(_client_keys, store, room_id)
        room = Room(room_id, engine, self.storage, self.limits, keys, on_fail=self._forget)
        self.rooms[room_id] = room
        log.info("room recovered", extra={"room": room_id, "version": engine.version})
        return room

    def _forget(self, room_id: str) -> None:
        """A room whose log could not be written is dropped; the next join reloads it."""
        self.rooms.pop(room_id, None)
        self._loading.pop(room_id, None)

    async def create_room(self, scenario: Scenario, secret: str | None = None,
                          room_id: str | None = None, seed: str | None = None) -> tuple[str, str]:
        """A new room from a scenario; returns (room id, GM secret)."""
        room_id = room_id or "r" + secrets.token_hex(4)
        secret = secret or new_secret()
        state = build_room(scenario, seed=seed or secrets.token_hex(8)).model_dump(mode="json")
        await self.storage.call(self.storage.storage.create_room, room_id,
                                scenario.room.name, secret, state)
        return room_id, secret

    async def close(self) -> None:
        for room in self.rooms.values():
            await room.stop()
        self.storage.close()

    # -- auth -------------------------------------------------------------------------
    async def authenticate(self, ws: web.WebSocketResponse, msg: Any
                           ) -> tuple[Room, Connection] | dict[str, Any]:
        room = await self.room(msg.room)
        if room is None:
            return _err("auth_failed", E_AUTH)
        store = self.storage.storage
        if msg.secret is not None:
            row = await self.storage.call(store.room, msg.room)
            if row is None or not row.gm_secret_ok(msg.secret):
                return _err("auth_failed", E_AUTH)
            principal = "gm:" + hash_secret(msg.secret)[:8]
            return room, Connection(ws, "gm", None, principal, msg.client or "GM", self.limits)
        if msg.token is not None:
            inv = await self.storage.call(store.invite_for_token, msg.room, msg.token)
            if inv is None:
                return _err("auth_failed", E_AUTH)
            if inv.revoked:
                return _err("invite_revoked", E_REVOKED)
            label = msg.client or inv.label or inv.player or inv.role
            conn = Connection(ws, inv.role, inv.player, "inv:" + inv.id, label, self.limits)
            if inv.role == "bridge":
                conn.platform = msg.platform
            return room, conn
        return _err("auth_failed", E_AUTH)

    # -- the WebSocket ----------------------------------------------------------------
    async def ws_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=self.limits.max_frame * 4)
        await ws.prepare(request)
        session = _Session(self, ws)
        self.sockets.add(ws)
        try:
            await session.run()
        finally:
            self.sockets.discard(ws)
            session.close()
        return ws

    async def shutdown(self) -> None:
        """Tell every client the server is going away, then close their sockets."""
        bye = orjson.dumps({"type": "bye", "code": "server_shutdown", "reason": {
            "ja": "サーバーを停止します。", "en": "The server is shutting down."}}).decode()
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.send_str(bye), 0.5)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001, message=b"server_shutdown"), 1.0)


async def _pong(conn: Connection, room: Room, t: Any) -> None:
    """Answered in the room's order: a pong comes after every reply to what came before."""
    conn.send_msg({"type": "pong", "t": t, "version": room.version})


def _client_keys(store: Storage, room_id: str) -> dict[str, int]:
    rows = store.db.execute(
        "SELECT client_key, version FROM actions WHERE room=? AND client_key IS NOT NULL",
        (room_id,))
    return {k: int(v) for k, v in rows}


class _Session:
    """One WebSocket's lifetime: auth first, then messages routed to the room."""

    def __init__(self, server: Komasync, ws: web.WebSocketResponse) -> None:
        self.server = server
        self.ws = ws
        self.room: Room | None = None
        self.conn: Connection | None = None

    async def send(self, msg: dict[str, Any]) -> None:
        if self.conn is not None:
            self.conn.send_msg(msg)
        else:
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                await self.ws.send_str(orjson.dumps(msg).decode())

    async def run(self) -> None:
        limits = self.server.limits
        deadline = time.monotonic() + limits.auth_timeout
        while not self.ws.closed:
            timeout = None if self.conn else max(0.0, deadline - time.monotonic())
            try:
                frame = await self.ws.receive(timeout=timeout)
            except TimeoutError:
                await self.send(_err("auth_timeout", E_TIMEOUT))
                await self.ws.close(code=4001, message=b"auth_timeout")
                return
            if frame.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED,
                              WSMsgType.ERROR):
                return
            if frame.type != WSMsgType.TEXT:
                await self.send(_err("binary_frame", E_BINARY))
                continue
            await self.handle(frame.data)
            if self.conn is not None and self.conn.closed:
                return

    async def handle(self, text: str) -> None:
        limits = self.server.limits
        if len(text.encode()) > limits.max_frame:
            await self.send(_err("frame_too_large", E_BIG.format(limit=limits.max_frame),
                                 limit=limits.max_frame))
            return
        if self.conn is not None and not self.conn.bucket.take():
            await self.send(_err("rate_limited", E_RATE))
            return
        try:
            raw = orjson.loads(text)
        except orjson.JSONDecodeError:
            await self.send(_err("bad_json", E_JSON))
            return
        msg_id = raw.get("id") if isinstance(raw, dict) and isinstance(raw.get("id"), str) else None
        try:
            msg = client_adapter.validate_python(raw)
        except ValidationError as e:
            await self.send(self._shape_error(raw, e, msg_id))
            return
        if self.conn is None:
            await self._auth(msg)
            return
        await self._dispatch(msg)

    def _shape_error(self, raw: Any, e: ValidationError, msg_id: str | None) -> dict[str, Any]:
        action = raw.get("action") if isinstance(raw, dict) else None
        if isinstance(raw, dict) and raw.get("type") == "action" and isinstance(action, dict):
            kind = action.get("kind")
            if isinstance(kind, str) and kind not in ACTIONS:
                return _err("unknown_kind", E_KIND.format(kind=str(kind)[:64]), msg_id)
            errors = [{"loc": list(x["loc"]), "msg": x["msg"]} for x in e.errors()[:5]]
            return _err("bad_action", E_SHAPE.format(detail=errors[0]["msg"]), msg_id,
                        errors=errors)
        errors = [{"loc": list(x["loc"]), "msg": x["msg"]} for x in e.errors()[:5]]
        return _err("bad_message", E_SHAPE.format(detail=errors[0]["msg"]), msg_id, errors=errors)

    async def _auth(self, msg: Any) -> None:
        if msg.type != "auth":
            await self.send(_err("auth_required", E_AUTH_FIRST, getattr(msg, "id", None)))
            return
        result = await self.server.authenticate(self.ws, msg)
        if isinstance(result, dict):
            await self.send(result)
            return
        self.room, self.conn = result
        join = Join(self.conn, msg.since)
        await self.room.inbox.put(join)
        await join.done
        log.info("joined", extra={"room": self.room.id, "role": self.conn.role,
                                  "client": self.conn.label})

    async def _dispatch(self, msg: Any) -> None:
        assert self.room is not None and self.conn is not None
        conn, room = self.conn, self.room
        conn.last_event = time.time()
        match msg.type:
            case "auth":
                conn.send_msg(_err("already_authenticated", E_AGAIN))
            case "ping":
                await room.inbox.put(Call(partial(_pong, conn, room, msg.t)))
            case "action":
                await room.inbox.put(Submit(conn, msg.id, msg.action, msg.base_version))
            case "answer":
                action = Answer(prompt=msg.prompt, choice=msg.choice)
                await room.inbox.put(Submit(conn, msg.id, action))
            case "table.event" if conn.role == "bridge":
                await room.inbox.put(Submit(conn, msg.id, None, event=msg.event))
            case "table.event":
                conn.send_msg(_err("bridge_only", T("ブリッジだけが送れます。",
                                                    "Only a bridge may send this."), msg.id))
            case "bridge.status":
                conn.platform = msg.platform
                conn.bridge_version = msg.version
                room.notify_gm("bridge", {**conn.info(), "detail": msg.detail,
                                          "lag": room.version - (msg.version or 0)})
            case _ if conn.role != "gm":
                conn.send_msg(_err("gm_only", E_GM_ONLY, msg.id))
            case "invite.create":
                await self._invite(msg)
            case "invite.revoke":
                ok = await self._store(self._storage.revoke_invite, room.id, msg.invite)
                conn.send_msg({"type": "invites", "id": msg.id,
                               "invites": await self._invites()} if ok else
                              _err("unknown_invite", T("その招待はありません。",
                                                       "No such invite."), msg.id))
            case "invite.list":
                conn.send_msg({"type": "invites", "id": msg.id, "invites": await self._invites()})
            case "history":
                conn.send_msg({"type": "history", "id": msg.id,
                               "entries": await self._history(msg.after, msg.limit)})

    @property
    def _storage(self) -> Storage:
        return self.server.storage.storage

    async def _store(self, fn: Any, *args: Any) -> Any:
        return await self.server.storage.call(fn, *args)

    async def _invite(self, msg: Any) -> None:
        assert self.room is not None and self.conn is not None
        if msg.role == "player":
            if not msg.player:
                self.conn.send_msg(_err("bad_message", E_SHAPE.format(
                    detail="a player invite needs `player`"), msg.id))
                return
            if msg.player not in self.room.engine.state.meta.players:
                await self.room.inbox.put(Submit(
                    None, f"invite-{msg.id}-{secrets.token_hex(3)}",
                    AddPlayer(id=msg.player, name=msg.label or msg.player),
                    actor_override=Actor(role="gm", label=self.conn.label)))
        invite_id, token = await self._store(self._storage.create_invite, self.room.id,
                                             msg.role, msg.player, msg.label)
        self.conn.send_msg({"type": "invite", "id": msg.id, "invite": invite_id, "token": token,
                            "role": msg.role, "player": msg.player})

    async def _invites(self) -> list[dict[str, Any]]:
        assert self.room is not None
        rows = await self._store(self._storage.invites, self.room.id)
        return [{"invite": r.id, "role": r.role, "player": r.player, "label": r.label,
                 "created_at": r.created_at, "revoked": r.revoked} for r in rows]

    async def _history(self, after: int, limit: int) -> list[dict[str, Any]]:
        assert self.room is not None
        records = await self._store(self._storage.actions, self.room.id, after, None, limit)
        return [{"version": r.version, "actor": r.actor, "action": r.action, "rolls": r.rolls,
                 "log": r.log, "warnings": r.warnings, "at": r.at} for r in records]

    def close(self) -> None:
        if self.conn is not None:
            self.conn.closed = True
            self.conn.writer.cancel()
            if self.room is not None:
                self.room.leave(self.conn)


SERVER_KEY = web.AppKey("komasync", Komasync)


async def _healthz(request: web.Request) -> web.Response:
    server = request.app[SERVER_KEY]
    return web.json_response({"ok": True, "protocol": PROTOCOL_VERSION,
                              "rooms": {rid: r.version for rid, r in server.rooms.items()}})


async def _rooms(request: web.Request) -> web.Response:
    """POST {secret}: the rooms this GM secret opens (the secret never goes in a URL)."""
    server = request.app[SERVER_KEY]
    try:
        body = await request.json()
        secret = str(body["secret"])
    except Exception:
        return web.json_response(_err("bad_message", E_SHAPE.format(detail="need {secret}")),
                                 status=400)
    rooms = await server.storage.call(server.storage.storage.rooms_for_secret, secret)
    for r in rooms:
        room = server.rooms.get(r["id"])
        r["version"] = room.version if room else None
    return web.json_response({"rooms": rooms})


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
    app.router.add_get("/", _index)
    distribution.add_routes(app)
    console = _console_dir()
    if console.is_dir():
        app.router.add_static("/console/", console)

    async def on_startup(app: web.Application) -> None:
        await server.recover_all()

    async def on_shutdown(app: web.Application) -> None:
        await server.shutdown()

    async def on_cleanup(app: web.Application) -> None:
        await server.close()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app

