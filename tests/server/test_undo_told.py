"""Issue 30, feedback that stays true: every audience learns what an undo took back.

An undo's `change` carries `undo_to` (the version it went back to) for every audience, and
so does its entry in a non-GM `history`; a rule warning's GM notice names the version its
action made (the console drops it once that version is undone)."""

from __future__ import annotations

from typing import Any

from conftest import Client, Running, gm, invite, join


async def change_to(c: Client, version: int) -> dict[str, Any]:
    """Read until the change that makes `version` (the frame itself)."""
    while True:
        msg = await c.recv()
        if msg["type"] == "change" and msg["to_version"] == version:
            return msg


async def test_undo_tells_every_audience_where_it_went_back(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    watcher = await join(running, await invite(g, "observer"))
    assert (await g.reply({"kind": "table.move", "piece": "ghoul", "to": {"x": 0, "y": 0}}))["version"] == 1
    first = await change_to(alice, 1)
    assert "undo_to" not in first  # an ordinary change says nothing of undo
    knight = await alice.reply({"kind": "table.move", "piece": "knight", "to": {"x": 3, "y": 3}})
    assert knight["version"] == 2
    undo = await g.reply({"kind": "undo", "to_version": 1, "reason": "やり直し / take back"})
    assert undo["version"] == 3
    for c in (g, alice, watcher):
        frame = await change_to(c, 3)
        assert frame["undo_to"] == 1, frame
    assert alice.state["table"]["pieces"]["knight"]["cell"] == {"x": 1, "y": 1}

    # a page loading the recent past reads the same from its history
    await alice.send({"type": "history", "id": "h1", "after": 0, "limit": 10})
    entries = (await alice.expect("history", id="h1"))["entries"]
    assert [e.get("undo_to") for e in entries] == [None, None, 1]
    assert set(entries[2]) == {"version", "at", "log", "undo_to", "by_gm"}  # no reason, no target state


async def test_warning_notice_names_its_version(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    await g.reply({"kind": "room.enforcement", "mode": "warn"})
    moved = await alice.reply({"kind": "table.move", "piece": "archer", "to": {"x": 3, "y": 3}})
    assert moved["type"] == "ack", moved  # bob's piece: allowed in warn mode, with a warning
    notice = await g.expect("notice", kind="warning")
    assert notice["data"]["version"] == moved["version"]
    assert notice["data"]["rule"] == "TABLE-MV-1"
