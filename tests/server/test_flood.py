"""A query flood from one player stalls no other room (issue 26, finding 3).

Over real sockets on loopback: sockets past an invite's cap are refused before they join;
one message bucket is shared by all sockets of an invite; a range of 50 on the 16×12
demo map walks only the map and a repeated question is answered from the answers kept
(per audience: a GM's answer never reaches a player); a sight line clips only the
obstacles between its ends; and while one room is flooded with queries another room's
actions are all acked, the flood being refused `busy` rather than queued without bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server, until
from komasync.engine.grid import geometry
from komasync.engine.scenario import load_scenario_file
from komasync.server.connection import Limits


async def query(c: Client, qid: str, **q: Any) -> dict[str, Any]:
    await c.send({"type": "query", "id": qid, "query": q})
    while True:
        msg = await c.recv()
        if msg.get("id") == qid and msg["type"] in ("query.result", "error"):
            return msg



def _count(monkeypatch: pytest.MonkeyPatch, module: Any, *names: str) -> Callable[[], int]:
    """Count the calls to `module`'s functions `names` from now on (the server runs in
    this process: its calls are counted too)."""
    calls = [0]
    for name in names:
        original = getattr(module, name)

        def counting(*args: Any, _f: Any = original) -> Any:
            calls[0] += 1
            return _f(*args)

        monkeypatch.setattr(module, name, counting)
    return lambda: calls[0]


@pytest.fixture
async def chapel(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Running]:
    """The seamless combat example (16×12, pillars), with the test's limits."""
    limits = Limits(**getattr(request, "param", {}))
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml", limits)
    yield r
    await r.runner.cleanup()


@pytest.fixture
async def limited(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(**request.param))
    yield r
    await r.runner.cleanup()


# -- per-invite limits -------------------------------------------------------------------
async def test_sockets_past_an_invites_cap_are_refused_before_they_join(
        running: Running) -> None:
    g = await gm(running)
    token = await invite(g, "player", "alice")
    room = running.server.rooms[running.room]
    version = room.version
    admitted: list[Client] = []
    refused: list[list[dict[str, Any]]] = []
    for _ in range(32):  # the flood of issue 26: 32 sockets on one invite
        c = await Client.connect(running.url)
        await c.send({"type": "auth", "room": running.room, "token": token})
        first = await c.recv()
        if first["type"] == "welcome":
            await c.expect("snapshot")
            admitted.append(c)
        else:
            refused.append([first, *await c.closed()])
    limit = running.server.limits.invite_connections
    assert (len(admitted), len(refused)) == (limit, 32 - limit)
    for frames in refused:
        assert [f["type"] for f in frames] == ["error"], frames
        err = frames[0]
        assert err["code"] == "too_many_connections_for_invite"
        assert err["details"]["limit"] == limit and err["reason"]["ja"] and err["reason"]["en"]
    # Nothing changed in the room; only the admitted sockets are in it.
    assert room.version == version
    assert sum(1 for c in room.audiences.conns if c.player == "alice") == limit
    # Another invite and the GM are not affected; a freed slot can be used again.
    bob = await join(running, await invite(g, "player", "bob"))
    await gm(running)
    await admitted[0].close()
    await until(lambda: sum(1 for c in room.audiences.conns if c.player == "alice") == limit - 1,
                "the closed socket has left")
    admitted.append(await join(running, token))
    await bob.send({"type": "ping", "t": "bob"})
    assert (await bob.expect("pong"))["t"] == "bob"


@pytest.mark.parametrize("limited", [dict(invite_rate=0.001, invite_burst=10)], indirect=True)
async def test_an_invites_message_rate_is_shared_by_all_its_sockets(limited: Running) -> None:
    r = limited
    g = await gm(r)
    token = await invite(g, "player", "alice")
    tabs = [await join(r, token) for _ in range(4)]
    for i in range(5):  # 20 pings: each socket is far within its own 40/s, burst 80
        for n, tab in enumerate(tabs):
            await tab.send({"type": "ping", "t": f"{n}-{i}"})
    replies = [await tab.recv() for tab in tabs for _ in range(5)]
    pongs = [m for m in replies if m["type"] == "pong"]
    limited_ = [m for m in replies if m["type"] == "error"]
    assert len(pongs) == 10  # the invite's one bucket: 10, whichever sockets sent them
    assert len(limited_) == 10 and all(m["code"] == "rate_limited" for m in limited_)
    for m in limited_:
        assert m["details"]["retry_after"] > 0 and m["reason"]["ja"] and m["reason"]["en"]
    # Another invite of the room and the GM have buckets of their own.
    bob = await join(r, await invite(g, "player", "bob"))
    for c, t in ((bob, "bob"), (g, "gm")):
        await c.send({"type": "ping", "t": t})
        assert (await c.expect("pong"))["t"] == t


