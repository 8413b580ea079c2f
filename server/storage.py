"""Durable log in SQLite (WAL): rooms, actions with their results, snapshots, invites.

An action's row (action, actor, ops, rolls, log) is committed before it is acknowledged.
The room writes a batch of actions in one transaction (group commit). Every call here is
blocking; the server runs them on one dedicated thread (`AsyncStorage`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import orjson

from ..engine.errors import Text

__all__ = ["ActionRecord", "ActionRow", "AsyncStorage", "InviteRow", "RoomRow", "RoomSummary",
           "Storage", "StorageError", "encode", "hash_secret", "new_secret"]

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, gm_secret_hash TEXT NOT NULL,
  initial_state BLOB NOT NULL, created_at REAL NOT NULL, scenario_name TEXT
);
CREATE TABLE IF NOT EXISTS actions (
  room TEXT NOT NULL, version INTEGER NOT NULL, client_key TEXT,
  actor BLOB NOT NULL, action BLOB NOT NULL, ops BLOB NOT NULL, rolls BLOB NOT NULL,
  log BLOB NOT NULL, warnings BLOB NOT NULL, at REAL NOT NULL,
  PRIMARY KEY (room, version)
);
CREATE UNIQUE INDEX IF NOT EXISTS actions_client_key ON actions (room, client_key);
CREATE TABLE IF NOT EXISTS snapshots (
  room TEXT NOT NULL, version INTEGER NOT NULL, state BLOB NOT NULL,
  PRIMARY KEY (room, version)
);
CREATE TABLE IF NOT EXISTS invites (
  id TEXT PRIMARY KEY, room TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL, player TEXT, label TEXT NOT NULL, created_at REAL NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0
);
"""


NOT_SQLITE = Text("{path} はSQLiteデータベースとして読めません（{why}）。"
                  "別のファイルを --db で指定してください。",
                  "{path} cannot be read as an SQLite database ({why}); name another file with --db.")
FOREIGN = Text("{path} は komasync のデータベースではありません（別のアプリのデータ）。"
               "別のファイルを --db で指定してください。",
               "{path} is not a komasync database (it holds another program's data); "
               "name another file with --db.")


class StorageError(Exception):
    """The database file cannot be used; `text` says why in Japanese and English."""

    def __init__(self, text: Text) -> None:
        super().__init__(text.en)
        self.text = text


def new_secret() -> str:
    return secrets.token_urlsafe(24)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class RoomRow:
    id: str
    name: str
    gm_secret_hash: str
    initial_state: dict[str, Any]
    created_at: float

    def gm_secret_ok(self, secret: str) -> bool:
        return hmac.compare_digest(self.gm_secret_hash, hash_secret(secret))


@dataclass(frozen=True)
class InviteRow:
    id: str
    room: str
    role: Literal["player", "bridge", "observer"]
    player: str | None
    label: str
    created_at: float
    revoked: bool


@dataclass(frozen=True)
class RoomSummary:
    """A room as `komasync room list` shows it."""

    id: str
    name: str
    scenario: str | None
    created_at: float
    version: int


@dataclass
class ActionRecord:
    """One logged action with everything it produced."""

    version: int
    client_key: str | None
    actor: dict[str, Any]
    action: dict[str, Any]
    ops: list[dict[str, Any]]
    rolls: list[dict[str, Any]]
    log: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
    at: float


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value)


ActionRow = tuple[int, str | None, bytes, bytes, bytes, bytes, bytes, bytes, float]
"""An `ActionRecord` as the log stores it (serialised before the action counts as applied)."""


def encode(record: ActionRecord) -> ActionRow:
    """The record serialised for `Storage.append`; raises if any part cannot be written."""
    r = record
    return (r.version, r.client_key, _dumps(r.actor), _dumps(r.action), _dumps(r.ops),
            _dumps(r.rolls), _dumps(r.log), _dumps(r.warnings), r.at)


