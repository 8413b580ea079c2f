"""Protocol v2 for engagement (issue 28, seed 004), over real sockets: every outcome is read
from acks (their `results` and `created`), prompts and rejects — never from log text or by
diffing state. Covers ENG-ACT-1 / ENG-COVER (an approach an ally could cover waits for
`cover`, from whom, the target deciding), ENG-ACT-2 (the hit check's and the damage's
reported lines are separate options and separate waits, each with its dice pool),
ENG-HAND-1 (the handover prompt's kind and about), declared refusal codes with their
rules (ENG-COVER, ENG-GUARD, ENG-ACT-1, ENG-DP, ENG-EF-1/2) and a hidden character a
player is never told of."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, Client, Running, gm, invite, join, start_server
from komasync.engine.engagement.refusals import CODES

SCENARIO = ROOT / "tests" / "data" / "hidden_engagement.yaml"


def line(*faces: int) -> str:
    """A BCDice sum of `faces` (d6), the dice alone."""
    if len(faces) == 1:
        return f"(1D6) ＞ {faces[0]}"
    return f"({len(faces)}D6) ＞ {sum(faces)}[{','.join(map(str, faces))}] ＞ {sum(faces)}"


@pytest.fixture
async def eng_room(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "v2eng.sqlite3", SCENARIO, seed="v2-eng")
    yield r
    await r.runner.cleanup()


async def ok(c: Client, action: dict[str, Any]) -> dict[str, Any]:
    reply = await c.reply(action)
    assert reply["type"] == "ack", (action, reply)
    return reply


def result(ack: dict[str, Any], kind: str) -> dict[str, Any]:
    """The one result of `kind` in an ack."""
    found = [r for r in ack.get("results", []) if r["kind"] == kind]
    assert len(found) == 1, (kind, ack)
    return found[0]


def checks(ack: dict[str, Any]) -> list[dict[str, Any]]:
    """The ack's check pools, without their kind and exchange."""
    return [{k: v for k, v in r.items() if k not in ("kind", "exchange")}
            for r in ack.get("results", []) if r["kind"] == "engagement.check"]


async def seated(r: Running) -> tuple[Client, Client]:
    g = await gm(r)
    p1 = await join(r, await invite(g, "player", "p1"))
    await ok(g, {"kind": "room.player_rolls", "mode": "allow"})
    await ok(g, {"kind": "engagement.start"})
    return g, p1


async def test_v2_eng_act_1_cover_an_approach_waits_for_says_who_may_cover_and_who_decides(
        eng_room: Running) -> None:
    """ENG-ACT-1 / ENG-COVER: the goblin's approach on 従者 reaches its target number while
    勇者 could cover: the ack says the exchange waits for a `cover` from 勇者 (p1's), 従者
    deciding; 従者's `none` closes it, engaging the goblin and 従者."""
    g, p1 = await seated(eng_room)
    turn = result(await ok(g, {"kind": "engagement.phase"}), "engagement.turn")
    assert turn == {"kind": "engagement.turn", "turn": 1, "phase": "main"}
    ack = await ok(g, {"kind": "engagement.approach", "combatant": "goblin", "target": "squire",
                       "dp": 3, "result": line(6, 6, 6)})
    step = result(ack, "engagement.exchange")
    assert step["stage"] == "cover" and step["attack"] == "approach"
    assert step["awaiting"] == {"what": "cover", "who": ["hero"], "decides": "squire",
                                "players": ["p1"], "by_gm": False}
    # the check's dice pool: {身体}2+〈回避〉2, three d6, read from the line (the GM's data)
    assert checks(ack) == [{"who": "goblin", "purpose": "approach", "base": 4, "dice": 3,
                            "sides": 6, "total": 22}]
    assert "goal" not in json.dumps(ack)  # the target number is the GM's data, not a result
    # 従者's player lets it come: closed, engaged
    ack = await ok(p1, {"kind": "engagement.defend", "combatant": "squire", "defence": "none"})
    step = result(ack, "engagement.exchange")
    assert (step["stage"], step["outcome"], step["awaiting"]) == ("closed", "engaged", None)
    pair = result(ack, "engagement.pair")
    assert (pair["pair"], pair["engaged"], pair["how"]) == ("goblin|squire", True, "approach")
    await g.close()
    await p1.close()


