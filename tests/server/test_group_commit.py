"""The SQLite log's group commit: a group without snapshots is one INSERT statement (one
step, one commit); a batch that cannot be written keeps only itself out of the log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from komasync.server.storage import ActionRecord, Storage, encode


def row(version: int, key: str) -> tuple[object, ...]:
    rec = ActionRecord(version, key, {"role": "gm"}, {"kind": "table.counter.add"}, [], [], [], [], 1.0)
    return encode(rec)


def storage(tmp_path: Path) -> tuple[Storage, list[str]]:
    """A log with rooms a and b, and the statements run on its connection from now on."""
    s = Storage(tmp_path / "log.sqlite3")
    for room in ("a", "b"):
        s.create_room(room, room, "gm-secret-long-enough", {})
    statements: list[str] = []
    s.db.set_trace_callback(statements.append)
    return s, statements


def test_a_group_without_snapshots_is_one_statement(tmp_path: Path) -> None:
    s, statements = storage(tmp_path)
    results = s.append_group([("a", [row(1, "c:1"), row(2, "c:2")], None),  # type: ignore[list-item]
                              ("b", [row(1, "c:1")], None)])  # type: ignore[list-item]
    assert results == [None, None]
    assert len(statements) == 1 and statements[0].startswith("INSERT INTO actions")
    assert [r.version for r in s.actions("a", 0)] == [1, 2]
    assert [r.client_key for r in s.actions("b", 0)] == ["c:1"]
    assert not s.db.in_transaction  # committed: durable before append_group returns


def test_a_conflicting_batch_keeps_only_itself_out(tmp_path: Path) -> None:
    s, _ = storage(tmp_path)
    assert s.append_group([("a", [row(1, "c:1")], None)]) == [None]  # type: ignore[list-item]
    results = s.append_group([("b", [row(1, "b:1")], None),  # type: ignore[list-item]
                              ("a", [row(1, "again")], None),  # type: ignore[list-item]
                              ("a", [row(2, "c:2")], None)])  # type: ignore[list-item]
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], sqlite3.IntegrityError)
    assert [(r.version, r.client_key) for r in s.actions("a", 0)] == [(1, "c:1"), (2, "c:2")]
    assert [r.version for r in s.actions("b", 0)] == [1]


def test_a_group_with_a_snapshot_is_one_transaction(tmp_path: Path) -> None:
    s, statements = storage(tmp_path)
    results = s.append_group([("a", [row(1, "c:1")], (1, b'{"snap": 1}')),  # type: ignore[list-item]
                              ("b", [row(1, "c:1")], None)])  # type: ignore[list-item]
    assert results == [None, None]
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert s.latest_snapshot("a") == (1, {"snap": 1})
    assert [r.version for r in s.actions("b", 0)] == [1]
