"""An asyncio komasync client on `websockets`: auth, a local copy of the state, actions.

Every frame is parsed into the server's own pydantic models (komasync.server.protocol:
`Welcome`, `Ack`, `Reject`, `PromptMsg`, `QueryResult`…) with the server adapter, and every
message is validated by the client adapter before it is sent, so a malformed action fails
here with a `ValidationError` and never reaches the room.

One reader task applies every `change` to `state` in order (resuming with `since` after a
dropped connection), answers the futures of requests waiting for their reply, and hands
every other frame to the `on_frame` callback and to `next()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import websockets
from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import ClientConnection

from ..server.protocol import (
    Ack,
    Bye,
    Change,
    Error,
    HistoryReply,
    Op,
    QueryResult,
    Reject,
    Snapshot,
    Welcome,
    client_adapter,
    server_adapter,
)

__all__ = ["Client", "Rejected", "ServerClosed", "apply_ops"]

Frame = BaseModel  # one of the ServerMessage models
Message = dict[str, Any]
F = TypeVar("F", bound=BaseModel)


class Rejected(Exception):
    """The server refused a message (`reject` or `error`): `code`, `rule`, both reasons."""

    def __init__(self, frame: Reject | Error) -> None:
        self.frame = frame
        self.code: str = frame.code
        self.rule: str | None = frame.rule if isinstance(frame, Reject) else None
        self.ja: str = frame.reason.ja
        self.en: str = frame.reason.en
        super().__init__(f"{self.code}: {self.en}")


class ServerClosed(Exception):
    """The server said `bye` (revoked invite, shutdown…) or refused authentication."""

    def __init__(self, frame: Error | Bye | Frame) -> None:
        self.frame = frame
        code, reason = getattr(frame, "code", ""), getattr(frame, "reason", None)
        super().__init__(f"{code}: {reason.en if reason is not None else ''}")


def apply_ops(state: dict[str, Any], ops: Sequence[Op]) -> None:
    """Apply a change's ops (`set` / `del` at a path) to a local copy of the state."""
    for op in ops:
        *parents, key = op.path
        node: Any = state
        for seg in parents:
            node = node[seg]
        if op.op == "set":
            node[key] = op.value
        else:
            del node[key]


class Client:
    """One connection to one room; use `async with Client.connect(...) as c:`."""

    def __init__(self, url: str, room: str, *, secret: str | None = None,
                 token: str | None = None, platform: str | None = None,
                 name: str | None = None,
                 on_frame: Callable[[Frame], None] | None = None) -> None:
        self.url, self.room = url, room
        self._auth: Message = {"type": "auth", "room": room}
        for key, value in (("secret", secret), ("token", token), ("platform", platform),
                           ("client", name)):
            if value is not None:
                self._auth[key] = value
        client_adapter.validate_python(self._auth)
        self.on_frame = on_frame
        self.state: dict[str, Any] = {}
        self.version = 0
        self.welcome: Welcome | None = None
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[str, asyncio.Future[Frame]] = {}
        self._frames: asyncio.Queue[Frame] = asyncio.Queue()
        self._ids = itertools.count(1)
        self._synced = asyncio.Event()

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
        await self._drop_socket()

    async def _connect(self, since: int | None) -> None:
        self._synced.clear()
        self._ws = await websockets.connect(self.url, max_size=None)
        auth = dict(self._auth) if since is None else {**self._auth, "since": since}
        await self._ws.send(json.dumps(auth))
        first = _parse(await self._ws.recv())
        if not isinstance(first, Welcome):
            await self._ws.close()
            raise ServerClosed(first)
        self.welcome = first
        if since is not None and first.version == since:
            self._synced.set()
        self._reader = asyncio.create_task(self._read(first.version))
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
        failure: Exception = ConnectionError("komasync connection closed")
        try:
            async for text in self._ws:
                self._take(_parse(text))
                if self.version >= target:
                    self._synced.set()
        except websockets.ConnectionClosed:
            pass
        except ValidationError as e:  # a frame this client's protocol does not know
            failure = e
        finally:
            self._synced.set()
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(failure)

    def _take(self, frame: Frame) -> None:
        if isinstance(frame, Snapshot):
            self.state, self.version = frame.state, frame.version
        elif isinstance(frame, Change):
            if frame.from_version != self.version:
                raise RuntimeError(f"gap: at {self.version}, change from {frame.from_version}")
            apply_ops(self.state, frame.ops)
            self.version = frame.to_version
        reply_to = getattr(frame, "id", None)
        fut = self._waiting.pop(reply_to, None) if isinstance(reply_to, str) else None
        if fut is not None and not fut.done():
            fut.set_result(frame)
            return
        if self.on_frame is not None:
            self.on_frame(frame)
        self._frames.put_nowait(frame)

    # -- requests -----------------------------------------------------------------------
    async def request(self, msg: Message, timeout: float = 10.0) -> Frame:
        """Send a message with a fresh `id` (validated first) and wait for the frame
        answering it; raises `Rejected` for a `reject` or `error`."""
        if self._ws is None:
            raise ConnectionError("not connected")
        msg = {**msg, "id": msg.get("id") or f"c{next(self._ids)}"}
        client_adapter.validate_python(msg)
        fut: asyncio.Future[Frame] = asyncio.get_running_loop().create_future()
        self._waiting[msg["id"]] = fut
        await self._ws.send(json.dumps(msg))
        reply = await asyncio.wait_for(fut, timeout)
        if isinstance(reply, Reject | Error):
            raise Rejected(reply)
        return reply

    async def act(self, action: Message, *, id: str | None = None,
                  base_version: int | None = None) -> Ack:
        """Send an action; returns its `Ack` (version, created ids, results) once the
        local state has that version.

        Raises `Rejected` with the rule and both reasons when the room refuses it. Reusing
        `id` after a lost answer is safe: the server applies an action id once.
        """
        msg: Message = {"type": "action", "action": action}
        if id is not None:
            msg["id"] = id
        if base_version is not None:
            msg["base_version"] = base_version
        ack = _expect(await self.request(msg), Ack)
        while self.version < ack.version:
            await self.next()
        return ack

    async def answer(self, prompt: str, choice: str) -> Ack:
        """Answer a prompt addressed to you (the action `answer`)."""
        return await self.act({"kind": "answer", "prompt": prompt, "choice": choice})

    async def query(self, query: Message) -> QueryResult:
        """Ask a subsystem a question (a range, legal moves…); nothing changes."""
        return _expect(await self.request({"type": "query", "query": query}), QueryResult)

    async def history(self, after: int = 0, limit: int = 100) -> list[dict[str, Any]]:
        """Logged entries (GM: everything; others: public log lines)."""
        reply = await self.request({"type": "history", "after": after, "limit": limit})
        return list(_expect(reply, HistoryReply).entries)

    async def next(self, type_: str | None = None, timeout: float = 10.0) -> Frame:
        """The next frame not answering a request (of `type_`, if given)."""
        while True:
            frame = await asyncio.wait_for(self._frames.get(), timeout)
            if type_ is None or getattr(frame, "type", None) == type_:
                return frame


def _parse(text: str | bytes) -> Frame:
    return cast(Frame, server_adapter.validate_json(text))


def _expect(frame: Frame, kind: type[F]) -> F:
    if not isinstance(frame, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(frame).__name__}")
    return frame