# -- query cost bounded by the board, answers kept -----------------------------------------
async def test_a_huge_range_walks_only_the_board_and_is_answered_again_from_the_cache(
        chapel: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    at = (3, 4)
    board = [{"x": x, "y": y} for y in range(12) for x in range(16) if geometry.in_range(at, (x, y), 50)]
    walked = _count(monkeypatch, geometry, "on_board", "in_range")
    q = {"kind": "grid.range", "from": {"x": at[0], "y": at[1]}, "range": 50}
    first = await query(alice, "r1", **q)
    assert first["result"]["squares"] == board  # the same answer: every square in range
    assert walked() <= 16 * 12  # not the 101×101 squares of the range
    budget = chapel.server.queries
    hits = budget.hits
    again = await query(alice, "r2", **q)
    assert budget.hits == hits + 1
    assert alice.raw[-1] == alice.raw[-2].replace('"r1"', '"r2"')  # byte for byte
    assert again["version"] == first["version"]


async def test_kept_answers_are_per_audience_and_per_version(chapel: Running) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    await g.act({"kind": "table.piece.reveal", "piece": "knight", "hidden": True}, id="hide")
    version = (await g.reply_to("hide"))["version"]
    await alice.settle(version)
    q = {"kind": "grid.range", "combatant": "knight", "range": 1}
    assert (await query(g, "g1", **q))["type"] == "query.result"
    assert (await query(g, "g2", **q))["type"] == "query.result"  # kept for the GM…
    hidden = await query(alice, "a1", **q)  # …and never served to a player
    assert (hidden["type"], hidden["code"]) == ("error", "unknown_character")
    budget = chapel.server.queries
    misses = budget.misses
    await g.act({"kind": "table.piece.reveal", "piece": "knight", "hidden": False}, id="show")
    version = (await g.reply_to("show"))["version"]
    await alice.settle(version)
    shown = await query(alice, "a2", **q)
    assert shown["type"] == "query.result" and shown["version"] == version
    assert budget.misses == misses + 1  # a new version is asked afresh


async def test_a_sight_line_clips_only_the_obstacles_between_its_ends(
        chapel: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    grid = chapel.server.rooms[chapel.room].engine.state.grid
    obstacles = [(o.x, o.y) for o in grid.obstacles]
    a, b = (6, 4), (9, 6)
    between = [o for o in obstacles if 6 <= o[0] <= 9 and 4 <= o[1] <= 6 and o not in (a, b)]
    assert len(obstacles) > len(between)
    clipped = _count(monkeypatch, geometry, "_crosses")
    s = await query(alice, "s1", kind="grid.sight", **{"from": {"x": a[0], "y": a[1]}},
                    to={"x": b[0], "y": b[1]})
    assert s["result"]["clear"] is False  # the pillar at (8,5)
    assert 0 < clipped() <= len(between)


# -- the query budget: another room's acks ----------------------------------------------
FLOODED = dict(invite_connections=0, invite_rate=1e6, invite_burst=10**6, rate=1e6,
               burst=10**6, query_share=0.02, query_burst=0.004, queries_waiting=16)


@pytest.mark.parametrize("chapel", [FLOODED], indirect=True)
async def test_another_rooms_actions_are_all_acked_while_one_room_is_flooded(
        chapel: Running) -> None:
    """The invite limits are lifted here: only the query budget stands in the way."""
    r = chapel
    await r.server.create_room(load_scenario_file(EXAMPLES / "demo_table.yaml"),
                               secret="other-secret", room_id="other")
    g = await gm(r)
    token = await invite(g, "player", "alice")
    flooders = [await join(r, token) for _ in range(8)]
    other = await Client.connect(r.url)
    await other.auth("other", secret="other-secret")
    await other.expect("snapshot")
    room = r.server.rooms[r.room]
    budget = r.server.queries
    most_waiting = 0
    stop = asyncio.Event()

    async def watch() -> None:
        nonlocal most_waiting
        while not stop.is_set():
            most_waiting = max(most_waiting, budget.waiting(room))
            await asyncio.sleep(0)

    async def flood(c: Client, n: int) -> list[dict[str, Any]]:
        for i in range(150):  # every origin differs: no answer can be reused
            await c.send({"type": "query", "id": f"f{n}-{i}", "query": {
                "kind": "grid.range", "range": 50, "from": {"x": (n * 150 + i) % 16,
                                                             "y": (n * 150 + i) // 16 % 12}}})
        return [await c.recv(timeout=30) for _ in range(150)]

    async def act() -> list[dict[str, Any]]:
        replies = []
        for _ in range(30):
            msg_id = await other.act({"kind": "table.counter.add", "counter": "clock",
                                      "delta": 1})
            replies.append(await other.reply_to(msg_id))
        return replies

    watcher = asyncio.create_task(watch())
    floods = asyncio.gather(*(flood(c, n) for n, c in enumerate(flooders)))
    acks = await act()
    answers = [m for replies in await floods for m in replies]
    stop.set()
    await watcher
    assert [a["type"] for a in acks] == ["ack"] * 30
    assert r.server.rooms["other"].version == 30
    # Every query had one answer; past the budget it was refused, never queued unbounded.
    assert len(answers) == 8 * 150
    busy = [m for m in answers if m["type"] == "error"]
    assert busy and all(m["code"] == "busy" and m["details"]["retry_after"] > 0 for m in busy)
    assert busy[0]["reason"]["ja"] and busy[0]["reason"]["en"]
    assert any(m["type"] == "query.result" for m in answers)
    assert most_waiting <= r.server.limits.queries_waiting
