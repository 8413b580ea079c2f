"""Durable log in SQLite (WAL): rooms, actions with their results, snapshots, invites.

An action's row (action, actor, ops, rolls, log) is committed before it is acknowledged.
Group commit: whatever batches the rooms of the process have ready are written in ONE
transaction with one commit (one fsync at `durability=full`), each room's part under its
own savepoint so one room's failure never fails another's. Every call here is blocking;
the server runs them on one dedicated thread (`AsyncStorage`).

Durability (`PRAGMA synchronous`, see docs/protocol.md): `full` fsyncs the WAL at every
commit, so an acknowledged action survives a process kill, an OS crash and a power loss;
`normal` fsyncs only at checkpoints: it survives a process kill, but an OS crash or a
power loss may lose the last acknowledged actions (the database stays consistent).
"""

from __future__ import annotations

import functools
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from ...engine.errors import Text
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

if TYPE_CHECKING:
    from .lease import Lease
    from .redis import RedisStorage

__all__ = ["Storage"]

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
DROP INDEX IF EXISTS actions_client_key;
CREATE TABLE IF NOT EXISTS snapshots (
  room TEXT NOT NULL, version INTEGER NOT NULL, state BLOB NOT NULL,
  PRIMARY KEY (room, version)
);
CREATE TABLE IF NOT EXISTS invites (
  id TEXT PRIMARY KEY, room TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL, player TEXT, label TEXT NOT NULL, created_at REAL NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


NOT_SQLITE = Text("{path} はSQLiteデータベースとして読めません（{why}）。"
                  "別のファイルを --db で指定してください。",
                  "{path} cannot be read as an SQLite database ({why}); name another file with --db.")
FOREIGN = Text("{path} は komasync のデータベースではありません（別のアプリのデータ）。"
               "別のファイルを --db で指定してください。",
               "{path} is not a komasync database (it holds another program's data); "
               "name another file with --db.")


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value)


ROWS_PER_INSERT = 64
"""Actions written by one INSERT statement: one statement, one step (the thread takes the
GIL back once per step, not once per row, while the event loop is busy)."""


COLUMNS = 10  # of `actions`: the room, then an `ActionRow`


@functools.cache
def _insert_sql(slots: int) -> str:
    """An INSERT of up to `slots` rows; unused slots are all NULL and skipped. Slots come
    in powers of two, so the connection caches 7 statements (1.8 MiB measured), not one
    per batch size up to 64 (4.4 MiB: a prepared statement keeps ~14 KiB per row)."""
    row = "(" + ", ".join(["?"] * COLUMNS) + ")"
    return (f"INSERT INTO actions SELECT * FROM (VALUES {', '.join([row] * slots)}) "
            "WHERE column1 IS NOT NULL")


