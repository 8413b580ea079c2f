"""Engagement refusals keep hidden data from non-GMs (issue 13 finding 2, ENG-*), over real
sockets: a player drives every refusal an engagement declaration can get while a hidden
enemy, enemies' data and GM-only counters exist; nothing any non-GM received names
them, and every engagement refusal code is reached from a non-GM or is GM-only."""

from __future__ import annotations

from pathlib import Path

from test_hidden_leaks import Table, same_but_for

from conftest import EXAMPLES, ROOT, start_server
from komasync.engine.engagement import refusals
from komasync.engine.engagement.refusals import CODES
from komasync.engine.errors import Code
from komasync.engine.room import PlayerInfo
from komasync.engine.scenario import load_scenario_file

HIDDEN_ENG = ROOT / "tests" / "data" / "hidden_engagement.yaml"

#: Engagement codes only a GM action can meet, and why.
GM_ONLY = {
    "already_active": "engagement.start is GM-only",
    "wrong_phase": "engagement.phase is GM-only",
    "nothing_open": "engagement.cancel is GM-only",
    "exists": "engagement.combatant.add is GM-only",
    "unknown_piece": "engagement.combatant.add is GM-only",
}


def engagement_codes() -> set[str]:
    """Every refusal code engine/engagement can give: its declared group and the shared
    declarations its refusals module names (refusals.py)."""
    shared = [getattr(refusals, name) for name in refusals.__all__]
    return {code.code for code in CODES} | {c.code for c in shared if isinstance(c, Code)}


def one(*faces: int) -> str:
    if len(faces) == 1:
        return f"(1D6) ＞ {faces[0]}"
    return f"({len(faces)}D6) ＞ {sum(faces)}[{','.join(map(str, faces))}] ＞ {sum(faces)}"


