"""Storage snapshots sized to the room (server/storage/snapshot_policy.py): the policy itself, and a
room whose snapshots follow it comes back whole after a SIGKILL (both backends)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import yaml

from conftest import KOMASYNC, ON_REDIS, Client, open_store, serve_process, store_args
from komasync.server.storage import encode
from komasync.server.storage.snapshot_policy import SnapshotPolicy, row_bytes

LEASE = ["--lease-ms", "1500"] if ON_REDIS else []
SECRET = "s3cret-for-the-snapshot-test"
ROW = (1, "gm:a1", b"{}", b'{"kind":"x"}', b"[]", b"[]", b"[]", b"[]", 0.0)


def first_due(p: SnapshotPolicy, after: int) -> int:
    """Log one row per version after `after` until a snapshot is due; that version."""
    for v in range(after + 1, after + 10_000):
        p.log([ROW])
        if p.due(v):
            return v
    raise AssertionError("no snapshot due in 10,000 versions")


def test_row_bytes_counts_what_the_log_writes() -> None:
    assert row_bytes(ROW) == len("gm:a1") + 2 + 12 + 2 + 2 + 2 + 2


def test_a_small_room_keeps_the_fixed_interval() -> None:
    """Snapshot smaller than `every` rows: due every `every` versions, as before."""
    p = SnapshotPolicy(every=10, ceiling=100, version=0)
    assert first_due(p, 0) == 10
    p.taken(10, size=5)  # 5 bytes: one row is already more than that
    assert first_due(p, 10) == 20


def test_a_large_room_waits_until_the_log_has_grown_by_its_snapshot() -> None:
    per_row = row_bytes(ROW)
    p = SnapshotPolicy(every=10, ceiling=1000, version=0)
    p.taken(0, size=per_row * 35)
    due = []
    for v in range(1, 200):
        p.log([ROW])
        if p.due(v):
            due.append(v)
            p.taken(v, size=per_row * 35)
    assert due == [35, 70, 105, 140, 175]


def test_a_batch_counts_all_its_rows() -> None:
    per_row = row_bytes(ROW)
    p = SnapshotPolicy(every=2, ceiling=1000, version=0)
    p.taken(0, size=per_row * 8)
    p.log([ROW] * 7)
    assert not p.due(7)
    p.log([ROW] * 3)
    assert p.due(10)


def test_the_ceiling_bounds_replay_whatever_the_size() -> None:
    p = SnapshotPolicy(every=10, ceiling=50, version=100)
    p.taken(100, size=10**9)
    assert first_due(p, 100) == 150


def test_a_ceiling_below_every_is_raised_to_it() -> None:
    p = SnapshotPolicy(every=20, ceiling=5, version=0)
    p.taken(0, size=10**9)
    assert first_due(p, 0) == 20


def test_after_a_restart_the_first_snapshot_comes_after_every() -> None:
    """The last snapshot's size is not known after a restart: the floor decides."""
    p = SnapshotPolicy(every=5, ceiling=100, version=42)
    assert first_due(p, 42) == 47


# -- over real sockets, killed ----------------------------------------------------------
PIECES = 60  # a snapshot of several KB: ~40 moves' rows, well past --snapshot-every 5
EVERY = 5


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "pieces.yaml"
    path.write_text(yaml.safe_dump({
        "room": {"name": "pieces"}, "players": [{"id": "alice", "name": "Alice"}],
        "table": {"grid": {"width": 20, "height": 20},
                  "pieces": [{"id": f"pc{i}", "name": f"P{i}", "owner": "alice",
                              "cell": {"x": i % 20, "y": i // 20}} for i in range(PIECES)]}}))
    return path


def _start(db: Path) -> tuple[subprocess.Popen[str], str]:
    return serve_process(*store_args(db), *LEASE, "--snapshot-every", str(EVERY), "--rate", "100000")


async def _rejoin(url: str) -> Client:
    """The GM, once the room is served again (on Redis: once the killed lease lapsed)."""
    for _ in range(200):
        g = await Client.connect(url)
        await g.send({"type": "auth", "room": "r1", "secret": SECRET})
        while (msg := await g.recv())["type"] not in ("snapshot", "error"):
            pass
        if msg["type"] == "snapshot":
            return g
        await g.close()
        await asyncio.sleep(0.05)
    raise AssertionError("the room never came back")




async def test_a_room_snapshotted_by_size_comes_back_whole_after_sigkill(tmp_path: Path) -> None:
    """One move per batch; the stored snapshots are where the policy puts them (the log
    rows since each one reach its size); killed between snapshots, the room comes back
    from the last snapshot plus the log at the same version and state."""
    db = tmp_path / "policy.sqlite3"
    subprocess.run([*KOMASYNC, "room", "create", str(_scenario(tmp_path)), *store_args(db),
                    "--id", "r1", "--secret", SECRET], check=True, capture_output=True)
    proc, url = _start(db)
    try:
        g = await _rejoin(url)
        for i in range(130):
            to = {"x": (i * 7) % 20, "y": 19 - (i % 20)}
            reply = await g.reply_to(await g.act({"kind": "table.move", "piece": f"pc{i % PIECES}",
                                                  "to": to}))
            assert reply["type"] == "ack", reply
        await g.settle(reply["version"])
        before_version, before_state = g.version, g.state
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()

    store = open_store(db)
    try:
        stored = store.snapshots_raw("r1")
        rows = {r.version: row_bytes(encode(r)) for r in store.actions("r1", 0)}
    finally:
        store.close()
    assert sorted(rows) == list(range(1, before_version + 1))
    versions = [v for v, _ in stored if v > 0]
    assert versions[0] == EVERY  # the first one: nothing known of its size yet
    assert len(versions) >= 3 and versions[-1] < before_version
    for (v1, state), v2 in zip([s for s in stored if s[0] > 0], versions[1:], strict=False):
        since = [rows[v] for v in range(v1 + 1, v2 + 1)]
        assert v2 - v1 > EVERY  # the size, not the floor, decided
        assert sum(since[:-1]) < len(state) <= sum(since), (v1, v2)

    proc, url = _start(db)
    try:
        g = await _rejoin(url)
        assert g.version == before_version
        assert g.state == before_state
        reply = await g.reply_to(await g.act({"kind": "table.move", "piece": "pc0",
                                              "to": {"x": 0, "y": 0}}, id="after"))
        assert reply == {"type": "ack", "id": "after", "version": before_version + 1}
        await g.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
