"""Moving in the main process: allowances, diagonal cost, who blocks, statuses that stop
or limit moves, move skills (GRID-MV-*, GRID-ST-2..6, GRID-SK-1/2)."""

from __future__ import annotations

import pytest
from grid_kit import GM, P1, P2, at, do, engine, move, parse, process, refused, start, statuses

from komasync.engine.grid.movement import plan
from komasync.engine.grid.rules import board_for
from komasync.engine.tx import Actor

BRIDGE = Actor(role="bridge", label="Foundry")

STRICT = {"drop_spans_steps": False}

# (map, settings, expected cheapest cost from A to * or None): GRID-MV-2/3, GRID-ST-5.
PATH_COSTS = [
    ("A.*", {}, 2, "two orthogonal squares"),
    ("A.\n.*", {}, 2, "one diagonal step costs 2"),
    ("A..\n...\n..*", {}, 4, "two diagonals"),
    ("AB*", {}, 2, "an ally is passed"),
    ("Ae*", {}, None, "an enemy is not passed"),
    ("A#*", {}, None, "an obstacle is not passed"),
    ("Ax*", {}, 2, "an incapacitated enemy is passed"),
    ("Ai*", {}, 2, "an incapacitated ally is passed"),
    ("An*", {}, None, "a neutral blocks (default)"),
    ("An*", {"neutral_blocks": False}, 2, "a neutral passed when the setting says so"),
    ("Ae*\n.#.\n...", {}, 6, "around an enemy and an obstacle"),
    ("Ae*\n...", {}, 4, "around an enemy: diagonal, diagonal"),
    ("A#\n#*", {}, 2, "a diagonal between two obstacles (default: allowed)"),
    ("A#\n#*", {"diagonal_past_corners": False}, None, "no diagonal past corners"),
    ("Ae\n.*", {"diagonal_past_corners": False}, 2, "the other corner is open"),
]


@pytest.mark.parametrize(("text", "settings", "cost", "why"), PATH_COSTS,
                         ids=[c[3] for c in PATH_COSTS])
def test_grid_mv_3_path_cost_table(text: str, settings: dict[str, object], cost: int | None,
                                   why: str) -> None:  # GRID-MV-2, GRID-MV-3, GRID-ST-5
    e = engine(text, settings)
    _rows, where, _walls, marks = parse(text)
    g, t = e.state.grid, e.state.table
    assert g is not None
    found = plan(board_for(g, t, g.combatants["pa"]), where["A"], marks[0], [99])
    assert (found.cost if found else None) == cost, why


def test_grid_mv_1_each_step_has_its_allowance() -> None:  # GRID-MV-1
    e = engine("""
A......
.......
......e
""", STRICT, start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 2, "y": 0})
    assert (r.code, r.rule) == ("not_this_step", "GRID-MV-1")  # the minor is unused
    move(e, P1, "pa", (1, 0))  # move: 1
    assert process(e)["left"] == 0  # type: ignore[index]
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (3, 0))  # minor: 2
    do(e, P1, kind="grid.step.end", combatant="pa")
    assert refused(e, P1, kind="grid.move", combatant="pa", to={"x": 6, "y": 0}).rule == "GRID-MV-1"
    move(e, P1, "pa", (4, 0))
    move(e, P1, "pa", (5, 0))  # major: 2, in two drops; then the process is over
    assert process(e) is None
    assert e.state.grid.side == "enemy"  # type: ignore[union-attr]  # every PC has acted


def test_grid_mv_1_one_drop_runs_on_into_the_next_unused_steps() -> None:  # GRID-MV-1
    e = engine("""
A......
.......
......e
""", start=True)
    start(e, P1, "pa")
    assert refused(e, P1, kind="grid.move", combatant="pa", to={"x": 6, "y": 0}).rule == "GRID-MV-1"
    out = move(e, P1, "pa", (5, 0))
    moved = next(h for h in out.happenings if h.kind == "grid.moved")
    assert moved.data["cost"] == 5 and moved.data["steps"] == ["move", "minor", "major"]
    assert process(e) is None  # every step spent


