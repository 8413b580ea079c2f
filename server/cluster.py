"""Several `komasync serve` processes on one Redis: any process accepts any client.

A room runs in exactly one process, the holder of its lease (storage/lease.py), exactly as
in a single process. A process that gets a client of a room another process owns relays
the socket: it reads the client's `auth`, finds the owner's address beside the lease
(`<p>:node:<owner>`) and opens a WebSocket to the owner, with the client's real address
in a header only processes can sign (an HMAC keyed by a secret kept in Redis, over that
owner, the room, the time and a nonce: good once, for that room, for 30 s), then
copies frames both ways without reading them. Clients need no change: the protocol is
the owner's own. When the owner vanishes (its socket ends, or its lease lapses or moves)
the relayed clients get `bye` `room_moved` and reconnect with `since`; the next `auth`
waits (at most the lease TTL + `MARGIN_S`) for a live owner, claiming the lease itself
once it lapsed. See docs/architecture.md, "Scale-out on Redis".
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import aiohttp
import orjson
import redis
import redis.asyncio
from aiohttp import WSMsgType, web

from ..engine.errors import Code
from ..engine.views import Audience, View
from .connection import Peer, close_socket, dumps
from .errors import ROOM_MOVED, ROOM_UNAVAILABLE, bye_frame
from .replay import rebuild
from .room import Call, Room
from .storage import AsyncStorage, RedisStorage
from .storage.lease import as_text

__all__ = ["CLIENT_HEADER", "MARGIN_S", "RELAY_WINDOW_S", "SIGN_HEADER", "Cluster", "Relayed",
           "Server", "relay_proof"]

log = logging.getLogger("komasync.cluster")

CLIENT_HEADER = "X-Komasync-Client"  # the client's address, as the relaying process saw it
# `v1.<unix time>.<nonce>.<room, base64url>.<mac>`: the mac is HMAC-SHA256 with the cluster
# key over the target process, that address, the room, the time and the nonce, so a
# captured header opens nothing else: not another room or process, not later, not twice.
SIGN_HEADER = "X-Komasync-Relay"
RELAY_VERSION = "v1"
RELAY_WINDOW_S = 30.0  # a header is good this long either side of its time (clock skew)
NONCE_BYTES = 16
# A client's `auth` waits at most the lease TTL plus this for a live owner (a dead owner's
# lease lapses within the TTL; the margin covers claiming and rebuilding the room).
MARGIN_S = 2.0
POLL_S = 0.05  # how often a waiting `auth` looks at the lease again
CONNECT_S = 2.0  # a relay's WebSocket handshake with the owner (a paused owner never answers)



class Server(Protocol):
    """All the cluster may use of its process's server (app.py's `Komasync`)."""

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms this process serves (the cluster drops and hands them over)."""

    @property
    def quarantined(self) -> Mapping[str, str]: ...

    @property
    def storage(self) -> AsyncStorage: ...

    async def room(self, room_id: str) -> Room | None:
        """The room, loaded (and its lease claimed) if need be; None if not here."""

    def forget(self, room_id: str) -> None:
        """Drop the room and any load of it under way; the next join loads it again."""


@dataclass(frozen=True)
class Relayed:
    """A socket another process relayed to this one: the client's address, and the room
    its header was signed for (the only room it may authenticate on)."""

    address: str
    room: str


def relay_mac(key: bytes, target: str, address: str, room_id: str, at: int, nonce: str) -> str:
    # A JSON array: no field can run into the next, whatever the room id holds.
    signed = orjson.dumps([RELAY_VERSION, target, address, room_id, at, nonce])
    return hmac.new(key, signed, hashlib.sha256).hexdigest()


def relay_proof(key: bytes, target: str, address: str, room_id: str, at: int, nonce: str) -> str:
    """The `SIGN_HEADER` value binding `address` to a socket relayed to `target` for a room."""
    room = base64.urlsafe_b64encode(room_id.encode()).decode().rstrip("=")
    mac = relay_mac(key, target, address, room_id, at, nonce)
    return f"{RELAY_VERSION}.{at}.{nonce}.{room}.{mac}"


