"""Which durable log `komasync` uses: SQLite (the default) or Redis (`--store redis://…`)."""

from __future__ import annotations

from typing import Literal

import redis

from ...engine.errors import Text
from .base import Backend, StorageError
from .redis import DEFAULT_TTL_MS, RedisStorage, redacted
from .sqlite import Storage

__all__ = ["is_redis", "open_backend", "open_redis", "sqlite_path"]

NO_REDIS = Text("Redis {store} に接続できません（{why}）。", "Cannot reach Redis at {store} ({why}).")
BAD_STORE = Text("保存先 {store} が分かりません。"
                 "redis://ホスト:ポート/番号 か sqlite:パス で指定してください。",
                 "Cannot tell what store {store} is; name it as redis://HOST:PORT/DB or sqlite:PATH.")


def is_redis(store: str | None) -> bool:
    return bool(store) and str(store).startswith(("redis://", "rediss://", "unix://"))


def sqlite_path(store: str | None, db: str) -> str:
    """The SQLite file: `db` when no store is named, `PATH` of `sqlite:PATH`; anything else
    is a mistyped store, refused rather than silently replaced by the default file."""
    if not store:
        return db
    if store.startswith("sqlite:"):
        return store.removeprefix("sqlite:").removeprefix("//")
    raise StorageError(BAD_STORE.format(store=store))


def open_redis(url: str, owner: str | None = None, ttl_ms: int = DEFAULT_TTL_MS) -> RedisStorage:
    """A connected Redis log, or one clear error (unreachable, or not a usable URL)."""
    try:
        return RedisStorage(url, owner=owner, ttl_ms=ttl_ms)
    except (redis.RedisError, ValueError) as e:
        raise StorageError(NO_REDIS.format(store=redacted(url), why=e)) from None


def open_backend(store: str | None, db: str, durability: Literal["full", "normal"] = "full",
                 lease_ms: int = DEFAULT_TTL_MS) -> Backend:
    """Redis when `store` is a Redis URL (this process then owns the rooms it loads by lease,
    renewed from a thread); otherwise the SQLite file (`db`, or `sqlite:PATH`)."""
    if is_redis(store):
        redis_store = open_redis(str(store), ttl_ms=lease_ms)
        redis_store.keep_renewing()
        return redis_store
    return Storage(sqlite_path(store, db), durability)
