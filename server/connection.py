"""One client connection: who it is, how frames reach its socket, its rate limit.

Frames are written straight to the socket's transport, in the room task, in order: no
writer task, no queue, no hop. The slow-consumer guard is the transport's own buffer:
bytes the kernel has not taken yet, i.e. how far behind the reader is. A connection more
than `outbox_bytes` behind when a frame is due is dropped (a `bye`, then the socket is
closed or, if it does not read even that, aborted). A burst to a reader that is keeping
up (a big snapshot or a resume on join) is never counted against it.

A socket that does not compress (most) has its frames framed here (a frame shared by
many sockets framed once, `Wires`) and handed to the transport itself: per connection a
change costs one buffer check and one list append, and one write per batch.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import WSMsgType, web
from aiohttp.http import WebSocketWriter

from ..engine.errors import Code, Text
from ..engine.tx import Actor, Role
from ..engine.views import Audience
from .errors import (
    INVITE_REVOKED,
    SLOW_CONSUMER,
    TOO_MANY_CONNECTIONS,
    TOO_MANY_CONNECTIONS_FOR_INVITE,
    bye_frame,
)

__all__ = ["Connection", "Limits", "Peer", "TokenBucket", "Wires", "close_socket", "dumps",
           "wire"]


def dumps(msg: dict[str, Any]) -> bytes:
    """A frame's UTF-8 JSON: frames stay bytes from here to the socket (never re-encoded)."""
    return orjson.dumps(msg)


# aiohttp's WebSocket writer writes a frame synchronously when it needs no flow control;
# its public `send_str` is a coroutine only to wait for drains (our guard replaces that)
# or to compress large frames in an executor. These are the synchronous halves.
_SYNC_FRAME = hasattr(WebSocketWriter, "_write_websocket_frame")
_SYNC_DEFLATE = hasattr(WebSocketWriter, "_send_compressed_frame_sync")
DEFLATE_INLINE = 16 * 1024  # aiohttp's own limit for compressing on the loop


def wire(frame: bytes) -> bytes:
    """A text frame as a server writes it uncompressed (RFC 6455: FIN, opcode 1, no mask):
    the same bytes for every socket, so a frame shared by many is framed once."""
    return wire_head(len(frame)) + frame


def wire_head(n: int) -> bytes:
    """The header of an uncompressed text frame of `n` bytes."""
    if n < 126:
        return bytes((0x81, n))
    if n < 65536:
        return bytes((0x81, 126)) + n.to_bytes(2, "big")
    return bytes((0x81, 127)) + n.to_bytes(8, "big")


LARGE = 64 * 1024
"""A frame this long is written after its header, not copied behind it (a large room's
snapshot is megabytes: one copy less on the event loop)."""


class Wires:
    """Framed bytes by frame, for one fan-out (a frame shared by audiences is framed once)."""

    __slots__ = ("made",)

    def __init__(self) -> None:
        self.made: dict[int, tuple[bytes, bytes]] = {}

    def __call__(self, frame: bytes) -> bytes:
        got = self.made.get(id(frame))
        if got is None or got[0] is not frame:
            got = self.made[id(frame)] = (frame, wire(frame))
        return got[1]


class Gathered:
    """aiohttp's WebSocket writer writes through this. While the room replies to one
    batch (`hold` … `release`), a connection's frames are gathered and handed to the
    socket in one write: one system call per connection per batch, not per frame."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.parts: list[bytes] | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self.parts is None:
            self.transport.write(data)
        else:
            self.parts.append(bytes(data))

    def hold(self) -> None:
        if self.parts is None:
            self.parts = []

    def is_closing(self) -> bool:  # asked before every frame: not through __getattr__
        return self.transport.is_closing()

    def release(self) -> None:
        parts, self.parts = self.parts, None
        if parts and not self.transport.is_closing():
            self.transport.write(b"".join(parts))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


def gathered(ws: web.WebSocketResponse) -> Gathered | None:
    """Put a `Gathered` under the socket's WebSocket writer (once)."""
    writer = getattr(ws, "_writer", None)
    if writer is None:
        return None
    if not isinstance(writer.transport, Gathered):
        writer.transport = Gathered(writer.transport)
    return writer.transport


def plain_transport(ws: web.WebSocketResponse) -> asyncio.Transport | None:
    """The socket's transport if its frames may be framed here and written to it directly
    (no compression negotiated), else None."""
    writer = getattr(ws, "_writer", None)
    if writer is None or writer.compress or not _SYNC_FRAME:
        return None
    return writer.transport  # type: ignore[no-any-return]


