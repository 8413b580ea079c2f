"""Grid queries over real sockets: answered in the room's order from what the sender may
see, with no state change and no version bump (GRID-RNG-1, GRID-LOS-1, GRID-MV-1)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server


@pytest.fixture
async def chapel(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    yield r
    await r.runner.cleanup()


async def query(c: Client, qid: str, invalid: bool = False, **q: Any) -> dict[str, Any]:
    await c.send({"type": "query", "id": qid, "query": q}, invalid=invalid)
    while True:
        msg = await c.recv()
        if msg.get("id") == qid and msg["type"] in ("query.result", "error"):
            return msg


async def test_grid_queries_change_nothing_and_answer_per_audience(chapel: Running) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    version = g.version
    a = await query(alice, "q1", kind="grid.range", combatant="fighter", range=1)
    assert a["type"] == "query.result" and a["version"] == version
    assert {"x": 0, "y": 3} in a["result"]["squares"] and len(a["result"]["squares"]) == 9
    s = await query(alice, "q2", kind="grid.sight", combatant="archer", to={"x": 9, "y": 5})
    assert s["result"]["clear"] is False  # the pillar at (8,5)
    legal = await query(alice, "q3", kind="grid.legal", combatant="fighter")
    assert legal["result"]["squares"] == [] and "GRID-RND-1" in legal["result"]["reason"]["en"]

    await g.act({"kind": "grid.start"}, id="start")
    await g.reply_to("start")
    await alice.act({"kind": "grid.process.start", "combatant": "fighter"}, id="p")
    ack = await alice.reply_to("p")
    assert ack["type"] == "ack"
    await alice.settle(ack["version"])
    legal = await query(alice, "q4", kind="grid.legal", combatant="fighter")
    squares = {(s["cell"]["x"], s["cell"]["y"]): s["cost"] for s in legal["result"]["squares"]}
    assert squares[(2, 4)] == 1 and squares[(6, 4)] == 5
    assert squares[(2, 5)] == 2  # an ally's square may be ended on (GRID-MV-3, GRID-MV-4)
    assert legal["version"] == ack["version"]

    await g.act({"kind": "table.piece.reveal", "piece": "knight", "hidden": True}, id="hide")
    ack = await g.reply_to("hide")
    await alice.settle(ack["version"])
    hidden = await query(alice, "q5", kind="grid.range", combatant="knight", range=1)
    assert (hidden["type"], hidden["code"]) == ("error", "unknown_character")
    assert (await query(g, "q6", kind="grid.range", combatant="knight", range=0))["type"] == \
        "query.result"

    unknown = await query(alice, "q7", invalid=True, kind="grid.nothing")
    assert (unknown["type"], unknown["code"]) == ("error", "unknown_query")
    bad = await query(alice, "q8", invalid=True, kind="grid.range", range=-1, combatant="fighter")
    assert (bad["type"], bad["code"]) == ("error", "bad_message")
    await alice.send({"type": "ping", "t": 1})
    pong = await alice.expect("pong")
    assert pong["version"] == ack["version"]  # nothing was versioned by the queries
    for c in (alice, g):
        await c.close()
