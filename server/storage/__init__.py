"""The durable log behind one interface, `Backend`: a SQLite file (`Storage`, the default)
or Redis (`RedisStorage`, `--store redis://…`), opened by `open_backend`, run off the event
loop by `AsyncStorage`. See base.py for what the rest of komasync may ask of a log."""

from .base import (
    ActionRecord,
    ActionRow,
    Backend,
    Batch,
    InviteRow,
    RoomExists,
    RoomRow,
    RoomSummary,
    StorageError,
    StoredRoom,
    encode,
    hash_secret,
    log_chunks,
    new_secret,
)
from .lease import Lease, LeaseHeld, LeaseLost, LogConflict
from .open import is_redis, open_backend, open_redis, sqlite_path
from .redis import DEFAULT_TTL_MS, RedisStorage, redacted
from .sqlite import Storage
from .thread import AsyncStorage

__all__ = ["DEFAULT_TTL_MS", "ActionRecord", "ActionRow", "AsyncStorage", "Backend", "Batch",
           "InviteRow", "Lease", "LeaseHeld", "LeaseLost", "LogConflict", "RedisStorage",
           "RoomExists", "RoomRow", "RoomSummary", "Storage", "StorageError", "StoredRoom",
           "encode", "hash_secret", "is_redis", "log_chunks", "new_secret", "open_backend",
           "open_redis", "redacted", "sqlite_path"]
