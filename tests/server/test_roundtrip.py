"""Over real sockets: GM and two players; moves, refusals, hidden things (TABLE-MV-1/2)."""

from __future__ import annotations

import json

from conftest import Client, Running, gm, invite, join


async def test_player_move_is_acked_and_everyone_sees_it(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    bob = await join(running, await invite(g, "player", "bob"))
    mid = await alice.act({"kind": "table.move", "piece": "knight", "to": {"x": 4, "y": 3}})
    ack = await alice.reply_to(mid)
    assert ack["type"] == "ack"
    for c in (alice, bob, g):
        await c.settle(ack["version"])
        assert c.state["table"]["pieces"]["knight"]["cell"] == {"x": 4, "y": 3}
        assert c.version == ack["version"]


async def test_moving_someone_elses_piece_is_refused_in_both_languages(running: Running) -> None:
    # TABLE-MV-1
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    before = alice.version
    mid = await alice.act({"kind": "table.move", "piece": "archer", "to": {"x": 5, "y": 5}})
    reject = await alice.reply_to(mid)
    assert reject["type"] == "reject"
    assert reject["code"] == "not_your_piece"
    assert reject["rule"] == "TABLE-MV-1"
    assert "弓兵" in reject["reason"]["ja"] and "not yours" in reject["reason"]["en"]
    assert reject["version"] == before
    notice = await g.expect("notice", kind="refusal")
    assert notice["data"]["code"] == "not_your_piece"


async def test_off_grid_move_is_refused_and_state_untouched(running: Running) -> None:
    # TABLE-MV-2
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    mid = await alice.act({"kind": "table.move", "piece": "knight", "to": {"x": 12, "y": 0}})
    reject = await alice.reply_to(mid)
    assert (reject["code"], reject["rule"]) == ("off_grid", "TABLE-MV-2")
    assert alice.state["table"]["pieces"]["knight"]["cell"] == {"x": 1, "y": 1}
    assert running.server.rooms[running.room].version == 0


async def test_hidden_piece_and_counter_never_reach_players_or_bridges(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    bridge = await join(running, await invite(g, "bridge"))
    observer = await join(running, await invite(g, "observer"))
    # The GM works with the hidden things; nobody else may hear of them.
    for action in (
        {"kind": "table.move", "piece": "assassin", "to": {"x": 3, "y": 3}},
        {"kind": "table.counter.add", "counter": "doom", "delta": 1},
        {"kind": "table.move", "piece": "ghoul", "to": {"x": 8, "y": 5}},
    ):
        reply = await g.reply_to(await g.act(action))
        assert reply["type"] == "ack"
    for c in (alice, bridge, observer):
        await c.settle(3)
        text = "\n".join(c.raw)
        assert "assassin" not in text and "暗殺者" not in text
        assert "doom" not in text and "破滅" not in text
        assert "pit" not in text and "落とし穴" not in text
    assert "assassin" in "\n".join(g.raw)
    # Revealed, it arrives whole, at once.
    await g.reply_to(await g.act({"kind": "table.piece.reveal", "piece": "assassin"}))
    for c in (alice, bridge, observer):
        await c.settle(4)
        assert c.state["table"]["pieces"]["assassin"]["cell"] == {"x": 3, "y": 3}


async def test_owner_counter_is_seen_only_by_its_owner(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    bob = await join(running, await invite(g, "player", "bob"))
    assert "alice_hp" in alice.state["table"]["counters"]
    assert "alice_hp" not in bob.state["table"]["counters"]
    mid = await alice.act({"kind": "table.counter.add", "counter": "alice_hp", "delta": -20})
    assert (await alice.reply_to(mid))["type"] == "ack"
    await alice.settle(1)
    assert alice.state["table"]["counters"]["alice_hp"]["value"] == 0  # clamped at min
    await bob.settle(1)
    assert "alice_hp" not in json.dumps(bob.state)


async def test_override_and_undo_are_logged_actions(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    await g.reply_to(await g.act({"kind": "table.move", "piece": "ghoul", "to": {"x": 0, "y": 0}}))
    mid = await g.act({"kind": "override", "path": ["table", "counters", "clock", "value"],
                       "value": 5, "reason": "時間経過 / time passes"})
    assert (await g.reply_to(mid))["type"] == "ack"
    await alice.settle(2)
    assert alice.state["table"]["counters"]["clock"]["value"] == 5
    bad = await g.reply_to(await g.act({"kind": "override", "path": ["table", "counters",
                                        "clock", "value"], "value": "lots", "reason": "x"}))
    assert bad["code"] == "bad_value"
    mid = await g.act({"kind": "undo", "to_version": 0, "reason": "やり直し / redo"})
    assert (await g.reply_to(mid))["version"] == 3
    await alice.settle(3)
    assert alice.state["table"]["counters"]["clock"]["value"] == 0
    assert alice.state["table"]["pieces"]["ghoul"]["cell"] == {"x": 9, "y": 5}
    await g.send({"type": "history", "id": "h1"})
    history = await g.expect("history")
    kinds = [e["action"]["kind"] for e in history["entries"]]
    assert kinds == ["table.move", "override", "restore"]
    assert history["entries"][1]["action"]["reason"] == "時間経過 / time passes"


async def test_retried_action_id_applies_once(running: Running) -> None:
    g = await gm(running)
    action = {"kind": "table.counter.add", "counter": "clock", "delta": 1}
    first = await g.reply_to(await g.act(action, id="same"))
    second = await g.reply_to(await g.act(action, id="same"))
    assert first["type"] == second["type"] == "ack"
    assert second["duplicate"] is True and second["version"] == first["version"]
    await g.settle(first["version"])
    assert g.state["table"]["counters"]["clock"]["value"] == 1


async def test_stale_base_version_is_refused(running: Running) -> None:
    g = await gm(running)
    await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock", "delta": 1}))
    reply = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                          "delta": 1}, base_version=0))
    assert reply["code"] == "stale_version"
    assert running.server.rooms[running.room].version == 1


async def test_player_cannot_do_gm_things(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    reply = await alice.reply_to(await alice.act(
        {"kind": "override", "path": ["table", "counters", "clock", "value"], "value": 3,
         "reason": "cheat"}))
    assert reply["code"] == "forbidden_role"
    await alice.send({"type": "invite.create", "id": "i1", "role": "player", "player": "x"})
    err = await alice.expect("error")
    assert err["code"] == "gm_only"


async def test_revoked_invite_cannot_connect(running: Running) -> None:
    g = await gm(running)
    token = await invite(g, "observer")
    await g.send({"type": "invite.list", "id": "l1"})
    invites = (await g.expect("invites"))["invites"]
    await g.send({"type": "invite.revoke", "id": "r1", "invite": invites[0]["invite"]})
    await g.expect("invites")
    c = await Client.connect(running.url)
    await c.send({"type": "auth", "room": running.room, "token": token})
    err = await c.expect("error")
    assert err["code"] == "invite_revoked"


async def test_players_history_holds_only_public_log_lines(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    await g.reply_to(await g.act({"kind": "table.move", "piece": "assassin",
                                  "to": {"x": 4, "y": 4}}))
    await g.reply_to(await g.act({"kind": "override", "path": ["table", "pieces", "assassin",
                                  "name"], "value": "影", "reason": "暗殺者の偽名"}))
    await alice.send({"type": "history", "id": "h"})
    entries = (await alice.expect("history"))["entries"]
    assert [e["version"] for e in entries] == [1, 2]
    assert all(set(e) == {"version", "at", "log", "by_gm"} for e in entries)  # both the GM's
    text = json.dumps(entries, ensure_ascii=False)
    assert "assassin" not in text and "暗殺者" not in text and "影" not in text
    await g.send({"type": "history", "id": "g"})
    gm_entries = (await g.expect("history"))["entries"]
    assert gm_entries[1]["action"]["reason"] == "暗殺者の偽名"