def test_grid_mv_1_a_step_is_a_move_or_an_action_never_both() -> None:  # GRID-MV-1
    e = engine("""
A....
.....
....e
""", STRICT, start=True)
    start(e, P1, "pa")
    do(e, P1, kind="grid.act", combatant="pa", timing="minor", name="[ポーション]")
    assert process(e)["spent"] == {"move": "skip", "minor": "action"}  # type: ignore[index]
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 1, "y": 0})
    assert r.rule == "GRID-MV-1"
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="minor")
    assert (r.code, r.rule) == ("step_spent", "GRID-MV-1")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="move")
    assert (r.code, r.rule) == ("step_passed", "GRID-MV-1")
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (2, 0))
    assert process(e) is None


def test_grid_mv_1_pieces_move_only_in_their_process() -> None:  # GRID-MV-1
    e = engine("""
A.C.
....
...e
""", start=True)
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 1, "y": 0})
    assert (r.code, r.rule) == ("not_in_process", "GRID-MV-1")
    # a plain table drop by a player is judged the same way
    r = refused(e, P1, kind="table.move", piece="pa", to={"x": 1, "y": 0})
    assert r.rule == "GRID-MV-1"
    start(e, P1, "pa")
    r = refused(e, P2, kind="table.move", piece="pc", to={"x": 3, "y": 0})
    assert (r.code, r.rule) == ("others_process", "GRID-RND-2")
    assert refused(e, P2, kind="grid.move", combatant="pa", to={"x": 1, "y": 0}).rule == "GRID-MV-1"
    do(e, P1, kind="table.move", piece="pa", to={"x": 1, "y": 0})  # judged and legal
    assert process(e)["spent"] == {"move": "move"}  # type: ignore[index]
    # the GM places a piece whose process is not open freely
    do(e, GM, kind="table.move", piece="pc", to={"x": 2, "y": 1})
    assert at(e, "pc") == (2, 1)


def test_grid_mv_1_a_bridge_acts_for_the_player_it_names_or_as_the_table() -> None:  # GRID-MV-1
    e = engine("""
A.C.
....
...e
""", start=True)
    # naming no player, the bridge is the table: it decides nothing, for a PC or an enemy
    for kind, who in (("grid.process.start", "pa"), ("grid.check.ask", "pa"),
                      ("grid.process.start", "ee"), ("grid.check.ask", "ee")):
        extra = {"check": "回避"} if kind == "grid.check.ask" else {}
        assert refused(e, BRIDGE, kind=kind, combatant=who, **extra).code == "uncredited"
    # ... but it moves a piece no player owns like the GM's drag (no process open: placed)
    do(e, BRIDGE, kind="table.move", piece="ee", to={"x": 3, "y": 1})
    assert at(e, "ee") == (3, 1)
    # naming another player, it has that player's rights only
    r = refused(e, BRIDGE, kind="grid.process.start", combatant="pa", by="p2")
    assert (r.code, r.rule) == ("not_your_character", "GRID-MV-1")
    # naming the owner, it moves the PC like the player would
    do(e, BRIDGE, kind="grid.process.start", combatant="pa", by="p1")
    do(e, BRIDGE, kind="grid.move", combatant="pa", to={"x": 1, "y": 0}, by="p1")
    assert at(e, "pa") == (1, 0)
    do(e, BRIDGE, kind="grid.process.end", combatant="pa", by="p1")
    # a room whose VTT credits every move lets the table decide for the GM's side only
    do(e, GM, kind="room.uncredited", mode="gm_side")
    r = refused(e, BRIDGE, kind="grid.process.start", combatant="pa")
    assert (r.code, r.rule) == ("not_your_character", "GRID-MV-1")
    do(e, BRIDGE, kind="grid.check.ask", combatant="ee", check="命中")
    assert refused(e, BRIDGE, kind="grid.process.start", combatant="ee").code == "not_your_round"
    # a skill nobody is named to use is the GM's alone (GRID-SK-3)
    r = refused(e, BRIDGE, kind="grid.force_move", target="pc", to={"x": 2, "y": 1})
    assert r.code == "need_user"
    do(e, GM, kind="grid.force_move", target="pc", to={"x": 2, "y": 1})
    assert at(e, "pc") == (2, 1)


