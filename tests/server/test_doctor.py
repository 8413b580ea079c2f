"""`komasync doctor` and `GET /api/doctor` (issue 33): one test per finding, with real
servers on loopback, real processes holding ports and a real (self-signed) TLS server."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from conftest import (
    EXAMPLES,
    KOMASYNC,
    Client,
    Running,
    drop_logged,
    free_port,
    gm,
    invite,
    start_server,
    store_args,
)
from komasync.engine.scenario import load_scenario_file
from komasync.server import distribution
from komasync.server.gm_key import ensure_gm_key, record_address

Findings = dict[str, dict[str, Any]]


async def api_doctor(r: Running, secret: str | None) -> tuple[int, dict[str, Any]]:
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    async with aiohttp.ClientSession() as http, http.get(r.http + "/api/doctor",
                                                         headers=headers) as answer:
        return answer.status, await answer.json()


async def server_findings(r: Running, secret: str | None = None) -> Findings:
    status, body = await api_doctor(r, secret or r.secret)
    assert status == 200, body
    return {f["id"]: f for f in body["findings"]}


async def cli_doctor(db: Path, *args: str, env: dict[str, str] | None = None
                     ) -> tuple[int, Findings, str]:
    """`komasync doctor --json` in its own process (the test's servers keep serving)."""
    result = await asyncio.to_thread(
        subprocess.run, [*KOMASYNC, "doctor", "--json", *store_args(db), *args],
        capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})
    body = json.loads(result.stdout)
    assert body["ok"] == (result.returncode == 0), result.stderr
    return result.returncode, {f["id"]: f for f in body["findings"]}, result.stdout


def said(f: dict[str, Any]) -> str:
    """Every sentence of a finding; each finding has both languages, and a todo unless ok."""
    assert f["text"]["ja"] and f["text"]["en"]
    if f["level"] != "ok":
        assert f["todo"]["ja"] and f["todo"]["en"], f
    return " ".join([f["text"]["ja"], f["text"]["en"],
                     *((f["todo"]["ja"], f["todo"]["en"]) if f["todo"] else ())])


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml")
    yield r
    await r.runner.cleanup()


# -- the endpoint ------------------------------------------------------------------------------


async def test_the_endpoint_needs_a_gm_secret_or_the_gm_key(served: Running) -> None:
    r = served
    await r.server.create_room(load_scenario_file(EXAMPLES / "demo_table.yaml"),
                               secret="other-room-secret", room_id="other")
    assert (await api_doctor(r, None))[0] == 403
    assert (await api_doctor(r, "not-the-secret"))[0] == 403
    rooms = {f["data"].get("room") for f in (await server_findings(r)).values()}
    assert "room1" in rooms and "other" not in rooms  # a room's secret: its own room only
    key = await r.server.storage.call(ensure_gm_key, r.server.storage.storage)
    rooms = {f["data"].get("room") for f in (await server_findings(r, key)).values()}
    assert {"room1", "other"} <= rooms


async def test_a_healthy_server_is_all_ok(served: Running) -> None:
    r = served
    status, body = await api_doctor(r, r.secret)
    found = {f["id"]: f for f in body["findings"]}
    assert status == 200 and body["ok"] is True
    assert found["public_url"]["level"] == "ok" and "komasync" in said(found["public_url"])
    assert found["port"]["level"] == "ok" and found["port"]["data"]["running"] is True
    assert found["room:room1"]["level"] == "ok"
    assert found["bridge:room1"]["level"] == "ok"  # no bridge invited: nothing to check
    # no --public-url on the GM's own PC: a warning, not a failure
    assert found["public_url.local"]["level"] == "warn"
    assert "--public-url" in said(found["public_url.local"])


async def test_a_public_url_that_does_not_answer_fails(served: Running) -> None:
    r = served
    dead = f"http://127.0.0.1:{free_port()}"
    await r.server.storage.call(record_address, r.server.storage.storage, dead)
    status, body = await api_doctor(r, r.secret)
    f = {f["id"]: f for f in body["findings"]}["public_url"]
    assert status == 200 and body["ok"] is False
    assert f["level"] == "fail" and dead in said(f) and "応答しません" in said(f)
    assert "does not answer" in said(f) and "reverse proxy" in said(f)


async def test_a_public_url_whose_host_does_not_resolve_fails(served: Running) -> None:
    r = served
    url = "https://komasync-doctor.invalid"
    await r.server.storage.call(record_address, r.server.storage.storage, url)
    f = (await server_findings(r))["public_url"]
    assert f["level"] == "fail" and "komasync-doctor.invalid" in said(f)
    assert "does not resolve" in said(f) and "DNS" in said(f)


async def test_a_public_url_answering_as_something_else_fails(served: Running) -> None:
    r = served
    other = web.Application()

    async def hello(request: web.Request) -> web.Response:
        return web.Response(text="hello")

    other.router.add_get("/healthz", hello)
    runner = web.AppRunner(other)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        url = f"http://127.0.0.1:{runner.addresses[0][1]}"
        await r.server.storage.call(record_address, r.server.storage.storage, url)
        f = (await server_findings(r))["public_url"]
        assert f["level"] == "fail" and "not as komasync" in said(f) and "proxy" in said(f)
    finally:
        await runner.cleanup()


