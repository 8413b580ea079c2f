"""Issue 13, finding 1 and part of 6: nothing a client sends can break the log.

Every number has declared bounds; an action applies only once everything that can fail
for it has succeeded (else it is rolled back and answered `internal_error`); a room whose
log cannot be replayed is quarantined without stopping the server or the other rooms.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from conftest import (
    EXAMPLES,
    Client,
    Running,
    drop_logged,
    gm,
    invite,
    join,
    logged_versions,
    start_server,
    unthrottled,
)
from komasync.engine.bounds import MAX_NUMBER
from komasync.engine.scenario import load_scenario_file
from komasync.server import room as room_module
from komasync.server.connection import Limits

U64 = 2**64 - 1


def gapless(versions: list[int]) -> bool:
    return versions == list(range(1, len(versions) + 1))


async def restart(r: Running, db: Path) -> Running:
    await r.runner.cleanup()
    return await start_server(db, EXAMPLES / "demo_table.yaml")


async def _purse(g: Client) -> None:
    """A counter alice owns, with no min or max (the finding's setup)."""
    await g.reply_to(await g.act({"kind": "table.counter.place", "counter": {
        "id": "purse", "name": "Purse", "value": 0, "owner": "alice"}}))


async def test_a_huge_delta_is_refused_and_the_log_stays_replayable(tmp_path: Path) -> None:
    """Finding 1: `delta: 2^64-1` twice on an unbounded counter used to leave a hole in
    the log (version 2 missing) and stop the server from starting again."""
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml")
    try:
        g = await gm(r)
        await _purse(g)
        alice = await join(r, await invite(g, "player", "alice"))
        for i in range(2):  # the schema now refuses it: sent as a hostile client would
            await alice.send({"type": "action", "id": f"big{i}", "action": {
                "kind": "table.counter.add", "counter": "purse", "delta": U64}}, invalid=True)
            reply = await alice.reply_to(f"big{i}")
            assert reply["type"] in ("error", "reject"), reply
            assert reply["reason"]["ja"] and reply["reason"]["en"]
        ack = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                            "delta": 1}))
        assert ack["type"] == "ack" and ack["version"] == 2
        assert reply["code"] == "bad_action"
        assert gapless(logged_versions(db, r.room))
        before = r.server.rooms[r.room].engine.state.model_dump(mode="json")
        r = await restart(r, db)
        assert r.server.rooms[r.room].engine.state.model_dump(mode="json") == before
    finally:
        await r.runner.cleanup()


async def test_repeated_deltas_stop_at_the_bound_with_a_clear_reason(running: Running) -> None:
    """Counters with no max cannot grow past the declared bound through repeated deltas:
    the result is checked, and going over is a refusal; the state stays as it was."""
    g = await gm(running)
    await _purse(g)
    alice = await join(running, await invite(g, "player", "alice"))
    ack = await alice.reply_to(await alice.act(
        {"kind": "table.counter.add", "counter": "purse", "delta": MAX_NUMBER}))
    assert ack["type"] == "ack"
    reject = await alice.reply_to(await alice.act(
        {"kind": "table.counter.add", "counter": "purse", "delta": 1}))
    assert reject["type"] == "reject" and reject["code"] == "out_of_range"
    assert str(MAX_NUMBER) in reject["reason"]["en"] and "Purse" in reject["reason"]["en"]
    assert "Purse" in reject["reason"]["ja"]
    room = running.server.rooms[running.room]
    assert room.engine.state.table.counters["purse"].value == MAX_NUMBER
    low = await g.reply_to(await g.act({"kind": "table.counter.set", "counter": "purse",
                                        "value": -MAX_NUMBER}))
    assert low["type"] == "ack"
    under = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "purse",
                                          "delta": -1}))
    assert under["type"] == "reject" and under["code"] == "out_of_range"
    assert room.engine.state.table.counters["purse"].value == -MAX_NUMBER


