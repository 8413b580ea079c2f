"""Protocol v2, the core (issue 28), over real sockets: an ack names the ids its action
created only to a sender shown them, a reject's code, rule and reason are the registry's,
and the server's own errors come from its declared group. Outcomes are read only from
acks, rejects, errors and prompts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
from komasync.engine.errors import Code, Codes
from komasync.engine.registry import REFUSALS
from komasync.server.errors import SERVER, sent_as

SEAMLESS = EXAMPLES / "seamless_combat.yaml"


def declared(code: str, groups: tuple[Codes, ...] = REFUSALS) -> Code:
    """The one declaration of an engine code (it must be in exactly one group here)."""
    found = [g[code] for g in groups if code in g]
    assert len(found) == 1, f"{code} declared in {len(found)} engine groups"
    return found[0]


def reason(frame: dict[str, Any]) -> tuple[str, str]:
    return frame["reason"]["ja"], frame["reason"]["en"]


async def prompt_frame(client: Client) -> dict[str, Any]:
    prompt: dict[str, Any] = (await client.expect("prompt"))["prompt"]
    return prompt


async def test_an_ack_names_a_created_prompt_only_to_whom_may_see_it(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", SEAMLESS)
    try:
        g = await gm(r)
        alice = await join(r, await invite(g, "player", "alice"))
        assert (await g.reply({"kind": "grid.start"}))["type"] == "ack"

        # the GM asks itself a check's range: its ack names the prompt it asked
        ask = {"kind": "grid.check.ask", "combatant": "fighter", "check": "命中"}
        mine = await g.reply(ask)
        assert mine["type"] == "ack", mine
        prompts = [c["id"] for c in mine.get("created", []) if c["what"] == "prompt"]
        assert len(prompts) == 1, mine
        asked = await prompt_frame(g)
        assert asked["id"] == prompts[0] and asked["to"] == "gm"
        assert isinstance(asked["kind"], str) and isinstance(asked["about"], dict)

        # a player asks the GM the same: the prompt is the GM's, so her ack does not name it
        theirs_id = await alice.act({**ask, "check": "回避"})
        theirs = await alice.reply_to(theirs_id)
        assert theirs["type"] == "ack", theirs
        assert not [c for c in theirs.get("created", []) if c["what"] == "prompt"], theirs
        hers = await prompt_frame(g)  # the GM is asked it
        assert hers["id"] != asked["id"] and hers["to"] == "gm"
        await alice.settle(theirs["version"])
        assert hers["id"] not in alice.state.get("prompts", {})

        # a retry is answered with the first version only: nothing created again
        await alice.act({**ask, "check": "回避"}, id=theirs_id)
        again = await alice.reply_to(theirs_id)
        assert again == {"type": "ack", "id": theirs_id, "version": theirs["version"],
                         "duplicate": True}
        await g.close()
        await alice.close()
    finally:
        await r.runner.cleanup()


async def test_reject_codes_carry_the_registrys_rule_and_texts(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    # TABLE-MV-1: bob's archer is not hers
    reply = await alice.reply({"kind": "table.move", "piece": "archer", "to": {"x": 3, "y": 3}})
    code = declared("not_your_piece")
    assert (reply["type"], reply["code"], reply["rule"]) == ("reject", code.code, "TABLE-MV-1")
    assert code.rule == "TABLE-MV-1"
    assert reason(reply) == tuple(code.text.format(name="弓兵 / Archer"))
    # TABLE-MV-2: off the 12×8 board
    reply = await alice.reply({"kind": "table.move", "piece": "knight", "to": {"x": 12, "y": 0}})
    code = declared("off_grid")
    assert (reply["code"], reply["rule"]) == (code.code, code.rule) == ("off_grid", "TABLE-MV-2")
    assert reason(reply) == tuple(code.text.format(x=12, y=0, w=12, h=8))
    # a hidden piece is unknown, worded as the declared unknown_piece; no rule forbids it
    reply = await alice.reply({"kind": "table.move", "piece": "assassin", "to": {"x": 3, "y": 3}})
    code = declared("unknown_piece")
    assert (reply["code"], reply["rule"]) == ("unknown_piece", None)
    assert reason(reply) == tuple(code.text.format(id="assassin"))
    # the core's: a player may not override
    reply = await alice.reply({"kind": "override", "path": ["meta", "name"], "value": "x",
                               "reason": "r"})
    code = declared("forbidden_role")
    assert code.group == "core" and reply["code"] == code.code
    assert reason(reply) == tuple(code.text.format(who="プレイヤー", who_en="A player"))
    await g.close()
    await alice.close()


async def test_server_errors_and_rejects_come_from_the_server_group(running: Running) -> None:
    g = await gm(running)
    await g.send_raw("{not json")
    bad = await g.expect("error")
    assert bad["code"] == "bad_json" and reason(bad) == tuple(SERVER["bad_json"].text)
    assert "error" in sent_as(SERVER["bad_json"])

    await g.send({"type": "action", "id": "k1", "action": {"kind": "table.fly"}}, invalid=True)
    unknown = await g.reply_to("k1")
    assert (unknown["type"], unknown["code"]) == ("error", "unknown_kind")
    assert reason(unknown) == tuple(SERVER["unknown_kind"].text.format(kind="table.fly"))

    await g.send({"type": "query", "id": "q1", "query": {"kind": "grid.nowhere"}}, invalid=True)
    query = await g.reply_to("q1")
    assert query["code"] == "unknown_query" and "unknown_query" in SERVER

    # a reject of the server's own: the room moved on since the version the GM acted on
    moved = await g.reply({"kind": "table.counter.add", "counter": "clock", "delta": 1})
    stale_id = await g.act({"kind": "table.counter.add", "counter": "clock", "delta": 1},
                           base_version=moved["version"] - 1)
    stale = await g.reply_to(stale_id)
    code = SERVER["stale_version"]
    assert (stale["type"], stale["code"], stale["rule"]) == ("reject", code.code, None)
    assert reason(stale) == tuple(code.text.format(v=moved["version"]))
    assert sent_as(code) == ["reject"]
    assert not any(code.code in group for group in REFUSALS)  # the server's, not the engine's
    await g.close()


def changes(client: Client) -> dict[int, dict[str, Any]]:
    """The change frames a client has read, by the version each made."""
    frames = [json.loads(text) for text in client.raw]
    return {f["to_version"]: f for f in frames if f["type"] == "change"}


async def test_every_audience_is_told_which_changes_the_gm_made(tmp_path: Path) -> None:
    """A player's log marks what the GM did (for her PC too): `change.by_gm`, live and in
    the public history she pages in; her own changes carry no mark."""
    r = await start_server(tmp_path / "k.sqlite3", SEAMLESS)
    try:
        g = await gm(r)
        alice = await join(r, await invite(g, "player", "alice"))
        started = (await g.reply({"kind": "grid.start"}))["version"]
        hers = (await alice.reply({"kind": "grid.process.start", "combatant": "fighter"}))["version"]
        for_her = (await g.reply({"kind": "grid.step.end", "combatant": "fighter"}))["version"]  # for her PC
        await alice.settle(for_her)
        seen = changes(alice)
        assert seen[started].get("by_gm") is True and seen[for_her].get("by_gm") is True
        assert "by_gm" not in seen[hers]
        assert "info" not in seen[for_her]  # who exactly, and how, stays the GM's
        await alice.send({"type": "history", "id": "h1", "after": 0})
        history = {e["version"]: e for e in (await alice.expect("history", id="h1"))["entries"]}
        assert history[started].get("by_gm") is True and history[for_her].get("by_gm") is True
        assert "by_gm" not in history[hers] and "actor" not in history[hers]
        await g.close()
        await alice.close()
    finally:
        await r.runner.cleanup()