async def test_a_room_whose_stored_log_is_broken_fails(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml")
    try:
        g = await gm(r)
        for i in range(3):
            await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                          "delta": 1}, id=f"x{i}"))
        await r.runner.cleanup()
        drop_logged(db, r.room, 2)
        r = await start_server(db, EXAMPLES / "demo_table.yaml")
        status, body = await api_doctor(r, r.secret)
        f = {f["id"]: f for f in body["findings"]}["room:room1"]
        assert status == 200 and body["ok"] is False
        assert f["level"] == "fail" and "log gap" in said(f) and "room reset room1" in said(f)
    finally:
        await r.runner.cleanup()


async def test_a_connected_bridge_reports_its_last_contact_and_versions(served: Running) -> None:
    r = served
    g = await gm(r)
    token = await invite(g, "bridge")
    bridge = await Client.connect(r.url)
    await bridge.auth(r.room, token=token, platform="ccfolia", client="Ccfolia GM")
    await bridge.expect("snapshot")
    await bridge.send({"type": "bridge.status", "platform": "ccfolia", "version": 0,
                       "detail": "ccfolia 0.0.9 page-1 | データ層 OFF / data layer off"})
    await g.expect("notice", kind="bridge")  # the server has read the status
    found = await server_findings(r)
    live = next(f for k, f in found.items() if k.startswith("bridge:room1:")
                and not k.endswith(".version"))
    assert live["level"] == "ok" and live["data"]["connected"] is True
    assert live["data"]["software"] == "0.0.9" and live["data"]["applied"] == 0
    assert "Ccfolia GM" in said(live) and "last contact" in said(live)
    old = next(f for k, f in found.items() if k.endswith(".version"))
    served_version = distribution.userscript_meta("x").split("@version")[1].split()[0]
    assert old["level"] == "warn" and "0.0.9" in said(old) and served_version in said(old)


async def test_a_foundry_bridge_reports_its_module_version(served: Running) -> None:
    """The Foundry module's status line starts `foundry X.Y.Z` (its manifest's version): an
    older module than the one served is a warning saying how to update it."""
    r = served
    g = await gm(r)
    bridge = await Client.connect(r.url)
    await bridge.auth(r.room, token=await invite(g, "bridge"), platform="foundry", client="Foundry GM")
    await bridge.expect("snapshot")
    await bridge.send({"type": "bridge.status", "platform": "foundry", "version": 0,
                       "detail": "foundry 0.0.1 v12 scene TD: cell_size 100, origin_x 0, origin_y 0"})
    await g.expect("notice", kind="bridge")
    found = await server_findings(r)
    live = next(f for k, f in found.items() if k.startswith("bridge:room1:") and not k.endswith(".version"))
    assert live["data"]["software"] == "0.0.1" and "Foundry module 0.0.1" in said(live)
    old = next(f for k, f in found.items() if k.endswith(".version"))
    assert old["level"] == "warn" and "Foundry module 0.0.1" in said(old)
    assert "Add-on Modules" in old["todo"]["en"]


async def test_a_bridge_that_went_away_and_one_never_seen_are_warnings(served: Running) -> None:
    r = served
    g = await gm(r)
    gone_token = await invite(g, "bridge")
    await g.send({"type": "invite.create", "id": "inv-2", "role": "bridge", "label": "Foundry PC"})
    await g.expect("invite")
    bridge = await Client.connect(r.url)
    await bridge.auth(r.room, token=gone_token, platform="foundry")
    await bridge.expect("snapshot")
    await bridge.close()
    for _ in range(100):  # until the server has seen the socket close
        if r.server.bridges_gone.get(r.room):
            break
        await asyncio.sleep(0.05)
    found = await server_findings(r)
    bridges = [f for k, f in found.items() if k.startswith("bridge:room1:")]
    gone = next(f for f in bridges if f["data"].get("connected") is False)
    never = next(f for f in bridges if "'Foundry PC'" in f["text"]["en"])
    assert gone["level"] == "warn" and "disconnected" in said(gone) and "切断" in said(gone)
    assert gone["data"]["last_contact"] > 0
    assert never["level"] == "warn" and "has not connected" in said(never)
    assert (await api_doctor(r, r.secret))[1]["ok"] is True  # warnings need no action