async def test_a_gm_override_past_the_bound_is_refused(running: Running) -> None:
    g = await gm(running)
    reply = await g.reply_to(await g.act({"kind": "override", "reason": "test",
                                          "path": ["table", "counters", "doom", "value"],
                                          "value": U64}))
    assert reply["type"] == "reject" and reply["code"] == "bad_value"
    reply = await g.reply_to(await g.act({"kind": "override", "reason": "test",
                                          "path": ["meta", "platforms", "foundry"],
                                          "value": {"deep": _nested(300)}}))
    assert reply["type"] == "reject" and reply["code"] == "bad_value"
    assert running.server.rooms[running.room].version == 0


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


async def test_a_failure_after_apply_is_rolled_back_and_the_batch_answered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Anything that fails after `Engine.apply` (projection, serialisation, record) rolls
    the action back — state, version, dice, client key — and answers `internal_error`;
    the other actions of the same batch are answered as usual."""
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml", unthrottled())
    try:
        g = await gm(r)
        alice = await join(r, await invite(g, "player", "alice"))
        room = r.server.rooms[r.room]
        real = room.audiences.project

        def project(outcome: Any, record: Any) -> Any:
            frames = real(outcome, record)  # the views are updated, then it fails
            if record.action.get("delta") == 5:
                raise ValueError("fault injected after projection")
            return frames

        monkeypatch.setattr(room.audiences, "project", project)
        before = room.engine.state.model_dump(mode="json")
        ids = []
        for i, delta in enumerate([1, 5, 1, 5, 1]):
            ids.append(await g.act({"kind": "table.counter.add", "counter": "clock",
                                    "delta": delta}, id=f"b{i}"))
        replies = {i: await g.reply_to(i) for i in ids}
        assert [replies[i]["type"] for i in ids] == ["ack", "reject", "ack", "reject", "ack"]
        assert replies["b1"]["code"] == "internal_error"
        assert replies["b1"]["reason"]["ja"] and replies["b1"]["reason"]["en"]
        assert [replies[i]["version"] for i in ("b0", "b2", "b4")] == [1, 2, 3]
        assert room.engine.state.table.counters["clock"].value == 3
        assert room.engine.state.rng == room.engine.state.rng.model_validate(before["rng"])
        # every view still matches the state: fresh snapshots equal the streamed changes
        await g.settle(3)
        await alice.settle(3)
        assert g.state == (await gm(r)).state
        monkeypatch.setattr(room.audiences, "project", real)
        retry = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                              "delta": 5}, id="b1"))
        assert retry["type"] == "ack" and not retry.get("duplicate") and retry["version"] == 4
        assert gapless(logged_versions(db, r.room))
        after = room.engine.state.model_dump(mode="json")
        r = await restart(r, db)
        assert r.server.rooms[r.room].engine.state.model_dump(mode="json") == after
    finally:
        await r.runner.cleanup()


async def test_an_unreplayable_room_is_quarantined_and_the_rest_start(tmp_path: Path) -> None:
    """A room whose log cannot be replayed never stops the server or other rooms: it is
    logged, counted in /healthz and refused to its clients with a code."""
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml")
    await r.server.create_room(load_scenario_file(EXAMPLES / "demo_table.yaml"),
                               secret="other-secret", room_id="broken")
    try:
        b = await Client.connect(r.url)
        await b.auth("broken", secret="other-secret")
        for i in range(3):
            await b.reply_to(await b.act({"kind": "table.counter.add", "counter": "clock",
                                          "delta": 1}, id=f"x{i}"))
        await r.runner.cleanup()
        drop_logged(db, "broken", 2)
        r = await start_server(db, EXAMPLES / "demo_table.yaml")
        g = await gm(r)
        assert (await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                              "delta": 1})))["type"] == "ack"
        b = await Client.connect(r.url)
        await b.send({"type": "auth", "room": "broken", "secret": "other-secret"})
        err = await b.expect("error")
        assert err["code"] == "room_quarantined" and err["reason"]["ja"] and err["reason"]["en"]
        intruder = await Client.connect(r.url)  # without the secret: no hint the room exists
        await intruder.send({"type": "auth", "room": "broken", "secret": "guess"})
        assert (await intruder.expect("error"))["code"] == "auth_failed"
        async with aiohttp.ClientSession() as http, http.get(r.http + "/healthz") as resp:
            health = await resp.json()
        assert health["rooms"] == {"loaded": 1, "quarantined": 1}
        assert "broken" not in str(health) and r.room not in str(health)
    finally:
        await r.runner.cleanup()


# -- finding 6 ----------------------------------------------------------------------------
async def test_history_after_a_huge_version_is_a_structured_error(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    for c in (g, alice):
        await c.send({"type": "history", "id": "h", "after": U64}, invalid=True)
        err = await c.expect("error")
        assert err["id"] == "h" and err["code"] == "bad_message"
        await c.send({"type": "ping", "t": 1})  # the socket is still open
        assert (await c.expect("pong"))["t"] == 1


async def test_a_non_gm_undo_is_refused_before_any_rebuild(
        running: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    rebuilds: list[int] = []
    real = room_module.state_at

    def counting(*args: Any) -> Any:
        rebuilds.append(1)
        return real(*args)

    monkeypatch.setattr(room_module, "state_at", counting)
    g = await gm(running)
    await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}))
    alice = await join(running, await invite(g, "player", "alice"))
    observer = await join(running, await invite(g, "observer"))
    for c in (alice, observer):
        reply = await c.reply_to(await c.act({"kind": "undo", "to_version": 0}))
        assert reply["type"] == "reject" and reply["code"] == "forbidden_role"
    assert rebuilds == []
    ok = await g.reply_to(await g.act({"kind": "undo", "to_version": 0}))
    assert ok["type"] == "ack" and rebuilds == [1]


async def test_healthz_gives_counts_not_room_ids(running: Running) -> None:
    await gm(running)
    async with aiohttp.ClientSession() as http, http.get(running.http + "/healthz") as resp:
        health = await resp.json()
    assert health["ok"] is True and health["rooms"] == {"loaded": 1, "quarantined": 0}
    assert running.room not in str(health)


async def test_rate_limited_errors_echo_the_message_id(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(rate=1, burst=2))
    try:
        g = await gm(r)
        for i in range(5):
            await g.act({"kind": "table.counter.add", "counter": "clock", "delta": 0}, id=f"r{i}")
        limited = []
        while len(limited) < 3:
            msg = await g.recv()
            if msg["type"] == "error":
                assert msg["code"] == "rate_limited"
                limited.append(msg["id"])
        assert sorted(limited) == ["r2", "r3", "r4"]
    finally:
        await r.runner.cleanup()


async def test_a_gm_retry_after_the_secret_rotates_applies_once(running: Running) -> None:
    g = await gm(running)
    first = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                          "delta": 1}, id="once"))
    assert first["type"] == "ack"
    await g.close()
    store = running.server.storage
    await store.call(store.storage.set_gm_secret, running.room, "rotated-secret")
    again = await Client.connect(running.url)
    await again.auth(running.room, secret="rotated-secret")
    retry = await again.reply_to(await again.act({"kind": "table.counter.add",
                                                  "counter": "clock", "delta": 1}, id="once"))
    assert retry["type"] == "ack" and retry["duplicate"] is True
    assert retry["version"] == first["version"]
    await asyncio.sleep(0)
    assert running.server.rooms[running.room].engine.state.table.counters["clock"].value == 1


async def test_a_failing_message_is_answered_and_the_socket_stays(
        running: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever breaks while a message is handled answers that message with an error."""
    g = await gm(running)
    store = running.server.storage.storage

    def broken(*args: Any) -> Any:
        raise OSError("disk gone")

    monkeypatch.setattr(store, "actions", broken)
    await g.send({"type": "history", "id": "h1"})
    err = await g.expect("error")
    assert err["id"] == "h1" and err["code"] == "internal_error" and err["reason"]["ja"]
    await g.send({"type": "ping", "t": 2})
    assert (await g.expect("pong"))["t"] == 2
