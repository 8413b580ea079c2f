"""`komasync migrate --from sqlite:PATH --to redis://HOST:PORT` (and back): copy every room.

A room is copied whole — its row (GM secret hash, initial state), its log in order, its
snapshots and invites (token hashes) — and the copy is checked (same last version, same
number of actions). Into Redis the log goes through the fenced append script under a lease,
so versions stay gapless. A room that already exists in the target is left alone and
reported. Stop the servers on the source first: a room still being played would be copied
only up to the moment it was read.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import redis

from ..engine.errors import Text
from .cli_common import CliError, say_error
from .redis_store import RedisStorage, RoomExists
from .storage import ActionRecord, Storage, encode

__all__ = ["RoomCopy", "copy_rooms", "open_store", "run"]

CHUNK = 500
BAD_STORE = Text("保存先 {store} が分かりません。sqlite:パス か redis://ホスト:ポート で指定してください。",
                 "Cannot tell what store {store} is; name it as sqlite:PATH or redis://HOST:PORT.")
NO_REDIS = Text("Redis {store} に接続できません（{why}）。", "Cannot reach Redis at {store} ({why}).")
NO_SOURCE = Text("コピー元 {store} がありません。", "The source {store} does not exist.")
EXISTS = Text("ルーム「{room}」はコピー先に既にあるため、コピーしませんでした。",
              "Room '{room}' already exists in the target; it was not copied.")
MISMATCH = Text("ルーム「{room}」のコピーが一致しません（{why}）。",
                "The copy of room '{room}' does not match ({why}).")

Store = Storage | RedisStorage


@dataclass
class RoomCopy:
    """A room's own row, as stored (the GM secret only as its hash)."""

    id: str
    name: str
    gm_secret_hash: str
    initial_state: bytes
    created_at: float
    scenario_name: str | None


def open_store(spec: str, must_exist: bool) -> Store:
    """`sqlite:PATH` or `redis://…` (CliError for anything else or a missing source)."""
    if spec.startswith(("redis://", "rediss://", "unix://")):
        try:
            return RedisStorage(spec, owner="komasync-migrate")
        except redis.RedisError as e:
            raise CliError(NO_REDIS.format(store=spec, why=e)) from None
    if spec.startswith("sqlite:"):
        path = spec.removeprefix("sqlite:").removeprefix("//")
        if must_exist and not Path(path).exists():
            raise CliError(NO_SOURCE.format(store=spec))
        return Storage(path)
    raise CliError(BAD_STORE.format(store=spec), code=2)


def rooms(store: Store) -> Iterator[RoomCopy]:
    if isinstance(store, RedisStorage):
        for room_id in store.room_ids():
            meta = store.room_meta(room_id)
            if meta is not None:
                yield RoomCopy(**meta)
        return
    for r in store.db.execute("SELECT id, name, gm_secret_hash, initial_state, created_at, "
                              "scenario_name FROM rooms ORDER BY created_at").fetchall():
        yield RoomCopy(r[0], r[1], r[2], bytes(r[3]), float(r[4]), r[5])


def snapshots(store: Store, room_id: str) -> list[tuple[int, bytes]]:
    if isinstance(store, RedisStorage):
        return store.snapshots_raw(room_id)
    rows = store.db.execute("SELECT version, state FROM snapshots WHERE room=? ORDER BY version",
                            (room_id,))
    return [(int(v), bytes(s)) for v, s in rows]


def invites(store: Store, room_id: str) -> list[dict[str, Any]]:
    if isinstance(store, RedisStorage):
        return store.invites_raw(room_id)
    rows = store.db.execute("SELECT id, token_hash, role, player, label, created_at, revoked "
                            "FROM invites WHERE room=? ORDER BY created_at", (room_id,))
    return [{"id": r[0], "token_hash": r[1], "role": r[2], "player": r[3], "label": r[4],
             "created_at": r[5], "revoked": bool(r[6])} for r in rows]


def log_chunks(store: Store, room_id: str) -> Iterator[list[ActionRecord]]:
    after = 0
    while chunk := store.actions(room_id, after, limit=CHUNK):
        yield chunk
        after = chunk[-1].version


