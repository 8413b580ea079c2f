"""komasync.client against a real server on loopback: auth, local state, acks, rejects, resume."""

from __future__ import annotations

import pytest

from conftest import Running, gm, invite
from komasync.client import Client, Rejected, ServerClosed

MOVE = {"kind": "table.move", "piece": "knight", "to": {"x": 3, "y": 2}}


async def test_gm_and_player_keep_their_own_copies(running: Running) -> None:
    admin = await gm(running)
    token = await invite(admin, "player", "alice")
    async with Client.connect(running.url, running.room, secret=running.secret) as boss, \
            Client.connect(running.url, running.room, token=token) as alice:
        assert boss.welcome["role"] == "gm" and alice.welcome["player"] == "alice"
        assert "assassin" in boss.state["table"]["pieces"]
        assert "assassin" not in alice.state["table"]["pieces"]  # hidden from players
        version = await alice.act(MOVE)
        assert alice.state["table"]["pieces"]["knight"]["cell"] == {"x": 3, "y": 2}
        while boss.version < version:
            await boss.next("change")
        assert boss.state["table"]["pieces"]["knight"]["cell"] == {"x": 3, "y": 2}
    await admin.close()


async def test_a_refusal_raises_with_rule_and_both_reasons(running: Running) -> None:
    admin = await gm(running)
    token = await invite(admin, "player", "alice")
    async with Client.connect(running.url, running.room, token=token) as alice:
        before = alice.version
        with pytest.raises(Rejected) as refused:
            await alice.act({"kind": "table.move", "piece": "archer", "to": {"x": 0, "y": 0}})
        assert refused.value.rule == "TABLE-MV-1" and refused.value.ja and refused.value.en
        assert alice.version == before
    await admin.close()


async def test_a_retry_with_the_same_id_applies_once(running: Running) -> None:
    async with Client.connect(running.url, running.room, secret=running.secret) as boss:
        first = await boss.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}, id="x1")
        again = await boss.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}, id="x1")
        assert again == first and boss.state["table"]["counters"]["clock"]["value"] == 1


async def test_resume_gets_exactly_the_missed_changes(running: Running) -> None:
    async with Client.connect(running.url, running.room, secret=running.secret) as boss, \
            Client.connect(running.url, running.room, secret=running.secret) as watcher:
        await watcher.close()
        for n in range(3):
            await boss.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}, id=f"r{n}")
        await watcher.resume()
        assert watcher.version == boss.version
        assert watcher.state == boss.state


async def test_a_wrong_secret_is_said_at_open(running: Running) -> None:
    with pytest.raises(ServerClosed) as closed:
        await Client.connect(running.url, running.room, secret="not-the-secret").open()
    assert closed.value.frame["code"] == "auth_failed"


async def test_history_lists_what_was_done(running: Running) -> None:
    async with Client.connect(running.url, running.room, secret=running.secret) as boss:
        await boss.act({"kind": "table.counter.set", "counter": "clock", "value": 2})
        entries = await boss.history()
        assert [e["version"] for e in entries] == [1]
        assert entries[0]["action"]["kind"] == "table.counter.set"