async def test_v2_eng_act_2_the_hit_checks_and_the_damages_reported_lines_are_separate_waits(
        eng_room: Running) -> None:
    """ENG-ACT-2: `report_check` holds the hit check alone (the damage is then rolled by
    komasync); `report_damage` holds the damage alone (the check read from `result`). Each
    ack says what is awaited from whom, with the dice pool."""
    g, p1 = await seated(eng_room)
    await ok(g, {"kind": "engagement.phase"})
    await ok(g, {"kind": "engagement.link", "a": "hero", "b": "oni"})
    melee = {"kind": "engagement.melee", "combatant": "hero", "target": "oni", "dp": 1}

    # the hit check waits; its line comes; the oni takes it; the damage is rolled at once
    ack = await ok(p1, {**melee, "report_check": True})
    step = result(ack, "engagement.exchange")
    assert step["stage"] == "attack"
    assert step["awaiting"] == {"what": "attack_check", "who": ["hero"], "decides": None,
                                "players": ["p1"], "by_gm": False}
    assert checks(ack) == [{"who": "hero", "purpose": "melee", "base": 5, "dice": 1,
                            "sides": 6, "total": None}]  # {身体}3+〈近接戦闘〉2, DP 1 → 1 die
    ack = await ok(p1, {"kind": "engagement.roll", "combatant": "hero", "result": line(6)})
    step = result(ack, "engagement.exchange")
    assert checks(ack)[-1]["total"] == 11 and step["stage"] == "defence"
    awaiting = step["awaiting"]
    assert awaiting["what"] == "defence" and awaiting["decides"] == "oni"
    assert awaiting["who"][0] == "oni" and awaiting["by_gm"] is True and awaiting["players"] == []
    ack = await ok(g, {"kind": "engagement.defend", "combatant": "oni", "defence": "none"})
    step = result(ack, "engagement.exchange")
    assert (step["stage"], step["outcome"], step["victim"]) == ("closed", "hit", "oni")
    rolled = checks(ack)[-1]
    assert rolled["purpose"] == "damage" and rolled["total"] is not None  # not held
    assert step["damage"] == rolled["total"]

    # the check read from its line; only the damage waits for one
    ack = await ok(p1, {**melee, "result": line(6), "report_damage": True})
    step = result(ack, "engagement.exchange")
    assert step["stage"] == "defence" and checks(ack)[0]["total"] == 11
    ack = await ok(g, {"kind": "engagement.defend", "combatant": "oni", "defence": "none"})
    step = result(ack, "engagement.exchange")
    assert step["stage"] == "damage"
    assert step["awaiting"] == {"what": "damage", "who": ["hero"], "decides": None,
                                "players": ["p1"], "by_gm": False}
    # {身体}3 + ([近接武器鍛錬]1)D + 〈近接戦闘〉2, no grazes
    assert checks(ack) == [{"who": "hero", "purpose": "damage", "base": 5, "dice": 1,
                            "sides": 6, "total": None}]
    step = result(await ok(p1, {"kind": "engagement.roll", "combatant": "hero",
                                "result": line(4)}), "engagement.exchange")
    assert (step["stage"], step["outcome"], step["victim"], step["damage"]) == (
        "closed", "hit", "oni", 9)
    await g.close()
    await p1.close()


async def test_v2_eng_hand_1_the_handover_prompt_says_who_leaves_whom(eng_room: Running) -> None:
    """ENG-HAND-1: 従者 and 赤鬼 become engaged while 勇者 (従者's ally) is engaged with 赤鬼:
    p1 is asked, by a prompt of kind `engagement.handover` about {leaving: hero, from: oni,
    joining: squire}; the GM's ack names the prompt it created; leaving ends the pair."""
    g, p1 = await seated(eng_room)
    await ok(g, {"kind": "engagement.link", "a": "hero", "b": "oni"})
    ack = await ok(g, {"kind": "engagement.link", "a": "squire", "b": "oni"})
    asked = await p1.expect("prompt")
    prompt = asked["prompt"]
    assert prompt["kind"] == "engagement.handover"
    assert prompt["about"] == {"leaving": "hero", "from": "oni", "joining": "squire"}
    assert {"what": "prompt", "id": prompt["id"]} in ack["created"]
    assert [c["id"] for c in prompt["choices"]] == ["leave", "stay"]
    ack = await ok(p1, {"kind": "answer", "prompt": prompt["id"], "choice": "leave"})
    pair = result(ack, "engagement.pair")
    assert pair == {"kind": "engagement.pair", "pair": "hero|oni", "a": "hero", "b": "oni",
                    "engaged": False, "how": None, "why": "left", "leaver": "hero"}
    await g.close()
    await p1.close()


