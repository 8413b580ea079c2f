"""`komasync migrate` SQLite → Redis → SQLite against a real redis-server: rooms, logs,
snapshots and invites arrive whole; the room plays on from the copy."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from redis_support import RedisProc, needs_redis, played_sqlite, redis_server

from conftest import EXAMPLES, KOMASYNC, Client, start_server
from komasync.server.gm_key import ensure_gm_key, gm_key_ok, record_address
from komasync.server.replay import rebuild
from komasync.server.storage import RedisStorage, Storage

pytestmark = needs_redis
__all__ = ["redis_server"]



def migrate(source: str, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOMASYNC, "migrate", "--from", source, "--to", target],
                          capture_output=True, text=True, timeout=120)


def rows(db: Path) -> dict[str, list[Any]]:
    """Every table of a komasync SQLite file, in a stable order."""
    con = sqlite3.connect(db)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                for t in ("rooms", "actions", "snapshots", "invites")}
    finally:
        con.close()


async def test_migrate_sqlite_to_redis_and_back(tmp_path: Path, redis_server: RedisProc) -> None:
    db, token = await played_sqlite(tmp_path)
    extra = Storage(db)  # a second room with nothing played yet
    extra.create_room("quiet", "Quiet", "another-gm-secret-long", {"x": 1}, "quiet.yaml")
    key = ensure_gm_key(extra)  # the GM's one sign-in for every room
    record_address(extra, "https://table.example.jp")
    extra.close()

    there = migrate(f"sqlite:{db}", redis_server.url)
    assert there.returncode == 0, there.stderr
    assert '{"copied":2,"skipped":0}' in there.stdout
    red, sqlite = RedisStorage(redis_server.url), Storage(db)
    assert red.room_ids() == sqlite.room_ids() == ["room1", "quiet"]
    assert [vars(r) for r in red.actions("room1", 0)] == [vars(r) for r in sqlite.actions("room1", 0)]
    assert red.snapshots_raw("room1") and len(red.snapshots_raw("room1")) == len(
        rows(db)["snapshots"])
    assert rebuild(red, "room1").state == rebuild(sqlite, "room1").state  # type: ignore[arg-type]
    invite = red.invite_for_token("room1", token)  # the player's link still opens the room
    assert invite is not None and invite.player == "alice"
    row = red.room("room1")
    assert row is not None and row.gm_secret_ok("gm-secret")
    assert red.holder("room1") is None  # migrate let go of the lease it wrote under
    assert gm_key_ok(red, key) and red.setting("public_url") == "https://table.example.jp"
    sqlite.close()

    again = migrate(f"sqlite:{db}", redis_server.url)  # nothing is overwritten
    assert again.returncode == 1 and '{"copied":0,"skipped":2}' in again.stdout
    assert "既にあるため" in again.stderr and "already exists" in again.stderr

    back = tmp_path / "back.sqlite3"
    home = migrate(redis_server.url, f"sqlite:{back}")
    assert home.returncode == 0, home.stderr
    assert rows(back) == rows(db)
    assert gm_key_ok(Storage(back), key)  # the GM key made the round trip too

    # The copy that made the round trip serves the room: the GM and the player's invite.
    r = await start_server(back, EXAMPLES / "demo_table.yaml")
    try:
        g = await Client.connect(r.url)
        await g.auth("room1", secret="gm-secret")
        snap = await g.expect("snapshot")
        assert snap["version"] == red.last_version("room1")
        assert snap["state"]["table"]["pieces"]["ghoul"] == rebuild(
            red, "room1").state.model_dump(mode="json")["table"]["pieces"]["ghoul"]  # type: ignore[arg-type]
        p = await Client.connect(r.url)
        await p.auth("room1", token=token)
        await p.expect("snapshot")
        await g.close()
        await p.close()
    finally:
        await r.runner.cleanup()
    red.close()


def test_migrate_keeps_a_targets_own_gm_key(tmp_path: Path) -> None:
    """GM-KEY: a target with its own key keeps it and says so; the source's key opens nothing there."""
    src, dst = Storage(tmp_path / "a.sqlite3"), Storage(tmp_path / "b.sqlite3")
    src.create_room("r1", "R1", "a-gm-secret-long-enough", {"x": 1}, "r1.yaml")
    theirs, ours = ensure_gm_key(src), ensure_gm_key(dst)
    src.close()
    dst.close()
    done = migrate(f"sqlite:{tmp_path / 'a.sqlite3'}", f"sqlite:{tmp_path / 'b.sqlite3'}")
    assert done.returncode == 0, done.stderr
    assert "別のGMキー" in done.stderr and "GM key of its own" in done.stderr
    back = Storage(tmp_path / "b.sqlite3")
    assert gm_key_ok(back, ours) and not gm_key_ok(back, theirs)
    assert back.room_ids() == ["r1"]
    back.close()


def test_migrate_refuses_unknown_and_missing_stores(tmp_path: Path) -> None:
    bad = migrate("mysql://x", "sqlite:y")
    assert bad.returncode == 2 and "sqlite:" in bad.stderr and "redis://" in bad.stderr
    missing = migrate(f"sqlite:{tmp_path / 'none.sqlite3'}", "sqlite:y")
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    assert not (tmp_path / "none.sqlite3").exists()
