"""One client connection: who it is, its outbox (bounded), its rate limit."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from ..engine.tx import Actor, Role
from ..engine.views import Audience

__all__ = ["Connection", "Limits", "Peer", "TokenBucket", "close_socket", "dumps", "frame_size"]


def dumps(msg: dict[str, Any]) -> str:
    return orjson.dumps(msg).decode()


def frame_size(text: str) -> int:
    """The bytes a text frame takes on the wire (no encoding needed for ASCII)."""
    return len(text) if text.isascii() else len(text.encode())


# WebSocket close codes by `bye` code (4001 for the rest).
CLOSE_CODES = {"invite_revoked": 4003, "slow_consumer": 4008, "too_many_connections": 4029}
# How long a closing socket may take to accept its last frame and the close handshake.
CLOSE_GRACE = 1.0


async def close_socket(ws: web.WebSocketResponse, transport: asyncio.Transport | None,
                       code: str, last: str) -> None:
    """Send `last` (a `bye` or an error frame) and close; a peer that does not read within
    the grace has its transport aborted, so a stalled reader never holds a socket open."""
    try:
        await asyncio.wait_for(ws.send_str(last), CLOSE_GRACE)
        await asyncio.wait_for(ws.close(code=CLOSE_CODES.get(code, 4001),
                                        message=code.encode()), CLOSE_GRACE)
    except Exception:  # the peer is gone or stalled: nothing more to say to it
        pass
    finally:
        if transport is not None:
            transport.abort()


@dataclass(frozen=True)
class Peer:
    """Where a socket comes from (limits count per address) and its transport."""

    address: str
    transport: asyncio.Transport | None


@dataclass(frozen=True)
class Limits:
    """Per-connection, per-address and per-room limits (most configurable on `serve`).

    Behind a reverse proxy every client has the proxy's address: raise the per-address
    limits there (`connections_per_address`, `auth_failures_per_address`).
    """

    max_frame: int = 64 * 1024
    rate: float = 40.0
    burst: int = 80
    outbox_bytes: int = 4 * 1024 * 1024
    history: int = 2000
    snapshot_every: int = 200
    auth_timeout: float = 10.0
    max_batch: int = 64
    connections_per_address: int = 64
    # Failed authentications within `auth_window` seconds before further attempts wait
    # (0: no limit); an address that got into a room is exempt from that room's limit.
    auth_failures_per_address: int = 10
    auth_failures_per_room: int = 30
    auth_window: float = 60.0


@dataclass
class TokenBucket:
    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        if self.tokens < 0:
            self.tokens = self.burst
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """A WebSocket after authentication; the room writes to it only through `send`."""

    def __init__(self, ws: web.WebSocketResponse, role: Role, player: str | None,
                 principal: str, label: str, limits: Limits,
                 transport: asyncio.Transport | None = None) -> None:
        self.ws = ws
        self.transport = transport
        self.role = role
        self.player = player
        self.principal = principal
        self.label = label or principal
        self.platform: str | None = None
        self.last_event = time.time()
        self.bridge_version: int | None = None
        self.closed = False
        self.close_reason: str | None = None
        self.outbox: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self.buffered = 0  # bytes queued and not yet handed to the socket
        self.writing = False
        self.outbox_bytes = limits.outbox_bytes
        self.bucket = TokenBucket(limits.rate, limits.burst)
        self.writer = asyncio.create_task(self._write())
        self.closer: asyncio.Task[None] | None = None

    @property
    def actor(self) -> Actor:
        return Actor(role=self.role, player=self.player, label=self.label)

    @property
    def audience(self) -> Audience:
        if self.role == "gm":
            return Audience("gm")
        if self.role == "player":
            return Audience("player", self.player)
        return Audience("table")

    def fits(self, size: int) -> bool:
        """Whether `size` more bytes fit in the outbox now."""
        return self.buffered + size <= self.outbox_bytes

    def send(self, text: str) -> None:
        """Queue a frame; a client whose socket is not taking frames while more bytes
        wait than its outbox holds is dropped, never waited for. (A burst to a socket
        that takes it, like a big snapshot on join, is not a slow client.)"""
        if self.closed:
            return
        size = frame_size(text)
        if self.writing and self.buffered + size > self.outbox_bytes:
            self.drop("slow_consumer", "受信が追いつかないため切断しました。",
                      "Disconnected: this client could not keep up with the room.")
            return
        self.buffered += size
        self.outbox.put_nowait((text, size))

    def send_msg(self, msg: dict[str, Any]) -> None:
        self.send(dumps(msg))

    def drop(self, code: str, ja: str, en: str) -> None:
        """Close with a reason (sent as a `bye` frame if the socket still takes it)."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = code
        bye = dumps({"type": "bye", "code": code, "reason": {"ja": ja, "en": en}})
        self.writer.cancel()
        self.closer = asyncio.create_task(close_socket(self.ws, self.transport, code, bye))

    async def _write(self) -> None:
        while True:
            text, size = await self.outbox.get()
            self.writing = True  # stays set only while the socket makes us wait (drain)
            try:
                await self.ws.send_str(text)
            except (ConnectionResetError, RuntimeError):
                self.closed = True
                return
            finally:
                self.writing = False
                self.buffered -= size

    def info(self) -> dict[str, Any]:
        return {"principal": self.principal, "role": self.role, "player": self.player,
                "label": self.label, "platform": self.platform,
                "last_event": self.last_event, "version": self.bridge_version}
