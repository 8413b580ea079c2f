"""Who sees what in a room: per-audience views, their change history, platform adapters,
and the connections they are sent to.

The room's writer task calls `project` right after each action applies (so every frame
is computed against exactly that version's state), and `send` once the batch is durable.
Joining, resuming with `since`, prompts, GM notices and bridges' table ops live here too.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from pydantic import ValidationError

from ..adapters.base import PlatformAdapter
from ..adapters.registry import make_adapter
from ..engine.actions import ActionBase
from ..engine.core import Engine, Outcome
from ..engine.errors import Refusal, Text
from ..engine.paths import Path
from ..engine.registry import parse_action
from ..engine.views import Audience, View, project, refusal_for
from .connection import Connection, dumps, frame_size
from .errors import E_REVOKED as REVOKED
from .storage import ActionRecord

__all__ = ["Audiences", "Frames"]

log = logging.getLogger("komasync.room")

Frames = dict[str, str]
"""Serialised frames of one change, keyed by audience key or `platform:<name>`."""

NO_ADAPTER = Text("このブリッジのプラットフォームが設定されていません。",
                  "This bridge did not say which platform it drives.")
IGNORED = Text("卓のイベントを操作にできませんでした: {why}",
               "The table event did not make an action: {why}")
ADAPTER_FAILED = Text("卓への変換に失敗しました（サーバーログを見てください）。",
                      "Translating to the table failed (see the server log).")
INTERNAL = Text("サーバー内部のエラーで操作は適用されませんでした。",
                "An internal server error; the action was not applied.")


class Audiences:
    """The views, histories, adapters and connections of one room."""

    def __init__(self, room_id: str, engine: Engine, history: int) -> None:
        self.room_id = room_id
        self.engine = engine
        self.history_size = history
        self.conns: set[Connection] = set()
        self.revoked: set[str] = set()
        self.views: dict[str, View] = {}
        self.history: dict[str, deque[tuple[int, int, str]]] = {}
        self.adapters: dict[str, PlatformAdapter] = {}

    @property
    def version(self) -> int:
        return self.engine.version

    def view(self, audience: Audience) -> View:
        """The audience's view, made (with an empty history) the first time it is needed."""
        view = self.views.get(audience.key)
        if view is None:
            view = self.views[audience.key] = View(audience, self.engine.state)
            self.history[audience.key] = deque(maxlen=self.history_size)
        return view

    # -- one change -----------------------------------------------------------------------
    def project(self, outcome: Outcome, record: ActionRecord) -> Frames:
        """One change frame per audience (the GM's with what produced it), plus each
        platform's ops."""
        public_log = [{"ja": x.ja, "en": x.en} for x in outcome.log if x.chat]
        frames: Frames = {}
        table_ops: list[dict[str, Any]] = []
        for key, view in self.views.items():
            msg: dict[str, Any] = {"type": "change", "from_version": outcome.version - 1,
                                   "to_version": outcome.version,
                                   "ops": view.update(self.engine.state, outcome.units)}
            if key == "table":
                table_ops = msg["ops"]
            if view.audience.is_gm:
                msg["log"] = [{"ja": x.ja, "en": x.en} for x in outcome.log]
                msg["info"] = {"actor": record.actor, "action": record.action,
                               "rolls": record.rolls, "warnings": record.warnings,
                               "happenings": [h.model_dump() for h in outcome.happenings]}
            else:
                msg["log"] = public_log
            frames[key] = dumps(msg)
            self.history[key].append((outcome.version - 1, outcome.version, frames[key]))
        for name, adapter in self.adapters.items():
            frames["platform:" + name] = self._platform_frame(adapter, table_ops, public_log)
        return frames

    def _platform_frame(self, adapter: PlatformAdapter, ops: list[dict[str, Any]],
                        public_log: list[dict[str, str]]) -> str:
        try:
            pops = adapter.update(self.views["table"].tree, ops, public_log)
        except Exception:
            log.exception("adapter failed on update", extra={"room": self.room_id})
            pops = []
        return dumps({"type": "table.ops", "platform": adapter.platform, "version": self.version,
                      "reset": False, "ops": pops})

    def unproject(self, version: int, units: list[Path]) -> None:
        """After a change at `version` was reverted before it was sent: every view,
        history and platform adapter back to the (restored) state, as if it never was."""
        for key, view in self.views.items():
            view.update(self.engine.state, units)
            history = self.history[key]
            while history and history[-1][1] >= version:
                history.pop()
        table = self.views.get("table")
        for adapter in self.adapters.values():
            if table is not None:
                try:
                    adapter.update(table.tree, [], [])
                except Exception:
                    log.exception("adapter failed on revert", extra={"room": self.room_id})

    def reset(self, text: Text) -> None:
        """Forget every view, history and adapter; every client reconnects to a snapshot."""
        self.views.clear()
        self.history.clear()
        self.adapters.clear()
        self.drop_all("internal_error", text)

    def send(self, frames: Frames) -> None:
        """Fan a durable change out to every connection, by audience and platform."""
        for c in list(self.conns):
            frame = frames.get(c.audience.key)
            if frame is not None:
                c.send(frame)
            if c.platform and (ops := frames.get("platform:" + c.platform)) is not None:
                c.send(ops)

    def push_prompt(self, prompt_id: str) -> None:
        """Tell whoever a new prompt is for (it is in their state too)."""
        prompt = self.engine.state.prompts.get(prompt_id)
        if prompt is None:
            return
        for c in self.conns:
            if prompt.visible_to(c.audience):
                c.send_msg({"type": "prompt", "prompt": project(prompt, c.audience),
                            "version": self.version})

    def notify_gm(self, kind: str, data: dict[str, Any]) -> None:
        frame = dumps({"type": "notice", "kind": kind, "data": data})
        for c in self.conns:
            if c.role == "gm":
                c.send(frame)

    # -- bridges ------------------------------------------------------------------------
    def translate(self, conn: Connection | None, event: dict[str, Any]
                  ) -> ActionBase | Refusal:
        """A bridge's platform event → the engine action its adapter makes of it."""
        adapter = self.adapters.get(conn.platform or "") if conn else None
        if adapter is None:
            return Refusal("no_adapter", NO_ADAPTER)
        try:
            result = adapter.event(event, self.views["table"].tree)
            if result.action is None:
                return Refusal("event_ignored", IGNORED.format(why=result.ignored or "-"))
            return parse_action(result.action)
        except ValidationError as e:
            return Refusal("bad_action", IGNORED.format(why=e.errors()[0]["msg"]))
        except Exception:
            log.exception("adapter failed on event", extra={"room": self.room_id})
            return Refusal("internal_error", INTERNAL)

    def snap_back(self, conn: Connection, event: dict[str, Any], msg_id: str,
                  r: Refusal) -> None:
        """Put a refused move back on the VTT, telling the mover why."""
        adapter = self.adapters.get(conn.platform or "")
        if adapter is None:
            return
        told = refusal_for(r, self.engine.state, conn.audience)  # the VTT may show it to all
        try:
            ops = adapter.snap_back(event, self.views["table"].tree, {"ja": told.ja, "en": told.en})
        except Exception:
            log.exception("adapter failed on snap-back", extra={"room": self.room_id})
            return
        conn.send_msg({"type": "table.ops", "platform": adapter.platform, "version": self.version,
                       "reset": False, "ops": ops, "event": msg_id})

    # -- joining ------------------------------------------------------------------------
    def join(self, conn: Connection, since: int | None) -> None:
        """Welcome, then a snapshot or exactly the missed changes, then a bridge's table."""
        if conn.principal in self.revoked:  # revoked while it was authenticating
            conn.drop("invite_revoked", REVOKED.ja, REVOKED.en)
            return
        view = self.view(conn.audience)
        self.conns.add(conn)
        conn.send_msg({"type": "welcome", "protocol": 1, "room": self.room_id,
                       "role": conn.role, "player": conn.player,
                       "audience": view.audience.key, "version": self.version})
        if since is None or since > self.version or not self._resume(conn, since):
            conn.send_msg({"type": "snapshot", "version": self.version, "state": view.tree})
        if conn.role == "bridge" and conn.platform:
            self._join_platform(conn)
        self.presence()

    def _resume(self, conn: Connection, since: int) -> bool:
        """Send exactly the changes after `since`, if the history still holds them."""
        if since == self.version:
            return True
        hist = self.history[conn.audience.key]
        if not hist or hist[0][0] > since:
            return False
        missed = [frame for frm, _to, frame in hist if frm >= since]
        if not conn.fits(sum(map(frame_size, missed))):  # more than its outbox: a snapshot instead
            return False
        for frame in missed:
            conn.send(frame)
        return True

    def _join_platform(self, conn: Connection) -> None:
        """A platform bridge joined: make its adapter if needed and rebuild its table."""
        assert conn.platform is not None
        tree = self.view(Audience("table")).tree
        try:
            adapter = self.adapters.get(conn.platform)
            if adapter is None:
                adapter = self.adapters[conn.platform] = make_adapter(conn.platform, tree)
            ops = adapter.reset(tree)
        except Exception:
            log.exception("adapter failed on join", extra={"room": self.room_id})
            conn.send_msg({"type": "error", "id": None, "code": "adapter_failed", "details": {},
                           "reason": {"ja": ADAPTER_FAILED.ja, "en": ADAPTER_FAILED.en}})
            return
        conn.send_msg({"type": "table.ops", "platform": conn.platform, "version": self.version,
                       "reset": True, "ops": ops})

    def leave(self, conn: Connection) -> None:
        self.conns.discard(conn)
        self.presence()

    def presence(self) -> None:
        self.notify_gm("presence", {"connections": [c.info() for c in self.conns]})

    def revoke(self, principal: str) -> None:
        """An invite was revoked: close every connection it opened, now and later."""
        self.revoked.add(principal)
        for conn in [c for c in self.conns if c.principal == principal]:
            conn.drop("invite_revoked", REVOKED.ja, REVOKED.en)

    def drop_all(self, code: str, text: Text) -> None:
        for conn in list(self.conns):
            conn.drop(code, text.ja, text.en)
