"""Over real sockets: a platform bridge joins a tower-defense room, gets the table built
(`table.ops`, reset), follows the GM's changes (`table.ops` updates), and an illegal
piece move it reports (`table.event`) is rejected with snap-back operations (TD-ATK-1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from adapter_support import START

from conftest import EXAMPLES, Client, gm, invite, start_server


async def bridge(url: str, room: str, token: str, platform: str) -> tuple[Client, dict[str, Any]]:
    """Authenticate as a bridge; return the client and its reset `table.ops` frame."""
    c = await Client.connect(url)
    await c.send({"type": "auth", "room": room, "token": token, "platform": platform})
    got: dict[str, dict[str, Any]] = {}
    while not {"table.ops", "snapshot", "welcome"} <= set(got):
        msg = await c.recv()
        got.setdefault(msg["type"], msg)
    assert got["welcome"]["role"] == "bridge"
    return c, got["table.ops"]


async def next_ops(c: Client) -> dict[str, Any]:
    return await c.expect("table.ops")


def fort_position(platform: str, reset: list[dict[str, Any]], fort: str) -> dict[str, Any]:
    ks = f"ks-fort-{fort}"
    if platform == "foundry":
        data = next(d for op in reset if op["op"] == "create" for d in op["data"]
                    if d["flags"]["komasync"]["id"] == ks)
    else:
        data = next(op for op in reset if op.get("id") == ks)["data"]
    return {"x": data["x"], "y": data["y"]}


@pytest.mark.parametrize("platform", ["foundry", "ccfolia"])
async def test_bridge_gets_table_ops_and_snap_back(tmp_path: Path, platform: str) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "tower_defense.yaml")
    try:
        g = await gm(r)
        b, reset = await bridge(r.url, r.room, await invite(g, "bridge"), platform)
        assert reset["reset"] is True and reset["platform"] == platform
        assert reset["ops"][0]["op"] == "reset"
        assert "ks-pc-pc1" in reset["ops"][0]["ids"]
        # TD-PRE-1 the GM seats every PC; each change reaches the bridge as table.ops
        for pc, fort in START.items():
            reply = await g.reply_to(await g.act({"kind": "td.pc.place", "pc": pc, "fort": fort}))
            assert reply["type"] == "ack"
            frame = await next_ops(b)
            assert frame["reset"] is False and frame["version"] == reply["version"]
            assert any(op["op"] == "chat" for op in frame["ops"])
        # TD-RND the GM advances a phase: the wave appears (TD-REIN-1)
        reply = await g.reply_to(await g.act({"kind": "td.next_phase", "expect": "setup"}))
        assert reply["type"] == "ack"
        frame = await next_ops(b)
        text = str(frame["ops"])
        assert "ks-group-r1-left_end" in text and "個体数" in text
        # TD-ATK-1 a PC dropped on a fort in the reinforcement phase: refused, snapped back
        event = {"kind": "move", "id": "ks-pc-pc1", "user": {"id": "u1", "name": "プレイヤー1"},
                 **fort_position(platform, reset["ops"], "f_center_left")}
        await b.send({"type": "table.event", "id": "e1", "event": event})
        reject = await b.reply_to("e1")
        assert reject["type"] == "reject"
        assert (reject["code"], reject["rule"]) == ("wrong_phase", "TD-ATK-1")
        snap = await b.expect("table.ops", event="e1")
        assert snap["reset"] is False
        ops = snap["ops"]
        if platform == "foundry":
            assert ops[0]["op"] == "update" and ops[0]["updates"][0]["id"] == "ks-pc-pc1"
            assert ops[0]["options"] == {"animate": False}
            message = ops[-1]["messages"][0]
            assert message["whisper"] == ["u1"]
            said = message["flags"]["komasync"]
        else:
            assert ops[0] == {"op": "character.update", "id": "ks-pc-pc1",
                              "data": {"x": ops[0]["data"]["x"], "y": ops[0]["data"]["y"]}}
            said = ops[-1]
            assert said["to"] == "u1"
        assert said["ja"].endswith(reject["reason"]["ja"])
        assert said["en"].endswith(reject["reason"]["en"])
        notice = await g.expect("notice", kind="refusal")
        assert notice["data"]["code"] == "wrong_phase"
        await b.close()
        await g.close()
    finally:
        await r.runner.cleanup()
