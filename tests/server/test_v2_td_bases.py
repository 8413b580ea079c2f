"""Protocol v2 for tower defense and base battles, over real sockets: what happened is read
only from acks (`created`, `results`) and prompts (`kind`, `about`), never from log text
or by diffing the state; a hidden thing is never told to a player there (BASE-OPT-2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import EXAMPLES, ROOT, Client, gm, invite, join, start_server

HIDDEN_TD = ROOT / "tests" / "data" / "hidden_td.yaml"
#: A hidden enemy base (its GP hidden too, BASE-OPT-2) whose GP change condition waits
#: for the PCs abandoning a timing, added to the example base battle.
SHADOW = """
    - id: shadow
      name: 影の祭壇
      side: enemy
      gp: 7
      hidden: true
      gp_conditions:
        - condition: 敵が発動タイミングを放棄した時
          delta: 2
"""


async def ok(c: Client, action: dict[str, Any]) -> dict[str, Any]:
    """Send `action`, expect its ack, and follow the state up to it."""
    ack = await c.reply(action)
    assert ack["type"] == "ack", ack
    await c.settle(ack["version"])
    return ack


async def answer(c: Client, prompt: str, choice: str) -> dict[str, Any]:
    await c.send({"type": "answer", "id": f"ans-{prompt}", "prompt": prompt, "choice": choice})
    ack = await c.reply_to(f"ans-{prompt}")
    assert ack["type"] == "ack", ack
    await c.settle(ack["version"])
    return ack


def results(ack: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [r for r in ack.get("results", []) if r["kind"] == kind]


def created(ack: dict[str, Any], what: str) -> list[str]:
    return [c["id"] for c in ack.get("created", []) if c["what"] == what]


async def test_td_acks_tell_moves_phases_checks_and_the_group_left(tmp_path: Path) -> None:
    """TD-PRE-1 a placed PC's fort and cell; TD-RND the phase entered, the groups made
    (TD-REIN-1) and the GM's SAN prompt (kind td.san, about the round and the group);
    TD-ATK-2/3 each shot's dice pool (TD-OPT-2 penalty die), removals and the 個体数 left."""
    r = await start_server(tmp_path / "td.sqlite3", HIDDEN_TD, seed="v2-td")
    try:
        g = await gm(r)
        p1 = await join(r, await invite(g, "player", "p1"))
        placed = await ok(p1, {"kind": "td.pc.place", "pc": "pc1", "fort": "a"})
        assert results(placed, "td.pc.at") == [{"kind": "td.pc.at", "pc": "pc1", "fort": "a",
                                                "cell": {"x": 1, "y": 2}, "came_from": None}]
        await ok(g, {"kind": "td.pc.place", "pc": "pc2", "fort": "d"})

        rein = await ok(g, {"kind": "td.next_phase", "expect": "setup"})
        assert results(rein, "td.phase") == [{"kind": "td.phase", "round": 1,
                                              "phase": "reinforcement"}]
        groups = created(rein, "group")
        assert len(groups) == 2 and created(rein, "individual")
        [san] = created(rein, "prompt")
        prompt = g.state["prompts"][san]
        assert prompt["kind"] == "td.san"
        north = next(gid for gid in groups if "north" in gid)
        assert prompt["about"] == {"round": "1", "group": north}  # 深きもの共 calls for SAN
        await answer(g, san, "done")
        await ok(g, {"kind": "td.next_phase", "expect": "reinforcement"})
        await ok(g, {"kind": "td.next_phase", "expect": "advance"})

        shot = await ok(p1, {"kind": "td.attack", "pc": "pc1", "weapon": "pistol",
                             "group": north, "shots": 3})
        [attack] = results(shot, "td.attack")
        assert (attack["pc"], attack["weapon"], attack["group"]) == ("pc1", "pistol", north)
        assert len(attack["checks"]) == 3
        for check in attack["checks"]:
            # 凍てつく者 is on the field: one penalty die, so two values, the worse kept.
            assert check["penalty_dice"] == 1 and len(check["dice"]) == 2
            assert check["value"] == max(check["dice"]) and check["target"] == 80
            assert not check["reported"]
            want = {"critical": 3, "extreme": 2, "hard": 1, "regular": 1}.get(check["level"], 0)
            assert check["removed"] == want
        assert attack["removed"] == sum(c["removed"] for c in attack["checks"])
        assert attack["count"] == max(5 - attack["removed"], 0)
        assert attack["destroyed"] == (attack["removed"] >= 5)
        assert (attack["attacks_left"], attack["loaded"]) == (0, 4)
        # The GM's prompt was never told to the player, in an ack or otherwise.
        assert all(san not in raw and "td.san" not in raw for raw in p1.raw)
    finally:
        await r.runner.cleanup()


