"""One WebSocket's lifetime: authenticate first, then route each message to its room.

Parsing, frame and rate limits, and role checks happen here; anything that touches a
room's state goes through that room's inbox (room.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import WSMsgType, web
from pydantic import ValidationError

from ..engine.control import Answer
from ..engine.errors import Refusal
from ..engine.queries import QueryBase
from ..engine.registry import ACTIONS, QUERIES
from .audiences import by_gm
from .connection import Connection, Peer, close_socket, dumps
from .dry_run import dry_run
from .errors import (
    ALREADY_AUTHENTICATED,
    AUTH_REQUIRED,
    AUTH_TIMEOUT,
    BAD_ACTION,
    BAD_JSON,
    BAD_MESSAGE,
    BINARY_FRAME,
    BRIDGE_ONLY,
    BUSY,
    FORBIDDEN_ROLE,
    FRAME_TOO_LARGE,
    GM_ONLY,
    INTERNAL_ERROR,
    RATE_LIMITED,
    TOO_MANY_CONNECTIONS_FOR_INVITE,
    UNKNOWN_INVITE,
    UNKNOWN_KIND,
    UNKNOWN_PLAYER,
    UNKNOWN_QUERY,
    error_frame,
    refusal_frame,
)
from .invite_limits import retry_seconds
from .protocol import client_adapter
from .query_budget import QueryBudget, result_frame
from .room import Call, Join, Room, Submit
from .storage import Backend

if TYPE_CHECKING:
    from .app import Komasync

__all__ = ["Session"]

log = logging.getLogger("komasync.server")

#: What a bridge reports for the GM's set-up (the console's Connections tab, issue 30).
SETUP_REPORT = {"tokens", "users", "grid", "page"}


def _id_of(raw: Any) -> str | None:
    """The message's `id`, if it has one of the protocol's shape."""
    msg_id = raw.get("id") if isinstance(raw, dict) else None
    return msg_id if isinstance(msg_id, str) and 0 < len(msg_id) <= 64 else None


def _message_id(text: str) -> str | None:
    """The id of a frame that is refused before it is read (parsing only, no validation:
    the frame is already within the size limit)."""
    try:
        return _id_of(orjson.loads(text))
    except orjson.JSONDecodeError:
        return None


async def _pong(conn: Connection, room: Room, t: Any) -> None:
    """Answered in the room's order: a pong comes after every reply to what came before."""
    conn.send_msg({"type": "pong", "t": t, "version": room.version})


def _busy(conn: Connection, msg_id: str, wait: float) -> None:
    seconds = retry_seconds(wait)
    conn.send_msg(error_frame(BUSY, msg_id, BUSY.text.format(s=seconds), retry_after=seconds))


async def _query(conn: Connection, room: Room, msg_id: str, query: QueryBase,
                 budget: QueryBudget) -> None:
    """A query, answered in the room's order from what the sender's audience may see,
    within the room's query budget (query_budget.py); the answer is kept for the next
    asker of the same audience at the same version."""
    wait = budget.start(room)
    if wait:
        _busy(conn, msg_id, wait)
        return
    t0 = time.perf_counter()
    try:
        _answer(conn, room, msg_id, query, budget)
    finally:
        if budget.spent(room, time.perf_counter() - t0):
            await asyncio.sleep(0)  # the other rooms' reads, commits and acks go first


def _answer(conn: Connection, room: Room, msg_id: str, query: QueryBase,
            budget: QueryBudget) -> None:
    if conn.role not in query.roles:
        conn.send_msg(error_frame(FORBIDDEN_ROLE, msg_id, FORBIDDEN_ROLE.text.format(role=conn.role)))
        return
    key = budget.key(room, room.version, conn.key, query.model_dump_json())
    result = budget.cached(key)
    if result is None:
        try:
            answer = query.answer(room.engine.state, conn.audience)
        except Refusal as r:
            conn.send_msg(refusal_frame(r, msg_id))
            return
        except Exception:
            log.exception("query crashed", extra={"room": room.id})
            conn.send_msg(error_frame(INTERNAL_ERROR, msg_id, INTERNAL_ERROR.alts["query"]))
            return
        result = dumps(answer)
        budget.keep(key, result)
    conn.send(result_frame(msg_id, room.version, result))


