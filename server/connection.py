"""One client connection: who it is, its outbox (bounded), its rate limit."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from ..engine.tx import Actor, Role
from ..engine.views import Audience

__all__ = ["Connection", "Limits", "TokenBucket", "dumps"]


def dumps(msg: dict[str, Any]) -> str:
    return orjson.dumps(msg).decode()


@dataclass(frozen=True)
class Limits:
    """Per-connection and per-room limits; all configurable on `serve`."""

    max_frame: int = 64 * 1024
    rate: float = 40.0
    burst: int = 80
    outbox: int = 2000
    history: int = 2000  # versions kept for `since` resumes…
    history_bytes: int = 256 * 1024  # …and at most this many characters of their frames
    snapshot_every: int = 200
    auth_timeout: float = 10.0
    max_batch: int = 64


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
                 principal: str, label: str, limits: Limits) -> None:
        self.ws = ws
        self.role = role
        self.player = player
        self.principal = principal
        self.label = label or principal
        self.platform: str | None = None
        self.last_event = time.time()
        self.bridge_version: int | None = None
        self.closed = False
        self.close_reason: str | None = None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(limits.outbox)
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

    def send(self, text: str) -> None:
        """Queue a frame; a client that cannot keep up is dropped, never waited for."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.drop("slow_consumer", "受信が追いつかないため切断しました。",
                      "Disconnected: this client could not keep up with the room.")

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
        self.closer = asyncio.create_task(self._close(bye, code))

    async def _close(self, bye: str, code: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.send_str(bye), 1.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.close(code=4000 + (8 if code == "slow_consumer" else 1),
                                                 message=code.encode()), 2.0)

    async def _write(self) -> None:
        while True:
            text = await self.outbox.get()
            if text is None:
                return
            try:
                await self.ws.send_str(text)
            except (ConnectionResetError, RuntimeError):
                self.closed = True
                return

    def info(self) -> dict[str, Any]:
        return {"principal": self.principal, "role": self.role, "player": self.player,
                "label": self.label, "platform": self.platform,
                "last_event": self.last_event, "version": self.bridge_version}
