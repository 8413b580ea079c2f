"""Durable log on Redis: the same operations as the SQLite `Storage`, plus room leases.

Keys, all of one room under one hash tag so a Redis Cluster keeps them on one shard:
`<p>:{<room>}:meta` (hash), `:log` (stream, entry id `<version>-0`), `:keys` (client key →
version), `:snapv` / `:snaps` (snapshot versions and states), `:invites`, `:tokens`,
`:lease`, `:fence`. Global: `<p>:rooms` (zset by creation time) and `<p>:gm:<hash>` (the
rooms a GM secret opens). Appends go through the fenced script of `lease.py`: this
process must hold the room's lease (`claim`). Every call blocks; run it off the event loop.
"""

from __future__ import annotations

import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, Literal, cast
from urllib.parse import urlsplit, urlunsplit

import orjson
import redis
import redis.asyncio

from .base import (
    MISMATCH,
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
from .lease import Lease, LeaseHeld, LeaseLost, Scripts, as_text, refusal

__all__ = ["DEFAULT_TTL_MS", "RedisStorage", "redacted"]

DEFAULT_TTL_MS = 10_000
ROOM_PARTS = ("meta", "log", "keys", "snapv", "snaps", "invites", "tokens")


class RedisStorage:
    """Blocking Redis access: the `Backend` protocol, with rooms owned by lease."""

    errors: tuple[type[Exception], ...] = (redis.RedisError,)
    local = False  # every commit is a round trip: never made on the event loop
    refuses_known_keys = True  # the append script refuses a client key it has logged

    def __init__(self, url: str, prefix: str = "komasync", owner: str | None = None,
                 ttl_ms: int = DEFAULT_TTL_MS) -> None:
        self.path = redacted(url)  # what messages name as "the database" (no password)
        self._url = url  # what connections use (with its password)
        self.prefix = prefix
        self.client: redis.Redis = redis.Redis.from_url(url, socket_timeout=10)
        self.client.ping()
        self.scripts = Scripts(self.client)
        self.owner = owner or f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"
        self.ttl_ms = ttl_ms
        self.leases: dict[str, Lease] = {}
        self._renewer: threading.Thread | None = None
        self._stop = threading.Event()

    def async_client(self) -> redis.asyncio.Redis:
        """A new asyncio connection to the same Redis (the cluster's watcher and relay)."""
        return redis.asyncio.Redis.from_url(self._url, socket_timeout=10)

    def close(self) -> None:
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join(5)
        for room in list(self.leases):
            self.release(room)
        self.client.close()

    def shared(self) -> RedisStorage | None:
        return self  # every process on this Redis serves every room (cluster.py)

    def key(self, room_id: str, part: str) -> str:
        return f"{self.prefix}:{{{room_id}}}:{part}"

    # -- leases -----------------------------------------------------------------------
    def claim(self, room_id: str) -> Lease:
        """Own the room (LeaseHeld if another process does); the new token fences the old.
        A lease this process still holds is kept (a room reloaded after a failed write)."""
        held = self.leases.get(room_id)
        if held is not None and self.holder(room_id) == held.holder:
            return held
        token, holder = self.scripts.acquire(
            keys=[self.key(room_id, "lease"), self.key(room_id, "fence")],
            args=[self.owner, self.ttl_ms])
        if int(token) == 0:
            raise LeaseHeld(room_id, as_text(holder))
        lease = Lease(room_id, int(token), as_text(holder), self.ttl_ms)
        self.leases[room_id] = lease
        return lease

    def renew(self, room_id: str) -> bool:
        """Extend the lease; False (and forgotten) if it was lost meanwhile."""
        lease = self.leases.get(room_id)
        if lease is None:
            return False
        ok = bool(self.scripts.renew(keys=[self.key(room_id, "lease")], args=[lease.holder, lease.ttl_ms]))
        if not ok:
            self.leases.pop(room_id, None)
        return ok

    def release(self, room_id: str) -> bool:
        lease = self.leases.pop(room_id, None)
        if lease is None:
            return False
        try:
            return bool(self.scripts.release(keys=[self.key(room_id, "lease")], args=[lease.holder]))
        except redis.RedisError:
            return False  # it expires on its own

    def holder(self, room_id: str) -> str | None:
        value = self.client.get(self.key(room_id, "lease"))
        return None if value is None else as_text(value)

    def keep_renewing(self) -> None:
        """A daemon thread renews every held lease three times per lease period."""
        if self._renewer is None:
            self._renewer = threading.Thread(target=self._renew_loop, daemon=True,
                                             name="komasync-lease")
            self._renewer.start()

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.ttl_ms / 3000):
            for room in list(self.leases):
                try:
                    self.renew(room)
                except redis.RedisError:
                    pass  # Redis away: the lease may lapse; the append script decides

    # -- rooms ------------------------------------------------------------------------
    def create_room(self, room_id: str, name: str, secret: str, state: dict[str, Any],
                    scenario_name: str | None = None) -> None:
        self.put_room(room_id, name, hash_secret(secret), orjson.dumps(state), time.time(),
                      scenario_name)

    def put_room(self, room_id: str, name: str, secret_hash: str, state: bytes, created_at: float,
                 scenario_name: str | None) -> None:
        """Store a room as given (RoomExists if the id is taken); `put_copy` uses it."""
        meta = self.key(room_id, "meta")
        fields = {"id": room_id, "name": name, "gm": secret_hash, "state": state,
                  "created": repr(created_at), "scenario": scenario_name or ""}

        def put(pipe: Any) -> None:  # all or nothing: no half-made room after a crash
            if pipe.exists(meta):
                raise RoomExists(room_id)
            pipe.multi()
            pipe.hset(meta, mapping=fields)
            pipe.zadd(f"{self.prefix}:rooms", {room_id: created_at})
            pipe.sadd(f"{self.prefix}:gm:{secret_hash}", room_id)

        self.client.transaction(put, meta)

    def set_gm_secret(self, room_id: str, secret: str) -> None:
        meta = self.key(room_id, "meta")
        old = self.client.hget(meta, "gm")
        if old is None:
            return
        new = hash_secret(secret)
        pipe = self.client.pipeline()
        pipe.srem(f"{self.prefix}:gm:{as_text(old)}", room_id)
        pipe.hset(meta, "gm", new)
        pipe.sadd(f"{self.prefix}:gm:{new}", room_id)
        pipe.execute()

    def room(self, room_id: str) -> RoomRow | None:
        m = self._meta(room_id)
        if m is None:
            return None
        return RoomRow(room_id, as_text(m[b"name"]), as_text(m[b"gm"]), orjson.loads(m[b"state"]),
                       float(m[b"created"]))

    def room_meta(self, room_id: str) -> dict[str, Any] | None:
        """Everything stored about the room itself (for migrate), raw state bytes included."""
        m = self._meta(room_id)
        if m is None:
            return None
        return {"id": room_id, "name": as_text(m[b"name"]), "gm_secret_hash": as_text(m[b"gm"]),
                "initial_state": bytes(m[b"state"]), "created_at": float(m[b"created"]),
                "scenario_name": as_text(m[b"scenario"]) or None}

    def _meta(self, room_id: str) -> dict[bytes, bytes] | None:
        m = cast(dict[bytes, bytes], self.client.hgetall(self.key(room_id, "meta")))
        return m if m.get(b"name") is not None else None

    def room_ids(self) -> list[str]:
        return [as_text(r) for r in self.client.zrange(f"{self.prefix}:rooms", 0, -1)]

    def room_summaries(self) -> list[RoomSummary]:
        out = []
        for room_id in self.room_ids():
            meta = self.room_meta(room_id)
            if meta is not None:
                out.append(RoomSummary(room_id, meta["name"], meta["scenario_name"],
                                       meta["created_at"], self.last_version(room_id)))
        return out

    def last_version(self, room_id: str) -> int:
        last = self.client.xrevrange(self.key(room_id, "log"), count=1)
        return int(as_text(last[0][0]).split("-")[0]) if last else 0

    def delete_room(self, room_id: str) -> bool:
        """Remove a room with its log, snapshots and invites (its fence counter stays)."""
        meta = self.room_meta(room_id)
        if meta is None:
            return False
        pipe = self.client.pipeline()
        pipe.delete(*(self.key(room_id, p) for p in ROOM_PARTS))
        pipe.zrem(f"{self.prefix}:rooms", room_id)
        pipe.srem(f"{self.prefix}:gm:{meta['gm_secret_hash']}", room_id)
        pipe.execute()
        return True

    def reset_room(self, room_id: str) -> int:
        """Back to the scenario's initial state: the log and snapshots go, invites stay."""
        gone = int(self.client.xlen(self.key(room_id, "log")))
        self.client.delete(*(self.key(room_id, p) for p in ("log", "keys", "snapv", "snaps")))
        return gone

    def rooms_for_secret(self, secret: str) -> list[dict[str, Any]]:
        ids = [as_text(r) for r in self.client.smembers(f"{self.prefix}:gm:{hash_secret(secret)}")]
        rows = [m for m in (self.room_meta(i) for i in ids) if m is not None]
        rows.sort(key=lambda m: m["created_at"])
        return [{"id": m["id"], "name": m["name"], "created_at": m["created_at"]} for m in rows]

    # -- the server's own settings ------------------------------------------------------
    def setting(self, name: str) -> str | None:
        value = self.client.hget(f"{self.prefix}:settings", name)
        return None if value is None else as_text(value)

    def put_setting(self, name: str, value: str) -> None:
        self.client.hset(f"{self.prefix}:settings", name, value)

    def first_setting(self, name: str, value: str) -> str:
        self.client.hsetnx(f"{self.prefix}:settings", name, value)
        got = self.setting(name)
        assert got is not None
        return got

    # -- the log ----------------------------------------------------------------------
    def append(self, room_id: str, rows: list[ActionRow],
               snapshot: tuple[int, dict[str, Any] | bytes] | None = None) -> int:
        """Append a batch (and maybe a snapshot) if this process holds the room's lease and
        the batch starts at the next version; returns the new last version. Raises LeaseLost
        or LogConflict, having written nothing."""
        keys, args = self._append_call(room_id, rows, snapshot)
        try:
            return int(self.scripts.append(keys=keys, args=args))
        except redis.ResponseError as e:
            raise refusal(e) from e

    def append_group(self, batches: list[Batch]) -> list[BaseException | None]:
        """Several rooms' batches in one round trip: their fenced appends pipelined, which
        Redis runs in one event-loop turn and so covers with one AOF fsync (the group
        commit). Per batch, what kept it out (each append is all or nothing) or None."""
        if len(batches) == 1:
            try:
                self.append(*batches[0])
                return [None]
            except Exception as e:
                return [e]
        results: list[BaseException | None] = [None] * len(batches)
        pipe = self.client.pipeline(transaction=False)
        queued = []
        for i, (room_id, rows, snapshot) in enumerate(batches):
            try:
                keys, args = self._append_call(room_id, rows, snapshot)
            except Exception as e:
                results[i] = e
                continue
            self.scripts.append(keys=keys, args=args, client=pipe)
            queued.append(i)
        for i, reply in zip(queued, pipe.execute(raise_on_error=False), strict=True):
            if isinstance(reply, redis.ResponseError):
                results[i] = refusal(reply)
            elif isinstance(reply, BaseException):
                results[i] = reply
        return results

    def _append_call(self, room_id: str, rows: list[ActionRow],
                     snapshot: tuple[int, dict[str, Any] | bytes] | None) -> tuple[list[str], list[Any]]:
        """The append script's keys and arguments (LeaseLost if the room is not ours)."""
        lease = self.leases.get(room_id)
        if lease is None:
            raise LeaseLost(f"room {room_id} is not owned by {self.owner}")
        first = rows[0][0] if rows else self.last_version(room_id) + 1
        args: list[Any] = [lease.holder, first, len(rows)]
        for i, row in enumerate(rows):
            if row[0] != first + i:
                raise ValueError("rows must carry consecutive versions")
            args.extend([row[1] or "", *row[2:8], repr(row[8])])
        args.extend(["", ""] if snapshot is None else [snapshot[0], _json(snapshot[1])])
        return self._log_keys(room_id), args

    def put_snapshot(self, room_id: str, version: int, state: bytes | dict[str, Any]) -> None:
        """A snapshot at the log's current last version (fenced like an append)."""
        data = state if isinstance(state, bytes) else orjson.dumps(state)
        lease = self.leases.get(room_id)
        if lease is None:
            raise LeaseLost(f"room {room_id} is not owned by {self.owner}")
        try:
            self.scripts.append(keys=self._log_keys(room_id),
                                args=[lease.holder, version + 1, 0, version, data])
        except redis.ResponseError as e:
            raise refusal(e) from e

    def _log_keys(self, room_id: str) -> list[str]:
        return [self.key(room_id, p) for p in ("lease", "log", "keys", "snapv", "snaps")]

    def actions(self, room_id: str, after: int, upto: int | None = None,
                limit: int | None = None) -> list[ActionRecord]:
        end = "+" if upto is None else f"{upto}-0"
        entries = cast(list[tuple[bytes, dict[bytes, bytes]]],
                       self.client.xrange(self.key(room_id, "log"), f"({after}-0", end, count=limit))
        return [_record(entry_id, fields) for entry_id, fields in entries]

    def client_keys(self, room_id: str) -> dict[str, int]:
        """Every client action id the room has applied, with its version (retries)."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key(room_id, "keys")))
        return {as_text(k): int(v) for k, v in raw.items()}

    def newest_client_keys(self, room_id: str) -> Iterator[tuple[str, int]]:
        """The client keys the room has logged with their versions, newest first."""
        return iter(sorted(self.client_keys(room_id).items(), key=lambda kv: -kv[1]))

    def latest_snapshot(self, room_id: str, upto: int | None = None
                        ) -> tuple[int, dict[str, Any]] | None:
        state = self.latest_snapshot_raw(room_id, upto)
        return None if state is None else (state[0], orjson.loads(state[1]))

    def latest_snapshot_raw(self, room_id: str, upto: int | None = None) -> tuple[int, bytes] | None:
        top = "+inf" if upto is None else upto
        found = cast(list[bytes], self.client.zrevrangebyscore(self.key(room_id, "snapv"), top, "-inf",
                                                                start=0, num=1))
        if not found:
            return None
        state = cast(bytes | None, self.client.hget(self.key(room_id, "snaps"), found[0]))
        return None if state is None else (int(found[0]), bytes(state))

    def snapshots_raw(self, room_id: str) -> list[tuple[int, bytes]]:
        """Every snapshot, oldest first (for migrate)."""
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key(room_id, "snaps")))
        return sorted((int(v), bytes(s)) for v, s in raw.items())

    # -- invites ----------------------------------------------------------------------
    def create_invite(self, room_id: str, role: str, player: str | None,
                      label: str) -> tuple[str, str]:
        """A new invite; returns (invite id, token). Only the token's hash is kept."""
        token, invite_id = new_secret(), "i" + secrets.token_hex(6)
        self.put_invite(room_id, {"id": invite_id, "token_hash": hash_secret(token), "role": role,
                                  "player": player, "label": label, "created_at": time.time(),
                                  "revoked": False})
        return invite_id, token

    def put_invite(self, room_id: str, invite: dict[str, Any]) -> None:
        pipe = self.client.pipeline()
        pipe.hset(self.key(room_id, "invites"), invite["id"], orjson.dumps(invite))
        pipe.hset(self.key(room_id, "tokens"), invite["token_hash"], invite["id"])
        pipe.execute()

    def revoke_invite(self, room_id: str, invite_id: str) -> bool:
        raw = self.client.hget(self.key(room_id, "invites"), invite_id)
        if raw is None:
            return False
        invite = orjson.loads(raw)
        invite["revoked"] = True
        self.client.hset(self.key(room_id, "invites"), invite_id, orjson.dumps(invite))
        return True

    def invite_for_token(self, room_id: str, token: str) -> InviteRow | None:
        invite_id = self.client.hget(self.key(room_id, "tokens"), hash_secret(token))
        if invite_id is None:
            return None
        raw = self.client.hget(self.key(room_id, "invites"), invite_id)
        return None if raw is None else _invite(room_id, orjson.loads(raw))

    def invites(self, room_id: str) -> list[InviteRow]:
        return [_invite(room_id, i) for i in sorted(self.invites_raw(room_id),
                                                    key=lambda i: i["created_at"])]

    def invites_raw(self, room_id: str) -> list[dict[str, Any]]:
        raw = cast(dict[bytes, bytes], self.client.hgetall(self.key(room_id, "invites")))
        return [orjson.loads(v) for v in raw.values()]

    # -- copying between stores (migrate) ---------------------------------------------
    def stored_rooms(self) -> list[StoredRoom]:
        metas = (self.room_meta(room_id) for room_id in self.room_ids())
        return [StoredRoom(**meta) for meta in metas if meta is not None]

    def put_copy(self, room: StoredRoom, source: Backend) -> None:
        """The room, then its log through the fenced append under a lease (so versions stay
        gapless), each snapshot once the log reaches it, its invites; on any failure the
        half-made room is deleted again."""
        try:
            self.put_room(room.id, room.name, room.gm_secret_hash, room.initial_state,
                          room.created_at, room.scenario_name)
            self._copy_parts(room.id, source)
        except RoomExists:
            raise  # someone else's room: not ours to delete
        except BaseException:
            self.delete_room(room.id)  # never leave half a room behind
            raise

    def _copy_parts(self, room_id: str, source: Backend) -> None:
        snaps = dict(source.snapshots_raw(room_id))
        self.claim(room_id)
        try:
            if 0 in snaps:
                self.put_snapshot(room_id, 0, snaps.pop(0))
            for chunk in log_chunks(source, room_id):
                for piece in _split_at(chunk, snaps):
                    self.append(room_id, [encode(r) for r in piece])
                    if piece[-1].version in snaps:  # a snapshot lands when the log reaches it
                        self.put_snapshot(room_id, piece[-1].version, snaps.pop(piece[-1].version))
            if snaps:
                raise StorageError(MISMATCH.format(room=room_id,
                                                   why=f"snapshots past the log: {sorted(snaps)}"))
            for invite in source.invites_raw(room_id):
                self.put_invite(room_id, invite)
        finally:
            self.release(room_id)