async def _dry_run(conn: Connection, room: Room, msg_id: str, actions: list[Any]) -> None:
    """GM: the would-be consequences of `actions`, from a copy of the room (dry_run.py)."""
    try:
        body = dry_run(room.engine, actions, conn.actor)
    except Exception:
        log.exception("dry run crashed", extra={"room": room.id})
        conn.send_msg(error_frame(INTERNAL_ERROR, msg_id, INTERNAL_ERROR.alts["query"]))
        return
    conn.send_msg({"type": "dry_run.result", "id": msg_id, **body})


class Session:
    """One WebSocket's lifetime: auth first, then messages routed to the room."""

    def __init__(self, server: Komasync, ws: web.WebSocketResponse, peer: Peer) -> None:
        self.server = server
        self.ws = ws
        self.peer = peer
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
                await self.send(error_frame(AUTH_TIMEOUT))
                await self.ws.close(code=4001, message=b"auth_timeout")
                return
            if frame.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED,
                              WSMsgType.ERROR):
                return
            if frame.type != WSMsgType.TEXT:
                await self.send(error_frame(BINARY_FRAME))
                continue
            try:
                await self.handle(frame.data)
            except Exception:  # a bug answers that message; it never silently kills the socket
                log.exception("message failed", extra={"client": self.conn and self.conn.label})
                await self.send(error_frame(INTERNAL_ERROR, _message_id(frame.data)))
            if self.conn is not None and self.conn.closed:
                return

    async def handle(self, text: str) -> None:
        limits = self.server.limits
        if len(text.encode()) > limits.max_frame:
            await self.send(error_frame(
                FRAME_TOO_LARGE, None, FRAME_TOO_LARGE.text.format(limit=limits.max_frame),
                limit=limits.max_frame))
            return
        if self.conn is not None and (wait := self._throttled(self.conn)):
            seconds = retry_seconds(wait)
            await self.send(error_frame(RATE_LIMITED, _message_id(text),
                                        RATE_LIMITED.text.format(s=seconds), retry_after=seconds))
            return
        try:
            raw = orjson.loads(text)
        except orjson.JSONDecodeError:
            await self.send(error_frame(BAD_JSON))
            return
        msg_id = _id_of(raw)
        try:
            msg = client_adapter.validate_python(raw)
        except ValidationError as e:
            await self.send(self._shape_error(raw, e, msg_id))
            return
        if self.conn is None:
            await self._auth(msg)
            return
        await self._dispatch(msg)

    @staticmethod
    def _throttled(conn: Connection) -> float:
        """0 if the message may go on (a token taken from the socket's bucket and from
        its invite's, shared by all its sockets), else seconds until it may."""
        if not conn.bucket.take():
            return conn.bucket.retry_after()
        shared = conn.shared
        if shared is not None and not shared.take():
            conn.bucket.give_back()  # not sent: only the invite's limit is reached
            return shared.retry_after()
        return 0.0

    def _shape_error(self, raw: Any, e: ValidationError, msg_id: str | None) -> dict[str, Any]:
        action = raw.get("action") if isinstance(raw, dict) else None
        if isinstance(raw, dict) and raw.get("type") == "action" and isinstance(action, dict):
            kind = action.get("kind")
            if isinstance(kind, str) and kind not in ACTIONS:
                return error_frame(UNKNOWN_KIND, msg_id, UNKNOWN_KIND.text.format(kind=kind[:64]))
            errors = [{"loc": list(x["loc"]), "msg": x["msg"]} for x in e.errors()[:5]]
            return error_frame(BAD_ACTION, msg_id, BAD_ACTION.text.format(detail=errors[0]["msg"]),
                               errors=errors)
        query = raw.get("query") if isinstance(raw, dict) else None
        if isinstance(raw, dict) and raw.get("type") == "query" and isinstance(query, dict):
            kind = query.get("kind")
            if isinstance(kind, str) and kind not in QUERIES:
                return error_frame(UNKNOWN_QUERY, msg_id, UNKNOWN_QUERY.text.format(kind=kind[:64]))
        errors = [{"loc": list(x["loc"]), "msg": x["msg"]} for x in e.errors()[:5]]
        return error_frame(BAD_MESSAGE, msg_id, BAD_MESSAGE.text.format(detail=errors[0]["msg"]),
                           errors=errors)

    async def _auth(self, msg: Any) -> None:
        if msg.type != "auth":
            await self.send(error_frame(AUTH_REQUIRED, getattr(msg, "id", None)))
            return
        result = await self.server.authenticate(self.ws, msg, self.peer)
        if result is None:  # relayed to the room's owner process; the socket is closed
            return
        if isinstance(result, dict):
            await self.send(result)
            return
        room, conn = result
        if not self.server.invites.admit(room.id, conn):  # before it joins: nothing is sent
            await self._refuse_connection(conn)
            return
        self.room, self.conn = room, conn
        join = Join(self.conn, msg.since)
        await self.room.inbox.put(join)
        await join.done
        log.info("joined", extra={"room": self.room.id, "role": self.conn.role,
                                  "client": self.conn.label})

    async def _refuse_connection(self, conn: Connection) -> None:
        """One socket too many on its invite: an error frame, then the socket closes."""
        limit = self.server.invites.cap(conn)
        code = TOO_MANY_CONNECTIONS_FOR_INVITE
        frame = error_frame(code, None, code.text.format(limit=limit), limit=limit)
        await close_socket(self.ws, self.peer.transport, code.code, dumps(frame))

    async def _dispatch(self, msg: Any) -> None:
        assert self.room is not None and self.conn is not None
        conn, room = self.conn, self.room
        conn.last_event = time.time()
        match msg.type:
            case "auth":
                conn.send_msg(error_frame(ALREADY_AUTHENTICATED))
            case "ping":
                await room.inbox.put(Call(partial(_pong, conn, room, msg.t)))
            case "query":
                budget = self.server.queries
                if wait := budget.enqueue(room):  # refused before it is queued
                    _busy(conn, msg.id, wait)
                    return
                await room.inbox.put(Call(partial(_query, conn, room, msg.id, msg.query,
                                                  budget)))
            case "action":
                await room.inbox.put(Submit(conn, msg.id, msg.action, msg.base_version))
            case "answer":
                action = Answer(prompt=msg.prompt, choice=msg.choice)
                await room.inbox.put(Submit(conn, msg.id, action))
            case "table.event" if conn.role == "bridge":
                await room.inbox.put(Submit(conn, msg.id, None, event=msg.event))
            case "table.event" | "bridge.status" if conn.role != "bridge":
                conn.send_msg(error_frame(BRIDGE_ONLY, getattr(msg, "id", None)))
            case "bridge.status":
                conn.platform = msg.platform
                conn.bridge_version = msg.version
                conn.bridge_notice = {**conn.info(), "detail": msg.detail,
                                      "lag": room.version - (msg.version or 0),
                                      **msg.model_dump(include=SETUP_REPORT, exclude_none=True)}
                room.notify_gm("bridge", conn.bridge_notice)
            case "history" if conn.role != "gm":
                conn.send_msg({"type": "history", "id": msg.id,
                               "entries": await self._history(msg.after, msg.limit, public=True)})
            case _ if conn.role != "gm":
                conn.send_msg(error_frame(GM_ONLY, msg.id))
            case "dry_run":
                await room.inbox.put(Call(partial(_dry_run, conn, room, msg.id, msg.actions)))
            case "invite.create":
                await self._invite(msg)
            case "invite.revoke":
                ok = await self._store(self._storage.revoke_invite, room.id, msg.invite)
                if ok:
                    room.audiences.revoke("inv:" + msg.invite)
                conn.send_msg({"type": "invites", "id": msg.id,
                               "invites": await self._invites()} if ok else
                              error_frame(UNKNOWN_INVITE, msg.id))
            case "invite.list":
                conn.send_msg({"type": "invites", "id": msg.id, "invites": await self._invites()})
            case "history":
                conn.send_msg({"type": "history", "id": msg.id,
                               "entries": await self._history(msg.after, msg.limit)})

    @property
    def _storage(self) -> Backend:
        return self.server.storage.storage

    async def _store(self, fn: Any, *args: Any) -> Any:
        return await self.server.storage.call(fn, *args)

    async def _invite(self, msg: Any) -> None:
        assert self.room is not None and self.conn is not None
        if msg.role == "player":
            if not msg.player:
                self.conn.send_msg(error_frame(BAD_MESSAGE, msg.id, BAD_MESSAGE.text.format(
                    detail="a player invite needs `player`")))
                return
            players = self.room.engine.state.meta.players
            if msg.player not in players:  # an invite never creates a player by surprise
                known = ", ".join(players) or "-"
                self.conn.send_msg(error_frame(UNKNOWN_PLAYER, msg.id, UNKNOWN_PLAYER.text.format(
                    player=msg.player[:64], known=known[:200])))
                return
        invite_id, token = await self._store(self._storage.create_invite, self.room.id,
                                             msg.role, msg.player, msg.label)
        self.conn.send_msg({"type": "invite", "id": msg.id, "invite": invite_id, "token": token,
                            "role": msg.role, "player": msg.player})

    async def _invites(self) -> list[dict[str, Any]]:
        assert self.room is not None
        rows = await self._store(self._storage.invites, self.room.id)
        return [{"invite": r.id, "role": r.role, "player": r.player, "label": r.label,
                 "created_at": r.created_at, "revoked": r.revoked} for r in rows]

    async def _history(self, after: int, limit: int, public: bool = False
                       ) -> list[dict[str, Any]]:
        """The timeline; for anyone but the GM only the public log lines of each version
        (who did what, the rolls and GM-only lines can name hidden things)."""
        assert self.room is not None
        records = await self._store(self._storage.actions, self.room.id, after, None, limit)
        if public:
            return [{"version": r.version, "at": r.at,
                     "log": [{"ja": x["ja"], "en": x["en"]} for x in r.log if x.get("chat")],
                     **_undo_to(r.action), **({"by_gm": True} if by_gm(r.actor) else {})}
                    for r in records]
        return [{"version": r.version, "actor": r.actor, "action": r.action, "rolls": r.rolls,
                 "log": r.log, "warnings": r.warnings, "at": r.at} for r in records]

    async def close(self) -> None:
        """The socket's session is over: leave the room; a dropped connection's `bye`
        and close go out before the handler returns (or its transport is aborted)."""
        if self.conn is not None:
            self.conn.closed = True
            if self.conn.later is not None:
                self.conn.later.cancel()
            if self.room is not None:
                self.room.leave(self.conn)
                if self.conn.role == "bridge":  # its last contact, for `komasync doctor`
                    gone = self.server.bridges_gone.setdefault(self.room.id, {})
                    gone[self.conn.principal] = {**self.conn.info(), "detail": (
                        self.conn.bridge_notice or {}).get("detail", "")}
                self.server.invites.release(self.room.id, self.conn)
            if self.conn.closer is not None:
                await self.conn.closer


def _undo_to(action: dict[str, Any]) -> dict[str, Any]:
    """`{"undo_to": v}` for an undo (a page drops the lines it undid), else nothing."""
    return {"undo_to": action["to_version"]} if action.get("kind") == "restore" else {}
