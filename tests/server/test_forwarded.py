"""Issue 33: behind a reverse proxy (`serve --behind-proxy`) the throttles and limits count
per the client the proxy forwarded for, and only a trusted proxy may name that client:
an `X-Forwarded-For` from any other peer is ignored."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from pydantic import ValidationError

from conftest import EXAMPLES, KOMASYNC, Client, Running, start_server
from komasync.server.connection import Limits
from komasync.server.forwarded import parse_proxies
from komasync.server.settings import load_settings

PROXY = "127.0.0.1"  # the tests' proxy; other loopback addresses are clients


def test_only_a_trusted_peer_names_the_client() -> None:
    proxies = parse_proxies(PROXY)
    assert proxies.client("127.0.0.2", ["203.0.113.9"]) == "127.0.0.2"  # spoofed: ignored
    assert proxies.client(PROXY, ["203.0.113.9"]) == "203.0.113.9"
    assert proxies.client(PROXY, []) == PROXY  # the proxy's own request
    # A client's own header is left of what the proxy appended: the rightmost untrusted hop.
    assert proxies.client(PROXY, ["6.6.6.6, 198.51.100.7"]) == "198.51.100.7"
    assert proxies.client(PROXY, ["6.6.6.6", "198.51.100.7"]) == "198.51.100.7"
    # A chain of trusted proxies is skipped; garbage left of a trusted hop names nobody.
    chain = parse_proxies("127.0.0.1,10.0.0.0/8")
    assert chain.client(PROXY, ["198.51.100.7, 10.1.2.3"]) == "198.51.100.7"
    assert chain.client(PROXY, ["not-an-ip, 10.1.2.3"]) == "10.1.2.3"
    assert proxies.client("::ffff:127.0.0.1", ["[2001:db8::5]:4711"]) == "2001:db8::5"


def test_behind_proxy_setting_means_loopback_when_given_no_addresses() -> None:
    loopback = load_settings(behind_proxy="loopback").proxies()
    assert loopback is not None and loopback.trusted("127.0.0.5") and loopback.trusted("::1")
    assert not loopback.trusted("192.168.1.2")
    assert load_settings().proxies() is None
    assert load_settings(behind_proxy="off").proxies() is None
    with pytest.raises(ValidationError, match="not an address or network"):
        load_settings(behind_proxy="127.0.0.1,caddy.local")


def test_behind_proxy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KOMASYNC_BEHIND_PROXY", "1")
    proxies = load_settings().proxies()
    assert proxies is not None and proxies.client("127.0.0.1", ["192.0.2.4"]) == "192.0.2.4"


def test_a_wrong_behind_proxy_stops_serve_with_one_clear_error(tmp_path: Path) -> None:
    out = subprocess.run([*KOMASYNC, "serve", "--port", "0", "--db", str(tmp_path / "k.db"),
                          "--behind-proxy", "caddy.local"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2
    assert "設定 --behind-proxy / KOMASYNC_BEHIND_PROXY の値が正しくありません" in out.stderr
    assert "Setting --behind-proxy / KOMASYNC_BEHIND_PROXY is not valid" in out.stderr


@pytest.fixture
async def proxied(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(auth_failures_per_address=2, auth_failures_per_room=100))
    r.server.proxies = parse_proxies(PROXY)
    yield r
    await r.runner.cleanup()


async def _guess(r: Running, source: str, forwarded: str | None, secret: str = "wrong") -> Any:
    """One auth over a socket from `source`, with an X-Forwarded-For if given; its answer."""
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    c = await Client.connect(r.url, local_addr=(source, 0), additional_headers=headers)
    try:
        await c.send({"type": "auth", "room": r.room, "secret": secret})
        while True:
            msg = await c.recv()
            if msg["type"] in ("welcome", "error"):
                return msg.get("code", msg["type"])
    finally:
        await c.close()


async def test_a_spoofed_forwarded_for_from_a_client_is_ignored(proxied: Running) -> None:
    r = proxied
    for _ in range(2):
        assert await _guess(r, "127.0.0.2", "203.0.113.9") == "auth_failed"
    # The guesser is throttled as itself, whatever address it claimed each time.
    assert await _guess(r, "127.0.0.2", "203.0.113.10", r.secret) == "auth_throttled"
    assert r.server.throttle.wait("127.0.0.2") > 0
    assert r.server.throttle.wait("203.0.113.9") == 0
    assert await _guess(r, PROXY, "203.0.113.9", r.secret) == "welcome"


async def test_clients_behind_the_proxy_are_throttled_each_on_its_own(proxied: Running) -> None:
    r = proxied
    for _ in range(2):  # the client left of the proxy's hop lies; the proxy's hop counts
        assert await _guess(r, PROXY, "6.6.6.6, 198.51.100.1") == "auth_failed"
    assert await _guess(r, PROXY, "198.51.100.1", r.secret) == "auth_throttled"
    assert await _guess(r, PROXY, "198.51.100.2", r.secret) == "welcome"  # another client
    assert r.server.throttle.wait(PROXY) == 0 and r.server.throttle.wait("6.6.6.6") == 0
    # The console's sign-in (POST /api/rooms) counts by the same address.
    async with aiohttp.ClientSession() as http:
        for client, status in (("198.51.100.1", 429), ("198.51.100.3", 200)):
            async with http.post(f"{r.http}/api/rooms", json={"secret": r.secret},
                                 headers={"X-Forwarded-For": client}) as resp:
                assert resp.status == status, client


async def test_without_behind_proxy_the_header_is_never_believed(proxied: Running) -> None:
    r = proxied
    r.server.proxies = None
    for forwarded in ("198.51.100.1", "198.51.100.2"):
        assert await _guess(r, PROXY, forwarded) == "auth_failed"
    assert await _guess(r, PROXY, "198.51.100.3", r.secret) == "auth_throttled"
    assert r.server.throttle.wait(PROXY) > 0
