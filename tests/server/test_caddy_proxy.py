"""Issue 33: komasync over HTTPS behind Caddy with its internal CA (`komasync caddyfile
--lan`, `serve --behind-proxy`): a GM, a player and both bridges' clients over wss://, and
the auth throttle counting the real client, never the proxy, and never a spoofed header."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from caddy_support import PROXY, Front, caddy_front, needs_caddy

from conftest import ROOT, Client, invite

pytestmark = needs_caddy


@pytest.fixture
def front(tmp_path: Path) -> Iterator[Front]:
    with caddy_front(tmp_path, "--auth-failures-per-address", "2",
                     "--auth-failures-per-room", "100") as f:
        yield f


async def connect(front: Front, source: str = "127.0.0.2", **kw: Any) -> Client:
    """A wss:// client from the loopback address `source`, trusting Caddy's CA only."""
    return await Client.connect(front.wss, ssl=front.ssl(), local_addr=(source, 0), **kw)


async def answer(front: Front, source: str, secret: str, **kw: Any) -> str:
    """What one GM auth through Caddy from `source` gets: `welcome` or the error's code."""
    c = await connect(front, source, **kw)
    try:
        await c.send({"type": "auth", "room": "demo", "secret": secret})
        while True:
            msg = await c.recv()
            if msg["type"] in ("welcome", "error"):
                return str(msg.get("code", msg["type"]))
    finally:
        await c.close()


async def test_gm_player_and_bridges_over_wss_through_caddy(front: Front) -> None:
    g = await connect(front)
    assert (await g.auth("demo", secret=front.demo.secret))["role"] == "gm"
    await g.expect("snapshot")
    player = await connect(front, "127.0.0.3")
    await player.auth("demo", token=await invite(g, "player", "p1"))
    await player.expect("snapshot")
    bridges = {}
    for platform in ("foundry", "ccfolia"):  # the Foundry module's and the userscript's auth
        b = await connect(front, "127.0.0.4")
        await b.send({"type": "auth", "room": "demo", "token": await invite(g, "bridge"),
                      "platform": platform})
        assert (await b.expect("welcome"))["role"] == "bridge"
        assert (await b.expect("table.ops"))["platform"] == platform
        bridges[platform] = b
    # TD-PRE-1 the GM seats a PC: the player and both bridges see it through the proxy.
    reply = await g.reply({"kind": "td.pc.place", "pc": "pc1", "fort": "f_left"})
    assert reply["type"] == "ack"
    await player.settle(reply["version"])
    assert player.version == reply["version"]
    for b in bridges.values():
        assert (await b.expect("table.ops"))["version"] == reply["version"]
    # What the console hands a remote player or bridge names the https/wss addresses.
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{front.https}/api/links", ssl=front.ssl()) as resp:
            links = await resp.json()
    assert links["ws"] == front.wss and links["console"] == front.https + "/"
    for c in (g, player, *bridges.values()):
        await c.close()


async def test_a_client_not_trusting_caddys_ca_is_refused(front: Front) -> None:
    with pytest.raises(ssl.SSLCertVerificationError):
        await Client.connect(front.wss, ssl=ssl.create_default_context())


async def test_the_auth_throttle_counts_each_client_behind_caddy(front: Front) -> None:
    secret = front.demo.secret
    # The guesser claims another address: Caddy does not trust it, komasync sees 127.0.0.2.
    spoof = {"additional_headers": {"X-Forwarded-For": "203.0.113.9"}}
    for _ in range(2):
        assert await answer(front, "127.0.0.2", "wrong-secret", **spoof) == "auth_failed"
    assert await answer(front, "127.0.0.2", secret) == "auth_throttled"
    # Every socket reaches komasync from Caddy's 127.0.0.1, yet other clients are not slowed…
    assert await answer(front, "127.0.0.3", secret) == "welcome"
    assert await answer(front, PROXY, secret) == "welcome"
    # …and the console's sign-in counts the same client the same way.
    for source, status in (("127.0.0.2", 429), ("127.0.0.3", 200)):
        connector = aiohttp.TCPConnector(local_addr=(source, 0), ssl=front.ssl())
        async with aiohttp.ClientSession(connector=connector) as http:
            async with http.post(f"{front.https}/api/rooms", json={"secret": secret}) as resp:
                assert resp.status == status, source


PROBE = ROOT / "adapters" / "test" / "support" / "bridge_probe.mjs"


@pytest.mark.skipif(shutil.which("node") is None or not (ROOT / "adapters/node_modules/ws").is_dir(),
                    reason="Node and the bridges' packages (cd adapters && npm ci) are needed")
async def test_the_bridges_own_socket_client_joins_through_caddy(front: Front) -> None:
    """The bridges' JavaScript client itself (core/client.js), not a stand-in, over wss://
    trusting Caddy's root: each platform joins and takes the room's table."""
    g = await connect(front)
    await g.auth("demo", secret=front.demo.secret)
    await g.expect("snapshot")
    env = {**os.environ, "NODE_EXTRA_CA_CERTS": str(front.root)}
    for platform in ("foundry", "ccfolia"):
        proc = await asyncio.create_subprocess_exec(
            "node", str(PROBE), front.wss, "demo", await invite(g, "bridge"), platform,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
        out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        said = json.loads(out.decode().strip().splitlines()[-1])
        assert proc.returncode == 0 and said["ok"], (said, err.decode()[-500:])
        assert said["platform"] == platform and said["live"]
    await g.close()
