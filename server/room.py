"""A room: one asyncio task that is the only writer of the room's state.

How this works: connections put `Submit`/`Join`/`Call` items in the room's inbox. The task
takes what is waiting (up to `max_batch`), applies each action to the engine at once
and projects its changes per audience, then commits the whole batch to SQLite in one
transaction (group commit), and only then acks, rejects and fans out — so nobody ever
sees a change that a crash could lose. Joins and undos are barriers: the batch before
them is committed first.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_core import to_jsonable_python

from ..adapters.base import PlatformAdapter
from ..adapters.registry import make_adapter
from ..engine.actions import ActionBase
from ..engine.control import Restore, Undo
from ..engine.core import Engine, Outcome, change_ops
from ..engine.errors import Refusal, Text
from ..engine.registry import parse_action
from ..engine.views import Audience, View
from .connection import Connection, Limits, dumps
from .replay import state_at
from .storage import ActionRecord, AsyncStorage

__all__ = ["Join", "Room", "Submit"]

log = logging.getLogger("komasync.room")

STALE = Text("状態が更新されています（現在バージョン{v}）。最新の状態で操作し直してください。",
             "The room has moved on (now version {v}); act again on the latest state.")
BAD_UNDO = Text("バージョン{to}には戻せません（現在{v}）。", "Cannot undo to version {to} (now {v}).")
NO_ADAPTER = Text("このブリッジのプラットフォームが設定されていません。",
                  "This bridge did not say which platform it drives.")
IGNORED = Text("卓のイベントを操作にできませんでした: {why}",
               "The table event did not make an action: {why}")
ADAPTER_FAILED = Text("卓への変換に失敗しました（サーバーログを見てください）。",
                      "Translating to the table failed (see the server log).")
INTERNAL = Text("サーバー内部のエラーで操作は適用されませんでした。",
                "An internal server error; the action was not applied.")


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


@dataclass
class Join:
    conn: Connection
    since: int | None
    done: asyncio.Future[None] = field(default_factory=lambda: _future())


@dataclass
class Call:
    """Run a coroutine inside the room task (serialised with actions)."""

    fn: Callable[[], Awaitable[Any]]
    done: asyncio.Future[Any] = field(default_factory=lambda: _future())


@dataclass
class _Applied:
    sub: Submit
    outcome: Outcome | None = None
    record: ActionRecord | None = None
    frames: dict[str, str] = field(default_factory=dict)
    refusal: Refusal | None = None
    duplicate_of: int | None = None


Item = Submit | Join | Call


class Room:
    """One room's authoritative state, connections, per-audience views and history."""

    def __init__(self, room_id: str, engine: Engine, store: AsyncStorage, limits: Limits,
                 client_keys: dict[str, int],
                 on_fail: Callable[[str], None] | None = None) -> None:
        self.id = room_id
        self.engine = engine
        self.store = store
        self.limits = limits
        self.keys = client_keys
        self.conns: set[Connection] = set()
        self.views: dict[str, View] = {}
        self.history: dict[str, deque[tuple[int, int, str]]] = {}
        self.adapters: dict[str, PlatformAdapter] = {}
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        self.last_snapshot = engine.version
        self.on_fail = on_fail
        self.task = asyncio.create_task(self._run(), name=f"room:{room_id}")

    @property
    def version(self) -> int:
        return self.engine.version

    # -- the loop ---------------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            batch = [await self.inbox.get()]
            while len(batch) < self.limits.max_batch and not self.inbox.empty():
                batch.append(self.inbox.get_nowait())
            try:
                await self._process(batch)
            except Exception:
                log.exception("room loop error", extra={"room": self.id})

    async def _process(self, batch: list[Item]) -> None:
        pending: list[_Applied] = []
        for item in batch:
            if isinstance(item, Submit) and not isinstance(item.action, Undo):
                pending.append(self._apply(item))
                continue
            await self._commit(pending)
            pending = []
            if isinstance(item, Join):
                self._join(item.conn, item.since)
                item.done.set_result(None)
            elif isinstance(item, Call):
                try:
                    item.done.set_result(await item.fn())
                except Exception as e:
                    item.done.set_exception(e)
            else:
                await self._commit([await self._undo(item)])
        await self._commit(pending)

    def _apply(self, sub: Submit) -> _Applied:
        if sub.action is None:
            refusal = self._translate(sub)
            if refusal is not None:
                return _Applied(sub, refusal=refusal)
        assert sub.action is not None
        key = self._client_key(sub)
        if key in self.keys:
            return _Applied(sub, duplicate_of=self.keys[key])
        if sub.base_version is not None and sub.base_version != self.version:
            return _Applied(sub, refusal=Refusal("stale_version", STALE.format(v=self.version)))
        actor = sub.actor_override or sub.conn.actor  # type: ignore[union-attr]
        try:
            outcome = self.engine.apply(sub.action, actor)
        except Refusal as refusal:
            return _Applied(sub, refusal=refusal)
        except Exception:
            log.exception("action crashed", extra={"room": self.id})
            return _Applied(sub, refusal=Refusal("internal_error", INTERNAL))
        self.keys[key] = outcome.version
        applied = _Applied(sub, outcome=outcome, record=self._record(sub, key, outcome))
        applied.frames = self._project(applied)
        return applied

    def _translate(self, sub: Submit) -> Refusal | None:
        """A bridge's platform event → the engine action its adapter makes of it."""
        conn = sub.conn
        adapter = self.adapters.get(conn.platform or "") if conn else None
        if adapter is None or sub.event is None:
            return Refusal("no_adapter", NO_ADAPTER)
        try:
            result = adapter.event(sub.event, self.views["table"].tree)
            if result.action is None:
                return Refusal("event_ignored", IGNORED.format(why=result.ignored or "-"))
            sub.action = parse_action(result.action)
        except ValidationError as e:
            return Refusal("bad_action", IGNORED.format(why=e.errors()[0]["msg"]))
        except Exception:
            log.exception("adapter failed on event", extra={"room": self.id})
            return Refusal("internal_error", INTERNAL)
        return None

    def _client_key(self, sub: Submit) -> str:
        who = sub.conn.principal if sub.conn else "server"
        return f"{who}:{sub.msg_id}"

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
        assert isinstance(sub.action, Undo)
        to = sub.action.to_version
        if to >= self.version:
            refusal = Refusal("bad_undo", BAD_UNDO.format(to=to, v=self.version))
            return _Applied(sub, refusal=refusal)
        target = await self.store.call(state_at, self.store.storage, self.id, to)
        restore = Restore(to_version=to, reason=sub.action.reason, target=target)
        return self._apply(Submit(sub.conn, sub.msg_id, restore, sub.base_version))

    async def _commit(self, applied: list[_Applied]) -> None:
        records = [a.record for a in applied if a.record is not None]
        if records:
            snapshot = None
            if self.version - self.last_snapshot >= self.limits.snapshot_every:
                snapshot = (self.version, self.engine.state.model_dump(mode="json"))
            try:
                await self.store.call(self.store.storage.append, self.id, records, snapshot)
            except Exception:
                log.exception("commit failed; room stops", extra={"room": self.id})
                self._fail(applied)
                raise
            if snapshot is not None:
                self.last_snapshot = snapshot[0]
        for a in applied:
            self._reply(a)

    def _fail(self, applied: list[_Applied]) -> None:
        for a in applied:
            if a.sub.conn:
                a.sub.conn.drop("storage_error", INTERNAL.ja, INTERNAL.en)
        for conn in list(self.conns):
            conn.drop("storage_error", INTERNAL.ja, INTERNAL.en)
        if self.on_fail is not None:
            self.on_fail(self.id)
        self.task.cancel()

    # -- replies and fan-out ------------------------------------------------------------
    def _reply(self, a: _Applied) -> None:
        conn = a.sub.conn
        if a.duplicate_of is not None:
            if conn:
                conn.send_msg({"type": "ack", "id": a.sub.msg_id, "version": a.duplicate_of,
                               "duplicate": True})
            return
        if a.refusal is not None:
            self._refused(a.sub, a.refusal)
            if a.sub.event is not None and conn is not None:
                self._snap_back(conn, a.sub, a.refusal)
            return
        assert a.outcome is not None
        if log.isEnabledFor(logging.DEBUG):
            log.debug("applied", extra={"room": self.id, "version": a.outcome.version,
                                        "kind": getattr(a.sub.action, "kind", None)})
        if conn:
            conn.send_msg({"type": "ack", "id": a.sub.msg_id, "version": a.outcome.version})
        for c in list(self.conns):
            frame = a.frames.get(c.audience.key)
            if frame is not None:
                c.send(frame)
            if c.platform and (ops := a.frames.get("platform:" + c.platform)) is not None:
                c.send(ops)
        for w in a.outcome.warnings:
            self.notify_gm("warning", {"client": conn.label if conn else "server",
                                       **w.model_dump()})
        for p in a.outcome.happenings:
            if p.kind == "prompt.asked":
                self._push_prompt(str(p.data["prompt"]))

    def _refused(self, sub: Submit, r: Refusal) -> None:
        reject = {"type": "reject", "id": sub.msg_id, "code": r.code, "rule": r.rule,
                  "reason": {"ja": r.ja, "en": r.en}, "version": self.version,
                  "details": to_jsonable_python(r.details)}
        if sub.conn:
            sub.conn.send_msg(reject)
        log.info("refused", extra={"room": self.id, "code": r.code, "rule": r.rule,
                                   "client": sub.conn.label if sub.conn else "server",
                                   "kind": getattr(sub.action, "kind", None)})
        self.notify_gm("refusal", {
            "client": sub.conn.label if sub.conn else "server",
            "role": sub.conn.role if sub.conn else "server",
            "kind": getattr(sub.action, "kind", "?"), "code": r.code, "rule": r.rule,
            "reason": {"ja": r.ja, "en": r.en}})

    def _snap_back(self, conn: Connection, sub: Submit, r: Refusal) -> None:
        adapter = self.adapters.get(conn.platform or "")
        if adapter is None or sub.event is None:
            return
        try:
            ops = adapter.snap_back(sub.event, self.views["table"].tree, {"ja": r.ja, "en": r.en})
        except Exception:
            log.exception("adapter failed on snap-back", extra={"room": self.id})
            return
        conn.send_msg({"type": "table.ops", "platform": adapter.platform, "version": self.version,
                       "reset": False, "ops": ops, "event": sub.msg_id})

    def _push_prompt(self, prompt_id: str) -> None:
        prompt = self.engine.state.prompts.get(prompt_id)
        if prompt is None:
            return
        for c in self.conns:
            if prompt.visible_to(c.audience):
                from ..engine.views import project

                c.send_msg({"type": "prompt", "prompt": project(prompt, c.audience),
                            "version": self.version})

    def notify_gm(self, kind: str, data: dict[str, Any]) -> None:
        frame = dumps({"type": "notice", "kind": kind, "data": data})
        for c in self.conns:
            if c.role == "gm":
                c.send(frame)

    def _project(self, a: _Applied) -> dict[str, str]:
        """One change frame per audience, computed right after the action applied."""
        assert a.outcome is not None
        outcome, units = a.outcome, a.outcome.units
        frames: dict[str, str] = {}
        public_log = [{"ja": x.ja, "en": x.en} for x in outcome.log if x.chat]
        table_ops: list[dict[str, Any]] = []
        for key, view in self.views.items():
            msg: dict[str, Any] = {"type": "change", "from_version": outcome.version - 1,
                                   "to_version": outcome.version,
                                   "ops": view.update(self.engine.state, units)}
            if key == "table":
                table_ops = msg["ops"]
            if view.audience.is_gm:
                assert a.record is not None
                msg["log"] = [{"ja": x.ja, "en": x.en} for x in outcome.log]
                msg["info"] = {"actor": a.record.actor, "action": a.record.action,
                               "rolls": a.record.rolls, "warnings": a.record.warnings,
                               "happenings": [h.model_dump() for h in outcome.happenings]}
            else:
                msg["log"] = public_log
            frame = dumps(msg)
            frames[key] = frame
            self.history[key].append((outcome.version - 1, outcome.version, frame))
        for name, adapter in self.adapters.items():
            frames["platform:" + name] = self._platform_frame(adapter, table_ops, public_log)
        return frames

    def _platform_frame(self, adapter: PlatformAdapter, ops: list[dict[str, Any]],
                        public_log: list[dict[str, str]]) -> str:
        try:
            pops = adapter.update(self.views["table"].tree, ops, public_log)
        except Exception:
            log.exception("adapter failed on update", extra={"room": self.id})
            pops = []
        return dumps({"type": "table.ops", "platform": adapter.platform, "version": self.version,
                      "reset": False, "ops": pops})

    # -- joining ----------------------------------------------------------------------
    def _view(self, audience: Audience) -> View:
        view = self.views.get(audience.key)
        if view is None:
            view = self.views[audience.key] = View(audience, self.engine.state)
            self.history[audience.key] = deque(maxlen=self.limits.history)
        return view

    def _join(self, conn: Connection, since: int | None) -> None:
        view = self._view(conn.audience)
        self.conns.add(conn)
        conn.send_msg({"type": "welcome", "protocol": 1, "room": self.id, "role": conn.role,
                       "player": conn.player, "audience": view.audience.key,
                       "version": self.version})
        if since is not None and since <= self.version and self._resume(conn, since):
            pass
        else:
            conn.send_msg({"type": "snapshot", "version": self.version, "state": view.tree})
        if conn.role == "bridge" and conn.platform:
            self._join_platform(conn)
        self.presence()

    def _join_platform(self, conn: Connection) -> None:
        """A platform bridge joined: make its adapter if needed and rebuild its table."""
        assert conn.platform is not None
        tree = self._view(Audience("table")).tree
        try:
            adapter = self.adapters.get(conn.platform)
            if adapter is None:
                adapter = self.adapters[conn.platform] = make_adapter(conn.platform, tree)
            ops = adapter.reset(tree)
        except Exception:
            log.exception("adapter failed on join", extra={"room": self.id})
            conn.send_msg({"type": "error", "id": None, "code": "adapter_failed", "details": {},
                           "reason": {"ja": ADAPTER_FAILED.ja, "en": ADAPTER_FAILED.en}})
            return
        conn.send_msg({"type": "table.ops", "platform": conn.platform, "version": self.version,
                       "reset": True, "ops": ops})

    def _resume(self, conn: Connection, since: int) -> bool:
        """Send exactly the changes after `since`, if the history still holds them."""
        if since == self.version:
            return True
        hist = self.history[conn.audience.key]
        if not hist or hist[0][0] > since:
            return False
        for frm, _to, frame in hist:
            if frm >= since:
                conn.send(frame)
        return True

    def leave(self, conn: Connection) -> None:
        self.conns.discard(conn)
        self.presence()

    def presence(self) -> None:
        self.notify_gm("presence", {"connections": [c.info() for c in self.conns]})

    async def stop(self) -> None:
        self.task.cancel()
        for conn in list(self.conns):
            conn.drop("server_shutdown", "サーバーを停止します。", "The server is shutting down.")