async def test_the_versions_served_and_a_userscript_that_cannot_be_served(
        served: Running, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = served
    found = await server_findings(r)
    manifest = json.loads((distribution.module_dir() / "module.json").read_text("utf-8"))
    assert found["served.foundry"]["data"]["version"] == manifest["version"]
    assert found["served.ccfolia"]["level"] == "ok"
    broken = tmp_path / "komasync-ccfolia.user.js"
    broken.write_text("// ==UserScript==\n// @version 9.9.9\n// ==/UserScript==\n")
    monkeypatch.setattr(distribution, "userscript_path", lambda: broken)
    f = (await server_findings(r))["served.ccfolia"]
    assert f["level"] == "fail" and "npm run build" in said(f)


# -- the command line ------------------------------------------------------------------------


async def test_cli_asks_the_running_server_and_exits_0(served: Running, tmp_path: Path) -> None:
    r = served
    await r.server.storage.call(ensure_gm_key, r.server.storage.storage)
    port = r.http.rsplit(":", 1)[1]
    code, found, _ = await cli_doctor(tmp_path / "k.sqlite3", "--port", port)
    assert code == 0
    assert found["port"]["level"] == "ok" and found["port"]["data"]["running"] is True
    assert found["room:room1"]["level"] == "ok" and "bridge:room1" in found  # the server's view


async def test_cli_on_another_store_than_the_running_server_fails(served: Running,
                                                                  tmp_path: Path) -> None:
    r = served
    other = tmp_path / "other.sqlite3"
    await r.server.storage.call(ensure_gm_key, r.server.storage.storage)
    ours = await start_server(other, EXAMPLES / "demo_table.yaml")  # makes the other store
    await ours.runner.cleanup()
    code, found, _ = await cli_doctor(other, "--port", r.http.rsplit(":", 1)[1])
    assert code == 1 and found["store"]["level"] == "fail" and "--db" in said(found["store"])


@pytest.fixture
def other_program() -> Iterator[int]:
    """A port held by another program: Python's own HTTP server."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None and "Serving HTTP" in proc.stdout.readline()
        yield port
    finally:
        proc.kill()
        proc.wait(5)


async def test_cli_a_port_held_by_another_program_fails(tmp_path: Path, other_program: int
                                                         ) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml")
    await r.runner.cleanup()
    code, found, _ = await cli_doctor(tmp_path / "k.sqlite3", "--port", str(other_program))
    f = found["port"]
    assert code == 1 and f["level"] == "fail" and "another program" in said(f)
    assert "--port" in said(f)


async def test_cli_without_a_server_replays_each_room_and_says_start_it(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml")
    await r.server.create_room(load_scenario_file(EXAMPLES / "demo_table.yaml"),
                               secret="other-room-secret", room_id="broken")
    b = await Client.connect(r.url)
    await b.auth("broken", secret="other-room-secret")
    for i in range(3):
        await b.reply_to(await b.act({"kind": "table.counter.add", "counter": "clock",
                                      "delta": 1}, id=f"x{i}"))
    await r.runner.cleanup()
    drop_logged(db, "broken", 2)
    code, found, _ = await cli_doctor(db, "--port", str(free_port()))
    assert code == 1
    assert found["port"]["level"] == "ok" and found["port"]["data"]["running"] is False
    assert found["server"]["level"] == "fail" and "komasync serve" in said(found["server"])
    assert found["public_url"]["level"] == "fail"  # never recorded: the server never ran
    assert found["room:room1"]["level"] == "ok"
    assert found["room:broken"]["level"] == "fail" and "log gap" in said(found["room:broken"])


def _certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key


@pytest.fixture
async def tls_server(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    """komasync over https on loopback: its URL and its certificate."""
    r = await start_server(tmp_path / "tls.sqlite3", EXAMPLES / "demo_table.yaml")
    cert, key = _certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    site = web.TCPSite(r.runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = r.runner.addresses[-1][1]
    yield f"https://127.0.0.1:{port}", cert
    await r.runner.cleanup()


async def test_cli_an_untrusted_certificate_fails_tls(tmp_path: Path,
                                                      tls_server: tuple[str, Path]) -> None:
    url, _ = tls_server
    code, found, _ = await cli_doctor(tmp_path / "tls.sqlite3", "--port", str(free_port()),
                                      "--public-url", url)
    assert code == 1 and found["tls"]["level"] == "fail" and url in said(found["tls"])
    assert "certificate" in said(found["tls"]) and "public_url" not in found


async def test_cli_a_trusted_certificate_is_tls_ok(tmp_path: Path,
                                                   tls_server: tuple[str, Path]) -> None:
    url, cert = tls_server
    _, found, _ = await cli_doctor(tmp_path / "tls.sqlite3", "--port", str(free_port()),
                                   "--public-url", url, env={"SSL_CERT_FILE": str(cert)})
    assert found["public_url"]["level"] == "ok" and found["tls"]["level"] == "ok"


async def test_cli_prints_each_finding_in_japanese_then_english(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml")
    await r.runner.cleanup()
    result = await asyncio.to_thread(
        subprocess.run, [*KOMASYNC, "doctor", *store_args(db), "--port", str(free_port())],
        capture_output=True, text=True, timeout=120)
    lines = result.stdout.splitlines()
    assert result.returncode == 1
    start = lines.index(next(line for line in lines if "komasync サーバーは動いていません" in line))
    assert lines[start].startswith("[要対応 / FAIL]")
    assert "server is not running" in lines[start + 1]
    assert lines[start + 2].strip().startswith("→ `komasync serve`")
    assert lines[start + 3].strip().startswith("→ Start it")
    assert "対応が必要です" in lines[-1] and "need action" in lines[-1]
