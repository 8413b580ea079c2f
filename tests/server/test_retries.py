"""Retries are applied once within each identity's window of recent action ids; the
window is bounded and survives a restart (server/retries.py, docs/protocol.md). The Redis
log refuses a client id it has ever logged, so on it the window is every id (app.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import EXAMPLES, ON_REDIS, Client, gm, invite, join, start_server
from komasync.server.connection import Limits
from komasync.server.retries import RetryWindow, principal_of

BUMP = {"kind": "table.counter.add", "counter": "clock", "delta": 1}


async def _act(c: Client, msg_id: str, action: dict[str, Any] = BUMP) -> dict[str, Any]:
    return await c.reply_to(await c.act(action, id=msg_id))


async def test_a_retry_inside_the_window_is_answered_duplicate_and_an_old_id_is_new(
        tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml", Limits(retry_window=3))
    try:
        g = await gm(r)
        alice = await join(r, await invite(g, "player", "alice"))
        versions = {f"a{i}": (await _act(g, f"a{i}"))["version"] for i in range(5)}
        # Another identity's ids never push the GM's out, and never collide with them.
        mine = await _act(alice, "a4", {"kind": "table.move", "piece": "knight",
                                        "to": {"x": 2, "y": 2}})
        assert mine["type"] == "ack" and "duplicate" not in mine
        again = await _act(g, "a4")
        assert again == {"type": "ack", "id": "a4", "version": versions["a4"], "duplicate": True}
        # a0 and a1 fell out of the GM's window of 3: the id is a new action, logged too
        # (on Redis every id stays known: still the duplicate of what it first made).
        fresh = await _act(g, "a0")
        if ON_REDIS:
            assert fresh == {"type": "ack", "id": "a0", "version": versions["a0"], "duplicate": True}
            fresh = await _act(g, "b0")
        assert fresh["type"] == "ack" and "duplicate" not in fresh
        assert fresh["version"] == mine["version"] + 1
        await g.close()
        await alice.close()
    finally:
        await r.runner.cleanup()
    # After a restart the window comes back from the log: the newest three of the GM's.
    r = await start_server(db, EXAMPLES / "demo_table.yaml", Limits(retry_window=3))
    try:
        g = await gm(r)
        assert (await _act(g, "a4"))["duplicate"] is True
        assert (await _act(g, "a0"))["version"] == (versions["a0"] if ON_REDIS else fresh["version"])
        older = await _act(g, "a2")  # older than the newest three: new, except on Redis
        assert older.get("duplicate", False) is ON_REDIS
        assert g.state["table"]["counters"]["clock"]["value"] == 6  # clamped at its max
    finally:
        await r.runner.cleanup()


def test_the_window_keeps_each_identitys_newest_ids() -> None:
    logged = [("gm:x9", 9), ("inv:i1:x9", 8), ("gm:x8", 7), ("gm:x7", 6), ("server:s1", 5),
              ("gm:x6", 4)]
    w = RetryWindow.from_log(2, logged)
    assert (w.version("gm", "x9"), w.version("gm", "x8"), w.version("gm", "x7")) == (9, 7, None)
    assert w.version("inv:i1", "x9") == 8 and w.version("server", "s1") == 5
    w.add("gm", "x10", 10)
    assert w.version("gm", "x8") is None and w.version("gm", "x10") == 10
    assert len(w) == 4
    assert principal_of("inv:i1:a:b") == ("inv:i1", "a:b")


def test_a_full_window_keeps_exactly_the_newest_ids() -> None:
    w = RetryWindow(512)
    for n in range(2000):
        assert w.version("gm", f"a{n}") is None
        w.add("gm", f"a{n}", n + 1)
    assert [w.version("gm", f"a{n}") for n in (1487, 1488, 1999)] == [None, 1489, 2000]
    assert all(w.version("gm", f"a{n}") == n + 1 for n in range(1488, 2000))
    assert w.version("inv:i1", "a1999") is None and len(w) == 512
    unbounded = RetryWindow.from_log(0, [(f"gm:b{n}", n) for n in range(1000, 0, -1)])
    assert len(unbounded) == 1000 and unbounded.version("gm", "b1") == 1
