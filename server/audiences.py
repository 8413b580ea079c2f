"""Who sees what in a room: per-audience views, the room's change history, and the
connections they are sent to.

The room's writer task calls `project` right after each action applies (so every frame
is computed against exactly that version's state), and `send` once the batch is durable.
A change is projected once for the GM and once for every *distinct* non-GM view: a unit
whose projection never asked which non-GM audience it was for (see `NonGmProbe`) is
projected once and shared, and audiences whose ops come out the same share one
serialised frame. The bridges' tables (platform adapters, `table.ops`, `table.event`)
are `Tables` (tables.py), handed the `table` view's ops as they are projected and asked
for their frames once per committed batch (`platform_frames`). Joining, resuming with
`since`, prompts and GM notices live here too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from ..engine.core import Engine, Outcome
from ..engine.errors import Code, Text
from ..engine.paths import Path, get
from ..engine.views import (
    GM,
    Audience,
    Memo,
    NonGmProbe,
    Op,
    View,
    project,
    project_unit,
)
from .connection import Connection, Limits, Wires, dumps
from .errors import INTERNAL_ERROR, INVITE_REVOKED
from .offload import BIG, dumps_sliced, keep, offload, units
from .protocol import PROTOCOL_VERSION, WELCOME_TABLES
from .roll_ledger import RollLedger
from .storage import ActionRecord
from .tables import Tables

__all__ = ["Audiences", "Frames", "by_gm"]

T = TypeVar("T")


def by_gm(actor: dict[str, Any]) -> bool:
    """Whether a logged change was the GM's (every audience is told: `change.by_gm`)."""
    return actor.get("role") == "gm"

Frames = dict[str, bytes]
"""Serialised frames of one change, keyed by audience key."""
PER_AUDIENCE: Any = object()  # a unit whose projection depends on which non-GM audience


class History:
    """The room's last changes per audience, bounded by count and by size (frames shared
    by several audiences are counted once).

    Compact, as every active room keeps one: per version a tuple of frames in the order
    of `keys` (the audiences seen so far; a shorter tuple for versions from before an
    audience's view existed) and its size."""

    def __init__(self, count: int, size: int) -> None:
        self.count = count
        self.size = size
        self.keys: dict[str, int] = {}
        self.kept: deque[tuple[int, tuple[bytes | None, ...], int]] = deque()
        self.total = 0

    def add(self, to_version: int, frames: Frames) -> None:
        # orjson's bytes keep a 4 KiB buffer whatever their length: kept frames are copied
        # to their exact size (once per distinct frame, so shared frames stay shared).
        tight = {id(f): bytes(memoryview(f)) for f in frames.values()}
        for key in frames:
            self.keys.setdefault(key, len(self.keys))
        row: list[bytes | None] = [None] * len(self.keys)
        for key, f in frames.items():
            row[self.keys[key]] = tight[id(f)]
        size = sum(len(f) for f in tight.values())
        self.kept.append((to_version, tuple(row), size))
        self.total += size
        while self.kept and (len(self.kept) > self.count or self.total > self.size):
            self.total -= self.kept.popleft()[2]

    def drop_from(self, version: int) -> None:
        """Forget every change to `version` or later (it was taken back before sending)."""
        while self.kept and self.kept[-1][0] >= version:
            self.total -= self.kept.pop()[2]

    def since(self, key: str, since: int) -> list[bytes] | None:
        """Exactly the audience's frames after `since`, or None if not all are kept."""
        at = self.keys.get(key)
        if at is None or not self.kept or self.kept[0][0] - 1 > since:
            return None
        frames = [row[at] if at < len(row) else None
                  for to, row, _size in self.kept if to > since]
        return None if any(f is None for f in frames) else frames  # type: ignore[return-value]


