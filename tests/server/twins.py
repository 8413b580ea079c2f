"""Twin rooms: the same scenario and dice seed on two servers, the same clients in each,
so every frame a non-GM receives can be compared byte for byte between them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import Client, Running, gm, invite, start_server

SEED = "twin-seed"


@dataclass
class Twin:
    """One of the two rooms: its server, its GM and its other clients by name."""

    r: Running
    g: Client
    clients: dict[str, Client] = field(default_factory=dict)
    own: set[str] = field(default_factory=set)
    """Ids of the actions only this twin sent (their replies are not compared)."""
    sent: int = 0

    async def connect(self, name: str, role: str, player: str | None = None,
                      platform: str | None = None) -> Client:
        token = await invite(self.g, role, player)
        c = await Client.connect(self.r.url)
        await c.auth(self.r.room, token=token, **({"platform": platform} if platform else {}))
        await c.expect("snapshot")
        self.clients[name] = c
        return c

    async def reply(self, name: str, action: dict[str, Any], own: bool = False
                    ) -> dict[str, Any]:
        """Send `action` from client `name` (or "gm") and wait for its answer."""
        c = self.g if name == "gm" else self.clients[name]
        if own:
            msg_id = await c.act(action, id=f"own-{len(self.own)}")
            self.own.add(msg_id)
        else:
            self.sent += 1  # the same id for the same action in both twins
            msg_id = await c.act(action, id=f"{name}-{self.sent}")
        reply = await c.reply_to(msg_id)
        if reply["type"] == "ack":
            await self.g.settle(reply["version"])
        return reply

    async def drain(self) -> None:
        """Read every client until the room is quiet (all frames of all versions in)."""
        for c in [self.g, *self.clients.values()]:
            await c.settle(self.r.server.rooms[self.r.room].version)
            try:
                while True:
                    await c.recv(timeout=0.3)
            except TimeoutError:
                pass

    def frames(self, name: str) -> list[str]:
        """What client `name` received, less the replies to this twin's own actions."""
        out = []
        for text in self.clients[name].raw:
            msg = json.loads(text.lstrip("~"))
            if msg.get("type") in ("ack", "reject", "error") and msg.get("id") in self.own:
                continue
            out.append(text)
        return out


async def twins(tmp_path: Path, scenario: Path) -> tuple[Twin, Twin]:
    """Two servers holding the same room (same id, scenario and seed)."""
    out = []
    for name in ("a", "b"):
        r = await start_server(tmp_path / f"{name}.sqlite3", scenario, seed=SEED)
        out.append(Twin(r, await gm(r)))
    return out[0], out[1]


async def close(*ts: Twin) -> None:
    for t in ts:
        for c in [t.g, *t.clients.values()]:
            await c.close()
        await t.r.runner.cleanup()


def assert_same_non_gm_frames(a: Twin, b: Twin) -> int:
    """Every non-GM client got exactly the same frames in both twins; returns how many."""
    assert a.clients.keys() == b.clients.keys()
    n = 0
    for name in a.clients:
        fa, fb = a.frames(name), b.frames(name)
        first = next((i for i, (x, y) in enumerate(zip(fa, fb, strict=False)) if x != y),
                     min(len(fa), len(fb)))
        assert fa == fb, (f"{name}: frame {first} differs ({len(fa)} / {len(fb)})\n"
                          f" a: {fa[first] if first < len(fa) else '-'}\n"
                          f" b: {fb[first] if first < len(fb) else '-'}")
        n += len(fa)
    return n

