"""A room: one asyncio task that is the only writer of the room's state.

How this works: connections put `Submit`/`Join`/`Call` items in the room's inbox. The task
takes what is waiting (up to `max_batch`), applies each action to the engine at once
and projects its changes per audience (audiences.py), then commits the whole batch to SQLite in one
transaction (group commit), and only then acks, rejects and fans out — so nobody ever
sees a change that a crash could lose. Joins, undos, pings and queries are barriers: the
batches before them are committed and answered first.

Pipelined: when actions are already waiting as a batch's commit is handed over, they
are applied and projected while it commits (CPU that would otherwise wait for the disk);
their commit is handed over only once the previous one is durable and answered, so
commits (and replies) stay in order and a failed commit never leaves a later batch in
the log. A commit already done (made on the loop thread) is answered at once. The
bridges' table of a batch is drawn from the views at its version (during its commit when
the next batch is applied meanwhile) and sent after its fan-out, never before it is durable.

The projection stays before the commit hand-over: an action whose projection fails is
rolled back and refused, so the log never holds a change its clients were not told of.
(Projecting while the fsync runs on the storage thread was measured slower here: the
thread hops and GIL hand-overs cost more than the ~100 µs of projection they would hide.)
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import to_jsonable_python

from ..engine.actions import ActionBase
from ..engine.control import Restore, Undo
from ..engine.core import Engine, Outcome, change_ops
from ..engine.errors import Refusal
from ..engine.outcomes import told
from ..engine.views import View, refusal_for
from .audiences import Audiences, Frames
from .connection import Connection, Limits
from .errors import BAD_UNDO, INTERNAL_ERROR, SERVER_SHUTDOWN, STALE_VERSION, STORAGE_ERROR
from .offload import SETTLE
from .replay import state_at
from .retries import RetryWindow
from .storage import ActionRecord, ActionRow, AsyncStorage, encode
from .storage.snapshot_policy import SnapshotPolicy
from .tables import Translated

__all__ = ["Join", "Room", "Submit"]

log = logging.getLogger("komasync.room")

#: What an action that crashed is refused with (nothing of it was applied).
FAILED = INTERNAL_ERROR.alts["action"]


def _future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()


@dataclass
class Submit:
    conn: Connection | None
    msg_id: str
    action: ActionBase | None
    base_version: int | None = None
    actor_override: Any = None
    event: dict[str, Any] | None = None
    # What its translation said of the roll the event carried (the GM's roll ledger).
    translated: Translated | None = None


@dataclass
class Join:
    conn: Connection
    since: int | None
    done: asyncio.Future[None] = field(default_factory=_future)


@dataclass
class Call:
    """Run a coroutine inside the room task (serialised with actions)."""

    fn: Callable[[], Awaitable[Any]]
    done: asyncio.Future[Any] = field(default_factory=_future)


@dataclass
class _InFlight:
    """A batch whose commit was handed to storage; answered once it is durable."""

    done: asyncio.Future[None]
    applied: list[_Applied]
    platform: dict[str, bytes] | None = None  # the bridges' table, drawn while it commits


@dataclass
class _Applied:
    sub: Submit
    outcome: Outcome | None = None
    record: ActionRecord | None = None
    row: ActionRow | None = None
    frames: Frames = field(default_factory=dict)
    refusal: Refusal | None = None
    duplicate_of: int | None = None
    told: dict[str, Any] = field(default_factory=dict)  # the ack's created ids and results


Item = Submit | Join | Call


class Room:
    """One room's authoritative state, connections, per-audience views and history."""

    def __init__(self, room_id: str, engine: Engine, store: AsyncStorage, limits: Limits,
                 retries: RetryWindow,
                 on_fail: Callable[[str], None] | None = None,
                 gm_view: View | None = None) -> None:
        self.id = room_id
        self.engine = engine
        self.store = store
        self.limits = limits
        self.retries = retries
        self.audiences = Audiences(room_id, engine, limits, gm_view)
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        self.snapshot_policy = SnapshotPolicy(limits.snapshot_every, limits.snapshot_ceiling,
                                             engine.version)
        self.on_fail = on_fail
        self.inflight: _InFlight | None = None
        self.task = asyncio.create_task(self._run(), name=f"room:{room_id}")

    @property
    def version(self) -> int:
        return self.engine.version

    # -- the loop ---------------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            if self.inflight is not None and (self.inbox.empty() or self.inflight.done.done()):
                try:
                    await self._flush()
                except Exception:
                    log.exception("room loop error", extra={"room": self.id})
                    continue
            batch = [await self.inbox.get()]
            while len(batch) < self.limits.max_batch and not self.inbox.empty():
                batch.append(self.inbox.get_nowait())
            try:
                await self._process(batch)
            except Exception:
                log.exception("room loop error", extra={"room": self.id})
                self._abandon(batch)
            del batch  # an idle room keeps nothing of its last batch while it waits

    async def _process(self, batch: list[Item]) -> None:
        """Every item is answered: an action that fails in any way is refused on its own,
        so one bad action never leaves the rest of its batch unanswered."""
        pending: list[_Applied] = []
        for item in batch:
            if isinstance(item, Submit) and not isinstance(item.action, Undo):
                pending.append(self._apply(item))
                continue
            await self._commit(pending)
            pending = []
            if isinstance(item, Join):
                await self._join(item)
            elif isinstance(item, Call):
                try:
                    item.done.set_result(await item.fn())
                except Exception as e:
                    item.done.set_exception(e)
            else:
                await self._commit([await self._undo(item)])
        await self._commit(pending, pipelined=True)

    async def _join(self, join: Join) -> None:
        try:
            await self.audiences.join(join.conn, join.since)
        except Exception:
            log.exception("join failed", extra={"room": self.id})
            self.audiences.leave(join.conn)
            join.conn.drop(INTERNAL_ERROR, INTERNAL_ERROR.alts["join"])
        if not join.done.done():
            join.done.set_result(None)

    def _abandon(self, items: list[Item]) -> None:
        """The room stopped mid-batch: nobody is left waiting on what it did not reach."""
        for item in items:
            if isinstance(item, Join) and not item.done.done():
                item.conn.drop(STORAGE_ERROR)
                item.done.set_result(None)
            elif isinstance(item, Call) and not item.done.done():
                item.done.set_exception(RuntimeError("the room has stopped"))
            elif isinstance(item, Submit) and item.conn is not None:
                item.conn.drop(STORAGE_ERROR)

    def _apply(self, sub: Submit) -> _Applied:
        """Apply one action; anything but a refusal is logged and answered `internal_error`."""
        try:
            return self._apply_one(sub)
        except Exception:
            log.exception("action crashed", extra={"room": self.id})
            return _Applied(sub, refusal=INTERNAL_ERROR.refuse(alt="action"))

    def _apply_one(self, sub: Submit) -> _Applied:
        if sub.action is None:
            translated = sub.translated = self.audiences.tables.translate(sub.conn,
                                                                           sub.event or {})
            if translated.action is None:
                return _Applied(sub, refusal=translated.refusal or INTERNAL_ERROR.refuse(
                    alt="action"))
            sub.action = translated.action
        who = self._principal(sub)
        seen = self.retries.version(who, sub.msg_id)
        if seen is not None:
            return _Applied(sub, duplicate_of=seen)
        if sub.base_version is not None and sub.base_version != self.version:
            return _Applied(sub, refusal=STALE_VERSION.refuse(v=self.version))
        actor = sub.actor_override or sub.conn.actor  # type: ignore[union-attr]
        try:
            outcome = self.engine.apply(sub.action, actor)
        except Refusal as refusal:
            return _Applied(sub, refusal=refusal)
        # Applied in memory only: it counts once it is recorded and projected, else it is
        # taken back whole (state, version, dice, views), and its client key stays free.
        try:
            record = self._record(sub, f"{who}:{sub.msg_id}", outcome)
            row = encode(record)
            frames = self.audiences.project(outcome, record)
        except Exception:
            log.exception("action failed after it applied; rolled back",
                          extra={"room": self.id, "kind": getattr(sub.action, "kind", None)})
            self._revert(outcome)
            return _Applied(sub, refusal=INTERNAL_ERROR.refuse(alt="action"))
        self.retries.add(who, sub.msg_id, outcome.version)
        said = told(outcome.tx.created, outcome.tx.results, self.engine.state,
                    sub.conn.audience) if sub.conn else {}
        return _Applied(sub, outcome=outcome, record=record, row=row, frames=frames, told=said)

    def _revert(self, outcome: Outcome) -> None:
        units = outcome.units  # before the rollback forgets the writes
        self.engine.revert(outcome)
        try:
            self.audiences.unproject(outcome.version, units)
        except Exception:  # the views cannot be trusted: everyone starts again from a snapshot
            log.exception("views reset after a failed revert", extra={"room": self.id})
            self.audiences.reset(FAILED)

    @staticmethod
    def _principal(sub: Submit) -> str:
        return sub.conn.principal if sub.conn else "server"

    def _record(self, sub: Submit, key: str, outcome: Outcome) -> ActionRecord:
        tx = outcome.tx
        assert sub.action is not None
        return ActionRecord(
            version=outcome.version, client_key=key,
            actor=tx.actor.model_dump(mode="json"),
            action=sub.action.model_dump(mode="json"),
            ops=change_ops(tx), rolls=to_jsonable_python(tx.rolls),
            log=to_jsonable_python(tx.log), warnings=to_jsonable_python(tx.warnings),
            at=time.time(),
        )

    async def _undo(self, sub: Submit) -> _Applied:
        """Undo, expanded into `restore` with the target state: the role is checked before
        the (costly) rebuild of that state."""
        assert isinstance(sub.action, Undo)
        to = sub.action.to_version
        try:
            Engine.guard(sub.action, sub.actor_override or sub.conn.actor)  # type: ignore[union-attr]
        except Refusal as wrong_role:
            return _Applied(sub, refusal=wrong_role)
        if to >= self.version:
            return _Applied(sub, refusal=BAD_UNDO.refuse(to=to, v=self.version))
        try:
            target = await self.store.call(state_at, self.store.storage, self.id, to)
        except Exception:
            log.exception("undo target could not be rebuilt", extra={"room": self.id})
            return _Applied(sub, refusal=INTERNAL_ERROR.refuse(alt="action"))
        restore = Restore(to_version=to, reason=sub.action.reason, target=target)
        return self._apply(Submit(sub.conn, sub.msg_id, restore, sub.base_version))

    async def _commit(self, applied: list[_Applied], pipelined: bool = False) -> None:
        """Answer the batch in flight, then commit this one and answer it — or, `pipelined`,
        leave this one in flight (answered by `_flush` before anything else is)."""
        await self._flush()
        records = [a.row for a in applied if a.row is not None]
        if not records:
            await self._answer(applied)
            return
        snapshot = await self._snapshot(records)
        inflight = self.inflight = _InFlight(self.store.submit(self.id, records, snapshot),
                                             applied)
        if pipelined and not inflight.done.done() and not self.inbox.empty():
            # the next batch is applied while this one commits: the bridges' table is drawn
            # now, from the views at this batch's version (the next batch must not show in
            # it before it is durable itself); else after the fan-out, as nothing moved
            try:
                inflight.platform = await self._platform(applied)
            except Exception:  # drawn again when the batch is answered
                log.exception("drawing the bridges' table failed", extra={"room": self.id})
        if not pipelined:
            await self._flush()

    async def _snapshot(self, rows: list[ActionRow]) -> tuple[int, Any] | None:
        """The storage snapshot due with this batch (`rows`), if any (snapshot_policy.py).
        It only shortens replay: one that cannot be built is skipped (and tried again next
        batch), never the batch."""
        self.snapshot_policy.log(rows)
        if not self.snapshot_policy.due(self.version):
            return None
        try:
            rng = self.engine.state.rng.model_dump(mode="json")
            state = await self.audiences.state_json(rng)
        except Exception:
            log.exception("snapshot could not be built; the batch is committed without it",
                          extra={"room": self.id})
            return None
        self.snapshot_policy.taken(self.version, len(state))  # a failed commit stops the room
        return self.version, state

    async def _flush(self) -> None:
        """The batch in flight: durable, then answered (a failed commit stops the room)."""
        inflight, self.inflight = self.inflight, None
        if inflight is None:
            return
        try:
            await inflight.done
        except Exception:
            log.exception("commit failed; room stops", extra={"room": self.id})
            self._fail(inflight.applied)
            raise
        try:
            await self._answer(inflight.applied, inflight.platform)
        except Exception:  # durable already: never mistaken for a failure of what follows
            log.exception("answering a committed batch failed", extra={"room": self.id})

    async def _answer(self, applied: list[_Applied],
                      platform: dict[str, bytes] | None = None) -> None:
        """Acks, rejects and fan-out of a durable batch, then the bridges' table (`platform`
        if it was drawn while the batch committed)."""
        if not applied:
            return
        # Every frame of this batch to a socket goes out in one write. With one action,
        # only its sender gets more than one frame (its ack, then the change): the others'
        # change is written at once, so the first clients read while the rest are written.
        if len(applied) == 1:
            sender = applied[0].sub.conn
            conns = [sender] if sender is not None else []
        else:
            conns = list(self.audiences.conns)
        for c in conns:
            c.hold()
        try:
            for a in applied:
                try:
                    self._reply(a)
                except Exception:  # durable already: the others must still hear of theirs
                    log.exception("reply failed", extra={"room": self.id})
        finally:
            for c in conns:
                c.release()
        if any(a.row is not None for a in applied):  # then the bridges' table, drawn once
            # for the whole batch (a bridge's change is not kept waiting for the redraw)
            if platform is None:
                platform = await self._platform(applied)
            self.audiences.send_platform(platform)

    async def _platform(self, applied: list[_Applied]) -> dict[str, bytes]:
        """The bridges' table ops for a batch, from the views as they are now."""
        logs = [[{"ja": x.ja, "en": x.en} for x in a.outcome.log if x.chat]
                for a in applied if a.outcome is not None]
        return await self.audiences.platform_frames(logs)

    def _fail(self, applied: list[_Applied]) -> None:
        for a in applied:
            if a.sub.conn:
                a.sub.conn.drop(STORAGE_ERROR, FAILED)
        self.audiences.drop_all(STORAGE_ERROR, FAILED)
        waiting: list[Item] = []
        while not self.inbox.empty():
            waiting.append(self.inbox.get_nowait())
        self._abandon(waiting)
        if self.on_fail is not None:
            self.on_fail(self.id)
        self.task.cancel()

    # -- replies ------------------------------------------------------------------------
    def _reply(self, a: _Applied) -> None:
        conn = a.sub.conn
        if a.duplicate_of is None:
            self._ledger(a)
        if a.duplicate_of is not None:
            if conn:
                conn.send_msg({"type": "ack", "id": a.sub.msg_id, "version": a.duplicate_of,
                               "duplicate": True})
            return
        if a.refusal is not None:
            self._refused(a.sub, a.refusal)
            if a.sub.event is not None and conn is not None:
                self.audiences.tables.snap_back(conn, a.sub.event, a.sub.msg_id, a.refusal)
            return
        assert a.outcome is not None
        if log.isEnabledFor(logging.DEBUG):
            log.debug("applied", extra={"room": self.id, "version": a.outcome.version,
                                        "kind": getattr(a.sub.action, "kind", None)})
        if conn:
            conn.send_msg({"type": "ack", "id": a.sub.msg_id, "version": a.outcome.version,
                           **a.told})
        self.audiences.send(a.frames)
        for w in a.outcome.warnings:
            self.audiences.notify_gm("warning", {"client": conn.label if conn else "server",
                                                 "version": a.outcome.version,
                                                 **w.model_dump()})
        for p in a.outcome.happenings:
            if p.kind == "prompt.asked":
                self.audiences.push_prompt(str(p.data["prompt"]))

    def _ledger(self, a: _Applied) -> None:
        """A bridge's roll and what became of it, for the GM's roll ledger."""
        t, conn = a.sub.translated, a.sub.conn
        if t is None or t.roll is None or conn is None:
            return
        ledger = self.audiences.rolls
        if a.refusal is not None:
            entry = ledger.refused(conn, t.roll, a.refusal,
                                   t.why if t.refusal is a.refusal else None, a.sub.action)
        elif a.outcome is not None and a.sub.action is not None:
            entry = ledger.used(conn, t.roll, a.sub.action, a.outcome.tx.results)
        else:
            return
        self.audiences.notify_gm("roll", entry)

    def _refused(self, sub: Submit, r: Refusal) -> None:
        if sub.conn:  # built only from what the sender may see; the GM's notice keeps all
            told = refusal_for(r, self.engine.state, sub.conn.audience)
            sub.conn.send_msg({"type": "reject", "id": sub.msg_id, "code": told.code,
                               "rule": told.rule, "reason": {"ja": told.ja, "en": told.en},
                               "version": self.version,
                               "details": to_jsonable_python(told.details)})
        who = sub.conn.label if sub.conn else "server"
        log.info("refused", extra={"room": self.id, "code": r.code, "rule": r.rule,
                                   "client": who, "kind": getattr(sub.action, "kind", None)})
        # Only GMs get notices: the refused action and its player let the console name
        # what was tried and by whom instead of showing ids and codes.
        self.audiences.notify_gm("refusal", {
            "client": who, "role": sub.conn.role if sub.conn else "server",
            "player": sub.conn.player if sub.conn else None,
            "kind": getattr(sub.action, "kind", "?"), "code": r.code, "rule": r.rule,
            "reason": {"ja": r.ja, "en": r.en},
            "action": sub.action.model_dump(mode="json") if sub.action is not None else None})

    def leave(self, conn: Connection) -> None:
        self.audiences.leave(conn)
        SETTLE.left()  # its cycles may be frozen: counted towards the next reclaim

    def notify_gm(self, kind: str, data: dict[str, Any]) -> None:
        self.audiences.notify_gm(kind, data)

    async def stop(self) -> None:
        self.task.cancel()
        self.audiences.drop_all(SERVER_SHUTDOWN)
