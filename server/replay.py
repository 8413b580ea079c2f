"""Rebuilding a room from the log: snapshot + replay of actions, deterministic."""

from __future__ import annotations

from typing import Any, Protocol

from ..engine.actions import ActionBase
from ..engine.control import Restore
from ..engine.core import Engine
from ..engine.registry import parse_action
from ..engine.state import RoomState
from ..engine.tx import Actor
from .storage import ActionRecord, RoomRow

__all__ = ["LogReader", "logged_action", "rebuild", "state_at"]


class LogReader(Protocol):
    """What rebuilding needs of a store (the SQLite `Storage` and the Redis log both)."""

    def room(self, room_id: str) -> RoomRow | None: ...

    def latest_snapshot(self, room_id: str, upto: int | None = None
                        ) -> tuple[int, dict[str, Any]] | None: ...

    def actions(self, room_id: str, after: int, upto: int | None = None,
                limit: int | None = None) -> list[ActionRecord]: ...


def logged_action(data: dict[str, Any]) -> ActionBase:
    """An action as the log keeps it (including the server-only `restore`)."""
    if data.get("kind") == "restore":
        return Restore.model_validate(data)
    return parse_action(data)


def replay(engine: Engine, records: list[ActionRecord]) -> Engine:
    """Re-apply logged actions in order; each must land on its logged version."""
    for record in records:
        if record.version != engine.version + 1:
            raise RuntimeError(f"log gap: expected {engine.version + 1}, got {record.version}")
        engine.apply(logged_action(record.action), Actor.from_log(record.actor))
    return engine


def rebuild(storage: LogReader, room_id: str, upto: int | None = None) -> Engine:
    """The room's engine at version `upto` (default: the last logged one)."""
    row = storage.room(room_id)
    if row is None:
        raise KeyError(room_id)
    snap = storage.latest_snapshot(room_id, upto)
    if snap is None:
        engine = Engine(RoomState.model_validate(row.initial_state), 0)
    else:
        engine = Engine(RoomState.model_validate(snap[1]), snap[0])
    return replay(engine, storage.actions(room_id, engine.version, upto))


def state_at(storage: LogReader, room_id: str, version: int) -> dict[str, Any]:
    """The full state JSON at `version`, for undo."""
    return rebuild(storage, room_id, version).state.model_dump(mode="json")