async def test_td_trap_ack_tells_the_check_and_the_trap_made(tmp_path: Path) -> None:
    """TD-PRE-1 / TD-OPT-1: a trap set with a check: the check, and the trap's id and cell
    when it holds (none made when it fails)."""
    r = await start_server(tmp_path / "trap.sqlite3", HIDDEN_TD, seed="v2-trap")
    try:
        g = await gm(r)
        p1 = await join(r, await invite(g, "player", "p1"))
        ack = await ok(p1, {"kind": "td.trap.set", "pc": "pc1", "passage": "n_a",
                            "trap": "snare"})
        [trap] = results(ack, "td.trap")
        assert trap["check"]["skill"] == "手さばき" and trap["check"]["target"] == 50
        laid = trap["check"]["level"] in ("critical", "extreme", "hard", "regular")
        assert created(ack, "trap") == ([trap["trap"]] if laid else [])
        assert trap["cell"] == ({"x": 1, "y": 1} if laid else None)
    finally:
        await r.runner.cleanup()


async def test_bases_acks_tell_fires_and_gp_but_never_a_hidden_gp(tmp_path: Path) -> None:
    """BASE-COND-3 an active trigger's firing (activations left, the trigger-er);
    BASE-EL-1 / BASE-GP-1 the GP changes it caused; BASE-CHOICE the players' choice
    prompt (kind bases.choose, about its base and event); BASE-OPT-2 a hidden GP is never
    in a player's ack, while the GM's ack has it."""
    scenario = tmp_path / "bases.yaml"
    scenario.write_text((EXAMPLES / "base_battle.yaml").read_text(encoding="utf-8") + SHADOW,
                        encoding="utf-8")
    r = await start_server(tmp_path / "b.sqlite3", scenario, seed="v2-bases")
    try:
        g = await gm(r)
        p1 = await join(r, await invite(g, "player", "p1"))
        start = await ok(g, {"kind": "bases.round"})
        assert results(start, "bases.round") == [{"kind": "bases.round", "round": 1}]
        assert any(f["element"] == "gate.ev1" for f in results(start, "bases.fired"))

        ack = await ok(p1, {"kind": "bases.trigger", "event": "stake.ev1", "character": "アリス",
                            "action": "発動タイミングを放棄する"})
        fired = {f["element"]: f for f in results(ack, "bases.fired")}
        assert fired["stake.ev1"] == {"kind": "bases.fired", "base": "stake",
                                      "element": "stake.ev1", "element_kind": "event",
                                      "fired": 1, "left": 2, "triggerer": "アリス"}
        assert fired["gate.gp2"]["element_kind"] == "gp"
        assert "shadow.gp1" in fired  # its firing reveals it (BASE-OPT-2) ...
        gp = {c["base"]: c for c in results(ack, "bases.gp")}
        assert gp == {"gate": {"kind": "bases.gp", "base": "gate", "old": 10, "gp": 9}}
        assert all("shadow" not in str(c) for c in results(ack, "bases.gp"))  # ... not its GP

        [choose] = created(ack, "prompt")
        prompt = p1.state["prompts"][choose]
        assert prompt["kind"] == "bases.choose"
        assert prompt["about"] == {"base": "stake", "element": "stake.ev1"}
        picked = await answer(p1, choose, "camp")
        assert results(picked, "bases.gp") == [{"kind": "bases.gp", "base": "camp", "old": 4,
                                                "gp": 6}]

        # The GM, reporting the same, is told the hidden GP (not the value before it).
        told = await ok(g, {"kind": "bases.report", "happening": "timing.abandoned",
                            "character": "ボブ"})
        assert {"kind": "bases.gp", "base": "shadow", "old": None, "gp": 11} in results(
            told, "bases.gp")
        assert all("11" not in raw for raw in p1.raw if '"ack"' in raw)
    finally:
        await r.runner.cleanup()
