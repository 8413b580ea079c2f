"""What every durable log is to the rest of komasync: the `Backend` protocol that the SQLite
file (sqlite.py) and Redis (redis.py) both implement, and the records they store.

Outside this package nothing asks which backend it has: what differs between them (one
process's file, or a log several processes share under leases) is a capability here.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

import orjson

from ...engine.errors import Text

if TYPE_CHECKING:
    from .lease import Lease
    from .redis import RedisStorage

__all__ = ["COPY_CHUNK", "MISMATCH", "ActionRecord", "ActionRow", "Backend", "Batch", "InviteRow",
           "RoomExists", "RoomRow", "RoomSummary", "StorageError", "StoredRoom", "encode",
           "hash_secret", "log_chunks", "new_secret"]

COPY_CHUNK = 500
"""Actions read at once while a room is copied or checked (`log_chunks`)."""
MISMATCH = Text("ルーム「{room}」のコピーが一致しません（{why}）。",
                "The copy of room '{room}' does not match ({why}).")


class StorageError(Exception):
    """The store cannot be used (not our file, Redis unreachable…); `text` says why in
    Japanese and English."""

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


ActionRow = tuple[int, str | None, bytes, bytes, bytes, bytes, bytes, bytes, float]
"""An `ActionRecord` as the log stores it (serialised before the action counts as applied)."""


def encode(record: ActionRecord) -> ActionRow:
    """The record serialised for `Storage.append`; raises if any part cannot be written."""
    r = record
    dumps = orjson.dumps
    return (r.version, r.client_key, dumps(r.actor), dumps(r.action), dumps(r.ops),
            dumps(r.rolls), dumps(r.log), dumps(r.warnings), r.at)


Batch = tuple[str, list[ActionRow], tuple[int, Any] | None]
"""One room's part of a group commit: (room id, rows, snapshot or None)."""


class RoomExists(Exception):
    """A room with this id is already stored."""


@dataclass
class StoredRoom:
    """A room's own row as stored, the GM secret only as its hash (what migrate copies)."""

    id: str
    name: str
    gm_secret_hash: str
    initial_state: bytes
    created_at: float
    scenario_name: str | None


class Backend(Protocol):
    """The operations the server, the CLI and migrate use of a durable log. Every call
    blocks: the server makes them on its storage thread (`AsyncStorage`)."""

    @property
    def path(self) -> str:
        """Where the log is, as messages may name it (a file, or a URL without its password)."""

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        """The store's own failures (disk, connection): not the log's, so a read that
        raised one may succeed later."""

    @property
    def local(self) -> bool:
        """A file on this machine: a commit needs no round trip, so a quiet event loop
        may make it itself instead of handing it to the storage thread."""

    @property
    def refuses_known_keys(self) -> bool:
        """Whether an append with a client key the log ever logged is refused (Redis):
        the retry window must then remember every id, not only the latest."""

    def close(self) -> None: ...

    def shared(self) -> RedisStorage | None:
        """This log as several processes share it (Redis: the cluster runs on it), or None
        when only this process opens it (a SQLite file)."""

    # -- rooms ----------------------------------------------------------------------------
    def create_room(self, room_id: str, name: str, secret: str, state: dict[str, Any],
                    scenario_name: str | None = None) -> None: ...

    def set_gm_secret(self, room_id: str, secret: str) -> None: ...

    def room(self, room_id: str) -> RoomRow | None: ...

    def room_ids(self) -> list[str]: ...

    def room_summaries(self) -> list[RoomSummary]: ...

    def delete_room(self, room_id: str) -> bool: ...

    def reset_room(self, room_id: str) -> int: ...

    def rooms_for_secret(self, secret: str) -> list[dict[str, Any]]: ...

    # -- the server's own settings (the GM key, the recorded public address) ------------
    def setting(self, name: str) -> str | None:
        """A server-wide setting, or None if it was never set."""

    def put_setting(self, name: str, value: str) -> None: ...

    def first_setting(self, name: str, value: str) -> str:
        """`name`'s value, set to `value` first if it has none (atomic: processes starting
        together all get the one that won)."""

    # -- owning a room ----------------------------------------------------------------
    def claim(self, room_id: str) -> Lease | None:
        """Own the room before serving or changing it (LeaseHeld if another process does);
        None where no other process can write the log (SQLite)."""

    def release(self, room_id: str) -> bool:
        """Let go of a room `claim` took (False if there was nothing to let go of)."""

    # -- the log --------------------------------------------------------------------------
    def append_group(self, batches: list[Batch]) -> list[BaseException | None]: ...

    def actions(self, room_id: str, after: int, upto: int | None = None,
                limit: int | None = None) -> list[ActionRecord]: ...

    def newest_client_keys(self, room_id: str) -> Iterator[tuple[str, int]]: ...

    def latest_snapshot(self, room_id: str, upto: int | None = None
                        ) -> tuple[int, dict[str, Any]] | None: ...

    # -- invites --------------------------------------------------------------------------
    def create_invite(self, room_id: str, role: str, player: str | None,
                      label: str) -> tuple[str, str]: ...

    def revoke_invite(self, room_id: str, invite_id: str) -> bool: ...

    def invite_for_token(self, room_id: str, token: str) -> InviteRow | None: ...

    def invites(self, room_id: str) -> list[InviteRow]: ...

    # -- copying between stores (migrate) ---------------------------------------------
    def stored_rooms(self) -> list[StoredRoom]:
        """Every room's own row, oldest first."""

    def snapshots_raw(self, room_id: str) -> list[tuple[int, bytes]]:
        """Every snapshot of the room as stored, oldest first."""

    def invites_raw(self, room_id: str) -> list[dict[str, Any]]:
        """Every invite of the room as stored (token hashes, not tokens)."""

    def put_copy(self, room: StoredRoom, source: Backend) -> None:
        """Store `room` whole (log, snapshots, invites) as `source` has it, or nothing of
        it (RoomExists if the id is taken)."""


def log_chunks(store: Backend, room_id: str) -> Iterator[list[ActionRecord]]:
    """A room's log in order, `COPY_CHUNK` actions at a time."""
    after = 0
    while chunk := store.actions(room_id, after, limit=COPY_CHUNK):
        yield chunk
        after = chunk[-1].version