class Audiences:
    """The views, history, bridges' tables and connections of one room."""

    def __init__(self, room_id: str, engine: Engine, limits: Limits,
                 gm_view: View | None = None) -> None:
        self.room_id = room_id
        self.engine = engine
        self.limits = limits
        self.conns: set[Connection] = set()
        self.revoked: set[str] = set()
        # The GM's view always exists: it is also what storage snapshots are made of.
        self.views: dict[str, View] = {"gm": gm_view or View(GM, engine.state)}
        self.history = History(limits.history, limits.history_bytes)
        self.snapshots: dict[str, tuple[int, bytes]] = {}  # audience key → (version, frame)
        self.tables = Tables(room_id, engine)
        self.rolls = RollLedger()  # the bridges' last rolls, for the GMs (roll_ledger.py)

    @property
    def version(self) -> int:
        return self.engine.version

    @property
    def big(self) -> bool:
        """Whole-room work (a new view, a snapshot, a platform redraw) goes to the worker."""
        return units(self.views["gm"].tree) > BIG

    async def _work(self, fn: Callable[..., T], *args: Any) -> T:
        return await offload(fn, *args) if self.big else fn(*args)

    async def view(self, audience: Audience) -> View:
        """The audience's view, made the first time it is needed."""
        view = self.views.get(audience.key)
        if view is None:
            made = await self._work(View, audience, self.engine.state)
            view = self.views.setdefault(audience.key, made)
            if self.big:
                keep()
        return view

    # -- one change -----------------------------------------------------------------------
    def project(self, outcome: Outcome, record: ActionRecord) -> Frames:
        """One change frame per audience: the GM's with what produced it, every other
        audience's computed once per distinct view."""
        root = self.engine.state
        units = outcome.units
        public_log = [{"ja": x.ja, "en": x.en} for x in outcome.log if x.chat]
        head: dict[str, Any] = {"type": "change", "from_version": outcome.version - 1,
                                "to_version": outcome.version}
        if record.action.get("kind") == "restore":  # every audience drops what it undid
            head["undo_to"] = record.action["to_version"]
        if by_gm(record.actor):  # a player sees that the GM, not they, moved their PC
            head["by_gm"] = True
        gm = self.views["gm"]
        frames: Frames = {"gm": dumps({
            **head, "ops": gm.update(root, units),
            "log": [{"ja": x.ja, "en": x.en} for x in outcome.log],
            "info": {"actor": record.actor, "action": record.action, "rolls": record.rolls,
                     "warnings": record.warnings,
                     "happenings": [h.model_dump() for h in outcome.happenings]}})}
        others = [(k, v) for k, v in self.views.items() if not v.audience.is_gm]
        if others:
            shared = [self._shared(root, u) for u in units]
            memos: list[Memo] = [[] for _ in units]
            by_ops: dict[tuple[int, ...], bytes] = {}
            for key, view in others:
                per_unit = self._put(view, units, shared, memos)
                sig = tuple(id(ops) if ops else 0 for ops in per_unit)
                frame = by_ops.get(sig)
                if frame is None:
                    frame = by_ops[sig] = dumps({**head, "ops": [op for ops in per_unit
                                                                  for op in ops],
                                                 "log": public_log})
                frames[key] = frame
                if key == "table" and self.tables.adapters:
                    self.tables.add(outcome.version, [op for ops in per_unit for op in ops])
        self.history.add(outcome.version, frames)
        if self.snapshots:  # made for an older version: never sent again (a large room's
            self.snapshots = {}  # are megabytes each, kept until the next join otherwise)
        return frames

    @staticmethod
    def _shared(root: Any, unit: Path) -> Any:
        """The unit's projection for every non-GM audience, or PER_AUDIENCE if the rules
        that made it asked which audience it was for.

        Only an entry of a dict (a piece, a fort, a prompt) is shared: no change ever
        lands inside it, so views holding the same object never see it altered. A unit
        above the first dict (e.g. a whole collection replaced) may later have entries
        changed in place, so each view keeps its own copy of it."""
        if not isinstance(get(root, unit[:-1]), dict):
            return PER_AUDIENCE
        probe = NonGmProbe(Audience("table"))
        new = project_unit(root, unit, probe)  # type: ignore[arg-type]
        return PER_AUDIENCE if probe.read else new

    def _put(self, view: View, units: list[Path], shared: list[Any],
             memos: list[Memo]) -> list[list[Op]]:
        root = self.engine.state
        return [view.put(unit, project_unit(root, unit, view.audience) if new is PER_AUDIENCE
                         else new, memo)
                for unit, new, memo in zip(units, shared, memos, strict=True)]

    async def platform_frames(self, logs: list[list[dict[str, str]]]) -> dict[str, bytes]:
        """Each connected platform's table ops for everything committed since the last
        call (`logs`: each change's public log lines), one frame per platform."""
        drawn = self.tables.adapters
        wanted = {c.platform for c in self.conns if c.platform and c.platform in drawn}
        return await self.tables.frames(logs, wanted, bool(wanted) and self.big)

    async def state_json(self, rng: dict[str, Any]) -> bytes:
        """The whole state for a storage snapshot: the GM's view (kept up to date change by
        change, so nothing is dumped from the models) plus the dice state."""
        # one object, rng first: the view's tree never holds "rng" (View pops it)
        return await self._work(dumps_sliced, {"rng": rng, **self.views["gm"].tree})

    def unproject(self, version: int, units: list[Path]) -> None:
        """After a change at `version` was reverted before it was sent: every view and the
        history back to the (restored) state, as if it never was. (Platform adapters draw
        only what was committed, once per batch: they never saw it.)"""
        for view in self.views.values():
            view.update(self.engine.state, units)
        self.history.drop_from(version)
        self.tables.drop_from(version)
        self.snapshots.clear()

    def reset(self, text: Text) -> None:
        """Forget every view, history and adapter; every client reconnects to a snapshot."""
        self.views = {"gm": View(GM, self.engine.state)}
        self.history = History(self.limits.history, self.limits.history_bytes)
        self.snapshots.clear()
        self.tables.clear()
        self.drop_all(INTERNAL_ERROR, text)

    def send(self, frames: Frames) -> None:
        """Fan a durable change out to every connection, by audience (each distinct frame
        framed once for all the sockets it goes to)."""
        wires = Wires()
        for c in list(self.conns):
            frame = frames.get(c.key)
            if frame is not None:
                c.send(frame, wires=wires)

    def send_platform(self, frames: dict[str, bytes]) -> None:
        for c in list(self.conns):
            if c.platform and (ops := frames.get(c.platform)) is not None:
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

    # -- joining ------------------------------------------------------------------------
    async def join(self, conn: Connection, since: int | None) -> None:
        """Welcome, then a snapshot or exactly the missed changes, then a bridge's table.

        Runs in the room's task: what it waits for (a large room's new view, snapshot or
        table, built by the worker) is made from a state nothing else can change."""
        if conn.principal in self.revoked:  # revoked while it was authenticating
            conn.drop(INVITE_REVOKED)
            return
        view = await self.view(conn.audience)
        missed = self._missed(conn, view, since)
        snapshot = await self.snapshot(view) if missed is None else None
        if conn.closed or conn.principal in self.revoked:
            return  # it went away (or was revoked) while the worker ran
        self.conns.add(conn)
        conn.send_msg({"type": "welcome", "protocol": PROTOCOL_VERSION, "room": self.room_id,
                       "role": conn.role, "player": conn.player,
                       "audience": view.audience.key, "version": self.version,
                       "tables": WELCOME_TABLES}, burst=True)
        for frame in [snapshot] if snapshot is not None else missed or []:
            conn.send(frame, burst=True)
        if conn.role == "bridge" and conn.platform:
            await self.tables.join(conn, await self.view(Audience("table")), self.big)
        if conn.role == "gm":  # the rolls the bridges delivered before this GM came
            for entry in self.rolls.entries():
                conn.send_msg({"type": "notice", "kind": "roll", "data": entry}, burst=True)
            for c in self.conns:  # each bridge's last status: its pieces, users, page check
                if c.role == "bridge" and c.bridge_notice is not None:
                    conn.send_msg({"type": "notice", "kind": "bridge", "data": c.bridge_notice},
                                  burst=True)
        self.presence()

    def _missed(self, conn: Connection, view: View, since: int | None) -> list[bytes] | None:
        """Exactly the changes after `since` for a resume, or None for a snapshot (no
        `since`, one from the future, too old for the history kept, or more than the
        connection's outbox holds)."""
        if since is None or since > self.version:
            return None
        frames = [] if since == self.version else self.history.since(view.audience.key, since)
        if frames is None or not conn.fits(sum(map(len, frames))):
            return None
        return frames

    async def snapshot(self, view: View) -> bytes:
        """The audience's snapshot frame, serialised once per version."""
        key = view.audience.key
        cached = self.snapshots.get(key)
        if cached is None or cached[0] != self.version:
            frame = await self._work(dumps_sliced, view.tree,
                                     b'{"type":"snapshot","version":%d,"state":' % self.version,
                                     b"}")
            # other audiences' snapshots of older versions are never sent again: not kept
            self.snapshots = {k: c for k, c in self.snapshots.items() if c[0] == self.version}
            cached = self.snapshots[key] = (self.version, frame)
        return cached[1]

    def leave(self, conn: Connection) -> None:
        self.conns.discard(conn)
        self.presence()

    def presence(self) -> None:
        self.notify_gm("presence", {"connections": [c.info() for c in self.conns]})

    def revoke(self, principal: str) -> None:
        """An invite was revoked: close every connection it opened, now and later."""
        self.revoked.add(principal)
        for conn in [c for c in self.conns if c.principal == principal]:
            conn.drop(INVITE_REVOKED)

    def drop_all(self, code: Code, text: Text | None = None) -> None:
        for conn in list(self.conns):
            conn.drop(code, text)
