"""Reconnecting with `since`: exactly the missed changes, or a snapshot when too old."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import EXAMPLES, FRAMES, Client, Running, gm, invite, join, start_server, unthrottled
from komasync.server.connection import Limits


async def _bump(g: Client, n: int) -> int:
    version = 0
    for _ in range(n):
        reply = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                              "delta": 1}))
        version = reply["version"]
    return version


async def test_resume_sends_exactly_the_missed_changes(running: Running) -> None:
    g = await gm(running)
    token = await invite(g, "player", "alice")
    alice = await join(running, token)
    await _bump(g, 2)
    await alice.settle(2)
    seen_state, seen_version = alice.state, alice.version
    await alice.close()
    last = await _bump(g, 3)  # versions 3, 4, 5 happen while alice is away

    back = await Client.connect(running.url)
    back.state, back.version = seen_state, seen_version
    await back.auth(running.room, token=token, since=seen_version)
    changes = [await back.expect("change") for _ in range(3)]
    assert [(c["from_version"], c["to_version"]) for c in changes] == [(2, 3), (3, 4), (4, 5)]
    assert back.version == last
    assert back.state["table"]["counters"]["clock"]["value"] == 5
    # Nothing more: no repeats, no snapshot. A ping's pong is the next frame.
    await back.send({"type": "ping", "t": 1})
    assert (await back.recv())["type"] == "pong"


async def test_resume_when_up_to_date_sends_nothing(running: Running) -> None:
    g = await gm(running)
    token = await invite(g, "observer")
    await _bump(g, 1)
    back = await Client.connect(running.url)
    await back.auth(running.room, token=token, since=1)
    await back.send({"type": "ping", "t": "x"})
    assert (await back.recv())["type"] == "pong"


async def test_resume_too_old_gets_a_snapshot(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(history=3))
    try:
        g = await gm(r)
        token = await invite(g, "player", "bob")
        bob = await join(r, token)
        await bob.close()
        await _bump(g, 6)
        back = await Client.connect(r.url)
        await back.auth(r.room, token=token, since=1)
        snap = await back.expect("snapshot")
        assert snap["version"] == 6
        assert snap["state"]["table"]["counters"]["clock"]["value"] == 6
    finally:
        await r.runner.cleanup()


async def test_resume_from_the_future_gets_a_snapshot(running: Running) -> None:
    g = await gm(running)
    token = await invite(g, "observer")
    back = await Client.connect(running.url)
    await back.auth(running.room, token=token, since=99)
    assert (await back.expect("snapshot"))["version"] == 0


async def _moves(g: Client, first: int, count: int) -> int:
    """`count` GM moves of the knight, pipelined; returns the last version."""
    ids = [await g.act({"kind": "table.move", "piece": "knight",
                        "to": {"x": (first + i) % 2, "y": 1}}, id=f"m{first + i}")
           for i in range(count)]
    version = 0
    for msg_id in ids:
        reply = await g.reply_to(msg_id)
        assert reply["type"] == "ack", reply
        version = reply["version"]
    # Thousands of frames of one shape: the schema check (autouse fixture, ~7 ms a frame)
    # keeps a sample of them rather than taking a minute.
    del FRAMES[40:-40]
    return version


@pytest.mark.parametrize(("role", "behind"), [("gm", 1999), ("player", 2000)])
async def test_a_client_far_behind_gets_its_changes_or_a_snapshot(tmp_path: Path, role: str,
                                                                  behind: int) -> None:
    """Issue 16: resuming 1,999+ versions back (inside the kept history) must never be a
    silent close: the client gets every missed change or a snapshot, then keeps going."""
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           unthrottled())
    try:
        g = await gm(r)
        token = await invite(g, "player", "alice") if role == "player" else None
        last = 2000
        since = last - behind
        await _moves(g, 1, since)
        away = await gm(r) if token is None else await join(r, token)
        await away.settle(since)
        kept_state, kept_version = away.state, away.version
        await away.close()
        assert await _moves(g, since + 1, behind) == last

        back = await Client.connect(r.url)
        back.state, back.version = kept_state, kept_version
        auth = {"secret": r.secret} if token is None else {"token": token}
        await back.auth(r.room, since=since, **auth)
        await back.send({"type": "ping", "t": "after"})
        kinds: list[str] = []
        while True:
            msg = await back.recv(timeout=20)
            kinds.append(msg["type"])
            assert msg["type"] != "bye", msg
            if msg["type"] == "pong":
                break
        assert back.version == last
        assert "snapshot" in kinds or kinds.count("change") == behind
        fresh = await gm(r) if token is None else await join(r, token)
        assert back.state == fresh.state
    finally:
        await r.runner.cleanup()