def _slots(rows: int) -> int:
    return 1 << (rows - 1).bit_length()


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

    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    local = True  # a file on this machine: a quiet loop may commit itself
    refuses_known_keys = False  # a repeated client key is stored: the retry window decides

    def close(self) -> None:
        self.db.close()

    def shared(self) -> RedisStorage | None:
        return None  # only this process writes the file

    def claim(self, room_id: str) -> Lease | None:
        return None  # no other process writes the file: nothing to own

    def release(self, room_id: str) -> bool:
        return False

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

    # -- the server's own settings ------------------------------------------------------
    def setting(self, name: str) -> str | None:
        row = self.db.execute("SELECT value FROM settings WHERE name=?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def put_setting(self, name: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO settings VALUES (?, ?)", (name, value))

    def first_setting(self, name: str, value: str) -> str:
        self.db.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", (name, value))
        got = self.setting(name)
        assert got is not None
        return got

    # -- the log ----------------------------------------------------------------------
    def append(self, room_id: str, rows: list[ActionRow],
               snapshot: tuple[int, dict[str, Any] | bytes] | None = None) -> None:
        """Write a batch of actions (and maybe a snapshot, as a dict or its JSON) in one
        transaction (one statement if it fits one), or under a savepoint of the group
        commit's transaction."""
        if (one := self._as_one([(room_id, rows, snapshot)])) is not None:
            self._insert(one)  # a statement is atomic alone
            return
        with self._tx():
            for at in range(0, len(rows), ROWS_PER_INSERT):
                self._insert([(room_id, row) for row in rows[at:at + ROWS_PER_INSERT]])
            if snapshot is not None:
                state = snapshot[1]
                self.db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)",
                                (room_id, snapshot[0],
                                 state if isinstance(state, bytes) else _dumps(state)))

    def append_group(self, batches: list[Batch]) -> list[BaseException | None]:
        """Several rooms' batches in one transaction and one commit; per batch, the
        exception that kept it out (its savepoint rolled back) or None."""
        if len(batches) == 1:  # nothing to keep apart: no savepoint
            room_id, rows, snapshot = batches[0]
            self.append(room_id, rows, snapshot)
            return [None]
        if self._one_statement(batches):
            return [None] * len(batches)
        results: list[BaseException | None] = []
        with self._tx():
            for room_id, rows, snapshot in batches:
                try:
                    self.append(room_id, rows, snapshot)
                    results.append(None)
                except Exception as e:
                    results.append(e)
        return results

    def _one_statement(self, batches: list[Batch]) -> bool:
        """The whole group as one INSERT in autocommit, if it can be (`_as_one`); False if
        not written (then batch by batch, so one that fails keeps only itself out)."""
        if (rows := self._as_one(batches)) is None:
            return False
        try:
            self._insert(rows)
        except sqlite3.Error:
            return False
        return True

    def _as_one(self, batches: list[Batch]) -> list[tuple[str, ActionRow]] | None:
        """The batches' rows, if they may be one INSERT in autocommit: no snapshot, no open
        transaction, at most `ROWS_PER_INSERT` rows. A statement is atomic, and the storage
        thread takes the GIL back once for it instead of once per BEGIN, savepoint, INSERT
        and COMMIT (each a wait of up to the switch interval while the loop is busy)."""
        if self.db.in_transaction or any(snapshot is not None for _, _, snapshot in batches):
            return None
        rows = [(room_id, row) for room_id, part, _ in batches for row in part]
        return rows if 0 < len(rows) <= ROWS_PER_INSERT else None

    def _insert(self, rows: list[tuple[str, ActionRow]]) -> None:
        slots = _slots(len(rows))
        values = [v for room_id, row in rows for v in (room_id, *row)]
        self.db.execute(_insert_sql(slots), values + [None] * (COLUMNS * (slots - len(rows))))

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
        """Every client action id the room has applied, with its version."""
        return dict(self.newest_client_keys(room_id))

    def newest_client_keys(self, room_id: str) -> Iterator[tuple[str, int]]:
        """The client keys of the room's logged actions with their versions, newest first
        (the retry window keeps each identity's latest; see server/retries.py)."""
        rows = self.db.execute(
            "SELECT client_key, version FROM actions WHERE room=? AND client_key IS NOT NULL "
            "ORDER BY version DESC", (room_id,))
        return ((str(k), int(v)) for k, v in rows)

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

    # -- copying between stores (migrate) ---------------------------------------------
    def stored_rooms(self) -> list[StoredRoom]:
        rows = self.db.execute("SELECT id, name, gm_secret_hash, initial_state, created_at, "
                               "scenario_name FROM rooms ORDER BY created_at").fetchall()
        return [StoredRoom(r[0], r[1], r[2], bytes(r[3]), float(r[4]), r[5]) for r in rows]

    def snapshots_raw(self, room_id: str) -> list[tuple[int, bytes]]:
        rows = self.db.execute("SELECT version, state FROM snapshots WHERE room=? ORDER BY version",
                               (room_id,))
        return [(int(v), bytes(s)) for v, s in rows]

    def invites_raw(self, room_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT id, token_hash, role, player, label, created_at, revoked "
                               "FROM invites WHERE room=? ORDER BY created_at", (room_id,))
        return [{"id": r[0], "token_hash": r[1], "role": r[2], "player": r[3], "label": r[4],
                 "created_at": r[5], "revoked": bool(r[6])} for r in rows]

    def put_copy(self, room: StoredRoom, source: Backend) -> None:
        """The whole room in one transaction: nothing of it is stored if any part fails."""
        db = self.db
        if db.execute("SELECT 1 FROM rooms WHERE id=?", (room.id,)).fetchone():
            raise RoomExists(room.id)
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("INSERT INTO rooms VALUES (?, ?, ?, ?, ?, ?)",
                       (room.id, room.name, room.gm_secret_hash, room.initial_state, room.created_at,
                        room.scenario_name))
            for chunk in log_chunks(source, room.id):
                db.executemany("INSERT INTO actions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               [(room.id, *encode(r)) for r in chunk])
            db.executemany("INSERT INTO snapshots VALUES (?, ?, ?)",
                           [(room.id, v, s) for v, s in source.snapshots_raw(room.id)])
            db.executemany("INSERT INTO invites VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           [(i["id"], room.id, i["token_hash"], i["role"], i["player"], i["label"],
                             i["created_at"], int(i["revoked"])) for i in source.invites_raw(room.id)])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

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
    """BEGIN … COMMIT, or a savepoint when a transaction is already open."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.nested = False

    def __enter__(self) -> None:
        self.nested = self.db.in_transaction
        self.db.execute("SAVEPOINT part" if self.nested else "BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *_: object) -> None:
        if not self.nested:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")
        elif exc_type:
            self.db.execute("ROLLBACK TO part")
            self.db.execute("RELEASE part")
        else:
            self.db.execute("RELEASE part")


_check: type[Backend] = Storage  # mypy: the SQLite file implements the whole protocol
