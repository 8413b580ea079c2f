"""Reconnecting with `since`: exactly the missed changes, or a snapshot when too old."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
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
