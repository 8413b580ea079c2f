"""A real `redis-server` for the Redis backend's tests, started with komasync's own settings
(`RedisProc` in conftest, which the Redis pass of the whole suite shares).

Each test gets its own server on a free loopback port with its data in the test's temp dir;
`kill9()` and `start()` restart it on the same append-only file. Tests that need it are
skipped, saying why, only when Debian's redis-server is not installed (scripts/setup.sh
installs it).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import EXAMPLES, REDIS_SERVER, Client, RedisProc, gm, start_server
from komasync.server.connection import Limits

needs_redis = pytest.mark.skipif(
    REDIS_SERVER is None, reason="redis-server is not installed (scripts/setup.sh installs Debian's)")


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
