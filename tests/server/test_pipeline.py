"""The room's pipeline (issue 16): a batch waiting behind one that commits is applied
meanwhile, yet nothing is acknowledged before it is durable, replies keep their order,
and a failed commit never lets a later batch into the log. Both commit paths (the storage thread,
and the loop thread when the process is quiet) log the same thing."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from conftest import ROOT, Client, gm, invite, logged_versions, start_server, unthrottled

FAST = unthrottled()
COUNTERS = ROOT / "tests/data/counters.yaml"
ADD = {"kind": "table.counter.add", "counter": "tally", "delta": 1}


async def frames_until_quiet(client: Client, timeout: float = 2.0) -> list[dict[str, Any]]:
    got = []
    try:
        while True:
            got.append(await client.recv(timeout=timeout))
    except Exception:  # quiet (or closed): everything that was coming has come
        pass
    return got


def slow_first_commit(r: Any) -> threading.Event:
    """The server's next commit takes 0.3 s, on the storage thread (so it is really in
    flight meanwhile); the event is set once that commit has started."""
    storage = r.server.storage
    storage.inline = False
    real = storage.storage.append
    slow_once = threading.Event()

    def slow(*args: Any) -> None:
        if not slow_once.is_set():
            slow_once.set()
            time.sleep(0.3)
        real(*args)

    storage.storage.append = slow
    return slow_once


async def comes_back_at(db: Path, version: int) -> None:
    """A new server on `db` rebuilds the room from storage at `version` (one ADD each)."""
    r = await start_server(db, COUNTERS, FAST)
    try:
        back = await gm(r)
        assert back.version == version
        assert back.state["table"]["counters"]["tally"]["value"] == version
    finally:
        await r.runner.cleanup()


async def test_pipelined_actions_are_acked_in_order_after_a_slow_commit(tmp_path: Path) -> None:
    """Actions sent while a slow commit is in flight are acked only after it, in the
    order sent, versions consecutive; a ping after them is answered after every one of
    them (a barrier)."""
    db = tmp_path / "p.sqlite3"
    r = await start_server(db, COUNTERS, FAST)
    try:
        g = await gm(r)
        slow_once = slow_first_commit(r)
        first = await g.act(ADD, id="first")
        await asyncio.sleep(0.05)  # the first batch is committing now
        ids = [await g.act(ADD, id=f"next{i}") for i in range(8)]
        await asyncio.sleep(0.1)
        assert slow_once.is_set()  # the first commit is still in flight
        await g.send({"type": "ping", "t": "after"})
        frames = await frames_until_quiet(g)
        replies = [f for f in frames if f["type"] in ("ack", "reject", "pong")]
        assert [f.get("id", "pong") for f in replies] == [first, *ids, "pong"]
        assert [f["version"] for f in replies[:-1]] == list(range(1, 10))
        assert replies[-1]["version"] == 9
        assert logged_versions(db, r.room) == list(range(1, 10))
        assert g.version == 9 and g.state["table"]["counters"]["tally"]["value"] == 9
    finally:
        await r.runner.cleanup()


async def test_a_failed_commit_while_the_next_batch_waits_logs_and_acks_neither(
        tmp_path: Path) -> None:
    """The commit in flight fails after the next batch was applied: neither batch is
    acknowledged or logged, the next one's commit was never handed over, and the room
    comes back from the log as it was."""
    db = tmp_path / "f.sqlite3"
    r = await start_server(db, COUNTERS, FAST)
    try:
        g = await gm(r)
        ok = await g.reply_to(await g.act(ADD))
        assert ok["type"] == "ack" and ok["version"] == 1
        storage = r.server.storage
        storage.inline = False
        real = storage.storage.append
        calls: list[Any] = []

        def slow_then_broken(*args: Any) -> None:
            calls.append(args)
            time.sleep(0.3)
            raise OSError("disk full")

        storage.storage.append = slow_then_broken  # type: ignore[method-assign]
        await g.act(ADD, id="lost")
        await asyncio.sleep(0.05)
        for i in range(5):
            await g.act(ADD, id=f"waiting{i}")
        frames = await frames_until_quiet(g)
        assert not any(f["type"] == "ack" for f in frames)
        assert any(f["type"] == "bye" and f["code"] == "storage_error" for f in frames)
        assert len(calls) == 1  # the applied-but-waiting batch never reached storage
        storage.storage.append = real  # type: ignore[method-assign]
        storage.inline = True
        assert logged_versions(db, r.room) == [1]
        back = await gm(r)  # a fresh room, rebuilt from the log
        assert back.version == 1
        assert back.state["table"]["counters"]["tally"]["value"] == 1
    finally:
        await r.runner.cleanup()


async def test_both_commit_paths_log_the_same(tmp_path: Path) -> None:
    """Actions committed on the storage thread and on the loop thread (quiet process)
    are logged alike and survive a restart."""
    db = tmp_path / "b.sqlite3"
    # one action a batch: the ones queued behind the first are applied while it commits
    r = await start_server(db, COUNTERS, unthrottled(max_batch=1))
    try:
        g = await gm(r)
        for inline in (True, False, True):
            r.server.storage.inline = inline
            for _ in range(3):
                reply = await g.reply_to(await g.act(ADD))
                assert reply["type"] == "ack"
        assert logged_versions(db, r.room) == list(range(1, 10))
    finally:
        await r.runner.cleanup()
    await comes_back_at(db, 9)


async def test_a_snapshot_that_cannot_be_built_never_costs_the_batch(tmp_path: Path) -> None:
    """Building the storage snapshot fails once: the batch it was due with is still
    committed and acked, the log stays gapless, the next batch brings the snapshot, and
    the room comes back from storage as it was."""
    db = tmp_path / "s.sqlite3"
    r = await start_server(db, COUNTERS, unthrottled(snapshot_every=3))
    try:
        g = await gm(r)
        audiences = r.server.rooms[r.room].audiences
        real = audiences.state_json
        failed: list[int] = []

        async def broken_once(rng: Any) -> Any:
            if not failed:
                failed.append(1)
                raise ValueError("cannot serialise")
            return await real(rng)

        audiences.state_json = broken_once  # type: ignore[method-assign]
        for i in range(1, 7):
            reply = await g.reply_to(await g.act(ADD))
            assert reply["type"] == "ack" and reply["version"] == i, reply
        assert failed
        assert logged_versions(db, r.room) == list(range(1, 7))
        store = r.server.storage.storage
        snap = await asyncio.to_thread(store.latest_snapshot, r.room)
        assert snap is not None and snap[0] >= 4  # the next batch brought it
    finally:
        await r.runner.cleanup()
    await comes_back_at(db, 6)


async def test_a_bridge_table_never_shows_a_batch_before_it_is_durable(tmp_path: Path) -> None:
    """While a slow commit is in flight the next batch is applied; the bridge's table for
    the first batch is drawn from that batch's state, so no `table.ops` frame names (or
    shows) a version the bridge has not had the durable `change` of."""
    db = tmp_path / "b.sqlite3"
    # one action a batch: the ones queued behind the first are applied while it commits
    r = await start_server(db, COUNTERS, unthrottled(max_batch=1))
    try:
        g = await gm(r)
        b = await Client.connect(r.url)
        await b.send({"type": "auth", "room": r.room, "token": await invite(g, "bridge"),
                      "platform": "ccfolia"})
        await b.expect("table.ops", reset=True)
        slow_once = slow_first_commit(r)
        for i in range(5):  # sent at once: queued before the room takes the first
            await g.act(ADD, id=f"a{i}")
        frames = await frames_until_quiet(b)
        assert slow_once.is_set()
        seen = 0  # the last durable change the bridge has
        drawn = [0]
        for f in frames:
            if f["type"] == "change":
                seen = f["to_version"]
            elif f["type"] == "table.ops":
                assert f["version"] <= seen, (f["version"], seen)
                drawn.append(f["version"])
        assert seen == 5 and drawn[-1] == 5 and drawn == sorted(drawn)
        assert logged_versions(db, r.room) == list(range(1, 6))
    finally:
        await r.runner.cleanup()
