"""Which durable log `komasync serve` uses: SQLite (the default) or Redis (`--store redis://…`)."""

from __future__ import annotations

from typing import Literal

from .redis_store import DEFAULT_TTL_MS, RedisStorage
from .storage import Storage

__all__ = ["Backend", "is_redis", "open_backend"]

Backend = Storage | RedisStorage


def is_redis(store: str | None) -> bool:
    return bool(store) and str(store).startswith(("redis://", "rediss://", "unix://"))


def open_backend(store: str | None, db: str, durability: Literal["full", "normal"] = "full",
                 lease_ms: int = DEFAULT_TTL_MS) -> Backend:
    """Redis when `store` is a Redis URL (this process then owns the rooms it loads by lease,
    renewed from a thread); otherwise the SQLite file `db`."""
    if is_redis(store):
        redis_store = RedisStorage(str(store), ttl_ms=lease_ms)
        redis_store.keep_renewing()
        return redis_store
    return Storage(db, durability)
