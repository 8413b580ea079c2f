"""An asyncio komasync client on `websockets`: auth, a local copy of the state, actions.

One reader task applies every `change` to `state` in order (resuming with `since` after a
dropped connection), answers the futures of actions waiting for their `ack`/`reject`, and
hands every other frame to the `on_frame` callback and to `next()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

__all__ = ["Client", "Rejected", "ServerClosed", "apply_ops"]

Frame = dict[str, Any]


class Rejected(Exception):
    """The server refused a message: `code`, `rule` and the reason in Japanese and English."""

    def __init__(self, frame: Frame) -> None:
        reason = frame.get("reason") or {}
        self.frame = frame
        self.code: str = frame.get("code", "")
        self.rule: str | None = frame.get("rule")
        self.ja: str = reason.get("ja", "")
        self.en: str = reason.get("en", "")
        super().__init__(f"{self.code}: {self.en}")


class ServerClosed(Exception):
    """The server said `bye` (revoked invite, shutdown…) or refused authentication."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        super().__init__(f"{frame.get('code')}: {(frame.get('reason') or {}).get('en', '')}")


def apply_ops(state: dict[str, Any], ops: list[Frame]) -> None:
    """Apply a change's ops (`set` / `del` at a path) to a local copy of the state."""
    for op in ops:
        *parents, key = op["path"]
        node: Any = state
        for seg in parents:
            node = node[seg]
        if op["op"] == "set":
            node[key] = op["value"]
        else:
            del node[key]


class Client:
    """One connection to one room; use `async with Client.connect(...) as c:`."""

    def __init__(self, url: str, room: str, *, secret: str | None = None,
                 token: str | None = None, platform: str | None = None,
                 name: str | None = None,
                 on_frame: Callable[[Frame], None] | None = None) -> None:
        self.url, self.room = url, room
        self._auth: Frame = {"type": "auth", "room": room}
        for key, value in (("secret", secret), ("token", token), ("platform", platform),
                           ("client", name)):
            if value is not None:
                self._auth[key] = value
        self.on_frame = on_frame
        self.state: dict[str, Any] = {}
        self.version = 0
        self.welcome: Frame = {}
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[str, asyncio.Future[Frame]] = {}
        self._frames: asyncio.Queue[Frame] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._synced = asyncio.Event()
        self._closing = False

    @classmethod
    def connect(cls, url: str, room: str, **kw: Any) -> Client:
        """A client to open with `async with` (or `await client.open()`)."""
        return cls(url, room, **kw)

    async def __aenter__(self) -> Client:
        await self.open()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    # -- connection ---------------------------------------------------------------------
    async def open(self) -> None:
        """Connect, authenticate and wait until the local state is the room's."""
        await self._connect(since=None)

    async def resume(self) -> None:
        """Reconnect after a drop: the server sends exactly the changes missed (or a snapshot)."""
        await self._drop_socket()
        await self._connect(since=self.version)

    async def close(self) -> None:
        self._closing = True
        await self._drop_socket()

    async def _connect(self, since: int | None) -> None:
        self._synced.clear()
        self._ws = await websockets.connect(self.url, max_size=None)
        auth = dict(self._auth) if since is None else {**self._auth, "since": since}
        await self._ws.send(json.dumps(auth))
        first = json.loads(await self._ws.recv())
        if first.get("type") != "welcome":
            await self._ws.close()
            raise ServerClosed(first)
        self.welcome = first
        if since is not None and first["version"] == since:
            self._synced.set()
        self._reader = asyncio.create_task(self._read(first["version"]))
        await self._synced.wait()

    async def _drop_socket(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._ws is not None:
            await self._ws.close()

    async def _read(self, target: int) -> None:
        assert self._ws is not None
        try:
            async for text in self._ws:
                frame: Frame = json.loads(text)
                self._take(frame)
                if self.version >= target:
                    self._synced.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self._synced.set()
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("komasync connection closed"))

    def _take(self, frame: Frame) -> None:
        kind = frame.get("type")
        if kind == "snapshot":
            self.state, self.version = frame["state"], frame["version"]
        elif kind == "change":
            if frame["from_version"] != self.version:
                raise RuntimeError(f"gap: at {self.version}, change from {frame['from_version']}")
            apply_ops(self.state, frame["ops"])
            self.version = frame["to_version"]
        fut = self._waiting.pop(str(frame.get("id")), None) if "id" in frame else None
        if fut is not None and not fut.done():
            fut.set_result(frame)
            return
        if self.on_frame is not None:
            self.on_frame(frame)
        self._frames.put_nowait(frame)

    # -- requests -----------------------------------------------------------------------
    async def request(self, msg: Frame, timeout: float = 10.0) -> Frame:
        """Send a message with a fresh `id` and wait for the frame answering it."""
        if self._ws is None:
            raise ConnectionError("not connected")
        msg = {**msg, "id": msg.get("id") or f"c{next(self._ids)}"}
        fut: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._waiting[msg["id"]] = fut
        await self._ws.send(json.dumps(msg))
        reply = await asyncio.wait_for(fut, timeout)
        if reply.get("type") in ("reject", "error"):
            raise Rejected(reply)
        return reply

    async def act(self, action: Frame, *, id: str | None = None,
                  base_version: int | None = None) -> int:
        """Send an action; returns the version it made once the local state has it.

        Raises `Rejected` with the rule and both reasons when the room refuses it. Reusing
        `id` after a lost answer is safe: the server applies an action id once.
        """
        msg: Frame = {"type": "action", "action": action}
        if id is not None:
            msg["id"] = id
        if base_version is not None:
            msg["base_version"] = base_version
        version = int((await self.request(msg))["version"])
        while self.version < version:
            await self.next()
        return version

    async def answer(self, prompt: str, choice: str) -> int:
        return await self.act({"kind": "answer", "prompt": prompt, "choice": choice})

    async def history(self, after: int = 0, limit: int = 100) -> list[Frame]:
        reply = await self.request({"type": "history", "after": after, "limit": limit})
        return list(reply["entries"])

    async def next(self, type_: str | None = None, timeout: float = 10.0) -> Frame:
        """The next frame not answering a request (of `type_`, if given)."""
        while True:
            frame = await asyncio.wait_for(self._frames.get(), timeout)
            if type_ is None or frame.get("type") == type_:
                return frame
