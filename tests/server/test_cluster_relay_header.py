"""The relay's signed client address opens one relayed socket, for one room, while fresh
(issue 26, finding 6).

Real `komasync serve --store redis://…` processes on a real redis-server. Node 0 owns the
rooms and announces itself behind a TCP proxy of this test (`--cluster-url`), so the
headers node 1 sends when it relays a client are captured on the wire, as by anyone on
the network between the processes. Node 0 allows one connection per address: a socket
whose header it honours counts as the header's address, one whose header it ignores as
its own, and which one it was shows in whether a second socket from there gets in.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import websockets
from cluster_support import TOKEN, Node, create_room, start_node
from redis_support import RedisProc, needs_redis, redis_server

from conftest import ROOT, Client
from komasync.server.storage import RedisStorage

pytestmark = needs_redis
__all__ = ["redis_server"]

SECRET = "s3cret-long-enough-for-gm"
TALLY = ROOT / "tests/data/shared_tally.yaml"
HEADERS = ("x-komasync-client", "x-komasync-relay")


@dataclass
class Tap:
    """A TCP proxy in front of node 0 that records each handshake's relay headers; while
    `swallow` is set it closes the connection instead (node 0 never sees the header)."""

    port: int = 0
    target: int = 0
    swallow: bool = False
    heads: list[dict[str, str]] = field(default_factory=list)
    server: asyncio.Server | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            head = await reader.readuntil(b"\r\n\r\n")
            fields = dict(line.split(": ", 1) for line in head.decode().split("\r\n")[1:] if line)
            self.heads.append({k.lower(): v for k, v in fields.items() if k.lower() in HEADERS})
            if self.swallow:
                return
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
            up_writer.write(head)
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        writer.close()

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.close()


async def _first(url: str, address: str, headers: dict[str, str] | None,
                 auth: dict[str, Any]) -> tuple[Client, dict[str, Any]]:
    """A socket from `address` (with `headers`): its `auth`'s first answer."""
    c = await Client.connect(url, local_addr=(address, 0), additional_headers=headers or {})
    with contextlib.suppress(websockets.ConnectionClosed):
        await c.send({"type": "auth", **auth})
    return c, await c.recv(10)


async def _gets_in(url: str, address: str, headers: dict[str, str] | None, room: str) -> bool:
    """Whether a socket from `address` with `headers` is welcomed into `room` (False:
    refused at the handshake for its address's one connection)."""
    _, first = await _first(url, address, headers, {"room": room, "secret": SECRET})
    assert first["type"] in ("welcome", "error"), first
    assert first["type"] == "welcome" or first["code"] == "too_many_connections", first
    return first["type"] == "welcome"


async def _node_id(node: Node) -> str:
    async with aiohttp.ClientSession() as s, s.get(
            node.http + "/healthz?rooms=1", headers={"Authorization": f"Bearer {TOKEN}"}) as r:
        return str((await r.json())["node"])


async def _cluster(tmp_path: Path, redis_url: str, tap: Tap) -> list[Node]:
    """Node 0 behind `tap` owning r1 and r2 (their GMs on 127.0.0.2 and .5), and node 1."""
    for room in ("r1", "r2"):
        create_room(redis_url, room, TALLY, SECRET, "s")
    await tap.start()
    nodes = [start_node(redis_url, tmp_path / "node0.log", 1500, "--connections-per-address",
                        "1", "--cluster-url", f"ws://127.0.0.1:{tap.port}/ws")]
    tap.target = int(nodes[0].ws.rsplit(":", 1)[1].removesuffix("/ws"))
    nodes.append(start_node(redis_url, tmp_path / "node1.log", 1500))
    for address, room in (("127.0.0.2", "r1"), ("127.0.0.5", "r2")):
        _, welcome = await _first(nodes[0].ws, address, None, {"room": room, "secret": SECRET})
        assert welcome["type"] == "welcome", welcome
    return nodes


async def test_a_captured_relay_header_is_good_once_and_only_for_its_room(
        tmp_path: Path, redis_server: RedisProc) -> None:
    tap = Tap()
    nodes = await _cluster(tmp_path, redis_server.url, tap)
    try:
        # Clients of r2 on node 1 from 127.0.0.4 and .6: node 1's relay attempts are
        # captured and never reach node 0 (until it gives up: `room_unavailable`).
        tap.swallow = True
        for _, bye in await asyncio.gather(*(
                _first(nodes[1].ws, a, None, {"room": "r2", "secret": SECRET})
                for a in ("127.0.0.4", "127.0.0.6"))):
            assert bye["type"] == "bye" and bye["code"] == "room_unavailable", bye
        tap.swallow = False
        heads = {a: [h for h in tap.heads if h.get("x-komasync-client") == a]
                 for a in ("127.0.0.4", "127.0.0.6")}
        assert all(len(h) >= 1 and set(h[0]) == set(HEADERS) for h in heads.values()), heads
        for_r2, other = heads["127.0.0.4"][0], heads["127.0.0.6"][0]
        # Used for another room (r1, with the right secret): refused at `auth` (a header
        # ignored would let the secret in).
        _, first = await _first(nodes[0].ws, "127.0.0.7", other, {"room": "r1", "secret": SECRET})
        assert first["type"] == "bye" and first["code"] == "room_moved", first
        # Fresh, for its room: honoured (counts as 127.0.0.4, not as 127.0.0.2).
        assert await _gets_in(nodes[0].ws, "127.0.0.2", for_r2, "r2")
        # The same header again from 127.0.0.3: ignored, so the socket counts as 127.0.0.3
        # (which then has no connection left) and not as the taken 127.0.0.4.
        assert await _gets_in(nodes[0].ws, "127.0.0.3", for_r2, "r2")
        assert not await _gets_in(nodes[0].ws, "127.0.0.3", None, "r2")
        # The relay itself still works: a client on node 1 gets in at node 0's room.
        _, welcome = await _first(nodes[1].ws, "127.0.0.8", None, {"room": "r1", "secret": SECRET})
        assert welcome["type"] == "welcome", welcome
        assert not await _gets_in(nodes[0].ws, "127.0.0.8", None, "r1")  # counted as itself
    finally:
        for n in nodes:
            n.stop()
        await tap.stop()


async def test_an_expired_relay_header_is_ignored(
        tmp_path: Path, redis_server: RedisProc) -> None:
    """Signed with the cluster key (read from Redis, as a process does) for node 0 and r1:
    at the time it is honoured; two minutes old it is ignored."""
    from komasync.server.cluster import RELAY_WINDOW_S, relay_proof

    tap = Tap()
    nodes = await _cluster(tmp_path, redis_server.url, tap)
    store = RedisStorage(redis_server.url)
    try:
        key = store.client.get(f"{store.prefix}:cluster:key")
        assert isinstance(key, bytes)
        target = await _node_id(nodes[0])

        def signed(address: str, at: float) -> dict[str, str]:
            proof = relay_proof(key, target, address, "r1", int(at), secrets.token_hex(16))
            return {"X-Komasync-Client": address, "X-Komasync-Relay": proof}

        # From 127.0.0.2 (its one connection taken): only an honoured header gets in.
        assert not await _gets_in(nodes[0].ws, "127.0.0.2",
                                  signed("127.0.0.8", time.time() - 4 * RELAY_WINDOW_S), "r1")
        assert await _gets_in(nodes[0].ws, "127.0.0.2", signed("127.0.0.9", time.time()), "r1")
    finally:
        store.close()
        for n in nodes:
            n.stop()
        await tap.stop()
