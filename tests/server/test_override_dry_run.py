"""Issue 30 (typed edits): a GM's dry run answers what an override (and the next step after
it) would cause — 戦力0 → 敗走 in the mass demo — computed on a copy: the room's state,
version and dice stay as they were. A player asking is refused with a clear error.

Real sockets against a real server (examples/mass_combat.yaml); rules MASS-PREP-1/2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server


def override(unit: str, field: str, value: Any) -> dict[str, Any]:
    return {"kind": "override", "path": ["mass", "units", unit, field], "value": value,
            "reason": "不在のプレイヤーの代わり"}


async def dry(c: Client, msg_id: str, *actions: dict[str, Any]) -> dict[str, Any]:
    await c.send({"type": "dry_run", "id": msg_id, "actions": list(actions)})
    while True:
        msg = await c.recv()
        if msg.get("id") == msg_id:
            return msg


async def absent_players(tmp_path: Path) -> tuple[Running, Client]:
    """アリス隊 has its strength from the GM's value; ボリス隊 and カナ隊 only a max strength
    set by override (their strength stays 0), as the GM did for absent players."""
    r = await start_server(tmp_path / "dry.sqlite3", EXAMPLES / "mass_combat.yaml", seed="dry")
    g = await gm(r)
    ack = await g.reply({"kind": "mass.strength", "unit": "alice", "value": 10})
    assert ack["type"] == "ack", ack
    for unit in ("boris", "kana"):
        ack = await g.reply(override(unit, "max_strength", 9))
        assert ack["type"] == "ack", ack
    await g.settle(ack["version"])
    return r, g


async def test_dry_run_shows_the_rout_the_next_step_would_bring(tmp_path: Path) -> None:
    r, g = await absent_players(tmp_path)
    try:
        room = r.server.rooms[r.room]
        before_version, before_draws = g.version, room.engine.state.rng.draws
        before_state = room.engine.state.model_dump(mode="json")
        seen = len(g.raw)
        reply = await dry(g, "d1", override("dean", "max_strength", 8),
                          {"kind": "mass.next_step", "expect": "preparation"})
        assert reply["type"] == "dry_run.result", reply
        assert reply["version"] == before_version and reply["refused"] is None
        edit, step = reply["steps"]
        assert edit["kind"] == "override"
        assert {"path": ["mass", "units", "dean", "max_strength"], "old": None, "new": 8,
                "had": True, "has": True} in edit["changes"]
        # what follows: every unit still at strength 0 is routed (MASS-PREP-2)
        routed = {c["path"][2] for c in step["changes"]
                  if c["path"][3:] == ["routed"] and c["old"] is False and c["new"] is True}
        assert routed == {"boris", "kana", "dean"}
        said = " ".join(x["ja"] for x in step["log"])
        for name in ("ボリス隊", "カナ隊", "ディーン隊"):
            assert f"「{name}」は戦力0で敗走した。" in said
        assert "アリス隊" not in said
        assert {h["data"]["unit"] for h in step["happenings"]
                if h["kind"] == "mass.unit.routed"} == {"boris", "kana", "dean"}
        # nothing of it happened: no change frame, same version, same state and dice
        await g.send({"type": "ping", "t": 1})
        pong = await g.expect("pong")
        assert pong["version"] == before_version == g.version
        assert [json.loads(x)["type"] for x in g.raw[seen:]] == ["dry_run.result", "pong"]
        assert room.engine.version == before_version
        assert room.engine.state.rng.draws == before_draws
        assert room.engine.state.model_dump(mode="json") == before_state
        fresh = await gm(r)
        assert fresh.version == before_version
        assert fresh.state["mass"]["units"]["dean"]["max_strength"] is None
        assert fresh.state["mass"]["step"] == "preparation"
        # the override itself still applies for real afterwards, at the next version
        ack = await g.reply(override("dean", "max_strength", 8))
        assert ack["type"] == "ack" and ack["version"] == before_version + 1
        await fresh.close()
    finally:
        await g.close()
        await r.runner.cleanup()


async def test_dry_run_names_the_refused_action_and_stops_there(tmp_path: Path) -> None:
    r, g = await absent_players(tmp_path)
    try:
        version = g.version
        reply = await dry(g, "d2", override("dean", "max_strength", -3),
                          {"kind": "mass.next_step", "expect": "preparation"})
        assert reply["type"] == "dry_run.result" and reply["steps"] == []
        refused = reply["refused"]
        assert (refused["step"], refused["code"]) == (0, "bad_value")
        assert refused["reason"]["ja"] and refused["reason"]["en"]
        # the next step alone is refused while ディーン隊 has no max strength (MASS-PREP-1)
        reply = await dry(g, "d3", {"kind": "mass.next_step", "expect": "preparation"})
        assert reply["refused"]["rule"] == "MASS-PREP-1", reply
        assert "ディーン隊" in reply["refused"]["reason"]["ja"]
        assert reply["version"] == version == r.server.rooms[r.room].engine.version
    finally:
        await g.close()
        await r.runner.cleanup()


async def test_a_player_may_not_dry_run(tmp_path: Path) -> None:
    r, g = await absent_players(tmp_path)
    try:
        p1 = await join(r, await invite(g, "player", "p1"))
        reply = await dry(p1, "d4", override("alice", "row", "front"))
        assert reply["type"] == "error" and reply["code"] == "gm_only", reply
        assert reply["reason"] == {"ja": "GMだけができる操作です。", "en": "Only the GM may do this."}
        assert r.server.rooms[r.room].engine.version == g.version
        await p1.close()
    finally:
        await g.close()
        await r.runner.cleanup()
