"""A real `redis-server` for the Redis backend's tests, started with komasync's own settings.

Each test gets its own server on a free loopback port with its data in the test's temp dir;
`kill9()` and `start()` restart it on the same append-only file. Tests that need it are
skipped, saying why, only when Debian's redis-server is not installed (scripts/setup.sh
installs it).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from conftest import EXAMPLES, Client, gm, start_server
from komasync.server.connection import Limits
from komasync.server.redis_conf import redis_conf

REDIS_SERVER = shutil.which("redis-server")
needs_redis = pytest.mark.skipif(
    REDIS_SERVER is None, reason="redis-server is not installed (scripts/setup.sh installs Debian's)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisProc:
    """One redis-server process on loopback, its AOF under `directory`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert REDIS_SERVER is not None
        self.proc = subprocess.Popen([REDIS_SERVER, "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        assert self.proc.stdin is not None
        self.proc.stdin.write(redis_conf(self.directory, self.port).encode())
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


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisProc]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed (scripts/setup.sh installs Debian's)")
    data = tmp_path / "redis"
    data.mkdir()
    server = RedisProc(data)
    server.start()
    yield server
    server.stop()


MOVES = [{"x": 3, "y": 2}, {"x": 4, "y": 2}, {"x": 4, "y": 3}, {"x": 5, "y": 3}]


async def played_sqlite(tmp_path: Path) -> tuple[Path, str]:
    """Room `room1` (GM secret `gm-secret`) played over real sockets on SQLite: moves,
    counters, an undo and a player invite (whose token is returned)."""
    db = tmp_path / "played.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml", Limits(snapshot_every=4))
    try:
        g: Client = await gm(r)
        for i, cell in enumerate(MOVES * 3):
            await g.reply_to(await g.act({"kind": "table.move", "piece": "ghoul", "to": cell}))
            await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "doom",
                                          "delta": i % 3 - 1}))
        await g.reply_to(await g.act({"kind": "undo", "to_version": 5, "reason": "test"}))
        await g.reply_to(await g.act({"kind": "table.counter.set", "counter": "clock", "value": 4}))
        await g.send({"type": "invite.create", "id": "i1", "role": "player", "player": "alice"})
        token = str((await g.expect("invite"))["token"])
        await g.close()
    finally:
        await r.runner.cleanup()
    return db, token
