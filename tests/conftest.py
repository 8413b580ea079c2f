"""Shared test fixtures: a real komasync server on loopback and real WebSocket clients."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import websockets
from aiohttp import web

from komasync.engine.scenario import load_scenario_file
from komasync.server.app import Komasync, make_app
from komasync.server.connection import Limits

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"
# Test artefacts (screenshots) go to an ignored folder; scripts/screenshots.sh points this at
# docs/screenshots to refresh the README's pictures on purpose.
SHOTS = Path(os.environ.get("KOMASYNC_SCREENSHOTS") or ROOT / "test-artifacts" / "screenshots")
FRAMES: list[dict[str, Any]] = []
# Debian's chromium, started the way toolchain.md says works here (never a downloaded one).
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def stop_process(proc: subprocess.Popen[str]) -> None:
    """SIGTERM a server process, then kill it if it has not ended within 10 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def fixture_path(*parts: str) -> Path:
    """Outside data copied into the repository (tests/fixtures, with its licences)."""
    return FIXTURES.joinpath(*parts)


@pytest.fixture(scope="session")
def protocol_schema() -> dict[str, Any]:
    """The schema exactly as `komasync schema` prints it."""
    out = subprocess.run([sys.executable, "-c", "from komasync.server.cli import main; main()",
                          "schema"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)  # type: ignore[no-any-return]


@pytest.fixture(autouse=True)
def _validate_frames(protocol_schema: dict[str, Any]) -> Iterator[None]:
    """Every frame a test client sent or received must validate against the schema."""
    FRAMES.clear()
    yield
    if not FRAMES:
        return
    validator = jsonschema.Draft202012Validator(protocol_schema)
    for frame in FRAMES:
        if frame.get("_invalid"):
            continue
        errors = list(validator.iter_errors(frame))
        assert not errors, f"frame does not match the protocol schema: {frame}: {errors[0].message}"
    FRAMES.clear()


@dataclass
class Running:
    url: str
    http: str
    server: Komasync
    room: str
    secret: str
    runner: web.AppRunner


async def start_server(db: Path, scenario: Path, limits: Limits | None = None,
                       room_id: str = "room1", secret: str = "gm-secret",
                       seed: str | None = None) -> Running:
    server = Komasync(db, limits or Limits(), durability="normal")
    if await server.storage.call(server.storage.storage.room, room_id) is None:
        await server.create_room(load_scenario_file(scenario), secret=secret, room_id=room_id,
                                 seed=seed)
    runner = web.AppRunner(make_app(server))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    return Running(f"ws://127.0.0.1:{port}/ws", f"http://127.0.0.1:{port}", server, room_id,
                   secret, runner)


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml")
    yield r
    await r.runner.cleanup()


class Client:
    """A real WebSocket client that records every frame for schema validation."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.raw: list[str] = []
        self.version = 0
        self.state: dict[str, Any] = {}
        self._n = 0

    @classmethod
    async def connect(cls, url: str, **kw: Any) -> Client:
        return cls(await websockets.connect(url, max_size=None, **kw))

    async def send(self, msg: dict[str, Any], invalid: bool = False) -> None:
        FRAMES.append({**msg, "_invalid": True} if invalid else msg)
        await self.ws.send(json.dumps(msg))

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        self.raw.append(text)
        msg: dict[str, Any] = json.loads(text)
        FRAMES.append(msg)
        self._track(msg)
        return msg

    def _track(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "snapshot":
            self.state, self.version = msg["state"], msg["version"]
        elif msg["type"] == "change":
            assert msg["from_version"] == self.version, (msg, self.version)
            apply_ops(self.state, msg["ops"])
            self.version = msg["to_version"]

    async def expect(self, type_: str, timeout: float = 5.0, **match: Any) -> dict[str, Any]:
        """Read frames until one of `type_` (matching `match`) arrives."""
        while True:
            msg = await self.recv(timeout)
            if msg["type"] == type_ and all(msg.get(k) == v for k, v in match.items()):
                return msg

    async def auth(self, room: str, **kw: Any) -> dict[str, Any]:
        await self.send({"type": "auth", "room": room, **kw})
        welcome = await self.expect("welcome")
        return welcome

    async def act(self, action: dict[str, Any], **kw: Any) -> str:
        self._n += 1
        msg_id = kw.pop("id", f"a{self._n}")
        await self.send({"type": "action", "id": msg_id, "action": action, **kw})
        return str(msg_id)

    async def reply_to(self, msg_id: str) -> dict[str, Any]:
        while True:
            msg = await self.recv()
            if msg["type"] in ("ack", "reject", "error") and msg.get("id") == msg_id:
                return msg

    async def settle(self, version: int) -> None:
        while self.version < version:
            await self.recv()

    async def close(self) -> None:
        await self.ws.close()


def apply_ops(state: dict[str, Any], ops: list[dict[str, Any]]) -> None:
    for op in ops:
        *parent_path, key = op["path"]
        parent = state
        for seg in parent_path:
            parent = parent[seg]
        if op["op"] == "set":
            parent[key] = op["value"]
        else:
            del parent[key]


async def until(cond: Any, what: str, timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not cond():
            await asyncio.sleep(0.02)
    try:
        await asyncio.wait_for(poll(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for: {what}") from None


async def stalled_reader(r: Running, token: str) -> Client:
    """A client that authenticates, reads its snapshot, then stops reading its socket.
    Small kernel buffers on both ends (as on a slow link) and no compression, so the
    bytes the room sends pile up on the server after a few hundred KiB, not megabytes."""
    host, port = r.url.split("//")[1].split("/")[0].split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    c = await Client.connect(r.url, sock=sock, compression=None)
    await c.auth(r.room, token=token)
    await c.expect("snapshot")
    conn = next(x for x in r.server.rooms[r.room].audiences.conns if x.principal.startswith("inv:"))
    assert conn.transport is not None
    conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                                         16 * 1024)
    c.ws.transport.pause_reading()
    return c


async def gm(r: Running) -> Client:
    c = await Client.connect(r.url)
    await c.auth(r.room, secret=r.secret)
    await c.expect("snapshot")
    return c


async def invite(gm_client: Client, role: str, player: str | None = None) -> str:
    msg = {"type": "invite.create", "id": f"inv-{role}-{player}", "role": role}
    if player:
        msg["player"] = player
    await gm_client.send(msg)
    reply = await gm_client.expect("invite")
    return str(reply["token"])


async def join(r: Running, token: str, since: int | None = None) -> Client:
    c = await Client.connect(r.url)
    kw: dict[str, Any] = {"token": token}
    if since is not None:
        kw["since"] = since
    await c.auth(r.room, **kw)
    if since is None:
        await c.expect("snapshot")
    return c


# -- the server, as `komasync serve --demo` -------------------------------------------------


@dataclass
class Demo:
    url: str
    ws: str
    secret: str
    proc: subprocess.Popen[str]


def serve_demo(db: Path, scenario: Path | None = None, *more: str) -> Demo:
    cmd = [sys.executable, "-c", "import sys; from komasync.server.cli import main; sys.exit(main())",
           "serve", "--demo", "--port", "0", "--db", str(db), "--log", "text", *more]
    if scenario is not None:
        cmd += ["--demo-scenario", str(scenario)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = ws = secret = None
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := re.search(r"(http://\S+/)", line):
            url = m.group(1)
        if m := re.search(r"(ws://\S+/ws)", line):
            ws = m.group(1)
        if m := re.search(r"GM secret / GM秘密鍵: (\S+)", line):
            secret = m.group(1)
            break
    if not (url and ws and secret):
        proc.kill()
        raise AssertionError("komasync serve --demo did not print its URL and GM secret")
    return Demo(url, ws, secret, proc)


def stop(demo: Demo) -> None:
    stop_process(demo.proc)


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    """`komasync serve --demo`: the room `demo` plays examples/tower_defense.yaml."""
    d = serve_demo(tmp_path / "k.sqlite3")
    try:
        yield d
    finally:
        stop(d)


@pytest.fixture
def bases_demo(tmp_path: Path) -> Iterator[Demo]:
    """The demo room with examples/base_battle.yaml (`--demo-scenario`)."""
    d = serve_demo(tmp_path / "b.sqlite3", EXAMPLES / "base_battle.yaml")
    try:
        yield d
    finally:
        stop(d)


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """Debian's chromium under Playwright, for the browser tests (console, player page)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()
