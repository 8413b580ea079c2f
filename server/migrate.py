"""`komasync migrate --from sqlite:PATH --to redis://HOST:PORT` (and back): copy every room.

A room is copied whole — its row (GM secret hash, initial state), its log in order, its
snapshots and invites (token hashes) — and the copy is checked (same last version, same
number of actions). The server's GM key and recorded address go too, so the GM's one
sign-in still opens every room; a target that has its own GM key keeps it (reported).
Into Redis the log goes through the fenced append script under a lease, so versions stay
gapless. A room that already exists in the target is left alone and
reported. Stop the servers on the source first: a room still being played would be copied
only up to the moment it was read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson
import redis

from ..engine.errors import Text
from .cli_common import CliError, say_error
from .gm_key import GM_KEY, PUBLIC_ADDRESS
from .storage import Backend, RedisStorage, RoomExists, Storage, StoredRoom, log_chunks
from .storage.base import MISMATCH

__all__ = ["copy_rooms", "copy_settings", "open_store", "run"]

BAD_STORE = Text("保存先 {store} が分かりません。sqlite:パス か redis://ホスト:ポート で指定してください。",
                 "Cannot tell what store {store} is; name it as sqlite:PATH or redis://HOST:PORT.")
NO_REDIS = Text("Redis {store} に接続できません（{why}）。", "Cannot reach Redis at {store} ({why}).")
NO_SOURCE = Text("コピー元 {store} がありません。", "The source {store} does not exist.")
EXISTS = Text("ルーム「{room}」はコピー先に既にあるため、コピーしませんでした。",
              "Room '{room}' already exists in the target; it was not copied.")

KEY_KEPT = Text("コピー先には別のGMキーがあるため、コピー先のGMキーをそのまま使います"
                "（`komasync gm-key` で表示できます）。",
                "The target has a GM key of its own; it is kept (`komasync gm-key` shows it).")


def open_store(spec: str, must_exist: bool) -> Backend:
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


def last_version(store: Backend, room_id: str) -> tuple[int, int]:
    """(last version, number of actions) of a room's log."""
    n = last = 0
    for chunk in log_chunks(store, room_id):
        n, last = n + len(chunk), chunk[-1].version
    return last, n


def copy_room(src: Backend, dst: Backend, room: StoredRoom) -> int:
    """Copy one room (RoomExists if the target has it); returns its last version."""
    dst.put_copy(room, src)
    want, got = last_version(src, room.id), last_version(dst, room.id)
    if want != got:
        raise CliError(MISMATCH.format(room=room.id, why=f"source {want}, copy {got}"))
    return got[0]


def copy_rooms(src: Backend, dst: Backend) -> tuple[list[tuple[str, int]], list[str]]:
    """Copy every room; returns ((room, last version) copied, rooms skipped as existing)."""
    done, skipped = [], []
    for room in src.stored_rooms():
        try:
            done.append((room.id, copy_room(src, dst, room)))
        except RoomExists:
            skipped.append(room.id)
    return done, skipped


def copy_settings(src: Backend, dst: Backend) -> bool:
    """The server's GM key and public address into a target that has none; False if the
    target's own, different GM key was kept."""
    if (address := src.setting(PUBLIC_ADDRESS)) is not None and dst.setting(PUBLIC_ADDRESS) is None:
        dst.put_setting(PUBLIC_ADDRESS, address)
    key = src.setting(GM_KEY)
    return key is None or dst.first_setting(GM_KEY, key) == key


def run(args: argparse.Namespace) -> int:
    src = open_store(args.source, must_exist=True)
    dst = open_store(args.target, must_exist=False)
    try:
        done, skipped = copy_rooms(src, dst)
        same_key = copy_settings(src, dst)
    finally:
        src.close()
        dst.close()
    for room_id, version in done:
        print(f"{room_id}\tv{version}\tOK")
    for room_id in skipped:
        say_error(EXISTS.format(room=room_id))
    if not same_key:
        say_error(KEY_KEPT)
    print(orjson.dumps({"copied": len(done), "skipped": len(skipped)}).decode())
    return 1 if skipped else 0
