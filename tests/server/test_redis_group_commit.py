"""The Redis log's group commit: several rooms' batches pipelined in one round trip, each
all or nothing, a refused one (lease lost, not the next version) never blocking the others."""

from __future__ import annotations

from redis_support import RedisProc, needs_redis, redis_server

from komasync.server.storage import ActionRecord, LeaseLost, LogConflict, RedisStorage, encode

pytestmark = needs_redis
__all__ = ["redis_server"]


def row(version: int, key: str) -> tuple[object, ...]:
    rec = ActionRecord(version, key, {"role": "gm"}, {"kind": "table.counter.add"}, [], [], [], [], 1.0)
    return encode(rec)


def test_a_group_appends_each_room_alone(redis_server: RedisProc) -> None:
    a = RedisStorage(redis_server.url, owner="A", ttl_ms=60_000)
    b = RedisStorage(redis_server.url, owner="B", ttl_ms=60_000)
    for room in ("ok", "taken", "gap", "unowned"):
        a.create_room(room, room, "gm-secret-long-enough", {})
    for room in ("ok", "taken", "gap"):
        a.claim(room)
    lost = a.leases["taken"]
    assert a.release("taken")
    b.claim("taken")
    a.leases["taken"] = lost  # a former owner that has not noticed yet
    results = a.append_group([
        ("ok", [row(1, "c:1"), row(2, "c:2")], None),  # type: ignore[list-item]
        ("taken", [row(1, "c:1")], None),  # type: ignore[list-item]
        ("gap", [row(2, "c:2")], None),  # type: ignore[list-item]
        ("unowned", [row(1, "c:1")], None),  # type: ignore[list-item]
        ("ok", [row(3, "c:3")], (3, b'{"snap": 3}')),  # type: ignore[list-item]
    ])
    assert results[0] is None and results[4] is None
    assert isinstance(results[1], LeaseLost) and isinstance(results[3], LeaseLost)
    assert isinstance(results[2], LogConflict)
    assert [r.version for r in a.actions("ok", 0)] == [1, 2, 3]
    assert a.latest_snapshot("ok") == (3, {"snap": 3})
    assert all(a.actions(room, 0) == [] for room in ("taken", "gap", "unowned"))
    assert a.append_group([("gap", [row(1, "c:1")], None)]) == [None]  # type: ignore[list-item]
    a.close()
    b.close()