def test_grid_mv_1_before_combat_pieces_move_freely() -> None:  # GRID-MV-1, GRID-RND-1
    e = engine("""
A....
....e
""")
    do(e, P1, kind="table.move", piece="pa", to={"x": 4, "y": 0})
    assert at(e, "pa") == (4, 0)


def test_grid_mv_1_warn_mode_lets_an_illegal_drop_land_and_flags_it() -> None:  # GRID-MV-1
    e = engine("""
A.....
.....e
""", STRICT, start=True)
    do(e, GM, kind="room.enforcement", mode="warn")
    start(e, P1, "pa")
    out = move(e, P1, "pa", (5, 0))
    assert at(e, "pa") == (5, 0)
    assert [w.rule for w in out.warnings] == ["GRID-MV-1"]


def test_grid_mv_2_a_diagonal_step_costs_two() -> None:  # GRID-MV-2
    e = engine("""
A...
....
...e
""", STRICT, start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 1, "y": 1})
    assert (r.code, r.rule) == ("diagonal_costs_two", "GRID-MV-2")
    do(e, P1, kind="grid.step.end", combatant="pa")
    out = move(e, P1, "pa", (1, 1))
    assert next(h for h in out.happenings if h.kind == "grid.moved").data["cost"] == 2


def test_grid_mv_2_a_diagonal_is_never_split_between_steps() -> None:  # GRID-MV-2
    e = engine("""
A#..
#...
...e
""", start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (1, 1))  # the move step cannot hold it: the minor does
    assert process(e)["spent"] == {"move": "skip", "minor": "move"}  # type: ignore[index]


def test_grid_mv_2_an_l_shaped_path_is_cheaper_in_steps_than_the_diagonal() -> None:  # GRID-MV-2
    e = engine("""
A...
....
...e
""", start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (1, 1))  # 1 in the move step, 1 in the minor: the minor keeps 1
    assert process(e)["spent"] == {"move": "move", "minor": "move"}  # type: ignore[index]
    assert process(e)["left"] == 1  # type: ignore[index]


def test_grid_mv_3_enemies_and_obstacles_refused_with_the_reason() -> None:  # GRID-MV-3
    e = engine("""
Ae..
####
""", start=True)
    start(e, P1, "pa")
    assert refused(e, P1, kind="grid.move", combatant="pa", to={"x": 1, "y": 0}).code == "occupied"
    assert refused(e, P1, kind="grid.move", combatant="pa",
                   to={"x": 0, "y": 1}).code == "blocked_square"
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 2, "y": 0})
    assert (r.code, r.rule) == ("path_blocked", "GRID-MV-3")
    assert "GRID-MV-3" in r.ja and "enemies cannot" in r.en


def test_grid_mv_4_sharing_a_square_with_an_ally_major_only_moves() -> None:  # GRID-MV-4
    e = engine("""
A....
.....
....e
""", STRICT, start=True)
    do(e, GM, kind="table.piece.place", piece={"id": "pb2", "name": "PC B2", "owner": "p1",
                                             "cell": {"x": 0, "y": 0}})
    do(e, GM, kind="grid.combatant.add", id="pb2", piece="pb2", side="pc")
    do(e, GM, kind="grid.status.add", combatant="pa", status="flying")
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="major", name="[アタック]")
    assert (r.code, r.rule) == ("sharing_ally", "GRID-MV-4")
    move(e, P1, "pa", (2, 0))  # moving is what the major may do
    assert at(e, "pa") == (2, 0)


def test_grid_st_2_paralysis_stops_moves_until_a_move_action() -> None:  # GRID-ST-2
    e = engine("""
A....
....e
""", start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="paralysis")
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 1, "y": 0})
    assert (r.code, r.rule) == ("paralysed", "GRID-ST-2")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="minor", what="cure_paralysis")
    assert (r.code, r.rule) == ("wrong_timing", "GRID-ST-2")
    do(e, P1, kind="grid.act", combatant="pa", timing="move", what="cure_paralysis")
    assert statuses(e, "pa") == []
    move(e, P1, "pa", (2, 0))


def test_grid_st_2_a_paralysis_an_effect_holds_cannot_be_shaken_off() -> None:  # GRID-ST-2
    e = engine("""
A....
....e
""", start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="paralysis", removable=False)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="move", what="cure_paralysis")
    assert (r.code, r.rule) == ("status_stuck", "GRID-ST-2")