async def test_v2_eng_refusal_codes_are_the_declared_ones_with_their_rules(
        eng_room: Running) -> None:
    """Declared codes (engine/engagement/refusals.py) reach a player with the rule of their
    declaration: the same limit under ENG-COVER and ENG-GUARD is two codes (cover_not_front,
    guard_not_front), ENG-COVER's cover_engaged, ENG-ACT-1's already_engaged, ENG-DP's
    no_dp, ENG-EF-2's not_engaged_setup and ENG-EF-1's not_engaged."""
    g, p1 = await seated(eng_room)
    seen: dict[str, str | None] = {}

    async def refused(action: dict[str, Any], code: str) -> None:
        reply = await p1.reply(action)
        assert reply["type"] == "reject" and reply["code"] == code, (action, reply)
        assert reply["reason"]["ja"] and reply["reason"]["en"]
        seen[code] = reply["rule"]

    melee = {"kind": "engagement.melee", "combatant": "hero", "target": "oni", "dp": 1}
    await refused(melee, "not_engaged_setup")
    await ok(g, {"kind": "engagement.phase"})
    await refused(melee, "not_engaged")
    await ok(g, {"kind": "engagement.link", "a": "squire", "b": "goblin"})
    await ok(g, {"kind": "engagement.shot", "combatant": "oni", "target": "hero", "check": 0,
                 "dice": 0, "power": 0})
    defend = {"kind": "engagement.defend", "combatant": "scout"}
    await refused({**defend, "defence": "cover"}, "cover_not_front")
    await refused({**defend, "defence": "guard"}, "guard_not_front")
    await refused({**defend, "combatant": "squire", "defence": "cover"}, "cover_engaged")
    await ok(p1, {"kind": "engagement.defend", "combatant": "hero", "defence": "none"})
    await refused({"kind": "engagement.approach", "combatant": "squire", "target": "oni",
                   "dp": 0}, "no_melee_skill")
    await ok(g, {"kind": "engagement.link", "a": "hero", "b": "goblin"})
    await refused({"kind": "engagement.approach", "combatant": "hero", "target": "oni",
                   "dp": 1}, "already_engaged")
    await refused({"kind": "engagement.shot", "combatant": "hero", "target": "goblin",
                   "check": 0, "dice": 0, "dp": 30, "power": 0}, "no_dp")  # 20 DP left
    assert seen == {c: CODES[c].rule for c in seen}
    assert seen == {"not_engaged_setup": "ENG-EF-2", "not_engaged": "ENG-EF-1",
                    "cover_not_front": "ENG-COVER", "guard_not_front": "ENG-GUARD",
                    "cover_engaged": "ENG-COVER", "no_melee_skill": "ENG-ACT-1",
                    "already_engaged": "ENG-ACT-1", "no_dp": "ENG-DP"}
    await g.close()
    await p1.close()


async def test_v2_eng_a_player_is_not_told_of_a_hidden_combatant(eng_room: Running) -> None:
    """A hidden character (忍びの影) engaged with 勇者: when p1's ability engages 勇者 and 赤鬼,
    the GM is asked whether 忍びの影 leaves (ENG-HAND-1) — p1's ack tells of the new pair
    alone, not the GM's prompt, and names no hidden id; the GM's prompt does. A hidden
    attack's results reach only the GM."""
    g, p1 = await seated(eng_room)
    ack = await ok(g, {"kind": "engagement.link", "a": "hero", "b": "ninja"})
    assert result(ack, "engagement.pair")["pair"] == "hero|ninja"  # the GM is told
    ack = await ok(p1, {"kind": "engagement.link", "a": "hero", "b": "oni", "note": "縮地"})
    assert [r["kind"] for r in ack["results"]] == ["engagement.pair"]
    assert result(ack, "engagement.pair")["pair"] == "hero|oni"
    assert "created" not in ack and "ninja" not in json.dumps(ack)
    asked = await g.expect("prompt")
    assert asked["prompt"]["kind"] == "engagement.handover"
    assert asked["prompt"]["about"] == {"leaving": "ninja", "from": "hero", "joining": "oni"}
    await ok(g, {"kind": "answer", "prompt": asked["prompt"]["id"], "choice": "stay"})
    # the hidden enemy's shot: the GM's ack carries it; p1 meets only what it would without it
    await ok(g, {"kind": "engagement.phase"})
    ack = await ok(g, {"kind": "engagement.shot", "combatant": "ninja", "target": "goblin",
                       "check": 0, "dice": 1, "power": 0, "report_check": True})
    step = result(ack, "engagement.exchange")
    assert step["exchange"].startswith("hx") and step["awaiting"]["what"] == "attack_check"
    reply = await p1.reply({"kind": "engagement.roll", "combatant": "hero", "result": line(3)})
    assert reply["type"] == "reject" and reply["code"] == "no_check_waiting", reply
    await g.close()
    await p1.close()
