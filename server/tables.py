"""The bridges' tables of one room: a platform adapter per connected platform, drawing the
`table` audience's committed changes as `table.ops` frames, and making actions of the
bridges' `table.event`s.

`Audiences` hands over each change's `table` ops as it projects them (`add`, only while
an adapter exists), takes back those of a change reverted before it was sent
(`drop_from`), and asks for one frame per platform per committed batch (`frames`). A
large room's whole-table work goes to the worker (see offload.py); a short batch is
patched on the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError

from ..adapters.base import PlatformAdapter, PlatformOp, RollSeen
from ..adapters.registry import make_adapter
from ..engine.actions import ActionBase
from ..engine.core import Engine
from ..engine.errors import Refusal, Text
from ..engine.registry import parse_action
from ..engine.views import Op, View, refusal_for
from .connection import Connection, dumps
from .errors import ADAPTER_FAILED, BAD_ACTION, EVENT_IGNORED, INTERNAL_ERROR, NO_ADAPTER, error_frame
from .offload import dumps_sliced, keep, offload

__all__ = ["PATCH_ON_LOOP", "Tables", "Translated"]

T = TypeVar("T")

PATCH_ON_LOOP = 16
"""A large room's batch with at most this many `table` ops has its bridges' table patched
on the event loop (well under a millisecond); longer ones go to the worker."""

log = logging.getLogger("komasync.room")



def _reset_frame(adapter: PlatformAdapter, tree: dict[str, Any], version: int) -> bytes:
    """A joining bridge's whole table (the adapter's `shown` becomes this table)."""
    return dumps_sliced({"type": "table.ops", "platform": adapter.platform, "version": version,
                         "reset": True, "ops": adapter.reset(tree)})


async def _work(big: bool, fn: Callable[..., T], *args: Any) -> T:
    return await offload(fn, *args) if big else fn(*args)


@dataclass
class Translated:
    """A bridge's event translated: the action, or the refusal of the event (`why`: the
    adapter's own reason, its languages apart), and the roll it carried (the GM's roll
    ledger, roll_ledger.py)."""

    action: ActionBase | None = None
    refusal: Refusal | None = None
    roll: RollSeen | None = None
    why: Text | None = None


class Tables:
    """The platform adapters of one room and the `table` view's ops not yet drawn."""

    def __init__(self, room_id: str, engine: Engine) -> None:
        self.room_id = room_id
        self.engine = engine
        self.adapters: dict[str, PlatformAdapter] = {}
        # The table audience's view, given by the first bridge's join (adapters draw it).
        self.view: View | None = None
        # The table view's ops of each change not yet drawn for the bridges (one batch's).
        self.pending: list[tuple[int, list[Op]]] = []

    def add(self, version: int, ops: list[Op]) -> None:
        """One change's `table` ops, drawn with its batch."""
        self.pending.append((version, ops))

    def drop_from(self, version: int) -> None:
        """Forget the ops of every change to `version` or later (taken back unsent)."""
        self.pending = [(v, ops) for v, ops in self.pending if v < version]

    def clear(self) -> None:
        """Forget every adapter, its view and what it had not drawn (the views were reset)."""
        self.adapters.clear()
        self.view = None
        self.pending = []

    @property
    def tree(self) -> dict[str, Any]:
        assert self.view is not None  # an adapter exists only once a bridge joined
        return self.view.tree

    # -- drawing ----------------------------------------------------------------------
    async def join(self, conn: Connection, view: View, big: bool) -> None:
        """A platform bridge joined: make its adapter if needed and rebuild its table."""
        assert conn.platform is not None
        self.view = view
        try:
            adapter = self.adapters.get(conn.platform)
            if adapter is None:
                adapter = await _work(big, make_adapter, conn.platform, view.tree)
                adapter = self.adapters.setdefault(conn.platform, adapter)
            frame = await _work(big, _reset_frame, adapter, view.tree, self.engine.version)
        except Exception:
            log.exception("adapter failed on join", extra={"room": self.room_id})
            conn.send_msg(error_frame(ADAPTER_FAILED))
            return
        if big:
            keep()
        conn.send(frame, burst=True)

    async def frames(self, logs: list[list[dict[str, str]]], wanted: set[str],
                     big: bool) -> dict[str, bytes]:
        """The `wanted` platforms' table ops for everything committed since the last call:
        one frame per batch, the adapter given the batch's `table` ops and public log
        lines in order (as it was given one change's before)."""
        ops = [op for _version, change in self.pending for op in change]
        self.pending = []
        out = {}
        for name, adapter in self.adapters.items():
            if name in wanted:
                public_log = [line for lines in logs for line in lines]
                out[name] = await self._frame(adapter, ops, public_log, big)
        return out

    async def _frame(self, adapter: PlatformAdapter, ops: list[dict[str, Any]],
                     public_log: list[dict[str, str]], big: bool) -> bytes:
        """A large room's batch goes to the worker only when the adapter must draw the
        whole table (or the batch is long): a patch costs what the batch touched."""
        tree = self.tree
        if not big:
            return self._whole(adapter, adapter.update, tree, ops, public_log)
        if len(ops) > PATCH_ON_LOOP:
            return await offload(self._whole, adapter, adapter.update, tree, ops, public_log)
        patched = self._drawn(adapter.patch, tree, ops, public_log)
        if patched is not None:
            return self._table_frame(adapter, patched)
        return await offload(self._whole, adapter, adapter.redraw, tree, public_log)

    def _whole(self, adapter: PlatformAdapter, draw: Callable[..., list[PlatformOp]],
               *args: Any) -> bytes:
        return self._table_frame(adapter, self._drawn(draw, *args) or [])

    def _drawn(self, draw: Callable[..., list[PlatformOp] | None],
               *args: Any) -> list[PlatformOp] | None:
        """What the adapter answers; none of its ops if it fails (the next batch draws
        from where it was)."""
        try:
            return draw(*args)
        except Exception:
            log.exception("adapter failed on update", extra={"room": self.room_id})
            return []

    def _table_frame(self, adapter: PlatformAdapter, pops: list[PlatformOp]) -> bytes:
        return dumps({"type": "table.ops", "platform": adapter.platform,
                      "version": self.engine.version, "reset": False, "ops": pops})

    # -- events -----------------------------------------------------------------------
    def translate(self, conn: Connection | None, event: dict[str, Any]) -> Translated:
        """A bridge's platform event → the engine action its adapter makes of it, and
        the roll it carried (`EventResult.roll`)."""
        adapter = self.adapters.get(conn.platform or "") if conn else None
        if adapter is None:
            return Translated(refusal=NO_ADAPTER.refuse())
        roll = None
        try:
            result = adapter.event(event, self.tree)
            roll = result.roll
            if result.action is None:
                return Translated(refusal=EVENT_IGNORED.refuse(why=result.ignored or "-"),
                                  roll=roll, why=result.why)
            return Translated(action=parse_action(result.action), roll=roll)
        except ValidationError as e:
            return Translated(refusal=BAD_ACTION.refuse(alt="event", why=e.errors()[0]["msg"]),
                              roll=roll)
        except Exception:
            log.exception("adapter failed on event", extra={"room": self.room_id})
            return Translated(refusal=INTERNAL_ERROR.refuse(alt="action"), roll=roll)

    def snap_back(self, conn: Connection, event: dict[str, Any], msg_id: str,
                  r: Refusal) -> None:
        """Put a refused move back on the VTT, telling the mover why."""
        adapter = self.adapters.get(conn.platform or "")
        if adapter is None:
            return
        told = refusal_for(r, self.engine.state, conn.audience)  # the VTT may show it to all
        try:
            ops = adapter.snap_back(event, self.tree, {"ja": told.ja, "en": told.en})
        except Exception:
            log.exception("adapter failed on snap-back", extra={"room": self.room_id})
            return
        conn.send_msg({"type": "table.ops", "platform": adapter.platform,
                       "version": self.engine.version, "reset": False, "ops": ops,
                       "event": msg_id})
