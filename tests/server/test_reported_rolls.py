"""Where reported dice results may come from (issue 13 finding 7), over real sockets.

Lines a bridge reads from the VTT's own dice output are trusted; results typed on the
player page (a player connection sending `result`/`results`) are refused until the GM
allows them with the room setting `room.player_rolls` (TD-ATK-2 reported rolls).
"""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server

START = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
         "pc5": "m_left", "pc6": "m_right", "npc1": "final"}


def cc(target: int, value: int, level: str) -> str:
    """A BCDice CC result line as Ccfolia shows it."""
    return f"(1D100<={target}) ボーナス・ペナルティダイス[0] ＞ {value} ＞ {value} ＞ {level}"



async def to_pc_attack(g: Client) -> None:
    """TD-PRE-1 seat every PC, then walk the phases to the PC attack phase (TD-RND)."""
    for pc, fort in START.items():
        assert (await g.reply({"kind": "td.pc.place", "pc": pc, "fort": fort}))["type"] == "ack"
    while g.state["tower_defense"]["phase"] != "pc_attack":
        phase = g.state["tower_defense"]["phase"]
        ack = await g.reply({"kind": "td.next_phase", "expect": phase})
        assert ack["type"] == "ack", ack
        await g.settle(ack["version"])
        for pid in list(g.state["prompts"]):
            await g.send({"type": "answer", "id": f"ans-{pid}", "prompt": pid, "choice": "done"})
            ack = await g.reply_to(f"ans-{pid}")
            assert ack["type"] == "ack", ack
            await g.settle(ack["version"])


async def bridge(r: Running, token: str) -> Client:
    c = await Client.connect(r.url)
    await c.send({"type": "auth", "room": r.room, "token": token, "platform": "ccfolia"})
    await c.expect("table.ops", reset=True)
    return c


async def test_typed_results_are_refused_until_the_gm_allows_them(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "td.sqlite3", EXAMPLES / "tower_defense.yaml", seed="rolls")
    try:
        g = await gm(r)
        p1 = await join(r, await invite(g, "player", "p1"))
        b = await bridge(r, await invite(g, "bridge"))
        await to_pc_attack(g)
        line = cc(80, 52, "レギュラー成功")
        attack = {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle",
                  "group": "r1-left_end", "results": [line]}

        # Typed on the player page: refused, nothing changes.
        version = g.version
        refused = await p1.reply(attack)
        assert (refused["type"], refused.get("code")) == ("reject", "player_rolls_refused"), refused
        assert refused["reason"]["ja"] and refused["reason"]["en"]
        assert r.server.rooms[r.room].version == version
        assert g.state["meta"].get("player_rolls") == "refuse"  # the safe default, visible

        # The same line read by the bridge from the VTT's own dice output: trusted.
        event = {"kind": "chat", "text": "CC<=80 デザートイーグル r1-left_end", "roll": line,
                 "speaker": {"name": "カルロス・ベガ"}, "user": {"id": "u1", "name": "プレイヤー1"}}
        await b.send({"type": "table.event", "id": "e1", "event": event})
        ack = await b.reply_to("e1")
        assert ack["type"] == "ack", ack
        await g.settle(ack["version"])
        rolls = g.raw[-1]
        assert '"source":"external"' in rolls and line in rolls

        # Only the GM changes the setting; then typed results are accepted.
        forbidden = await p1.reply({"kind": "room.player_rolls", "mode": "allow"})
        assert forbidden.get("code") == "forbidden_role"
        ack = await g.reply({"kind": "room.player_rolls", "mode": "allow"})
        assert ack["type"] == "ack", ack
        await p1.settle(ack["version"])
        assert p1.state["meta"]["player_rolls"] == "allow"
        assert (await p1.reply(attack))["type"] == "ack"
    finally:
        await r.runner.cleanup()
