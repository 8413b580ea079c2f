"""Shared test fixtures: a real komasync server on loopback and real WebSocket clients.

`KOMASYNC_TEST_STORE=redis` runs the servers on Redis instead of SQLite: one real
redis-server per session (komasync's own `redis-conf` settings, a free loopback port, a temp
dir), each test database path mapped to a fresh Redis DB number, and only the tests that
start a server collected (see `uses_store`). `scripts/test.sh` runs both passes.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import redis
import websockets
from aiohttp import web

from komasync.engine.scenario import load_scenario_file
from komasync.server.app import Komasync, make_app
from komasync.server.connection import Limits
from komasync.server.storage import RedisStorage, Storage, open_backend
from komasync.server.storage.redis_conf import redis_conf

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
REDIS_SERVER = shutil.which("redis-server")
# Which store the servers under test keep their log in: "sqlite" (the default) or "redis".
TEST_STORE = os.environ.get("KOMASYNC_TEST_STORE", "sqlite").strip().lower() or "sqlite"
ON_REDIS = TEST_STORE == "redis"
# Redis DB numbers the session's redis-server offers: one per test database path.
REDIS_DATABASES = 10_000


KOMASYNC = [sys.executable, "-c", "from komasync.server.cli import main; raise SystemExit(main())"]
"""The `komasync` command line, run by this interpreter (whatever is on PATH)."""


def serve_process(*args: str, stderr: Any = subprocess.DEVNULL,
                  env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], str]:
    """`komasync serve --port 0 ARGS` started: the process and the ws:// URL it printed."""
    proc = subprocess.Popen([*KOMASYNC, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                            stderr=stderr, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := re.search(r"ws://[\d.]+:\d+/ws", line):
            return proc, m.group(0)
    raise RuntimeError("komasync serve did not print its URL")


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


# -- the store the servers under test use: SQLite files, or one Redis for the session ------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """In the child: SIGKILL when the test run that started it dies (no stray redis-server)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class RedisProc:
    """One redis-server process on loopback, started with `komasync redis-conf`'s settings,
    its AOF under `directory`; `kill9()` and `start()` restart it on the same file."""

    def __init__(self, directory: Path, extra: str = "") -> None:
        self.directory = directory
        self.port = free_port()
        self.extra = extra  # lines after ours (the test session asks for more DB numbers)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return self.url_for(0)

    def url_for(self, number: int) -> str:
        return f"redis://127.0.0.1:{self.port}/{number}"

    def start(self) -> None:
        assert REDIS_SERVER is not None
        self.proc = subprocess.Popen([REDIS_SERVER, "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=_die_with_parent)
        assert self.proc.stdin is not None
        self.proc.stdin.write((redis_conf(self.directory, self.port) + self.extra).encode())
        self.proc.stdin.close()
        client = redis.Redis(port=self.port, socket_timeout=2)
        for _ in range(500):  # loading a long AOF may take a while
            try:
                if client.ping():
                    client.close()
                    return
            except (redis.ConnectionError, redis.BusyLoadingError):
                time.sleep(0.02)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()


class SessionRedis:
    """The Redis pass's one redis-server: each test database path gets its own DB number,
    emptied when its test ends, so no test sees another's rooms."""

    def __init__(self, directory: Path) -> None:
        self.server = RedisProc(directory, f"databases {REDIS_DATABASES}\n")
        self.numbers: dict[str, int] = {}
        self.used: list[int] = []  # by the running test

    def url(self, db: str | Path) -> str:
        key = str(Path(db).resolve()) if str(db) != ":memory:" else f":memory:{len(self.numbers)}"
        if key not in self.numbers:
            if len(self.numbers) + 1 >= REDIS_DATABASES:
                raise RuntimeError(f"the test session used all {REDIS_DATABASES} Redis DBs")
            self.numbers[key] = len(self.numbers) + 1  # DB 0 stays empty
            self.used.append(self.numbers[key])
        return self.server.url_for(self.numbers[key])

    def flush_used(self) -> None:
        if not self.used:
            return
        for number in self.used:
            client = redis.Redis(port=self.server.port, db=number, socket_timeout=10)
            client.flushdb(asynchronous=True)
            client.close()
        self.used.clear()


SESSION_REDIS: SessionRedis | None = None


def store_url(db: str | Path) -> str | None:
    """The `--store` URL for test database `db` on the Redis pass; None on SQLite."""
    if SESSION_REDIS is None:
        return None
    return SESSION_REDIS.url(db)


def store_args(db: str | Path) -> list[str]:
    """`komasync` flags naming the store of test database `db` (`--db`, plus `--store` on
    the Redis pass): the same room whichever pass runs."""
    url = store_url(db)
    return ["--db", str(db), *(["--store", url] if url else [])]


def unthrottled(**more: Any) -> Limits:
    """Limits with every message rate lifted (per socket and per invite): for tests that
    send faster than a person would; the other limits as given or their defaults."""
    lots = 1_000_000
    return Limits(rate=lots, burst=lots, invite_rate=lots, invite_burst=lots, bridge_rate=lots,
                  bridge_burst=lots, **more)


def make_server(db: str | Path, limits: Limits | None = None, durability: str = "normal"
                ) -> Komasync:
    """A `Komasync` on the test store: SQLite file `db`, or its Redis DB on the Redis pass."""
    backend = open_backend(store_url(db), str(db), durability)  # type: ignore[arg-type]
    return Komasync(db, limits or Limits(), durability=durability, storage=backend)


def open_store(db: str | Path) -> Storage | RedisStorage:
    """The test store of `db` as the tests look into it (no lease is taken)."""
    url = store_url(db)
    return RedisStorage(url, owner="tests") if url else Storage(db)


def logged_versions(db: str | Path, room: str) -> list[int]:
    """The versions room `room` has in the durable log, in order."""
    store = open_store(db)
    try:
        return [r.version for r in store.actions(room, 0)]
    finally:
        store.close()


def drop_logged(db: str | Path, room: str, version: int) -> None:
    """Remove one logged action behind the server's back (a damaged log)."""
    store = open_store(db)
    try:
        if isinstance(store, RedisStorage):
            store.client.xdel(store.key(room, "log"), f"{version}-0")
        else:  # autocommit
            store.db.execute("DELETE FROM actions WHERE room=? AND version=?", (room, version))
    finally:
        store.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only(reason): checks the SQLite file itself; "
                                       "not collected on the Redis pass")
    config.addinivalue_line("markers", "uses_store: starts a komasync server (runs on both "
                                       "passes even where `uses_store` cannot see it)")
    if TEST_STORE not in ("sqlite", "redis"):
        raise pytest.UsageError(f"KOMASYNC_TEST_STORE must be sqlite or redis, not {TEST_STORE!r}")
    if ON_REDIS and REDIS_SERVER is None:
        raise pytest.UsageError("KOMASYNC_TEST_STORE=redis needs redis-server "
                                "(scripts/setup.sh installs Debian's)")


def pytest_report_header(config: pytest.Config) -> str:
    return f"komasync test store: {TEST_STORE}"


# Conftest's ways of starting a server; a module that uses one (or one of the fixtures
# below) starts a server. Filled in at the end of this file.
SERVER_STARTERS: set[Any] = set()
SERVER_FIXTURES = {"running", "demo", "bases_demo"}


def uses_store(item: pytest.Item) -> bool:
    """Whether a test starts a komasync server, so its outcome depends on the store: it
    requests a server fixture, is marked `uses_store`, or its code or one of its fixtures
    calls one of conftest's server starters, directly or through the tests' own helpers
    (functions and classes under tests/, followed through the names they use)."""
    if item.get_closest_marker("uses_store") or SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    seen: set[int] = set()
    info = getattr(item, "_fixtureinfo", None)
    fixtures = [d.func for defs in (info.name2fixturedefs.values() if info else ()) for d in defs]
    return any(_reaches_starter(fn, seen) for fn in [getattr(item, "function", None), *fixtures])


def _reaches_starter(value: Any, seen: set[int]) -> bool:
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, type):
        return _is_ours(value) and any(_reaches_starter(v, seen) for v in vars(value).values())
    fn = getattr(value, "__func__", value)  # methods, static and class methods
    code, names = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or names is None or not _is_ours(fn):
        return False
    return _code_reaches(code, names, seen)


def _code_reaches(code: Any, names: dict[str, Any], seen: set[int]) -> bool:
    if "conftest" in code.co_names:  # `from conftest import …` inside the function
        names = {**globals(), **names}
    for name in code.co_names:
        value = names.get(name)
        if _is_starter(value) or _reaches_starter(value, seen):
            return True
    return any(_code_reaches(c, names, seen) for c in code.co_consts if hasattr(c, "co_names"))


def _is_ours(value: Any) -> bool:
    """Test code (under tests/, conftest's starters aside), not komasync's or a library's."""
    try:
        source = Path(getattr(value, "__code__", None).co_filename if hasattr(value, "__code__")
                      else sys.modules[value.__module__].__file__ or "")
    except (KeyError, AttributeError, TypeError):
        return False
    return ROOT / "tests" in source.parents


def _is_starter(value: Any) -> bool:
    try:
        return value in SERVER_STARTERS
    except TypeError:  # unhashable
        return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The Redis pass keeps only the tests whose outcome depends on the store: those that
    start a server, minus the SQLite-only ones and those that bring their own redis-server
    (tests/server/test_redis_*, already run on the SQLite pass)."""
    if not ON_REDIS:
        return
    keep, drop = [], []
    for item in items:
        own_redis = "redis_server" in getattr(item, "fixturenames", ())
        if uses_store(item) and not item.get_closest_marker("sqlite_only") and not own_redis:
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def _session_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """On the Redis pass: the session's redis-server, killed at the end."""
    global SESSION_REDIS
    if not ON_REDIS:
        yield
        return
    SESSION_REDIS = SessionRedis(tmp_path_factory.mktemp("redis"))
    SESSION_REDIS.server.start()
    try:
        yield
    finally:
        SESSION_REDIS.server.stop()
        SESSION_REDIS = None


@pytest.fixture(autouse=True)
def _fresh_store() -> Iterator[None]:
    """Each test's Redis DBs are emptied when it ends (its servers are stopped by then)."""
    yield
    if SESSION_REDIS is not None:
        SESSION_REDIS.flush_used()


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
    server = make_server(db, limits)
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

    async def reply(self, action: dict[str, Any]) -> dict[str, Any]:
        """Send `action` and wait for its ack, reject or error."""
        return await self.reply_to(await self.act(action))

    async def closed(self) -> list[dict[str, Any]]:
        """Every frame until the server closes the socket."""
        frames = []
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                frames.append(await self.recv())
        return frames

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
           "serve", "--demo", "--port", "0", *store_args(db), "--log", "text", *more]
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


SERVER_STARTERS.update({start_server, serve_demo, make_server, store_args, store_url})
