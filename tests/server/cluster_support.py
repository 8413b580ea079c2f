"""Real `komasync serve --store redis://…` processes on loopback, and clients that resume.

A `Node` is one server process; `Resuming` is a client that, when its socket ends (the
owner died, the room moved), reconnects to a live node with `since` and resends its
unanswered action with the same id, the way the console and the bridges do.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import websockets

from conftest import Client, serve_process, stop_process
from komasync.engine.scenario import build_room, load_scenario_file
from komasync.server.storage import RedisStorage

TOKEN = "operator-token-for-the-cluster-tests"
LEASE_MS = 1500


@dataclass
class Node:
    proc: subprocess.Popen[str]
    ws: str
    http: str
    dead: bool = False

    async def owned(self) -> list[str]:
        """The rooms this process owns, as `/healthz?rooms=1` tells the operator."""
        async with aiohttp.ClientSession() as s, s.get(
                self.http + "/healthz?rooms=1", headers={"Authorization": f"Bearer {TOKEN}"}) as r:
            assert r.status == 200
            return list((await r.json())["owned"])

    def stop(self) -> None:
        stop_process(self.proc)


def start_node(redis_url: str, log: Path, lease_ms: int = LEASE_MS, *more: str) -> Node:
    env = {**os.environ, "KOMASYNC_OPERATOR_TOKEN": TOKEN}
    proc, url = serve_process("--store", redis_url, "--lease-ms", str(lease_ms),
                              "--snapshot-every", "25", "--rate", "100000", "--log", "json", *more,
                              stderr=log.open("a"), env=env)
    return Node(proc, url, url.replace("ws://", "http://", 1).removesuffix("/ws"))


def create_room(redis_url: str, room_id: str, scenario: Path, secret: str, seed: str,
                invites: int = 0) -> list[str]:
    """A room stored in Redis, and `invites` player invites for alice (their tokens)."""
    store = RedisStorage(redis_url)
    try:
        state = build_room(load_scenario_file(scenario), seed=seed).model_dump(mode="json")
        store.create_room(room_id, room_id, secret, state)
        return [store.create_invite(room_id, "player", "alice", f"alice{i}")[1]
                for i in range(invites)]
    finally:
        store.close()


def player_invite(redis_url: str, room_id: str, player: str | None, role: str = "player") -> str:
    store = RedisStorage(redis_url)
    try:
        return store.create_invite(room_id, role, player, player or role)[1]
    finally:
        store.close()


DROPPED = (websockets.ConnectionClosed, TimeoutError, OSError)


@dataclass
class Resuming:
    """One client of one room that survives its node or its room's owner going away."""

    name: str
    nodes: list[Node]
    room: str
    auth: dict[str, Any]
    home: int  # the node it connects to first (and again while that one lives)
    c: Client | None = None
    acked: dict[str, int] = field(default_factory=dict)
    resumes: int = 0
    snapshots_on_resume: int = 0

    async def connect(self) -> None:
        since = None if self.c is None else self.c.version
        state = None if self.c is None else self.c.state
        for attempt in range(200):
            live = [n for n in self.nodes if not n.dead]
            node = self.nodes[self.home] if not self.nodes[self.home].dead else \
                live[(attempt + self.home) % len(live)]
            with contextlib.suppress(*DROPPED):
                c = await Client.connect(node.ws)
                if state is not None:
                    c.state, c.version = state, since or 0
                await c.send({"type": "auth", "room": self.room, **self.auth,
                              **({} if since is None else {"since": since})})
                await c.expect("welcome", timeout=10)
                if since is None:
                    await c.expect("snapshot")
                else:
                    self.resumes += 1
                self.c = c
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{self.name} never got back in")

    async def act(self, msg_id: str, action: dict[str, Any]) -> int:
        """Send until acknowledged (a dropped socket: reconnect, resend the same id)."""
        while True:
            assert self.c is not None
            try:
                await self.c.act(action, id=msg_id)
                reply = await self.c.reply_to(msg_id)
            except DROPPED:
                await self.connect()
                continue
            assert reply["type"] == "ack", reply
            self.acked[msg_id] = int(reply["version"])
            return int(reply["version"])

    async def follow(self, version: int) -> None:
        """Read (reconnecting as needed) until this client's copy is at `version`."""
        while True:
            assert self.c is not None
            try:
                while self.c.version < version:
                    msg = await self.c.recv(10)
                    if msg["type"] == "snapshot" and self.resumes:
                        self.snapshots_on_resume += 1
                return
            except DROPPED:
                await self.connect()

    async def close(self) -> None:
        if self.c is not None:
            with contextlib.suppress(Exception):
                await self.c.close()