async def engagement_probes(t: Table) -> None:
    """Every refusal of an engagement declaration, from the player and the table."""
    g, p1, observer = t.gm, t.p1, t.observer
    hero = {"kind": "engagement.approach", "combatant": "hero", "target": "oni", "dp": 2}
    await p1.refused(hero, "not_active")
    await observer.refused(hero, "forbidden_role")
    await g.ok({"kind": "engagement.start"})
    await p1.refused(hero, "not_main_phase")
    await p1.refused({**hero, "combatant": "oni", "target": "hero"}, "not_your_character")
    nobody = await p1.refused({**hero, "target": "nobody"}, "unknown_character")
    ninja = await p1.refused({**hero, "target": "ninja"}, "unknown_character")
    assert same_but_for(ninja, nobody, "ninja", "nobody"), (ninja, nobody)
    melee = {"kind": "engagement.melee", "combatant": "hero", "target": "oni", "dp": 1}
    await p1.refused(melee, "not_engaged_setup")
    await g.ok({"kind": "engagement.phase"})
    await p1.refused(melee, "not_engaged")
    await p1.refused({"kind": "engagement.link", "a": "hero", "b": "oni", "engaged": False},
                     "not_linked")
    await p1.refused({"kind": "engagement.link", "a": "oni", "b": "goblin"}, "not_your_ability")
    await p1.refused({**hero, "target": "hero"}, "self")
    await p1.refused({**hero, "combatant": "squire"}, "no_melee_skill")
    await p1.refused({**hero, "combatant": "scout"}, "row")
    await p1.refused({**hero, "dp": 30}, "no_dp")
    await p1.refused({**hero, "result": one(6, 6)}, "player_rolls_refused")
    await g.ok({"kind": "room.player_rolls", "mode": "allow"})
    await p1.refused({**hero, "result": "よくわからない"}, "bad_result")
    await p1.refused({**hero, "result": one(6, 6, 6)}, "dice_count")
    await p1.refused({**hero, "result": "(2D10) ＞ 12[6,6] ＞ 12"}, "dice_sides")
    await p1.refused({**hero, "result": "(2D6+9) ＞ 7[3,4]+9 ＞ 16"}, "result_inconsistent")
    defend = {"kind": "engagement.defend", "combatant": "hero", "defence": "none"}
    await p1.refused(defend, "nothing_to_answer")
    roll = {"kind": "engagement.roll", "combatant": "hero", "result": one(3)}
    await p1.refused(roll, "no_check_waiting")

    # an approach on 従者 that 勇者 could cover: no evasion, no guard (ENG-ACT-1)
    await g.ok({"kind": "engagement.approach", "combatant": "goblin", "target": "squire", "dp": 3,
                "result": one(6, 6, 6)})
    await p1.refused({**defend, "combatant": "squire", "defence": "evade"}, "approach_no_defence")
    await g.ok({**defend, "combatant": "squire"})
    await g.ok({"kind": "engagement.link", "a": "hero", "b": "oni"})
    await p1.refused({**hero, "target": "goblin"}, "already_engaged")
    await p1.refused({**melee, "grazes": 5}, "few_grazes")
    await p1.refused({**melee, "combatant": "squire", "target": "goblin", "grazes": 1},
                     "no_weapon_training")

    # the oni's melee on 勇者: who may answer, and how (ENG-GUARD, ENG-COVER)
    await g.ok({"kind": "engagement.melee", "combatant": "oni", "target": "hero", "dp": 1,
                "result": one(1)})
    await p1.refused({**defend, "combatant": "squire", "defence": "evade"}, "only_target_evades")
    await p1.refused({**defend, "combatant": "squire"}, "not_the_target")
    await p1.refused({**defend, "combatant": "squire", "defence": "guard"}, "guard_no_skill")
    await p1.refused({**defend, "combatant": "scout", "defence": "cover"}, "cover_not_front")
    await p1.refused({**defend, "combatant": "scout", "defence": "guard"}, "guard_not_front")
    await p1.refused({**defend, "combatant": "squire", "defence": "cover"}, "cover_engaged")
    await p1.refused({**defend, "defence": "cover"}, "cover_self")
    await p1.refused({**defend, "combatant": "priest", "defence": "cover"}, "cover_incapacitated")
    await p1.refused({**defend, "combatant": "priest", "defence": "guard"}, "guard_incapacitated")
    await p1.refused(roll, "no_check_waiting")
    await p1.refused({**hero, "combatant": "scout"}, "exchange_open")
    await p1.ok(defend)
    shot = {"kind": "engagement.shot", "combatant": "goblin", "target": "hero", "check": 0,
            "dice": 0, "power": 0}
    await g.ok(shot)
    await p1.ok({**defend, "defence": "guard"})
    await g.ok(shot)
    await p1.refused({**defend, "defence": "guard"}, "guard_used")
    await p1.ok(defend)
    await g.ok({**shot, "dice": 1, "report_check": True})
    await p1.refused(roll, "not_awaited")
    await g.ok({"kind": "engagement.cancel"})

    # an attack by the hidden enemy: the table is told nothing about it
    await g.ok({**shot, "combatant": "ninja", "target": "goblin", "dice": 1, "report_check": True})
    # it takes no turn in the scene: 斥候 is judged as if nothing were open (issue 26)
    await p1.refused({**hero, "combatant": "scout"}, "row")
    await p1.refused(defend, "nothing_to_answer")
    await p1.refused(roll, "no_check_waiting")
    await g.ok({"kind": "engagement.cancel"})

    # ENG-HAND-1: the oni leaves 勇者 when the goblin engages him; 従者 is asked and stays
    await g.ok({"kind": "engagement.link", "a": "goblin", "b": "hero"})
    for pid, prompt in dict(g.client.state["prompts"]).items():
        await (g if prompt["to"] == "gm" else p1).ok(
            {"kind": "answer", "prompt": pid, "choice": "leave" if prompt["to"] == "gm" else "stay"})
    await g.ok({"kind": "engagement.phase"})
    await g.ok({"kind": "engagement.phase"})  # turn 2, setup
    await p1.refused(melee, "left")
    await g.ok({"kind": "engagement.link", "a": "scout", "b": "oni"})
    await p1.refused({**melee, "combatant": "scout"}, "engaged_this_turn")
    await p1.ok({**melee, "target": "goblin", "result": one(6)})
    await g.ok({**defend, "combatant": "goblin"})
    await p1.refused({**melee, "target": "goblin"}, "setup_melee_used")
    await g.ok({"kind": "engagement.phase"})  # turn 2, main: turn 1's engagements end

    # the once-per-turn limits of guard and cover
    await g.ok({"kind": "engagement.link", "a": "scout", "b": "oni", "engaged": False})
    await p1.ok({"kind": "engagement.row", "combatant": "scout", "row": "front"})
    squire = {**shot, "target": "squire"}
    await g.ok({**squire, "check": 50})
    await p1.ok({**defend, "defence": "cover"})  # 勇者 covers 従者 and fails
    await p1.refused({**defend, "combatant": "scout", "defence": "cover"}, "cover_tried")
    await p1.ok({**defend, "combatant": "squire"})
    await g.ok(squire)
    await p1.refused({**defend, "defence": "cover"}, "cover_used")
    await p1.refused({**defend, "defence": "guard"}, "covered_this_turn")
    await p1.ok({**defend, "combatant": "scout", "defence": "guard"})
    await g.ok(squire)
    await p1.refused({**defend, "combatant": "scout", "defence": "cover"}, "guarded_this_turn")
    await p1.ok({**defend, "combatant": "squire"})
    await p1.ok({**shot, "combatant": "hero", "target": "goblin"})
    await p1.refused({**defend, "defence": "cover"}, "cover_attacker")
    await p1.refused({**defend, "defence": "guard"}, "guard_attacker")
    await g.ok({**defend, "combatant": "goblin"})
    await g.ok({**shot, "combatant": "oni", "target": "goblin"})
    await p1.refused({**defend, "defence": "cover"}, "cover_not_an_ally")
    await p1.refused({**defend, "defence": "guard"}, "guard_not_an_ally")
    await g.ok({"kind": "engagement.cancel"})

    # a guard and a cover for another take a melee over: the target leaves (ENG-GUARD, ENG-COVER)
    await g.ok({"kind": "engagement.link", "a": "hero", "b": "goblin"})
    await p1.ok({**melee, "target": "goblin", "result": one(1)})
    await g.ok({**defend, "combatant": "oni", "defence": "guard"})
    await p1.refused({**melee, "target": "goblin"}, "left_by_guard")
    await p1.ok({**melee, "result": one(1)})  # 勇者 → 赤鬼, engaged by the guard
    await g.ok({**defend, "combatant": "goblin", "defence": "cover", "dp": 3,
                "result": one(6, 6, 6)})
    await p1.refused(melee, "left_by_cover")
    await g.ok({"kind": "engagement.link", "a": "hero", "b": "oni"})
    for pid in [p for p, q in g.client.state["prompts"].items() if q["to"] == "gm"]:
        await g.ok({"kind": "answer", "prompt": pid, "choice": "stay"})  # 小鬼 stays with 勇者
    await g.ok(squire)
    await p1.refused({**defend, "defence": "guard"}, "guard_engaged")
    await g.ok({"kind": "engagement.cancel"})
    await g.ok({"kind": "engagement.phase"})  # cleanup
    await p1.refused(melee, "not_now")


async def test_engagement_refusals_keep_hidden_data_from_non_gms(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "eng.sqlite3", HIDDEN_ENG, seed="leaks-eng")
    plain_table = load_scenario_file(EXAMPLES / "demo_table.yaml")
    plain_table.players.append(PlayerInfo(id="p1", name="P1"))  # invites name real players
    await r.server.create_room(plain_table, secret=r.secret, room_id="plain", seed="plain")
    table = await Table.seat(r, r.room)
    try:
        await engagement_probes(table)
        await table.check_nothing_leaked(r)
        notices = await table.refusal_notices()
        # a room without engagement says so
        plain = await Table.seat(r, "plain")
        await plain.p1.refused({"kind": "engagement.row", "combatant": "x", "row": "back"},
                               "no_engagement")
        notices += await plain.refusal_notices()
        await plain.close()
        covered = {n["data"]["code"] for n in notices}
        missing = engagement_codes() - covered - set(GM_ONLY)
        assert not missing, f"engagement refusals no test drives from a non-GM: {sorted(missing)}"
        assert not covered & set(GM_ONLY), sorted(covered & set(GM_ONLY))
        assert set(GM_ONLY) <= engagement_codes()
    finally:
        await table.close()
        await r.runner.cleanup()