def write_now(ws: web.WebSocketResponse, data: bytes) -> bool:
    """Write one text frame (its UTF-8 bytes) to a compressing socket at once, as aiohttp
    would; False when only the async path may send it (then nothing was written)."""
    writer = getattr(ws, "_writer", None)
    if writer is None or not writer.compress or not _SYNC_DEFLATE \
            or len(data) > DEFLATE_INLINE or writer._send_lock.locked():
        return False
    writer._send_compressed_frame_sync(data, WSMsgType.TEXT, None)
    return True


# WebSocket close codes by `bye` code (4001 for the rest).
CLOSE_CODES = {INVITE_REVOKED.code: 4003, SLOW_CONSUMER.code: 4008, TOO_MANY_CONNECTIONS.code: 4029,
               TOO_MANY_CONNECTIONS_FOR_INVITE.code: 4029}
# How long a closing socket may take to accept its last frame and the close handshake.
CLOSE_GRACE = 1.0


async def close_socket(ws: web.WebSocketResponse, transport: asyncio.Transport | None,
                       code: str, last: bytes) -> None:
    """Send `last` (a `bye` or an error frame) and close; a peer that does not read within
    the grace has its transport aborted, so a stalled reader never holds a socket open."""
    try:
        await asyncio.wait_for(ws.send_frame(last, WSMsgType.TEXT), CLOSE_GRACE)
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

    Behind a reverse proxy every client has the proxy's address unless the server trusts
    it (`serve --behind-proxy`, forwarded.py): then each counts as the client it forwards.
    """

    max_frame: int = 64 * 1024
    rate: float = 40.0
    burst: int = 80
    outbox_bytes: int = 4 * 1024 * 1024
    history: int = 2000  # versions kept for `since` resumes…
    history_bytes: int = 32 * 1024  # …and at most this many bytes of their frames
    retry_window: int = 512  # action ids remembered per client identity (retries.py)
    # Storage snapshots (snapshot_policy.py): at least `snapshot_every` versions apart, due
    # once the log has grown by the last one's size, and always by `snapshot_ceiling`.
    snapshot_every: int = 200
    snapshot_ceiling: int = 2000
    auth_timeout: float = 10.0
    max_batch: int = 64
    connections_per_address: int = 64
    # Failed authentications within `auth_window` seconds (0: no limit): past the address's
    # limit its attempts wait unchecked; past the room's only failed answers wait.
    auth_failures_per_address: int = 10
    auth_failures_per_room: int = 30
    auth_window: float = 60.0
    # Per invite token, shared by all of its sockets (invite_limits.py; 0: no cap): how
    # many may be open at once, and one message bucket for all of them. The GM (the
    # room's secret) is not an invite: each GM socket keeps its own `rate` bucket.
    invite_connections: int = 4
    bridge_connections: int = 8
    invite_rate: float = 40.0
    invite_burst: int = 80
    bridge_rate: float = 120.0
    bridge_burst: int = 240
    # Queries (query_budget.py): the share of the event loop one room's queries may use
    # (seconds per second, a bucket of `query_burst` s), all rooms' together, how long
    # they may run before the room yields to the loop, how many may wait per room, and
    # the answers kept (by room, version, audience and query).
    query_share: float = 0.1
    query_burst: float = 0.05
    queries_share: float = 0.3
    query_slice: float = 0.001
    queries_waiting: int = 64
    query_cache_bytes: int = 8 * 1024 * 1024


@dataclass
class TokenBucket:
    rate: float
    burst: float
    tokens: float = -1.0
    stamp: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        self._fill()
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def give_back(self) -> None:
        """Return a token taken for a message another limit refused (it was not sent)."""
        self.tokens = min(self.burst, self.tokens + 1)

    def retry_after(self) -> float:
        """Seconds until the next token (0: one is there now)."""
        self._fill()
        return max(0.0, (1 - self.tokens) / self.rate)

    def full(self) -> bool:
        """Whether it is as a new bucket would be (so it may be forgotten)."""
        self._fill()
        return self.tokens >= self.burst

    def _fill(self) -> None:
        now = time.monotonic()
        if self.tokens < 0:
            self.tokens = self.burst
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now


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
        # A bridge's last status notice, sent again to a GM who joins later (issue 30).
        self.bridge_notice: dict[str, Any] | None = None
        self.closed = False
        self.close_reason: str | None = None
        self.outbox_bytes = limits.outbox_bytes
        self.bucket = TokenBucket(limits.rate, limits.burst)
        # The bucket all sockets of this connection's invite share (invite_limits.py);
        # None for the GM and until the invite has admitted it.
        self.shared: TokenBucket | None = None
        # Frames that wait behind a large compressed one (compressed off the loop by
        # aiohttp): written in order by `_later`; empty almost always.
        self.waiting: deque[bytes] = deque()
        self.waiting_bytes = 0
        # An uncompressed socket's transport, written to directly (frames gathered in
        # `parts` between `hold` and `release`); else aiohttp's writer, through `Gathered`.
        self.raw = plain_transport(ws)
        self.parts: list[bytes] | None = None
        self.gathered = gathered(ws) if self.raw is None else None
        self.later: asyncio.Task[None] | None = None
        self.closer: asyncio.Task[None] | None = None
        # Who it is never changes for a connection's lifetime: its actor and audience are
        # made once (they are asked for per action and per frame).
        self.audience = (Audience("gm") if role == "gm" else
                         Audience("player", player) if role == "player" else Audience("table"))
        self.key = self.audience.key
        self._actor = Actor(role=role, player=player, label=self.label)

    @property
    def actor(self) -> Actor:
        """Who this connection acts as (one object, never changed: `bind` makes new ones)."""
        return self._actor

    def hold(self) -> None:
        """Gather this connection's frames until `release` (one room batch's replies)."""
        if self.closed:
            return
        if self.raw is not None:
            if self.parts is None:
                self.parts = []
        elif self.gathered is not None:
            self.gathered.hold()

    def release(self) -> None:
        parts, self.parts = self.parts, None
        if parts:
            self._put(b"".join(parts))
        elif self.gathered is not None:
            self.gathered.release()

    def behind(self) -> int:
        """Bytes sent to this client that have not reached its socket yet."""
        buffered = self.transport.get_write_buffer_size() if self.transport else 0
        return buffered + self.waiting_bytes

    def fits(self, size: int) -> bool:
        """Whether `size` more bytes may be sent at once (a resume, rather than a snapshot)."""
        return self.behind() + size <= self.outbox_bytes

    def send(self, frame: bytes, burst: bool = False, wires: Wires | None = None) -> None:
        """Write a frame now; a client already more than its outbox behind is dropped,
        never waited for. `burst`: part of a join, sent whatever the backlog. `wires`:
        shared framing for a frame that goes to many sockets."""
        if self.closed:
            return
        raw = self.raw
        if raw is not None:  # the common case, kept short: it runs per client per change
            if not burst and raw.get_write_buffer_size() > self.outbox_bytes:
                self._slow()
                return
            if self.parts is None and len(frame) >= LARGE:
                self._put(wire_head(len(frame)))
                self._put(frame)
                return
            data = wires(frame) if wires is not None else wire(frame)
            if self.parts is not None:
                self.parts.append(data)
            else:
                self._put(data)
            return
        if not burst and self.behind() > self.outbox_bytes:
            self._slow()
            return
        if self.waiting or not self._write(frame):
            self.waiting.append(frame)
            self.waiting_bytes += len(frame)
            if self.later is None:
                self.later = asyncio.create_task(self._later())

    def send_msg(self, msg: dict[str, Any], burst: bool = False) -> None:
        self.send(dumps(msg), burst)

    def _slow(self) -> None:
        self.drop(SLOW_CONSUMER)

    def _put(self, data: bytes) -> None:
        """Framed bytes to the uncompressed socket's transport (as aiohttp would write)."""
        raw = self.raw
        assert raw is not None
        if raw.is_closing():
            self.closed = True
            return
        raw.write(data)

    def _write(self, frame: bytes) -> bool:
        """Hand the frame to a compressing socket now; False if it must go through aiohttp's
        async path (a large frame, or a socket this aiohttp cannot frame for in place)."""
        try:
            return write_now(self.ws, frame)
        except (ConnectionResetError, RuntimeError):
            self.closed = True
            return True

    async def _later(self) -> None:
        try:
            while self.waiting and not self.closed:
                frame = self.waiting[0]
                await self.ws.send_frame(frame, WSMsgType.TEXT)
                self.waiting.popleft()
                self.waiting_bytes -= len(frame)
                while self.waiting and self._write(self.waiting[0]):
                    self.waiting_bytes -= len(self.waiting.popleft())
        except (ConnectionResetError, RuntimeError):
            self.closed = True
        finally:
            self.later = None

    def drop(self, code: Code, text: Text | None = None) -> None:
        """Close with `code` and its reason (or `text`: one of its alts), sent as a `bye`
        frame if the socket still takes it."""
        if self.closed:
            return
        self.closed = True
        self.close_reason = code.code
        bye = dumps(bye_frame(code, text))
        if self.later is not None:
            self.later.cancel()
        self.closer = asyncio.create_task(close_socket(self.ws, self.transport, code.code, bye))

    def info(self) -> dict[str, Any]:
        return {"principal": self.principal, "role": self.role, "player": self.player,
                "label": self.label, "platform": self.platform,
                "last_event": self.last_event, "version": self.bridge_version}
