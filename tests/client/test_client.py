"""komasync.client against a real server on loopback: auth, local state, acks, rejects, resume;
frames as the protocol's pydantic models (issue 28)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from conftest import EXAMPLES, Running, gm, invite, start_server
from komasync.client import Client, Rejected, ServerClosed
from komasync.server.protocol import Ack, Error, PromptMsg, QueryResult, Welcome

MOVE = {"kind": "table.move", "piece": "knight", "to": {"x": 3, "y": 2}}


async def test_gm_and_player_keep_their_own_copies(running: Running) -> None:
    admin = await gm(running)
    token = await invite(admin, "player", "alice")
    async with Client.connect(running.url, running.room, secret=running.secret) as boss, \
            Client.connect(running.url, running.room, token=token) as alice:
        assert isinstance(boss.welcome, Welcome) and isinstance(alice.welcome, Welcome)
        assert boss.welcome.role == "gm" and alice.welcome.player == "alice"
        assert boss.welcome.protocol == 2
        assert "assassin" in boss.state["table"]["pieces"]
        assert "assassin" not in alice.state["table"]["pieces"]  # hidden from players
        version = (await alice.act(MOVE)).version
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
        assert refused.value.frame.type == "reject"
        assert alice.version == before
    await admin.close()


async def test_a_retry_with_the_same_id_applies_once(running: Running) -> None:
    async with Client.connect(running.url, running.room, secret=running.secret) as boss:
        first = await boss.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}, id="x1")
        again = await boss.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}, id="x1")
        assert isinstance(first, Ack) and not first.duplicate
        assert again.version == first.version and again.duplicate
        assert boss.state["table"]["counters"]["clock"]["value"] == 1


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
    assert isinstance(closed.value.frame, Error) and closed.value.frame.code == "auth_failed"


async def test_history_lists_what_was_done(running: Running) -> None:
    async with Client.connect(running.url, running.room, secret=running.secret) as boss:
        await boss.act({"kind": "table.counter.set", "counter": "clock", "value": 2})
        entries = await boss.history()
        assert [e["version"] for e in entries] == [1]
        assert entries[0]["action"]["kind"] == "table.counter.set"


async def test_a_malformed_action_fails_here_and_never_reaches_the_room(running: Running) -> None:
    """Actions are validated by the client adapter before they are sent."""
    async with Client.connect(running.url, running.room, secret=running.secret) as boss:
        before = boss.version
        with pytest.raises(ValidationError):
            await boss.act({"kind": "table.move", "piece": "knight", "to": {"x": "far"}})
        with pytest.raises(ValidationError):
            await boss.act({"kind": "no.such.action"})
        await boss.act({"kind": "table.counter.add", "counter": "clock", "delta": 1})
        entries = await boss.history(after=before)
        assert [e["action"]["kind"] for e in entries] == ["table.counter.add"]  # nothing else logged


@pytest.fixture
async def chapel(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    yield r
    await r.runner.cleanup()


async def test_an_ack_names_the_prompt_it_made_and_the_prompt_comes_typed(chapel: Running) -> None:
    """v2: the ack's `created` names the prompt; `next("prompt")` gives a `PromptMsg`;
    a query answers a `QueryResult` at the current version."""
    async with Client.connect(chapel.url, chapel.room, secret=chapel.secret) as boss:
        result = await boss.query({"kind": "grid.range", "combatant": "fighter", "range": 1})
        assert isinstance(result, QueryResult) and result.version == boss.version
        ack = await boss.act({"kind": "grid.check.ask", "combatant": "fighter", "check": "剣術"})
        made = [c.id for c in ack.created if c.what == "prompt"]
        assert len(made) == 1
        prompt = await boss.next("prompt")
        assert isinstance(prompt, PromptMsg) and prompt.prompt.id == made[0]
        assert (prompt.prompt.kind, prompt.prompt.about) == ("grid.check_range",
                                                             {"combatant": "fighter"})
        assert made[0] in boss.state["prompts"]