def parse_proof(proof: str) -> tuple[int, str, str, str] | None:
    """(time, nonce, room, mac) of a `SIGN_HEADER` value, or None if it is not one."""
    parts = proof.split(".")
    if len(parts) != 5 or parts[0] != RELAY_VERSION or not re.fullmatch(r"[0-9]{1,12}", parts[1]):
        return None
    try:
        room = base64.urlsafe_b64decode(parts[3] + "=" * (-len(parts[3]) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    return int(parts[1]), parts[2], room, parts[4]


class Nonces:
    """The nonces of headers accepted lately, each remembered for `keep` seconds: a header
    is good once (it is refused outside its window, so older ones need not be kept)."""

    def __init__(self, keep: float) -> None:
        self.keep = keep
        self._seen: set[str] = set()
        self._order: deque[tuple[float, str]] = deque()

    def first(self, nonce: str) -> bool:
        """True the first time `nonce` is seen within `keep` seconds (and remembers it)."""
        now = time.monotonic()
        while self._order and self._order[0][0] <= now:
            self._seen.discard(self._order.popleft()[1])
        if nonce in self._seen:
            return False
        self._seen.add(nonce)
        self._order.append((now + self.keep, nonce))
        return True


@dataclass(eq=False)
class Relay:
    """One client's socket relayed to the room's owner (`holder` when it was opened)."""

    ws: web.WebSocketResponse
    upstream: aiohttp.ClientWebSocketResponse
    holder: str
    moved: asyncio.Event = field(default_factory=asyncio.Event)


class Cluster:
    """This process's part in the cluster: routing joins, relaying, watching leases."""

    def __init__(self, server: Server, store: RedisStorage) -> None:
        self.server = server
        self.store = store
        self.ws_url = ""  # where the other processes reach this one (`announce`)
        self.ttl_s = store.ttl_ms / 1000
        self.relays: dict[str, set[Relay]] = defaultdict(set)
        self.inbound: dict[web.WebSocketResponse, str] = {}  # sockets relayed to us → room
        self.nonces = Nonces(2 * RELAY_WINDOW_S)
        self._key = b""
        self._redis: redis.asyncio.Redis | None = None
        self._http: aiohttp.ClientSession | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self.closing = False  # handing over: no room is loaded here any more
        self._takeovers: dict[str, asyncio.Task[None]] = {}

    @property
    def node(self) -> str:
        return f"{self.store.prefix}:node:{self.store.owner}"

    # -- life -------------------------------------------------------------------------
    async def start(self) -> None:
        """Before the server listens: read (or make) the cluster key, start watching."""
        self._redis = self.store.async_client()
        shared = f"{self.store.prefix}:cluster:key"
        await self._redis.set(shared, secrets.token_hex(32), nx=True)
        key = await self._redis.get(shared)
        self._key = key.encode() if isinstance(key, str) else key or b""
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        self._watcher = asyncio.create_task(self._watch(), name="komasync-cluster-watch")

    def announce(self, ws_url: str) -> None:
        """Once listening: say where (beside the leases this process will hold)."""
        self.ws_url = ws_url
        self._announce()
        self._beat = threading.Thread(target=self._beat_loop, daemon=True, name="komasync-node")
        self._beat.start()
        log.info("cluster node up", extra={"node": self.store.owner, "url": ws_url})

    async def stop(self) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(2)
        for task in [self._watcher, *self._takeovers.values()]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for relays in list(self.relays.values()):
            for relay in list(relays):
                relay.moved.set()
        if self._http is not None:
            await self._http.close()
        if self._redis is not None:
            with contextlib.suppress(redis.RedisError):
                await self._redis.delete(self.node)
            await self._redis.aclose()

    def _announce(self) -> None:
        # The address outlives a few missed beats; liveness is whether the owner answers.
        self.store.client.set(self.node, self.ws_url, px=int(self.store.ttl_ms * 3))

    def _beat_loop(self) -> None:
        """A thread, so a busy event loop never makes this process look gone."""
        while not self._stop.wait(self.ttl_s / 3):
            with contextlib.suppress(redis.RedisError):
                self._announce()

    # -- the client's real address ----------------------------------------------------
    def sign(self, address: str, room_id: str, target: str) -> str:
        """The `SIGN_HEADER` value for a socket relayed to the process `target`."""
        return relay_proof(self._key, target, address, room_id, int(time.time()),
                           secrets.token_hex(NONCE_BYTES))

    def relayed_from(self, request: web.Request) -> Relayed | None:
        """The client's address and room if another process of this cluster relayed the
        request to this one within the last `RELAY_WINDOW_S` and this exact header was
        never seen before (only a process knowing the cluster key can sign it); else None."""
        address, proof = request.headers.get(CLIENT_HEADER), request.headers.get(SIGN_HEADER)
        if not address or not proof or not self._key:
            return None
        parsed = parse_proof(proof)
        if parsed is None:
            return None
        at, nonce, room_id, mac = parsed
        if abs(time.time() - at) > RELAY_WINDOW_S:
            return None
        expected = relay_mac(self._key, self.store.owner, address, room_id, at, nonce)
        if not hmac.compare_digest(mac, expected):
            return None
        if not self.nonces.first(nonce):
            log.warning("relay header replayed", extra={"client": address, "room": room_id})
            return None
        return Relayed(address, room_id)

    async def refuse_other_room(self, ws: web.WebSocketResponse, msg: Any, peer: Peer) -> bool:
        """A socket relayed to us for one room that authenticates on another: its signed
        address was never meant for that room, so it is told to reconnect and closed."""
        signed = self.inbound.get(ws)
        if signed is None or signed == msg.room:
            return False
        log.warning("relayed socket for another room",
                    extra={"client": peer.address, "room": msg.room})
        await self._bye(ws, peer, ROOM_MOVED)
        return True

    # -- routing a join ---------------------------------------------------------------
    async def route(self, ws: web.WebSocketResponse, msg: Any, peer: Peer) -> bool:
        """False: this process serves the room (it owns it, claimed it, or the room does
        not exist and the local path refuses it). True: the socket was relayed to the
        owner, or told to reconnect, and is closed now."""
        assert self._redis is not None
        room_id = msg.room
        relayed = ws in self.inbound
        if self.closing:
            await self._bye(ws, peer, ROOM_MOVED)
            return True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.ttl_s + MARGIN_S
        while True:
            try:
                exists, holder = await self._lease(room_id)
            except redis.RedisError:
                return False  # the local path answers (and logs) the store's failure
            if not exists or room_id in self.server.quarantined:
                return False
            mine = self.store.leases.get(room_id)
            if holder is None or (mine is not None and holder == mine.holder):
                if holder is None:
                    self.drop_room(room_id)  # ours lapsed: never serve what we loaded then
                if await self.server.room(room_id) is not None:
                    return False
            elif relayed:  # never relay a relayed socket again: back to the client's process
                await self._bye(ws, peer, ROOM_MOVED)
                return True
            else:
                self.drop_room(room_id)
                upstream = await self._connect(holder, room_id, peer)
                if upstream is not None:
                    await self._relay(Relay(ws, upstream, holder), room_id, msg, peer)
                    return True
            if loop.time() >= deadline:
                await self._bye(ws, peer, ROOM_UNAVAILABLE)
                return True
            await asyncio.sleep(POLL_S)

    async def _lease(self, room_id: str) -> tuple[bool, str | None]:
        assert self._redis is not None
        pipe = self._redis.pipeline(transaction=False)
        pipe.exists(self.store.key(room_id, "meta"))
        pipe.get(self.store.key(room_id, "lease"))
        exists, holder = await pipe.execute()
        return bool(exists), None if holder is None else as_text(holder)

    async def _connect(self, holder: str, room_id: str, peer: Peer
                       ) -> aiohttp.ClientWebSocketResponse | None:
        """A WebSocket to the holder's process, or None (unknown address, refused, silent)."""
        assert self._redis is not None and self._http is not None
        owner = holder.split(":", 1)[1]
        url = await self._redis.get(f"{self.store.prefix}:node:{owner}")
        if url is None:
            return None
        headers = {CLIENT_HEADER: peer.address, SIGN_HEADER: self.sign(peer.address, room_id, owner)}
        try:
            return await asyncio.wait_for(self._http.ws_connect(
                as_text(url), headers=headers, max_msg_size=0, autoping=True), CONNECT_S)
        except (aiohttp.ClientError, OSError, TimeoutError):
            return None

    @staticmethod
    async def _bye(ws: web.WebSocketResponse, peer: Peer, code: Code) -> None:
        await close_socket(ws, peer.transport, code.code, dumps(bye_frame(code)))

    # -- relaying ---------------------------------------------------------------------
    async def _relay(self, relay: Relay, room_id: str, msg: Any, peer: Peer) -> None:
        """Copy frames both ways until either side ends or the owner is gone."""
        self.relays[room_id].add(relay)
        tasks: list[asyncio.Task[Any]] = []
        try:
            auth = msg.model_dump(mode="json", exclude_unset=True)
            await relay.upstream.send_str(orjson.dumps(auth).decode())
            tasks = [asyncio.create_task(self._downstream(relay)),
                     asyncio.create_task(self._upstream(relay)),
                     asyncio.create_task(relay.moved.wait())]
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            owner_gone = any(_owner_gone(t, i) for i, t in enumerate(tasks) if t in done)
        except (aiohttp.ClientError, OSError, RuntimeError):  # the auth never reached it
            owner_gone = True
        finally:
            for task in tasks:
                task.cancel()
            self.relays[room_id].discard(relay)
            if not self.relays[room_id]:
                del self.relays[room_id]
            with contextlib.suppress(Exception):
                await asyncio.wait_for(relay.upstream.close(), 0.5)
        if owner_gone:
            self.take_over(room_id, relay.holder)
            if not relay.ws.closed:
                log.info("relay moved", extra={"room": room_id, "client": peer.address})
                await self._bye(relay.ws, peer, ROOM_MOVED)

    @staticmethod
    async def _downstream(relay: Relay) -> bool:
        """Owner → client. True when the owner closed the socket on purpose (its `bye`
        went through first, its close code is passed on); False when it vanished."""
        ws, upstream = relay.ws, relay.upstream
        while True:
            frame = await upstream.receive()
            if frame.type == WSMsgType.TEXT:
                await ws.send_str(frame.data)
            elif frame.type == WSMsgType.BINARY:
                await ws.send_bytes(frame.data)
            elif frame.type == WSMsgType.CLOSE:
                code = int(frame.data) if isinstance(frame.data, int) else 1000
                code = code if code in (1000, 1001) or 3000 <= code <= 4999 else 1011
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(ws.close(code=code, message=(frame.extra or "").encode()),
                                           1.0)
                return True
            else:  # CLOSED / ERROR: the owner's process is gone
                return False

    @staticmethod
    async def _upstream(relay: Relay) -> None:
        """Client → owner, unread (the owner applies every limit to it)."""
        async for frame in relay.ws:
            if frame.type == WSMsgType.TEXT:
                await relay.upstream.send_str(frame.data)
            elif frame.type == WSMsgType.BINARY:
                await relay.upstream.send_bytes(frame.data)

    def take_over(self, room_id: str, gone: str) -> None:
        """The owner `gone` vanished while we relayed to it: claim the room as soon as its
        lease lapses (unless another process does first), without waiting for a join."""
        if room_id not in self._takeovers and not self.closing:
            task = asyncio.create_task(self._take_over(room_id, gone))
            self._takeovers[room_id] = task
            task.add_done_callback(lambda _: self._takeovers.pop(room_id, None))

    async def _take_over(self, room_id: str, gone: str) -> None:
        deadline = asyncio.get_running_loop().time() + self.ttl_s + MARGIN_S
        with contextlib.suppress(redis.RedisError):
            while asyncio.get_running_loop().time() < deadline and not self.closing:
                exists, holder = await self._lease(room_id)
                if not exists or (holder is not None and holder != gone):
                    return  # deleted, or someone else has it
                if holder is None:
                    await self.server.room(room_id)
                    return
                await asyncio.sleep(POLL_S)

    # -- watching leases --------------------------------------------------------------
    async def _watch(self) -> None:
        """Every tenth of the TTL: a relay whose room changed hands, or a room of ours
        whose lease is no longer ours (we were paused), is ended (`room_moved`)."""
        assert self._redis is not None
        while True:
            await asyncio.sleep(max(POLL_S, self.ttl_s / 10))
            rooms = sorted(set(self.relays) | set(self.server.rooms))
            if not rooms:
                continue
            try:
                holders = await self._redis.mget([self.store.key(r, "lease") for r in rooms])
            except redis.RedisError:
                continue  # Redis away: the append script refuses what is not ours
            for room_id, raw in zip(rooms, holders, strict=True):
                holder = None if raw is None else as_text(raw)
                mine = self.store.leases.get(room_id)
                if room_id in self.server.rooms and (mine is None or holder != mine.holder):
                    log.warning("lease lost; room dropped", extra={"room": room_id})
                    self.drop_room(room_id)
                for relay in list(self.relays.get(room_id, ())):
                    if holder != relay.holder:
                        relay.moved.set()  # (its end starts a takeover)

    def drop_room(self, room_id: str) -> None:
        """Stop serving a room this process no longer owns: its clients reconnect."""
        room = self.server.rooms.pop(room_id, None)
        if room is None:
            return  # not loaded (or still loading: that load claimed it just now)
        self.server.forget(room_id)
        self.store.leases.pop(room_id, None)
        room.task.cancel()
        room.audiences.drop_all(ROOM_MOVED)

    async def table_tree(self, room_id: str) -> dict[str, Any]:
        """The table's view of a room another process owns, rebuilt read-only from
        snapshot + stream (everything acked is there)."""

        def read() -> dict[str, Any]:
            engine = rebuild(self.store, room_id)
            return View(Audience("table"), engine.state).tree

        return await asyncio.to_thread(read)

    def owned(self) -> list[str]:
        """The rooms this process serves and holds the lease of."""
        return sorted(r for r in self.server.rooms if r in self.store.leases)

    # -- graceful stop ----------------------------------------------------------------
    async def handover(self) -> None:
        """SIGTERM: each room finishes what it was given, its lease is released, then its
        clients are told to reconnect (another process takes it on their next join)."""
        self.closing = True
        rooms = list(self.server.rooms.items())
        self.server.rooms.clear()
        await asyncio.gather(*(self._hand_over(room_id, room) for room_id, room in rooms))

    async def _hand_over(self, room_id: str, room: Room) -> None:
        await _drain(room)
        room.task.cancel()
        with contextlib.suppress(Exception):
            await self.server.storage.call(self.store.release, room_id)
        await room.stop()
        log.info("room handed over", extra={"room": room_id})


def _owner_gone(task: asyncio.Task[Any], which: int) -> bool:
    """Whether a finished relay task means the owner is gone: the watcher said so (2),
    the owner's socket ended without a close (0 → False), or writing to it failed (1)."""
    if which == 2:
        return True
    if task.cancelled():
        return False
    if which == 0:
        return task.exception() is None and task.result() is False
    return task.exception() is not None


async def _drain(room: Room) -> None:
    """Wait until the room has answered everything put in its inbox before now."""

    async def nothing() -> None:
        return None

    call = Call(nothing)
    await room.inbox.put(call)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.shield(call.done), 5.0)