class Storage:
    """Blocking SQLite access; one instance per thread that uses it."""

    def __init__(self, path: str | Path, durability: Literal["full", "normal"] = "full") -> None:
        self.path = str(path)
        try:
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            _refuse_foreign(self.db, self.path)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute(f"PRAGMA synchronous={durability.upper()}")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.db.executescript(SCHEMA)
        except sqlite3.Error as e:
            raise StorageError(NOT_SQLITE.format(path=self.path, why=e)) from e

    def close(self) -> None:
        self.db.close()

    # -- rooms ------------------------------------------------------------------------
    def create_room(self, room_id: str, name: str, secret: str, state: dict[str, Any],
                    scenario_name: str | None = None) -> None:
        self.db.execute(
            "INSERT INTO rooms VALUES (?, ?, ?, ?, ?, ?)",
            (room_id, name, hash_secret(secret), _dumps(state), time.time(), scenario_name),
        )

    def set_gm_secret(self, room_id: str, secret: str) -> None:
        self.db.execute("UPDATE rooms SET gm_secret_hash=? WHERE id=?",
                        (hash_secret(secret), room_id))

    def room(self, room_id: str) -> RoomRow | None:
        row = self.db.execute(
            "SELECT id, name, gm_secret_hash, initial_state, created_at FROM rooms WHERE id=?",
            (room_id,),
        ).fetchone()
        if row is None:
            return None
        return RoomRow(row[0], row[1], row[2], orjson.loads(row[3]), row[4])

    def room_ids(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM rooms ORDER BY created_at")]

    def room_summaries(self) -> list[RoomSummary]:
        rows = self.db.execute(
            "SELECT r.id, r.name, r.scenario_name, r.created_at, "
            "(SELECT COALESCE(MAX(version), 0) FROM actions a WHERE a.room = r.id) "
            "FROM rooms r ORDER BY r.created_at")
        return [RoomSummary(r[0], r[1], r[2], r[3], int(r[4])) for r in rows]

    def delete_room(self, room_id: str) -> bool:
        """Remove a room with its log, snapshots and invites."""
        with self._tx():
            for table in ("actions", "snapshots", "invites"):
                self.db.execute(f"DELETE FROM {table} WHERE room=?", (room_id,))
            return self.db.execute("DELETE FROM rooms WHERE id=?", (room_id,)).rowcount == 1

    def reset_room(self, room_id: str) -> int:
        """Back to the scenario's initial state: the log and snapshots go, invites stay."""
        with self._tx():
            gone = self.db.execute("DELETE FROM actions WHERE room=?", (room_id,)).rowcount
            self.db.execute("DELETE FROM snapshots WHERE room=?", (room_id,))
        return int(gone)

    def rooms_for_secret(self, secret: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, name, created_at FROM rooms WHERE gm_secret_hash=? ORDER BY created_at",
            (hash_secret(secret),),
        )
        return [{"id": r[0], "name": r[1], "created_at": r[2]} for r in rows]

    # -- the log ----------------------------------------------------------------------
    def append(self, room_id: str, rows: list[ActionRow],
               snapshot: tuple[int, dict[str, Any]] | None = None) -> None:
        """Commit a batch of actions (and maybe a snapshot) in one transaction."""
        with self._tx():
            self.db.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                [(room_id, *row) for row in rows])
            if snapshot is not None:
                self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)",
                                (room_id, snapshot[0], _dumps(snapshot[1])))

    def actions(self, room_id: str, after: int, upto: int | None = None,
                limit: int | None = None) -> list[ActionRecord]:
        sql = ("SELECT version, client_key, actor, action, ops, rolls, log, warnings, at "
               "FROM actions WHERE room=? AND version>?")
        args: list[Any] = [room_id, after]
        if upto is not None:
            sql += " AND version<=?"
            args.append(upto)
        sql += " ORDER BY version"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [_record(r) for r in self.db.execute(sql, args)]

    def client_keys(self, room_id: str) -> dict[str, int]:
        """Every client action id the room has applied, with its version (retries)."""
        rows = self.db.execute(
            "SELECT client_key, version FROM actions WHERE room=? AND client_key IS NOT NULL",
            (room_id,))
        return {k: int(v) for k, v in rows}

    def latest_snapshot(self, room_id: str, upto: int | None = None
                        ) -> tuple[int, dict[str, Any]] | None:
        sql = "SELECT version, state FROM snapshots WHERE room=?"
        args: list[Any] = [room_id]
        if upto is not None:
            sql += " AND version<=?"
            args.append(upto)
        row = self.db.execute(sql + " ORDER BY version DESC LIMIT 1", args).fetchone()
        return None if row is None else (int(row[0]), orjson.loads(row[1]))

    def create_invite(self, room_id: str, role: str, player: str | None,
                      label: str) -> tuple[str, str]:
        """A new invite; returns (invite id, token). Only the token's hash is kept."""
        token, invite_id = new_secret(), "i" + secrets.token_hex(6)
        self.db.execute(
            "INSERT INTO invites VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
            (invite_id, room_id, hash_secret(token), role, player, label, time.time()),
        )
        return invite_id, token

    def revoke_invite(self, room_id: str, invite_id: str) -> bool:
        cur = self.db.execute("UPDATE invites SET revoked=1 WHERE id=? AND room=?",
                              (invite_id, room_id))
        return cur.rowcount == 1

    def invite_for_token(self, room_id: str, token: str) -> InviteRow | None:
        row = self.db.execute(
            "SELECT id, room, role, player, label, created_at, revoked FROM invites "
            "WHERE token_hash=? AND room=?", (hash_secret(token), room_id)).fetchone()
        return None if row is None else _invite(row)

    def invites(self, room_id: str) -> list[InviteRow]:
        rows = self.db.execute(
            "SELECT id, room, role, player, label, created_at, revoked FROM invites "
            "WHERE room=? ORDER BY created_at", (room_id,))
        return [_invite(r) for r in rows]

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)


def _refuse_foreign(db: sqlite3.Connection, path: str) -> None:
    """A database that already holds tables, none of them ours, is another program's."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if tables and "rooms" not in tables:
        raise StorageError(FOREIGN.format(path=path))


def _record(r: Any) -> ActionRecord:
    return ActionRecord(
        version=r[0], client_key=r[1], actor=orjson.loads(r[2]), action=orjson.loads(r[3]),
        ops=orjson.loads(r[4]), rolls=orjson.loads(r[5]), log=orjson.loads(r[6]),
        warnings=orjson.loads(r[7]), at=r[8])


def _invite(r: Any) -> InviteRow:
    return InviteRow(id=r[0], room=r[1], role=r[2], player=r[3], label=r[4], created_at=r[5],
                     revoked=bool(r[6]))


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


class AsyncStorage:
    """Runs every `Storage` call on one thread, so the event loop never blocks on disk."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="komasync-db")

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, fn, *args)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.storage.close()


