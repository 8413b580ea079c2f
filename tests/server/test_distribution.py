"""The bridges served by komasync (issue 14): the Ccfolia userscript at a stable URL with
update URLs in its header, the Foundry manifest honest about what was verified, and every
URL built from the server's public address (`--public-url`), never a fixed host."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from conftest import ROOT, Running, make_server
from komasync.server import distribution
from komasync.server.app import make_app

PUBLIC = "https://komasync.example.test/tables"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]


def header(text: str) -> dict[str, list[str]]:
    """`// @key value` lines of a userscript's metadata block (tests/bridges has the
    chromium-side parser; this one only reads what the server wrote)."""
    assert text.startswith("// ==UserScript==\n")
    block = text[: text.index("// ==/UserScript==")]
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"^// @(\S+)\s+(.*)$", block, re.M):
        out.setdefault(m.group(1), []).append(m.group(2).strip())
    return out


@pytest.fixture
async def public(tmp_path: Path) -> AsyncIterator[str]:
    """A server told its public address (as `komasync serve --public-url` does); returns the
    loopback address the test reaches it at."""
    app = make_app(make_server(tmp_path / "k.sqlite3"))
    distribution.configure(app, PUBLIC + "/")
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


async def fetch(url: str) -> tuple[int, str, dict[str, str]]:
    async with aiohttp.ClientSession() as session, session.get(url) as resp:
        return resp.status, await resp.text(), dict(resp.headers)


async def test_the_userscript_is_served_with_update_urls_from_the_request_address(
        running: Running) -> None:
    status, text, headers = await fetch(running.http + "/ccfolia/komasync.user.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    h = header(text)
    assert h["downloadURL"] == [running.http + "/ccfolia/komasync.user.js"]
    assert h["updateURL"] == [running.http + "/ccfolia/komasync.meta.js"]
    assert h["version"] == [VERSION] and h["license"] == ["MIT"]
    assert h["author"] == ["komasync contributors"]
    assert h["match"] == ["https://ccfolia.com/rooms/*"] and h["grant"] == ["none"]
    assert f"const KOMASYNC_SERVED_FROM = {json.dumps(running.http)};" in text
    assert distribution.SERVED_FROM_LINE not in text
    status, meta, _ = await fetch(running.http + "/ccfolia/komasync.meta.js")
    assert status == 200 and header(meta) == h and meta.rstrip().endswith("// ==/UserScript==")
    status, readme, _ = await fetch(h["supportURL"][0])
    assert status == 200 and "Tampermonkey" in readme


async def test_a_configured_public_url_wins_over_the_request_address(public: str) -> None:
    _s, text, _h = await fetch(public + "/ccfolia/komasync.user.js")
    h = header(text)
    assert h["downloadURL"] == [PUBLIC + "/ccfolia/komasync.user.js"]
    assert h["updateURL"] == [PUBLIC + "/ccfolia/komasync.meta.js"]
    assert f"const KOMASYNC_SERVED_FROM = {json.dumps(PUBLIC)};" in text
    _s, body, _h = await fetch(public + "/foundry/module.json")
    manifest = json.loads(body)
    for key in ("url", "bugs", "changelog", "manifest", "download"):
        assert manifest[key].startswith(PUBLIC + "/foundry/"), key
    assert "127.0.0.1" not in body
    _s, body, _h = await fetch(public + "/api/links")
    links = json.loads(body)
    assert links == {**distribution.links(PUBLIC), "configured": True}
    assert links["ws"] == "wss://komasync.example.test/tables/ws"


def test_the_static_manifest_claims_only_what_is_true() -> None:
    manifest = json.loads((distribution.module_dir() / "module.json").read_text("utf-8"))
    assert manifest["compatibility"] == {"minimum": "12"}  # no Foundry was run: no "verified"
    assert "socket" not in manifest  # the module never uses game.socket
    code = "".join(p.read_text("utf-8") for p in distribution.module_dir().rglob("*.js"))
    assert "game.socket" not in code
    assert manifest["license"] == "LICENSE" and (distribution.module_dir() / "LICENSE").exists()
    assert not {"url", "manifest", "download"} & set(manifest)  # only the served copy knows the server
    assert manifest["version"] == VERSION


def test_versions_move_together() -> None:
    package = json.loads((ROOT / "adapters" / "package.json").read_text("utf-8"))
    assert package["version"] == VERSION
    text = distribution.userscript_path().read_text("utf-8")
    assert header(text)["version"] == [VERSION]
    assert text.count(distribution.SERVED_FROM_LINE) == 1


@pytest.mark.parametrize("bad", ["ftp://x", "komasync.example.org", "https://", "https://h/?q=1",
                                 "https://h/#f"])
def test_bad_public_urls_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        distribution.check_public_url(bad)
    out = subprocess.run([sys.executable, "-c", "import sys; from komasync.server.cli import main; "
                          "sys.exit(main(sys.argv[1:]))", "serve", "--port", "0", "--public-url", bad,
                          "--db", ":memory:"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "--public-url" in out.stderr


def test_public_url_keeps_a_path_prefix_and_drops_the_trailing_slash() -> None:
    assert distribution.check_public_url("https://h.example:8443/k/ ") == "https://h.example:8443/k"
    assert distribution.links("http://10.0.0.5:8750")["ws"] == "ws://10.0.0.5:8750/ws"