def test_grid_st_3_bind_no_minor_action_but_minor_movement(
) -> None:  # GRID-ST-3
    e = engine("""
A....
....e
""", STRICT, start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="bind")
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="minor", name="[ポーション]")
    assert (r.code, r.rule) == ("bound", "GRID-ST-3")
    move(e, P1, "pa", (2, 0))
    do(e, P1, kind="grid.step.end", combatant="pa")
    do(e, P1, kind="grid.act", combatant="pa", timing="major", what="break_bind")
    assert statuses(e, "pa") == []


def test_grid_st_4_flying_moves_one_more_square_after_the_major() -> None:  # GRID-ST-4
    e = engine("""
A....
....e
""", STRICT, start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="flying")
    start(e, P1, "pa")
    do(e, P1, kind="grid.act", combatant="pa", timing="major", name="[アタック]")
    assert process(e)["step"] == "post"  # type: ignore[index]
    assert refused(e, P1, kind="grid.move", combatant="pa", to={"x": 2, "y": 0}).rule == "GRID-MV-1"
    move(e, P1, "pa", (1, 0))
    assert process(e) is None


def test_grid_st_4_no_flying_step_after_moving_in_the_major() -> None:  # GRID-ST-4
    e = engine("""
A....
....e
""", STRICT, start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="flying")
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (1, 0))
    do(e, P1, kind="grid.step.end", combatant="pa")  # ends the major: no flying step
    assert process(e) is None


def test_grid_st_5_incapacitated_take_no_action_and_are_passed() -> None:  # GRID-ST-5
    e = engine("""
Ai*.
....
...e
""", start=True)
    r = refused(e, P2, kind="grid.process.start", combatant="pi")
    assert (r.code, r.rule) == ("incapacitated", "GRID-ST-5")
    start(e, P1, "pa")
    move(e, P1, "pa", (2, 0))  # over the incapacitated PC
    do(e, P1, kind="grid.process.end", combatant="pa")
    assert e.state.grid.side == "enemy"  # type: ignore[union-attr]  # pi is not waited for


def test_grid_st_6_dead_pieces_leave_the_map() -> None:  # GRID-ST-6
    e = engine("""
AB.....
......e
......f
""", off_map={"cell": {"x": 5, "y": 0}, "width": 2, "height": 1})
    do(e, GM, kind="grid.status.add", combatant="pb", status="dead")
    assert at(e, "pb") == (5, 0)  # the off-map area
    do(e, GM, kind="grid.status.add", combatant="ef", status="dead")
    assert at(e, "ef") is None
    do(e, GM, kind="grid.start")
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 5, "y": 0})
    assert (r.code, r.rule) == ("blocked_square", "GRID-MV-3")
    r = refused(e, P1, kind="grid.process.start", combatant="pb")
    assert r.rule == "GRID-RND-2"


def test_grid_sk_1_a_move_skill_moves_one_and_fixes_the_direction() -> None:  # GRID-SK-1
    e = engine("""
.....
A....
....e
""", start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="move", what="move_skill",
                to={"x": 1, "y": 2})
    assert (r.code, r.rule) == ("move_skill_step", "GRID-SK-1")
    do(e, P1, kind="grid.act", combatant="pa", timing="move", what="move_skill", name="[突撃]",
       to={"x": 1, "y": 1})
    assert at(e, "pa") == (1, 1)
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 1, "y": 0})
    assert (r.code, r.rule) == ("same_direction", "GRID-SK-1")
    move(e, P1, "pa", (3, 1))


def test_grid_sk_2_effects_that_forbid_moving_in_the_major() -> None:  # GRID-SK-2
    e = engine("""
A....
....e
""", STRICT, start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="no_major_move", name="[ニーズショット]",
       duration="round")
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (2, 0))  # the minor moves
    do(e, P1, kind="grid.step.end", combatant="pa")
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 3, "y": 0})
    assert (r.code, r.rule) == ("no_major_move", "GRID-SK-2")
    do(e, P1, kind="grid.act", combatant="pa", timing="major", name="[アタック]")
