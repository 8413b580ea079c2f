"""The test harness runs servers on the store `KOMASYNC_TEST_STORE` names (scripts/test.sh
runs both passes): on the Redis pass each test database is its own Redis DB."""

from __future__ import annotations

from pathlib import Path

import redis

from conftest import ON_REDIS, Running, store_args, store_url
from komasync.server.storage import RedisStorage, Storage


async def test_servers_use_the_pass_store_and_each_test_db_is_its_own(
        running: Running, tmp_path: Path) -> None:
    store = running.server.storage.storage
    assert isinstance(store, RedisStorage if ON_REDIS else Storage)
    assert running.room in store.room_ids()
    other = tmp_path / "other.sqlite3"
    if not ON_REDIS:
        assert store_url(other) is None and store_args(other) == ["--db", str(other)]
        return
    url = store_url(other)
    own = int(store.client.connection_pool.connection_kwargs["db"])
    assert url is not None and own > 0 and int(url.rsplit("/", 1)[1]) not in (0, own)
    assert store_url(other) == url  # the same path is the same store (a restarted server)
    assert store_args(other)[-2:] == ["--store", url]
    elsewhere = redis.Redis.from_url(url)
    assert elsewhere.dbsize() == 0  # another test DB does not see this room
    elsewhere.close()