def _split_at(chunk: list[ActionRecord], snaps: dict[int, bytes]) -> Iterator[list[ActionRecord]]:
    """The chunk cut after every version that has a snapshot."""
    start = 0
    for i, record in enumerate(chunk):
        if record.version in snaps or i == len(chunk) - 1:
            yield chunk[start:i + 1]
            start = i + 1


def redacted(url: str) -> str:
    """The URL as messages may show it: a password in it becomes `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _json(state: dict[str, Any] | bytes) -> bytes:
    """A snapshot as stored: the server hands it over already serialised."""
    return state if isinstance(state, bytes) else orjson.dumps(state)


def _record(entry_id: Any, f: dict[bytes, bytes]) -> ActionRecord:
    key = as_text(f[b"k"])
    return ActionRecord(
        version=int(as_text(entry_id).split("-")[0]), client_key=key or None,
        actor=orjson.loads(f[b"actor"]), action=orjson.loads(f[b"action"]),
        ops=orjson.loads(f[b"ops"]), rolls=orjson.loads(f[b"rolls"]), log=orjson.loads(f[b"log"]),
        warnings=orjson.loads(f[b"warnings"]), at=float(f[b"at"]))


def _invite(room_id: str, i: dict[str, Any]) -> InviteRow:
    role = cast(Literal["player", "bridge", "observer"], i["role"])
    return InviteRow(id=i["id"], room=room_id, role=role, player=i["player"], label=i["label"],
                     created_at=float(i["created_at"]), revoked=bool(i["revoked"]))


_check: type[Backend] = RedisStorage  # mypy: Redis implements the whole protocol
