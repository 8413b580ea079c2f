"""The adapter skeleton both platforms share: render → platform objects → difference →
operations; platform events → engine actions; refused moves → snap-back.

A platform adapter (ccfolia/adapter.py, foundry/adapter.py) says only how its settings,
objects and operations look; the steps in between live in the modules this one wires:
geometry.py (settings, squares ⇄ coordinates), render.py (the neutral table objects),
diff.py (what changed), events.py and chat.py (events → actions), replies.py (why not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.errors import Text
from .base import EventResult
from .board import BOARD_ID
from .dice_events import dice_chat
from .diff import Diff, PlatformObject, PObjects, changed_fields, diff
from .events import translate_event, user_id
from .geometry import AdapterSettings, Geometry
from .objects import Objects, TableObject
from .patch import Patch, Rendered
from .projection import grid_of
from .render import render
from .replies import refusal_line
from .rolls import chat_roll, credit_alias

__all__ = ["SETTINGS_BAD", "TableAdapter"]

SETTINGS_BAD = Text("komasync: 卓の設定 meta.platforms.{p} が不正なので既定値を使います: {why}",
                    "komasync: invalid table settings meta.platforms.{p}; using defaults: {why}")


class TableAdapter:
    """One platform's adapter: render → platform objects → difference → operations.

    Subclasses say how settings, objects and operations look on their platform
    (`_settings`, `_objects`, `_ops`, `_chat_ops`, `_snap_ops`). The adapter keeps the
    platform objects it last sent (`self.shown`), never a reference into the projection.
    A platform that can draw one object on its own (`_object`, `_board_object`) redraws
    only what a change touched (patch.py); the operations are the same either way.
    """

    platform = "?"
    patches = False  # True: `_object` and `_board_object` draw one object on their own
    reads_rolls = False  # True: chat events may carry wrapped BCDice text or `rolls` (rolls.py)
    settings: AdapterSettings
    geometry: Geometry
    grid: tuple[int, int]

    def __init__(self, tree: Mapping[str, Any]) -> None:
        self.shown: PObjects = {}
        self.problems: list[str] = []
        self._rendered: Rendered | None = None  # the neutral objects behind `shown`
        self._order: dict[str, int] = {}  # platform id → its place in `shown`
        self._configure(tree)

    @classmethod
    def from_tree(cls, tree: Mapping[str, Any]) -> TableAdapter:
        """A fresh adapter for a room whose `table` projection is `tree`."""
        return cls(tree)

    def _configure(self, tree: Mapping[str, Any]) -> None:
        """Re-read settings, geometry and grid: the GM may recalibrate at any time."""
        self.settings, self.geometry, self.problems = self._settings(tree)
        self.grid = grid_of(tree)

    # -- what subclasses provide --------------------------------------------------------
    def _settings(self, tree: Mapping[str, Any]) -> tuple[AdapterSettings, Geometry, list[str]]:
        raise NotImplementedError

    def _objects(self, objs: Objects, tree: Mapping[str, Any]) -> PObjects:
        raise NotImplementedError

    def _ops(self, change: Diff, reset: bool) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _object(self, oid: str, o: TableObject) -> PObjects:
        """This platform's objects for one neutral object (when `patches`)."""
        raise NotImplementedError

    def _board_object(self, objs: Objects) -> PlatformObject | None:
        """The board's platform object for `objs`, None when there is no board (when
        `patches`)."""
        raise NotImplementedError

    def _chat_ops(self, lines: list[tuple[str, str]], to: str | None = None,
                  kind: str = "log") -> list[dict[str, Any]]:
        raise NotImplementedError

    def _snap_ops(self, oid: str, obj: PlatformObject) -> list[dict[str, Any]]:
        raise NotImplementedError

    # -- the PlatformAdapter protocol ----------------------------------------------------
    def draw(self, tree: Mapping[str, Any]) -> tuple[Objects, PObjects]:
        """The neutral objects and this platform's objects for `tree` (no side effects
        beyond re-reading the platform settings)."""
        self._configure(tree)
        objs = render(tree)
        return objs, self._objects(objs, tree)

    def reset(self, tree: dict[str, Any]) -> list[dict[str, Any]]:
        """Operations that build the whole table, plus a line if the settings were invalid."""
        objs, new = self.draw(tree)
        self._keep(objs, new)
        ops = self._ops(Diff(created=list(new.items())), reset=True)
        if self.problems:
            why = "; ".join(self.problems)[:300]
            text = SETTINGS_BAD.format(p=self.platform, why=why)
            ops += self._chat_ops([(text.ja, text.en)], kind="settings")
        return ops

    def update(self, tree: dict[str, Any], ops: list[dict[str, Any]],
               log: list[dict[str, str]]) -> list[dict[str, Any]]:
        """Operations for what changed since the last draw, then the public log lines."""
        patched = self.patch(tree, ops, log)
        return patched if patched is not None else self.redraw(tree, log)

    def patch(self, tree: dict[str, Any], ops: list[dict[str, Any]],
              log: list[dict[str, str]]) -> list[dict[str, Any]] | None:
        """`update` from redrawing only what `ops` touched, in time that grows with them,
        not with the table; None when the whole table must be drawn (`redraw`, next)."""
        change = self._patched(tree, ops)
        return None if change is None else self._with_log(change, log)

    def redraw(self, tree: dict[str, Any], log: list[dict[str, str]]) -> list[dict[str, Any]]:
        """`update` from drawing the whole table again (what `patch` could not do)."""
        objs, new = self.draw(tree)
        change = diff(self.shown, new)
        self._keep(objs, new)
        return self._with_log(change, log)

    def _with_log(self, change: Diff, log: list[dict[str, str]]) -> list[dict[str, Any]]:
        lines = [(str(x.get("ja", "")), str(x.get("en", ""))) for x in log]
        return self._ops(change, reset=False) + (self._chat_ops(lines) if lines else [])

    def _keep(self, objs: Objects, shown: PObjects) -> None:
        """What was drawn whole: `shown`, and what a later patch starts from."""
        self.shown = shown
        if self.patches:
            self._rendered = Rendered(objs)
            self._order = {pid: i for i, pid in enumerate(shown)}

    def _patched(self, tree: dict[str, Any], ops: list[dict[str, Any]]) -> Diff | None:
        """The difference from redrawing only what `ops` touched (None: draw it all).

        Nothing is kept until every redrawn object is known to keep its platform ids and
        types, so a None leaves `shown` as it was for the whole draw."""
        if self._rendered is None or (patch := Patch.of(self._rendered, tree, ops)) is None:
            return None
        fresh: list[tuple[str, PlatformObject]] = []
        for oid in patch.redraw:
            drawn = self._object(oid, self._rendered.objs[oid])
            before = self._object(oid, patch.old[oid]) if oid in patch.old else drawn
            if drawn.keys() != before.keys() or any(
                    pid not in self.shown or self.shown[pid].type != obj.type
                    for pid, obj in drawn.items()):
                return None
            fresh += drawn.items()
        if patch.board:
            board = self._board_object(self._rendered.objs)
            if (board is None) != (BOARD_ID not in self.shown):
                return None
            if board is not None:
                fresh.append((BOARD_ID, board))
        change = Diff()
        for pid, obj in sorted(fresh, key=lambda item: self._order[item[0]]):
            before_obj = self.shown[pid]
            if changes := changed_fields(before_obj, obj):
                change.updated.append((pid, obj, changes, before_obj))
            self.shown[pid] = obj
        return change

    def event(self, event: dict[str, Any], tree: dict[str, Any]) -> EventResult:
        """A platform event as an engine action, or why it is ignored."""
        if self.reads_rolls and event.get("kind") == "chat":
            chat = dice_chat(event)
            if isinstance(chat, EventResult):
                return chat
            event = chat
        objs, _new = self.draw(tree)
        if event.get("kind") == "chat":
            event = credit_alias(event, tree, objs, self.settings)
        result = translate_event(event, tree, objs, self.geometry, self.settings)
        if result.roll is None and event.get("kind") == "chat":  # the GM's roll ledger
            result.roll = chat_roll(event, tree, objs, self.settings)
        return result

    def snap_back(self, event: dict[str, Any], tree: dict[str, Any],
                  reason: dict[str, str]) -> list[dict[str, Any]]:
        """Put the refused piece back where the projection has it; tell the mover why."""
        objs, new = self.draw(tree)
        ops: list[dict[str, Any]] = []
        oid = str(event.get("id", ""))
        if event.get("kind") == "move" and oid in new:
            ops += self._snap_ops(oid, new[oid])
        line = refusal_line(event, objs, reason)
        return ops + self._chat_ops([(line.ja, line.en)], to=user_id(event), kind="refusal")
