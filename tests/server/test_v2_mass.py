"""Protocol v2 for mass combat over real sockets (issue 28): acks say what happened,
prompts say what they are and whom they are about, published attack/defence are the
effective values, and a war waiting on a prompt is refused with that prompt's rule.

Outcomes are read only from acks, refusals and prompts (plus the published unit values
the client is meant to show); the GM's prompts and GM-run units' numbers never reach a
player. Scenario: tests/data/v2_mass.yaml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import ROOT, Client, Running, gm, invite, join, start_server

SCENARIO = ROOT / "tests" / "data" / "v2_mass.yaml"
HIDDEN_NUMBERS = ("613", "777")


class Seat:
    """The GM and both players on their own sockets."""

    def __init__(self, r: Running, g: Client, p1: Client, p2: Client) -> None:
        self.r, self.g, self.p1, self.p2 = r, g, p1, p2

    async def ok(self, who: Client, action: dict[str, Any]) -> dict[str, Any]:
        ack = await who.reply(action)
        assert ack["type"] == "ack", ack
        await self.settle(ack["version"])
        return ack

    async def refused(self, who: Client, action: dict[str, Any], code: str) -> dict[str, Any]:
        reply = await who.reply(action)
        assert (reply["type"], reply.get("code")) == ("reject", code), reply
        return reply

    async def answer(self, who: Client, pid: str, choice: str) -> dict[str, Any]:
        await who.send({"type": "answer", "id": f"ans-{pid}", "prompt": pid, "choice": choice})
        ack = await who.reply_to(f"ans-{pid}")
        assert ack["type"] == "ack", ack
        await self.settle(ack["version"])
        return ack

    async def settle(self, version: int) -> None:
        for c in (self.g, self.p1, self.p2):
            await c.settle(version)

    async def close(self) -> None:
        await self.r.runner.cleanup()


async def seat(tmp_path: Path) -> Seat:
    r = await start_server(tmp_path / "v2mass.sqlite3", SCENARIO, seed="v2-mass")
    g = await gm(r)
    p1 = await join(r, await invite(g, "player", "p1"))
    p2 = await join(r, await invite(g, "player", "p2"))
    return Seat(r, g, p1, p2)


def results(ack: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [x for x in ack.get("results", []) if x["kind"] == kind]


def prompts(c: Client, kind: str) -> list[dict[str, Any]]:
    return [p for p in c.state["prompts"].values() if p["kind"] == kind]


async def close_deployment(s: Seat) -> dict[str, Any]:
    """Everyone of the kingdom in the back row: the GM closes deployment (MASS-T-1)."""
    await s.ok(s.g, {"kind": "mass.next_step", "expect": "preparation"})
    for who, unit in ((s.p1, "a1"), (s.p1, "a2"), (s.p2, "a3")):
        ack = await s.ok(who, {"kind": "mass.deploy", "unit": unit, "row": "back"})
        assert results(ack, "mass.deploy") == [
            {"kind": "mass.deploy", "unit": unit, "row": "back", "odd": None}]
    return await s.ok(s.g, {"kind": "mass.next_step", "expect": "deployment"})


async def to_battle(s: Seat) -> None:
    """Rebalance a1 and a3 forward, a1's odd point to attack, a2's to defence; tactics."""
    await close_deployment(s)
    await s.answer(s.p1, prompts(s.p1, "mass.rebalance")[0]["id"], "a1")
    await s.answer(s.p2, prompts(s.p2, "mass.rebalance")[0]["id"], "a3")
    for p in prompts(s.p1, "mass.odd_point"):
        await s.answer(s.p1, p["id"], "attack" if p["about"]["unit"] == "a1" else "defence")
    ack = await s.ok(s.g, {"kind": "mass.next_step", "expect": "tactics"})
    assert {"kind": "mass.step", "turn": 1, "step": "battle"} in ack["results"], ack


async def test_rebalance_and_odd_points_say_what_they_are(tmp_path: Path) -> None:
    """MASS-T-1: the rebalance waits with rule MASS-T-1 (not a bare prompt_pending); each
    of p1's two odd-strength units has its own `mass.odd_point` prompt, told apart by
    `about.unit`; their halves are published at once, marked split_pending until answered."""
    s = await seat(tmp_path)
    try:
        closed = await close_deployment(s)
        waits = results(closed, "mass.awaits")
        assert sorted(w["to"] for w in waits) == ["player:p1", "player:p2"], waits
        assert {w["prompt_kind"] for w in waits} == {"mass.rebalance"}
        assert all(w["about"] == {"side": "kingdom"} for w in waits)
        mine = prompts(s.p1, "mass.rebalance")
        assert [p["about"] for p in mine] == [{"side": "kingdom"}]
        # A player acting while the front is short is told the rule and whose question it is.
        wait = await s.refused(s.p1, {"kind": "mass.deploy", "unit": "a1", "row": "front"},
                               "rebalance_pending")
        assert wait["rule"] == "MASS-T-1" and wait["details"]["prompt"] == mine[0]["id"]
        assert "王国軍" in wait["reason"]["ja"] and "front ≥ back" in wait["reason"]["en"]
        await s.answer(s.p1, mine[0]["id"], "a1")
        settled = await s.answer(s.p2, prompts(s.p2, "mass.rebalance")[0]["id"], "a3")
        # The halves: a3 (8) final; a1 (11) and a2 (9) rounded down, pending their odd point.
        split = {x["unit"]: x for x in results(settled, "mass.split")}
        assert split["a3"] == {"kind": "mass.split", "unit": "a3", "attack": 4, "defence": 4,
                               "split_pending": False}
        assert (split["a1"]["attack"], split["a1"]["defence"], split["a1"]["split_pending"]) \
            == (5, 5, True)
        assert split["a2"]["split_pending"] is True
        assert not results(settled, "mass.awaits")  # p1's questions are not p2's to see
        units = s.p1.state["mass"]["units"]
        assert (units["a1"]["attack"], units["a1"]["defence"], units["a1"]["split_pending"]) \
            == (5, 5, True)
        odd = prompts(s.p1, "mass.odd_point")
        assert sorted(p["about"]["unit"] for p in odd) == ["a1", "a2"]
        assert all(p["about"]["side"] == "kingdom" for p in odd)
        assert prompts(s.p2, "mass.odd_point") == []
        wait = await s.refused(s.p2, {"kind": "mass.strategy", "unit": "a3",
                                      "strategy": "全軍退却"}, "odd_point_pending")
        assert wait["rule"] == "MASS-T-1" and "prompt" not in wait.get("details", {})
        assert "甲隊" not in wait["reason"]["ja"]  # not p2's question: named for no one
        by_unit = {p["about"]["unit"]: p["id"] for p in odd}
        first = await s.answer(s.p1, by_unit["a1"], "attack")
        assert results(first, "mass.split") == [
            {"kind": "mass.split", "unit": "a1", "attack": 6, "defence": 5,
             "split_pending": False}]
        assert [w["about"] for w in results(first, "mass.awaits")] == [
            {"unit": "a2", "side": "kingdom"}]
        last = await s.answer(s.p1, by_unit["a2"], "defence")
        assert {"kind": "mass.step", "turn": 1, "step": "tactics"} in last["results"]
        assert not results(last, "mass.awaits")
        assert s.p1.state["mass"]["units"]["a2"]["defence"] == 5
    finally:
        await s.close()


async def test_published_attack_and_defence_are_effective(tmp_path: Path) -> None:
    """MASS-STRAT-1 / MASS-T-3: published attack and defence hold the turn's changes (a GM
    adjustment, a defend's +1D6) and never go below 0; the formation's values stay under
    attack_base / defence_base."""
    s = await seat(tmp_path)
    try:
        await to_battle(s)
        await s.ok(s.g, {"kind": "mass.adjust", "unit": "a1", "attack": 2, "note": "士気"})
        await s.ok(s.g, {"kind": "mass.adjust", "unit": "b2", "defence": -99, "note": "混乱"})
        units = s.p1.state["mass"]["units"]
        assert (units["a1"]["attack"], units["a1"]["attack_base"]) == (8, 6)
        assert (units["b2"]["defence"], units["b2"]["defence_base"]) == (0, 5)
        defended = await s.ok(s.p1, {"kind": "mass.defend", "unit": "a1"})
        [d] = results(defended, "mass.defend")
        assert 1 <= d["die"] <= 6 and d["defence"] == 5 + d["die"]
        assert s.p2.state["mass"]["units"]["a1"]["defence"] == d["defence"]
    finally:
        await s.close()


async def test_an_attack_tells_its_dice_and_waits_without_naming_the_gms_prompts(
        tmp_path: Path) -> None:
    """MASS-DMG-1 / MASS-DMG-2: p1's attack ack names the attack and its bonus but not the
    GM's reaction prompt; p2 is refused with reaction_pending (MASS-DMG-1) naming nothing;
    the GM's closing answer carries the die, attack − defence and damage; the LP prompt
    says whom it is about, p1 is refused with lp_pending (MASS-DMG-2), and p2's answer
    carries the LP split. No GM-run unit's hidden numbers reach a player."""
    s = await seat(tmp_path)
    try:
        await to_battle(s)
        attack = await s.ok(s.p1, {"kind": "mass.attack", "unit": "a1", "target": "b1"})
        [declared] = results(attack, "mass.attack")
        assert declared["bonus"] is True and (declared["attacker"], declared["target"]) == (
            "a1", "b1")
        assert attack["created"] == [{"what": "attack", "id": declared["attack"]}], attack
        assert not results(attack, "mass.awaits")  # the GM's question is not p1's to see
        wait = await s.refused(s.p2, {"kind": "mass.defend", "unit": "a3"}, "reaction_pending")
        assert wait["rule"] == "MASS-DMG-1" and "prompt" not in wait.get("details", {})
        gm_prompts: set[str] = set()
        resolved: list[dict[str, Any]] = []
        while s.g.state["prompts"]:
            [(pid, prompt)] = s.g.state["prompts"].items()
            assert prompt["kind"] == "mass.reaction" and prompt["to"] == "gm"
            assert prompt["about"] == {"attack": declared["attack"], "attacker": "a1",
                                       "target": "b1"}
            gm_prompts.add(pid)
            resolved += results(await s.answer(s.g, pid, "pass"), "mass.attack.resolved")
        [hit] = resolved
        assert 1 <= hit["die"] <= 6 and hit["attack_value"] == 6 + hit["die"]
        assert hit["defence_value"] == 6
        assert hit["damage"] == max(hit["attack_value"] - hit["defence_value"], 1)
        # b1 hits a3 (p2, LP 5): the LP question goes to p2, about a3 and from b1.
        gm_attack = await s.ok(s.g, {"kind": "mass.attack", "unit": "b1", "target": "a3"})
        assert results(gm_attack, "mass.attack.resolved")
        [lp] = prompts(s.p2, "mass.lp")
        assert lp["about"] == {"unit": "a3", "side": "kingdom", "from": "b1"}
        assert [w["prompt"] for w in results(gm_attack, "mass.awaits")] == [lp["id"]]
        wait = await s.refused(s.p1, {"kind": "mass.defend", "unit": "a2"}, "lp_pending")
        assert wait["rule"] == "MASS-DMG-2" and "prompt" not in wait.get("details", {})
        own = await s.refused(s.p2, {"kind": "mass.strategy", "unit": "a3",
                                     "strategy": "全軍退却"}, "lp_pending")
        assert own["details"]["prompt"] == lp["id"] and "丙隊" in own["reason"]["ja"]
        taken = await s.answer(s.p2, lp["id"], "1")
        [split] = results(taken, "mass.lp")
        assert (split["unit"], split["on_lp"], split["lp"]) == ("a3", 1, 4)
        assert split["strength"] == 8 - split["on_strength"]
        # Nothing a player received names the GM's prompts or its units' hidden numbers.
        for player in (s.p1, s.p2):
            text = "\n".join(player.raw)
            assert not [pid for pid in gm_prompts if f'"{pid}"' in text], gm_prompts
            assert not [n for n in HIDDEN_NUMBERS if n in text]
            assert "strategies" not in player.state["mass"]["units"]["b1"]
    finally:
        await s.close()