def last_version(store: Store, room_id: str) -> tuple[int, int]:
    """(last version, number of actions) of a room's log."""
    n = last = 0
    for chunk in log_chunks(store, room_id):
        n, last = n + len(chunk), chunk[-1].version
    return last, n


def copy_room(src: Store, dst: Store, room: RoomCopy) -> int:
    """Copy one room (RoomExists if the target has it); returns its last version."""
    if isinstance(dst, RedisStorage):
        try:
            _into_redis(src, dst, room)
        except RoomExists:
            raise
        except BaseException:
            dst.delete_room(room.id)  # never leave half a room behind
            raise
    else:
        _into_sqlite(src, dst, room)
    want, got = last_version(src, room.id), last_version(dst, room.id)
    if want != got:
        raise CliError(MISMATCH.format(room=room.id, why=f"source {want}, copy {got}"))
    return got[0]


def _into_redis(src: Store, dst: RedisStorage, room: RoomCopy) -> None:
    dst.put_room(room.id, room.name, room.gm_secret_hash, room.initial_state, room.created_at,
                 room.scenario_name)
    snaps = dict(snapshots(src, room.id))
    dst.claim(room.id)
    try:
        if 0 in snaps:
            dst.put_snapshot(room.id, 0, snaps.pop(0))
        for chunk in log_chunks(src, room.id):
            for piece in _split_at(chunk, snaps):
                dst.append(room.id, [encode(r) for r in piece])
                if piece[-1].version in snaps:  # a snapshot lands when the log reaches it
                    dst.put_snapshot(room.id, piece[-1].version, snaps.pop(piece[-1].version))
        if snaps:
            raise CliError(MISMATCH.format(room=room.id, why=f"snapshots past the log: {sorted(snaps)}"))
        for invite in invites(src, room.id):
            dst.put_invite(room.id, invite)
    finally:
        dst.release(room.id)


def _split_at(chunk: list[ActionRecord], snaps: dict[int, bytes]) -> Iterator[list[ActionRecord]]:
    """The chunk cut after every version that has a snapshot."""
    start = 0
    for i, record in enumerate(chunk):
        if record.version in snaps or i == len(chunk) - 1:
            yield chunk[start:i + 1]
            start = i + 1


def _into_sqlite(src: Store, dst: Storage, room: RoomCopy) -> None:
    db = dst.db
    if db.execute("SELECT 1 FROM rooms WHERE id=?", (room.id,)).fetchone():
        raise RoomExists(room.id)
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("INSERT INTO rooms VALUES (?, ?, ?, ?, ?, ?)",
                   (room.id, room.name, room.gm_secret_hash, room.initial_state, room.created_at,
                    room.scenario_name))
        for chunk in log_chunks(src, room.id):
            db.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [(room.id, *encode(r)) for r in chunk])
        db.executemany("INSERT INTO snapshots VALUES (?, ?, ?)",
                       [(room.id, v, s) for v, s in snapshots(src, room.id)])
        db.executemany("INSERT INTO invites VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       [(i["id"], room.id, i["token_hash"], i["role"], i["player"], i["label"],
                         i["created_at"], int(i["revoked"])) for i in invites(src, room.id)])
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def copy_rooms(src: Store, dst: Store) -> tuple[list[tuple[str, int]], list[str]]:
    """Copy every room; returns ((room, last version) copied, rooms skipped as existing)."""
    done, skipped = [], []
    for room in rooms(src):
        try:
            done.append((room.id, copy_room(src, dst, room)))
        except RoomExists:
            skipped.append(room.id)
    return done, skipped


def run(args: argparse.Namespace) -> int:
    src = open_store(args.source, must_exist=True)
    dst = open_store(args.target, must_exist=False)
    try:
        done, skipped = copy_rooms(src, dst)
    finally:
        src.close()
        dst.close()
    for room_id, version in done:
        print(f"{room_id}\tv{version}\tOK")
    for room_id in skipped:
        say_error(EXISTS.format(room=room_id))
    print(orjson.dumps({"copied": len(done), "skipped": len(skipped)}).decode())
    return 1 if skipped else 0
