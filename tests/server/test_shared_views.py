"""Changes are projected once per distinct view and shared: every client's copy, built
only from the frames it received, must still equal what a fresh join shows it."""

from __future__ import annotations

from typing import Any

from conftest import Client, Running, gm, invite, join


async def _fresh(r: Running, token: str | None) -> dict[str, Any]:
    c = await gm(r) if token is None else await join(r, token)
    state = c.state
    await c.close()
    return state


async def test_every_view_matches_a_fresh_join_after_shared_and_per_audience_changes(
        running: Running) -> None:
    g = await gm(running)
    tokens = {"alice": await invite(g, "player", "alice"), "bob": await invite(g, "player", "bob"),
              "observer": await invite(g, "observer")}
    clients: dict[str, Client] = {name: await join(running, tok) for name, tok in tokens.items()}
    steps: list[dict[str, Any]] = [
        {"kind": "table.move", "piece": "knight", "to": {"x": 3, "y": 3}},  # shared by all
        {"kind": "table.counter.add", "counter": "alice_hp", "delta": -2},  # owner only
        {"kind": "table.counter.add", "counter": "doom", "delta": 1},  # GM only
        # A whole collection replaced (a unit above the first dict), then entries of it
        # changed: each view must change its own copy, never one another's.
        {"kind": "override", "path": ["table", "pieces"], "reason": "reset the board",
         "value": {"knight": {"id": "knight", "name": "Knight", "owner": "alice",
                              "cell": {"x": 0, "y": 0}},
                   "ghoul": {"id": "ghoul", "name": "Ghoul", "cell": {"x": 5, "y": 5}},
                   "spy": {"id": "spy", "name": "Spy", "cell": {"x": 6, "y": 6},
                           "hidden": True}}},
        {"kind": "table.move", "piece": "ghoul", "to": {"x": 4, "y": 4}},
        {"kind": "table.piece.remove", "piece": "knight"},
        {"kind": "table.piece.reveal", "piece": "spy"},
        {"kind": "table.piece.reveal", "piece": "spy", "hidden": True},
        {"kind": "table.counter.set", "counter": "alice_hp", "value": 12},
    ]
    version = 0
    for action in steps:
        reply = await g.reply_to(await g.act(action))
        assert reply["type"] == "ack", reply
        version = reply["version"]
    for name, c in clients.items():
        await c.settle(version)
        assert c.state == await _fresh(running, tokens[name]), name
    await g.settle(version)
    assert g.state == await _fresh(running, None)
    assert "spy" not in clients["observer"].state["table"]["pieces"]
    assert "alice_hp" in clients["alice"].state["table"]["counters"]
    assert "alice_hp" not in clients["bob"].state["table"]["counters"]


async def test_views_made_apart_share_the_first_change_of_a_unit(running: Running) -> None:
    """Each joining audience's view is its own copy of the state, so the first change to a
    piece finds equal, not identical, old values: it is still worked out once and sent as
    one serialised frame to every audience that sees the same, and kept once in history."""
    g = await gm(running)
    tokens = {"alice": await invite(g, "player", "alice"), "bob": await invite(g, "player", "bob"),
              "observer": await invite(g, "observer")}
    clients = {name: await join(running, tok) for name, tok in tokens.items()}
    reply = await g.reply_to(await g.act({"kind": "table.move", "piece": "knight",
                                          "to": {"x": 2, "y": 1}}))
    assert reply["type"] == "ack"
    raw = []
    for c in clients.values():
        change = await c.expect("change", to_version=reply["version"])
        assert change["ops"] == [{"op": "set", "path": ["table", "pieces", "knight", "cell"],
                                  "value": {"x": 2, "y": 1}}]
        raw.append(c.raw[-1])
    assert len(set(raw)) == 1
    history = running.server.rooms[running.room].audiences.history
    to_version, row, _size = history.kept[-1]
    assert to_version == reply["version"]
    kept = [row[history.keys[key]] for key in history.keys if key != "gm"]
    assert len(kept) == 3 and len({id(f) for f in kept}) == 1
