"""The Redis log against a real redis-server: same rooms, logs, snapshots and invites as SQLite;
appends fenced by the room's lease and gapless."""

from __future__ import annotations

from pathlib import Path

import pytest
from redis_support import MOVES, RedisProc, needs_redis, played_sqlite, redis_server

from komasync.server.replay import rebuild, state_at
from komasync.server.storage import (
    ActionRecord,
    LeaseHeld,
    LeaseLost,
    LogConflict,
    RedisStorage,
    RoomExists,
    Storage,
    encode,
)

pytestmark = needs_redis
__all__ = ["redis_server"]

def copy_log(sqlite: Storage, red: RedisStorage, room: str, batch: int = 5) -> None:
    """The SQLite log appended to Redis in batches, each snapshot at its own version."""
    row = sqlite.room(room)
    assert row is not None
    red.create_room(room, row.name, "gm-secret", row.initial_state)
    red.claim(room)
    snaps = dict(_snapshots(sqlite, room))
    chunk: list[ActionRecord] = []
    for rec in sqlite.actions(room, 0):
        chunk.append(rec)
        if len(chunk) == batch or rec.version in snaps:
            snap = (rec.version, snaps[rec.version]) if rec.version in snaps else None
            assert red.append(room, [encode(r) for r in chunk], snap) == rec.version
            chunk = []
    if chunk:
        assert red.append(room, [encode(r) for r in chunk]) == chunk[-1].version
    assert len(snaps) >= 3


def _snapshots(sqlite: Storage, room: str) -> list[tuple[int, dict[str, object]]]:
    out = []
    for v in sorted({r.version for r in sqlite.actions(room, 0)}):
        snap = sqlite.latest_snapshot(room, v)
        if snap is not None and snap[0] == v:
            out.append(snap)
    return out


async def test_replay_from_redis_equals_replay_from_sqlite(tmp_path: Path,
                                                           redis_server: RedisProc) -> None:
    db, _ = await played_sqlite(tmp_path)
    sqlite = Storage(db)
    red = RedisStorage(redis_server.url, owner="t1")
    copy_log(sqlite, red, "room1")
    last = len(sqlite.actions("room1", 0))
    assert last == len(MOVES) * 6 + 2
    assert red.last_version("room1") == last
    assert [vars(r) for r in red.actions("room1", 0)] == [vars(r) for r in sqlite.actions("room1", 0)]
    assert red.actions("room1", 7, 9, limit=2)[0].version == 8
    assert len(red.actions("room1", 7, 9, limit=2)) == 2
    assert red.latest_snapshot("room1", 9) == sqlite.latest_snapshot("room1", 9)
    assert red.client_keys("room1") == sqlite.client_keys("room1")
    # Rebuilt the same way the server recovers a room: snapshot + replay, to the end and back.
    assert rebuild(red, "room1").state == rebuild(sqlite, "room1").state  # type: ignore[arg-type]
    assert rebuild(red, "room1").version == last  # type: ignore[arg-type]
    for v in (3, 5, 11):
        assert state_at(red, "room1", v) == state_at(sqlite, "room1", v)  # type: ignore[arg-type]
    sqlite.close()
    red.close()


def test_rooms_secrets_and_invites(redis_server: RedisProc) -> None:
    red = RedisStorage(redis_server.url)
    red.create_room("a", "Room A", "secret-one-long-enough", {"k": 1}, "x.yaml")
    red.create_room("b", "Room B", "secret-two-long-enough", {"k": 2})
    with pytest.raises(RoomExists):
        red.create_room("a", "again", "s", {})
    assert red.room_ids() == ["a", "b"]
    row = red.room("a")
    assert row is not None and row.initial_state == {"k": 1} and row.gm_secret_ok("secret-one-long-enough")
    assert [r["id"] for r in red.rooms_for_secret("secret-one-long-enough")] == ["a"]
    red.set_gm_secret("a", "secret-two-long-enough")
    assert [r["id"] for r in red.rooms_for_secret("secret-two-long-enough")] == ["a", "b"]
    assert red.rooms_for_secret("secret-one-long-enough") == []
    invite_id, token = red.create_invite("a", "player", "alice", "Alice")
    found = red.invite_for_token("a", token)
    assert found is not None and found.id == invite_id and found.player == "alice"
    assert red.invite_for_token("b", token) is None
    assert red.revoke_invite("a", invite_id) and not red.revoke_invite("b", invite_id)
    found = red.invite_for_token("a", token)
    assert found is not None and found.revoked
    summaries = red.room_summaries()
    assert [(s.id, s.scenario, s.version) for s in summaries] == [("a", "x.yaml", 0), ("b", None, 0)]
    assert red.delete_room("a") and red.room("a") is None and red.room_ids() == ["b"]
    assert red.invite_for_token("a", token) is None
    red.close()


def record(version: int, key: str) -> ActionRecord:
    return ActionRecord(version, key, {"role": "gm"}, {"kind": "table.counter.add"}, [], [], [], [], 1.0)


def test_appends_need_the_lease_and_the_next_version(redis_server: RedisProc) -> None:
    a = RedisStorage(redis_server.url, owner="A", ttl_ms=60_000)
    b = RedisStorage(redis_server.url, owner="B", ttl_ms=60_000)
    a.create_room("r", "R", "gm-secret-long-enough", {})
    with pytest.raises(LeaseLost):  # nobody may append without the lease
        a.append("r", [encode(record(1, "c:1"))])
    lease = a.claim("r")
    with pytest.raises(LeaseHeld):
        b.claim("r")
    assert a.append("r", [encode(record(1, "c:1")), encode(record(2, "c:2"))]) == 2
    with pytest.raises(LogConflict):  # a gap
        a.append("r", [encode(record(4, "c:4"))])
    with pytest.raises(LogConflict):  # a version already taken
        a.append("r", [encode(record(2, "c:9"))])
    with pytest.raises(LogConflict):  # a client key already applied
        a.append("r", [encode(record(3, "c:1"))])
    assert a.release("r")
    lease_b = b.claim("r")
    assert lease_b.token > lease.token  # the fence only grows
    a.leases["r"] = lease  # a former owner that never noticed it let go
    with pytest.raises(LeaseLost):
        a.append("r", [encode(record(3, "c:3"))])
    assert b.append("r", [encode(record(3, "c:3"))]) == 3
    assert [r.client_key for r in b.actions("r", 0)] == ["c:1", "c:2", "c:3"]
    a.close()
    b.close()
