"""The GM's roll ledger (issue 29 part C, server/roll_ledger.py) over real sockets: a
real bridge connection delivers rolls in chat; each comes to the GM as a `notice` of
kind `roll` saying what became of it — used (by which action, for which rule's check),
refused by the rules (their code and reason), or made no action at all (the adapter's
reason: a line it cannot read, no check waiting) — with the speaker and the PC and
player it was credited to. A joining GM is sent the kept ones; a player never is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_reported_rolls import bridge, cc, to_pc_attack

from conftest import EXAMPLES, ROOT, Client, gm, invite, join, start_server
from komasync.server.roll_ledger import KEEP

CARLOS = {"name": "カルロス・ベガ"}
P1_USER = {"id": "u1", "name": "プレイヤー1"}


def chat(roll: str, speaker: dict[str, Any], user: dict[str, Any], text: str = "") -> dict[str, Any]:
    return {"kind": "chat", "text": text or roll, "roll": roll, "speaker": speaker, "user": user}


async def delivered(b: Client, g: Client, msg_id: str, event: dict[str, Any]) -> dict[str, Any]:
    """Send `event` from the bridge; the roll notice the GM then gets."""
    await b.send({"type": "table.event", "id": msg_id, "event": event})
    await b.reply_to(msg_id)
    notice = await g.expect("notice", kind="roll")
    return dict(notice["data"])


def roll_notices(c: Client) -> list[dict[str, Any]]:
    frames = [json.loads(raw) for raw in c.raw]
    return [f for f in frames if f["type"] == "notice" and f.get("kind") == "roll"]


async def test_gm_sees_each_bridge_roll_used_refused_or_ignored(tmp_path: Path) -> None:
    """TD-ATK-2: a CC line in the PC attack phase is used for the hit check; once the
    weapon's shots run out (TD-ATK-3) the same line is refused by the rules (their code,
    rule and reason); a line the VTT's dice
    module printed differently made no action and
    says why. Each names the bridge, the speaker, the PC and the player."""
    r = await start_server(tmp_path / "td.sqlite3", EXAMPLES / "tower_defense.yaml", seed="ledger")
    try:
        g = await gm(r)
        p1 = await join(r, await invite(g, "player", "p1"))
        b = await bridge(r, await invite(g, "bridge"))
        line = cc(80, 52, "レギュラー成功")
        text = "CC<=80 デザートイーグル r1-left_end"

        await to_pc_attack(g)
        used = await delivered(b, g, "e1", chat(line, CARLOS, P1_USER, text))
        assert used["outcome"] == {"used": True, "action": "td.attack", "rule": "TD-ATK-2",
                                   "text": {"ja": "TD-ATK-2 の命中判定に使いました",
                                            "en": "used for the TD-ATK-2 hit check"}}
        assert used["text"] == line and used["speaker"] == "カルロス・ベガ"
        assert used["pc"] == {"id": "pc1", "name": "カルロス・ベガ"}
        assert used["player"] == {"id": "p1", "name": "プレイヤー1"}
        assert used["bridge"]["platform"] == "ccfolia" and used["bridge"]["label"]

        # TD-ATK-3: the desert eagle's shots of this round run out; the rules refuse the next
        late_ones = [await delivered(b, g, f"e{n}", chat(line, CARLOS, P1_USER, text))
                     for n in range(2, 5)]
        early = next(e for e in late_ones if not e["outcome"]["used"])
        assert early["outcome"]["code"] not in ("event_ignored", None)  # the engine's refusal
        assert early["outcome"]["rule"] and early["outcome"]["action"] == "td.attack"
        assert early["outcome"]["text"]["ja"] and early["outcome"]["text"]["en"]

        garbled = "(1D100<=80) ＞ ？？ ＞ 成功"  # no faces komasync (or anyone) can read
        unread = await delivered(b, g, "e9", chat(garbled, CARLOS, P1_USER))
        assert unread["outcome"]["used"] is False and unread["outcome"]["code"] == "event_ignored"
        reason = unread["outcome"]["text"]  # the adapter's own reason, its languages apart
        assert "ダイス" in reason["ja"] and "dice" in reason["en"] and " / " not in reason["ja"]
        assert unread["text"] == garbled and unread["pc"]["id"] == "pc1"
        assert unread["id"] > early["id"] > used["id"]

        # a GM opening the console later is sent the kept ones, oldest first
        late = await gm(r)
        await late.reply({"kind": "room.player_rolls", "mode": "refuse"})
        kept = [n["data"] for n in roll_notices(late)]
        ids = [e["id"] for e in kept]
        assert ids == sorted(ids) and len(ids) == 5 and ids[0] == used["id"]
        assert ids[-1] == unread["id"] and kept[0]["outcome"]["rule"] == "TD-ATK-2"

        # the player saw none of it
        await p1.reply({"kind": "td.pc.place", "pc": "pc1", "fort": "f_left"})
        assert roll_notices(p1) == []
        assert not any('"kind":"roll"' in raw for raw in p1.raw)
        for c in (g, late, p1, b):
            await c.close()
    finally:
        await r.runner.cleanup()


async def test_no_check_waiting_and_the_engagement_rule_a_roll_was_used_for(tmp_path: Path) -> None:
    """ENG-ACT-2: a sum rolled while no check waits says so; the hit check's line rolled
    when `report_check` holds it is used for it. Only the last KEEP rolls of a bridge are
    kept."""
    r = await start_server(tmp_path / "eng.sqlite3", ROOT / "tests" / "data" / "hidden_engagement.yaml",
                           seed="ledger-eng")
    try:
        g = await gm(r)
        b = await bridge(r, await invite(g, "bridge"))
        hero, user = {"name": "勇者"}, {"id": "u1", "name": "P1"}
        assert (await g.reply({"kind": "engagement.start"}))["type"] == "ack"
        assert (await g.reply({"kind": "engagement.phase"}))["type"] == "ack"

        idle = await delivered(b, g, "e1", chat("(1D6) ＞ 6", hero, user))
        assert idle["outcome"]["code"] == "event_ignored"
        assert idle["outcome"]["text"] == {"ja": "いま結果を待っている判定はありません",
                                           "en": "no check is waiting for a result"}
        assert idle["pc"] == {"id": "hero", "name": "勇者"} and idle["player"]["id"] == "p1"

        assert (await g.reply({"kind": "engagement.link", "a": "hero", "b": "oni"}))["type"] == "ack"
        ack = await g.reply({"kind": "engagement.melee", "combatant": "hero", "target": "oni",
                             "dp": 1, "report_check": True})
        assert ack["type"] == "ack", ack
        used = await delivered(b, g, "e2", chat("(1D6) ＞ 6", hero, user))
        assert used["outcome"] == {"used": True, "action": "engagement.roll", "rule": "ENG-ACT-2",
                                   "text": {"ja": "ENG-ACT-2 の命中判定に使いました",
                                            "en": "used for the ENG-ACT-2 hit check"}}

        for i in range(KEEP):
            await delivered(b, g, f"x{i}", chat("(1D6) ＞ 3", {"name": "誰か"}, user))
        late = await gm(r)
        await late.reply({"kind": "room.player_rolls", "mode": "refuse"})
        kept = [n["data"] for n in roll_notices(late)]
        assert len(kept) == KEEP and used["id"] not in [e["id"] for e in kept]
        assert kept[-1]["pc"] is None and kept[-1]["speaker"] == "誰か"
        for c in (g, late, b):
            await c.close()
    finally:
        await r.runner.cleanup()
