"""Refusals of grid and mass combat never echo hidden data (issue 13, "what must be shown" 3).

Over real sockets: a grid room with a hidden enemy (piece, combatant, GM-only counter), an
unpublished profile, a hidden spot and an unannounced event, and a mass room whose GM-run
units' picks, uses and numbers are the GM's (mass has no hidden units: everything else in
it is on the table, so its refusals are checked to name only what non-GMs are shown). A
player, a bridge acting for that player (`by`) and as the table, and an observer drive
every refusal code of `grid`, `mass` and `combatants` a non-GM can reach; nothing any of
them receives holds a hidden name, id, condition or count.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_hidden_leaks import DRIVEN_HERE as DRIVEN_BY_LEAKS
from test_hidden_leaks import NOT_FROM_NON_GM, Peer, Table, refusal_codes, same_but_for

from conftest import EXAMPLES, ROOT, start_server
from komasync.engine.registry import SUBSYSTEMS
from komasync.engine.scenario import load_scenario_file

HIDDEN_GRID = ROOT / "tests" / "data" / "hidden_grid.yaml"
MASS_ROOM = "mass"
HIDDEN_MASS = ROOT / "tests" / "data" / "hidden_mass.yaml"
MASS_WAR_ROOM = "mass-war"
#: The registered subsystems this file drives (the combatants both build on are the core's).
DRIVEN_HERE = ("grid", "mass")


#: Codes of refused queries (a query refusal is not an action, so no GM notice names it).
QUERIED: set[str] = set()

GM_ONLY = {
    "already_active": "grid.start is GM-only", "no_surprise": "grid.start is GM-only",
    "no_piece": "grid.start is GM-only", "exists": "grid.combatant.add is GM-only",
    "piece_taken": "grid.combatant.add is GM-only",
    "not_a_range": "answering a check-range prompt is the GM's",
    "unknown_side": "mass.declare is GM-only", "stale_step": "mass.next_step is GM-only",
    "units_to_act": "mass.next_step is GM-only", "strength_missing": "mass.next_step is GM-only",
    "unit_unplaced": "mass.next_step is GM-only",
}
#: Reachable from a non-GM but not driven by this test yet (left for a follow-up; each
#: needs a fight or a war played further than these probes go).
NOT_DRIVEN_YET = {code: "reachable; needs a longer fight or war than these probes play"
                  for code in (
    "bound", "cannot_land", "choose_direction", "choose_nearest", "diagonal_costs_two",
    "flash_line", "incapacitated", "no_direction", "no_line_of_sight", "no_major_move",
    "no_reported_results", "no_step_left", "not_on_map", "no_flying_step", "not_this_step",
    "target_off_map", "not_your_round", "off_map",
    "paralysed", "path_blocked", "same_direction", "sharing_ally", "status_stuck",
    "tow_square", "waiting_hindrance", "bad_choice", "event_ignored", "no_adapter")}
#: What mass waits for, refused to a non-GM with the prompt's rule (MASS-T-1, MASS-DMG-1/2):
#: driven over sockets, names checked, in tests/server/test_v2_mass.py.
NOT_DRIVEN_YET |= {code: "driven from a player in tests/server/test_v2_mass.py"
                   for code in ("rebalance_pending", "lp_pending", "reaction_pending")}


def test_the_leak_tests_drive_every_registered_subsystem() -> None:
    """Issue 27: a subsystem in the registry that neither leak test drives fails, named."""
    registered = [s.name for s in SUBSYSTEMS]
    driven = [*DRIVEN_BY_LEAKS, *DRIVEN_HERE]
    undriven = [name for name in registered if name not in driven]
    assert not undriven, f"registered subsystems no leak test drives: {undriven}"
    assert sorted(driven) == sorted(registered), f"driven twice or not registered: {driven}"


async def query(peer: Peer, **q: Any) -> dict[str, Any]:
    reply = await peer.ask({"type": "query", "query": q})
    if "code" in reply:
        QUERIED.add(str(reply["code"]))
    return reply


async def grid_probes(t: Table) -> None:
    """Every refusal of grid combat a non-GM can reach, with a hidden enemy on the map."""
    g, p1, bridge, observer = t.gm, t.p1, t.bridge, t.observer
    start = {"kind": "grid.process.start"}
    await p1.refused({**start, "combatant": "fighter"}, "not_active")
    await observer.refused({**start, "combatant": "fighter"}, "forbidden_role")
    # By default the table (a bridge naming no one) decides nothing, hidden enemy or not.
    await g.ok({"kind": "room.uncredited", "mode": "moves"})
    for who in ("lurker", "nobody", "ghoul"):
        await bridge.refused({**start, "combatant": who}, "uncredited")
    await g.ok({"kind": "room.uncredited", "mode": "gm_side"})
    # Queries: a hidden combatant is as unknown as one that does not exist.
    missing = await query(p1, kind="grid.range", combatant="nobody", range=1)
    assert missing.get("code") == "unknown_character", missing
    for peer in (p1, bridge, observer):
        hidden = await query(peer, kind="grid.range", combatant="lurker", range=1)
        assert same_but_for(hidden, missing, "lurker", "nobody"), (hidden, missing)
    reply = await query(p1, kind="grid.range", range=1)
    assert reply.get("code") == "bad_query", reply
    await g.ok({"kind": "grid.start"})
    # The hidden enemy is unknown to every action, the same as a missing id.
    missing = await p1.refused({**start, "combatant": "nobody"}, "unknown_character")
    for who, by in ((p1, {}), (bridge, {"by": "p1"}), (bridge, {})):
        hidden = await who.refused({**start, **by, "combatant": "lurker"}, "unknown_character")
        assert same_but_for(hidden, missing, "lurker", "nobody"), (hidden, missing)
    await p1.refused({**start, "combatant": "archer"}, "not_your_character")
    await bridge.refused({**start, "combatant": "ghoul", "by": "p1"}, "not_your_character")
    move = {"kind": "grid.move", "combatant": "fighter"}
    await p1.refused({**move, "to": {"x": 1, "y": 2}}, "not_in_process")
    await p1.ok({**start, "combatant": "fighter"})
    await p1.refused({**start, "combatant": "mage"}, "process_open")
    await p1.refused({**move, "to": {"x": 1, "y": 3}}, "same_square")
    await p1.refused({**move, "to": {"x": 5, "y": 1}}, "blocked_square")
    await p1.refused({**move, "to": {"x": 6, "y": 3}}, "occupied")
    await p1.refused({**move, "to": {"x": 11, "y": 3}}, "too_far")
    act = {"kind": "grid.act", "combatant": "fighter"}
    await p1.refused({**act, "timing": "minor", "what": "cure_paralysis"}, "wrong_timing")
    await p1.refused({**act, "timing": "move", "what": "cure_paralysis"}, "no_status")
    await p1.refused({**act, "timing": "move", "what": "move_skill",
                      "to": {"x": 2, "y": 4}}, "move_skill_step")
    await p1.refused({**act, "timing": "major", "what": "teleport",
                      "to": {"x": 5, "y": 3}}, "teleport_square")
    await p1.refused({**act, "timing": "major", "what": "action", "target": {"x": 9, "y": 3},
                      "range": 2}, "out_of_range")
    await p1.refused({**act, "timing": "major", "what": "action", "target": {"x": 1, "y": 3},
                      "range": 2, "area": "area"}, "own_square_origin")
    await p1.refused({**act, "timing": "major", "what": "check", "name": "罠探知",
                      "target": {"x": 2, "y": 3}}, "ask_gm_range")
    await p1.refused({**act, "timing": "major", "what": "flash", "targets": []}, "flash_targets")
    await p1.refused({**act, "timing": "major", "what": "flash", "targets": ["archer"]},
                     "flash_not_enemy")
    await p1.refused({"kind": "grid.geocentric", "user": "fighter", "targets": ["ghoul"]},
                     "rule_off")
    await p1.refused({"kind": "grid.force_move", "user": "fighter", "target": "ghoul",
                      "to": {"x": 9, "y": 3}}, "not_adjacent")
    await p1.refused({"kind": "grid.force_move", "target": "ghoul", "to": {"x": 7, "y": 3}},
                     "need_user")
    await p1.refused({"kind": "grid.cover", "user": "fighter", "target": "ghoul2"},
                     "cover_out_of_range")
    await p1.ok({**act, "timing": "move", "what": "action"})
    await p1.refused({**act, "timing": "move", "what": "action"}, "step_spent")
    await p1.refused({**act, "timing": "minor", "what": "setup_skill"}, "setup_needs_move")
    await p1.ok({**move, "to": {"x": 1, "y": 5}})
    await p1.refused({**act, "timing": "move", "what": "action"}, "step_passed")
    await p1.refused({**act, "timing": "major", "what": "magic_attack",
                      "target": {"x": 3, "y": 5}, "range": 3}, "magic_attack_moved")
    # Towing: a hidden enemy's piece is as unknown as a piece that does not exist.
    tow = {**act, "timing": "major", "what": "tow"}
    missing = await p1.refused({**tow, "item": "nobody"}, "unknown_piece")
    hidden = await p1.refused({**tow, "item": "lurker"}, "unknown_piece")
    assert same_but_for(hidden, missing, "lurker", "nobody"), (hidden, missing)
    await p1.refused({**tow, "item": "ghoul"}, "tow_self_moving")
    await p1.refused({**tow, "item": "crate"}, "tow_too_far")
    await p1.refused({"kind": "grid.move", "combatant": "mage", "to": {"x": 1, "y": 5}},
                     "others_process")
    await p1.ok({"kind": "grid.process.end", "combatant": "fighter"})
    await p1.refused({**start, "combatant": "fighter"}, "already_acted")
    await p1.refused({"kind": "mass.next_step"}, "forbidden_role")
    await p1.refused({"kind": "mass.delay", "unit": "alice"}, "no_mass")


async def mass_probes(t: Table) -> None:
    """Every refusal of mass combat a non-GM can reach (GM units' picks are the GM's)."""
    p1, bridge = t.p1, t.bridge
    await p1.refused({"kind": "grid.process.start", "combatant": "fighter"}, "no_grid")
    reply = await query(p1, kind="grid.legal", combatant="fighter")
    assert reply.get("code") == "no_grid", reply
    await p1.refused({"kind": "mass.deploy", "unit": "alice", "row": "front"}, "wrong_step")
    strength = {"kind": "mass.strength", "unit": "alice"}
    await p1.refused({**strength, "unit": "boris", "ability": "魅力"}, "not_your_unit")
    await bridge.refused({**strength, "unit": "orcs", "ability": "魅力", "by": "p1"},
                         "not_your_unit")
    await p1.refused({**strength, "unit": "nobody", "ability": "魅力"}, "unknown_unit")
    await p1.refused({**strength, "ability": "魅力", "value": 12}, "gm_only")
    await p1.refused({**strength, "ability": "メンタル"}, None)
    pick = {"kind": "mass.pick", "unit": "alice", "skill": "知力"}
    await p1.refused({**pick, "formations": ["無の陣"], "strategies": []}, "unknown_formation")
    await p1.refused({**pick, "formations": [], "strategies": ["無策"]}, "unknown_strategy")
    await p1.refused({**pick, "skill": "魔力", "formations": [], "strategies": []}, None)
    await p1.refused({**pick, "formations": ["強撃陣", "強撃陣"], "strategies": []},
                     "duplicate_pick")
    await p1.refused({**pick, "formations": ["強撃陣", "疾風陣", "三波状陣", "背水の陣"],
                      "strategies": ["統率回復"]}, "too_many_picks")
    await p1.refused({**strength, "ability": "魅力", "result": "(2D6+4) ＞ 7[3,4]+4 ＞ 11"},
                     "result_mismatch")
    await p1.refused({**strength, "ability": "魅力", "result": "よくわからない"}, "bad_result")
    await bridge.refused({**strength, "ability": "魅力", "by": "nobody"}, "unknown_player")
    reply = await p1.ask({"type": "answer", "prompt": "q999", "choice": "x"})
    assert reply.get("code") == "unknown_prompt", reply
    await p1.ok({**strength, "ability": "魅力"})
    await p1.refused({**strength, "ability": "魅力"}, "strength_set")
    await p1.refused({**strength, "ability": "魅力"}, "stale_version", base_version=0)
    await p1.refused({"kind": "mass.strategy", "unit": "alice", "strategy": "統率回復"}, None)
    await t.gm.ok({"kind": "mass.declare", "winner": "kingdom", "note": "和平"})
    await p1.refused({"kind": "mass.delay", "unit": "alice"}, "mass_over")


async def mass_war_probes(t: Table) -> None:
    """The refusals of a war played on (MASS-T-*, MASS-DMG-*, strategies), from p1 and the
    bridges, in a room whose GM-run units hold secret numbers (613, 777)."""
    g, p1, bridge = t.gm, t.p1, t.bridge
    strength = {"kind": "mass.strength", "unit": "a1", "ability": "魅力"}
    await p1.refused({"kind": "mass.deploy", "unit": "a1", "row": "front"}, "wrong_step")
    await p1.refused({**strength, "unit": "a2"}, "not_your_unit")
    await bridge.refused(strength, "not_your_unit")  # the table acts for no player's unit
    await p1.refused({**strength, "unit": "zz"}, "unknown_unit")
    await p1.refused({**strength, "ability": "知力"}, "bad_ability")
    await p1.refused({**strength, "ability": "愛"}, "no_ability")
    await p1.refused({**strength, "ability": "ボディ", "result": "(3D6) ＞ 9[2,3,4] ＞ 9"}, "no_lp")
    await p1.refused({**strength, "value": 20}, "gm_only")
    await p1.refused({**strength, "result": "(2D6+3) ＞ 9[4,5]+3 ＞ 12"}, "result_mismatch")
    await p1.refused({**strength, "result": "よくわからない"}, "bad_result")
    await p1.ok(strength)
    await p1.refused(strength, "strength_set")
    pick = {"kind": "mass.pick", "unit": "a1", "skill": "知力", "formations": ["疾風陣"],
            "strategies": ["前列前進", "前進攻撃", "指揮官突撃", "囮作戦", "煙攻め", "陣形変更"]}
    await p1.refused({**pick, "skill": "魅力"}, "bad_skill")
    await p1.refused({**pick, "formations": ["疾風陣", "疾風陣"]}, "duplicate_pick")
    await p1.refused({**pick, "formations": ["なし"]}, "unknown_formation")
    await p1.refused({**pick, "strategies": ["なし"]}, "unknown_strategy")
    await p1.refused({**pick, "formations": ["疾風陣", "強撃陣"]}, "too_many_picks")
    await p1.ok(pick)
    await g.ok({"kind": "mass.next_step", "expect": "preparation"})
    await p1.ok({"kind": "mass.deploy", "unit": "a1", "row": "front", "odd": "attack"})
    await g.ok({"kind": "mass.deploy", "unit": "a2", "row": "back"})
    await g.ok({"kind": "mass.next_step", "expect": "deployment"})
    # The GM's odd-point question (b2) waits: p1 is told only that someone must answer.
    await p1.refused({"kind": "mass.deploy", "unit": "a1", "row": "back"}, "odd_point_pending")
    for pid in list(g.client.state["prompts"]):
        await g.ok({"kind": "answer", "prompt": pid, "choice": "attack"})
    await p1.ok({"kind": "mass.formation", "unit": "a1", "formation": "疾風陣"})
    await g.ok({"kind": "mass.next_step", "expect": "tactics"})
    use = {"kind": "mass.strategy", "unit": "a1"}
    await p1.refused({**use, "strategy": "雨乞い"}, "not_owned")
    await p1.refused({**use, "strategy": "囮作戦"}, "reaction_only")
    await p1.refused({**use, "strategy": "前進攻撃"}, "need_target")
    await p1.refused({**use, "strategy": "前進攻撃", "target": "b1"}, "bad_target")
    await p1.refused({**use, "strategy": "指揮官突撃"}, "no_weapon_base")
    await p1.refused({**use, "strategy": "陣形変更"}, "need_formation")
    await p1.ok({**use, "strategy": "前列前進"})
    await p1.refused({**use, "strategy": "前列前進"}, "no_stacking")
    await p1.ok({**use, "strategy": "煙攻め"})
    await p1.refused({**use, "strategy": "煙攻め"}, "no_uses_left")
    await bridge.refused({"kind": "mass.defend", "unit": "a2", "by": "p2"}, "not_your_turn")
    attack = {"kind": "mass.attack", "unit": "a1", "target": "b2"}
    await p1.refused({**attack, "result": "(1D6) ＞ 3"}, "unused_result")  # front vs back
    await p1.refused({**attack, "target": "b1", "result": "(1D6) ＞ 3"}, "player_rolls_refused")
    await g.ok({"kind": "mass.strategy", "unit": "b1", "strategy": "煙攻め"})
    await p1.refused(attack, "smoke_screen")
    await p1.ok({"kind": "mass.delay", "unit": "a1"})
    await g.ok({"kind": "mass.defend", "unit": "b1"})
    await bridge.refused({"kind": "mass.attack", "unit": "a2", "target": "b2", "by": "p2"},
                         "back_to_back")
    await bridge.ok({"kind": "mass.defend", "unit": "a2", "by": "p2"})
    await g.ok({"kind": "mass.defend", "unit": "b2"})
    await p1.refused({"kind": "mass.delay", "unit": "a1"}, "already_delayed")
    await p1.ok({"kind": "mass.defend", "unit": "a1"})
    await g.ok({"kind": "mass.strategy", "unit": "a2", "strategy": "全軍退却"})
    await bridge.refused({"kind": "mass.deploy", "unit": "a2", "row": "front", "by": "p2"},
                         "unit_routed")
    await g.ok({"kind": "mass.strategy", "unit": "b1", "strategy": "全軍退却"})
    await p1.refused({"kind": "mass.deploy", "unit": "a1", "row": "back"}, "mass_over")


async def test_every_combat_refusal_keeps_hidden_data_from_non_gms(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "combat.sqlite3", HIDDEN_GRID, seed="leaks-grid")
    await r.server.create_room(load_scenario_file(EXAMPLES / "mass_combat.yaml"), secret=r.secret,
                               room_id=MASS_ROOM, seed="leaks-mass")
    await r.server.create_room(load_scenario_file(HIDDEN_MASS), secret=r.secret,
                               room_id=MASS_WAR_ROOM, seed="leaks-mass-war")
    tables: list[Table] = []
    try:
        tables.append(grid := await Table.seat(r, r.room))
        await grid_probes(grid)
        tables.append(mass := await Table.seat(r, MASS_ROOM))
        await mass_probes(mass)
        tables.append(war := await Table.seat(r, MASS_WAR_ROOM))
        await mass_war_probes(war)
        notices: list[dict[str, Any]] = []
        for table in tables:
            await table.check_nothing_leaked(r)
            notices += await table.refusal_notices()
        covered = {n["data"]["code"] for n in notices}
        covered |= QUERIED
        listed = {**NOT_FROM_NON_GM, **GM_ONLY, **NOT_DRIVEN_YET}
        codes = refusal_codes(DRIVEN_HERE)
        listed = {code: why for code, why in listed.items() if code in codes}
        assert not set(GM_ONLY) - codes and not set(NOT_DRIVEN_YET) - codes, "stale listing"
        not_covered = codes - covered - set(listed)
        assert not not_covered, f"refusal codes no test drives from a non-GM: {sorted(not_covered)}"
        assert not covered & set(listed), sorted(covered & set(listed))
    finally:
        for table in tables:
            await table.close()
        await r.runner.cleanup()
