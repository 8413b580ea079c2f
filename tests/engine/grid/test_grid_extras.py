"""The extra rules, each off unless the scenario turns it on (GRID-X-2..6), and the skills
that move others (GRID-SK-3)."""

from __future__ import annotations

from grid_kit import GM, P1, P2, at, do, engine, move, process, refused, start, statuses

STRICT = {"drop_spans_steps": False}
OPEN = """
A......
.......
......e
"""


def test_grid_x_2_off_by_default_a_magic_attack_after_moving_is_fine() -> None:  # GRID-X-2
    e = engine(OPEN, start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (3, 0))
    do(e, P1, kind="grid.act", combatant="pa", timing="major", what="magic_attack")
    assert process(e) is None


def test_grid_x_2_magic_attack_limits_the_whole_process_to_one_square() -> None:  # GRID-X-2
    e = engine(OPEN, {"magic_move_limit": True, **STRICT}, start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (1, 0))
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (2, 0))
    do(e, P1, kind="grid.step.end", combatant="pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="major", what="magic_attack")
    assert (r.code, r.rule) == ("magic_attack_moved", "GRID-X-2")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="minor", what="magic_attack")
    assert (r.code, r.rule) == ("wrong_timing", "GRID-X-2")


def test_grid_x_2_flying_after_a_magic_attack_only_if_it_has_not_moved() -> None:  # GRID-X-2
    for moved, post in ((False, True), (True, False)):
        e = engine(OPEN, {"magic_move_limit": True, **STRICT}, start=True)
        do(e, GM, kind="grid.status.add", combatant="pa", status="flying")
        start(e, P1, "pa")
        if moved:
            move(e, P1, "pa", (1, 0))
        do(e, P1, kind="grid.act", combatant="pa", timing="major", what="magic_attack")
        assert (process(e) is not None) == post
        if post:
            move(e, P1, "pa", (1, 0))
            assert process(e) is None


HINDER = """
......
..A...
...e..
"""


def test_grid_x_3_off_by_default_no_hindrance_question() -> None:  # GRID-X-3
    e = engine(HINDER, {"drop_spans_steps": False}, start=True)
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    out = move(e, P1, "pa", (4, 1))
    assert not e.state.prompts and not any(h.kind == "prompt.asked" for h in out.happenings)


def test_grid_x_3_not_against_the_move_action_s_movement() -> None:  # GRID-X-3
    e = engine(HINDER, {"hindrance": True}, start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (4, 1))  # (3,1), beside e, is entered in the move step
    assert not e.state.prompts


def test_grid_x_3_passing_an_enemy_range_0_may_be_hindered() -> None:  # GRID-X-3
    e = engine(HINDER, {"hindrance": True, **STRICT}, start=True)
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (4, 1))  # passes (3,1), in e's range 0, in the minor
    (pid, prompt), = e.state.prompts.items()
    assert prompt.to == "gm" and [c.id for c in prompt.choices] == ["hinder:ee", "pass"]
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 4, "y": 0})
    assert (r.code, r.rule) == ("waiting_hindrance", "GRID-X-3")
    # a GM prompt does not exist for a player (issue 13: refusals name nothing hidden)
    assert refused(e, P1, kind="answer", prompt=pid, choice="pass").code == "unknown_prompt"
    do(e, GM, kind="answer", prompt=pid, choice="hinder:ee")
    assert at(e, "pa") == (3, 1)
    assert "hindered" in statuses(e, "pa")
    assert process(e)["left"] == 0  # type: ignore[index]  # the minor's movement ends


def test_grid_x_3_a_hindered_character_cannot_be_jumped_over() -> None:  # GRID-X-3
    e = engine("""
AB....
..e...
......
""", {"hindrance": True}, start=True)
    start(e, P1, "pb")
    do(e, P1, kind="grid.step.end", combatant="pb")
    move(e, P1, "pb", (3, 0))  # passes (2,0), beside e
    (pid, _prompt), = e.state.prompts.items()
    do(e, GM, kind="answer", prompt=pid, choice="hinder:ee")
    assert at(e, "pb") == (2, 0)
    do(e, P1, kind="grid.process.end", combatant="pb")
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.move", combatant="pa", to={"x": 3, "y": 0})
    assert r.rule == "GRID-MV-3"  # the way over (2,0) is closed; around costs too much


def test_grid_x_3_the_answer_pass_lets_it_through() -> None:  # GRID-X-3
    e = engine(HINDER, {"hindrance": True}, start=True)
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    move(e, P1, "pa", (4, 1))
    (pid, _prompt), = e.state.prompts.items()
    do(e, GM, kind="answer", prompt=pid, choice="pass")
    assert at(e, "pa") == (4, 1) and "hindered" not in statuses(e, "pa")
    move(e, P1, "pa", (5, 1))  # the process goes on


def test_grid_x_4_teleport_and_setup_skills_only_when_allowed() -> None:  # GRID-X-4
    walls = """
A#.....
.#.....
......e
"""
    e = engine(walls, start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="major", what="teleport",
                to={"x": 2, "y": 0})
    assert (r.code, r.rule) == ("rule_off", "GRID-X-4")
    e = engine(walls, {"timeless_skills": True}, start=True)
    start(e, P1, "pa")
    do(e, P1, kind="grid.act", combatant="pa", timing="minor", what="setup_skill",
       name="[ファストアクション]")
    assert process(e)["spent"] == {"move": "action", "minor": "action"}  # type: ignore[index]
    assert refused(e, P1, kind="grid.act", combatant="pa", timing="major", what="teleport",
                   to={"x": 3, "y": 0}).rule == "GRID-X-4"
    do(e, P1, kind="grid.act", combatant="pa", timing="major", what="teleport", name="[瞬間移動]",
       to={"x": 2, "y": 0})  # over the wall
    assert at(e, "pa") == (2, 0)


def test_grid_x_4_setup_skill_needs_the_move_step_unused() -> None:  # GRID-X-4
    e = engine(OPEN, {"timeless_skills": True}, start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (1, 0))
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="minor", what="setup_skill")
    assert (r.code, r.rule) == ("setup_needs_move", "GRID-X-4")


GEO = """
.......
.A.....
.......
...e...
.....f.
......g
"""


def test_grid_x_5_geocentric_pulls_the_nearest_and_pushes_the_rest_the_same_way(
) -> None:  # GRID-X-5
    e = engine(GEO, start=True)
    act = {"kind": "grid.geocentric", "user": "pa", "targets": ["eg", "ee", "ef"]}
    assert refused(e, P1, **act).rule == "GRID-X-5"  # off by default
    e = engine(GEO, {"geocentric": True}, start=True)
    assert refused(e, P1, **act).code == "not_in_process"  # a skill of the user's process
    start(e, P1, "pa")
    r = refused(e, P1, **act)  # ee at (3,3) from (1,1): up and left shrink it the same
    assert (r.code, r.rule) == ("choose_direction", "GRID-X-5")
    do(e, P1, **act, direction={"x": -1, "y": 0})
    assert (at(e, "ee"), at(e, "ef"), at(e, "eg")) == ((2, 3), (4, 4), (5, 5))


def test_grid_x_5_geocentric_names_the_nearest_on_a_tie() -> None:  # GRID-X-5
    e = engine("""
e.A.f
.....
....g
""", {"geocentric": True}, start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.geocentric", user="pa", targets=["ee", "ef"])
    assert (r.code, r.rule) == ("choose_nearest", "GRID-X-5")
    do(e, P1, kind="grid.geocentric", user="pa", targets=["ee", "ef"], nearest="ef")
    assert (at(e, "ef"), at(e, "ee")) == ((3, 0), (0, 0))  # ee is stopped by the map's edge


def test_grid_x_6_towing_brings_an_object_into_range_0() -> None:  # GRID-X-6
    text = """
iA.....
.......
......e
"""
    e = engine(text, STRICT, start=True)
    start(e, P1, "pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    do(e, P1, kind="grid.step.end", combatant="pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", what="tow", item="pi")
    assert (r.code, r.rule) == ("rule_off", "GRID-X-6")
    e = engine(text, {"towing": True}, start=True)
    start(e, P1, "pa")
    move(e, P1, "pa", (3, 0))  # move + minor
    r = refused(e, P1, kind="grid.act", combatant="pa", what="tow", item="pi", to={"x": 3, "y": 1})
    assert (r.code, r.rule) == ("tow_square", "GRID-X-6")
    do(e, P1, kind="grid.act", combatant="pa", what="tow", item="pi")
    assert at(e, "pi") == (2, 0)
    assert process(e) is None


def test_grid_x_6_only_what_cannot_move_itself_is_towed() -> None:  # GRID-X-6
    e = engine("""
BA....
......
.....e
""", {"towing": True}, start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", what="tow", item="pb")
    assert (r.code, r.rule) == ("tow_self_moving", "GRID-X-6")


def test_grid_sk_3_teleport_target_moves_to_an_adjacent_square_over_blockers() -> None:  # GRID-SK-3
    e = engine("""
A.e#.
.....
....f
""", start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.force_move", user="pa", target="ee", to={"x": 4, "y": 0})
    assert (r.code, r.rule) == ("not_adjacent", "GRID-SK-3")
    assert refused(e, P1, kind="grid.force_move", user="pa", target="ee",
                   to={"x": 3, "y": 0}).code == "cannot_land"
    do(e, P1, kind="grid.force_move", user="pa", target="ee", to={"x": 3, "y": 1})
    assert at(e, "ee") == (3, 1)
    e = engine("""
A.e#.
.....
....f
""", {"teleport_adjacent": "orthogonal"}, start=True)
    start(e, P1, "pa")
    assert refused(e, P1, kind="grid.force_move", user="pa", target="ee",
                   to={"x": 3, "y": 1}).rule == "GRID-SK-3"


FORCE = """
A...B
.....
C#..e
"""


def test_grid_sk_3_force_move_is_a_skill_of_the_users_own_main_process() -> None:  # GRID-SK-3
    e = engine(FORCE, start=True)
    force = {"kind": "grid.force_move", "user": "pa", "target": "pc", "to": {"x": 1, "y": 1}}
    # outside any main process, and in another character's process, it is refused
    assert refused(e, P1, **force).code == "not_in_process"
    start(e, P2, "pc")
    assert refused(e, P1, **force).code == "others_process"
    do(e, P2, kind="grid.process.end", combatant="pc")
    # in the user's process it spends the major (the process ends: nothing is left)
    start(e, P1, "pa")
    do(e, P1, **force)
    assert at(e, "pc") == (1, 1) and process(e) is None
    # the user has acted: no second use this round
    assert refused(e, P1, **force).code == "already_acted"


def test_grid_sk_3_force_move_spends_its_step_and_aims_in_range_and_sight() -> None:  # GRID-SK-3
    e = engine(FORCE, {"force_move": {"timing": "minor", "range": 3}}, start=True)
    start(e, P1, "pa")
    # pb stands 4 squares off: out of the skill's range 3
    r = refused(e, P1, kind="grid.force_move", user="pa", target="pb", to={"x": 3, "y": 0})
    assert (r.code, r.rule) == ("out_of_range", "GRID-RNG-1")
    # pc at (0,2) is in range, but the obstacle at (1,2) does not hide it: sight is clear
    do(e, P1, kind="grid.force_move", user="pa", target="pc", to={"x": 0, "y": 1})
    assert at(e, "pc") == (0, 1)
    assert process(e)["spent"] == {"move": "skip", "minor": "action"}  # type: ignore[index]
    # the minor is spent: a second use is refused (GRID-MV-1)
    r = refused(e, P1, kind="grid.force_move", user="pa", target="pc", to={"x": 0, "y": 2})
    assert (r.code, r.rule) == ("step_spent", "GRID-MV-1")


def test_grid_sk_3_force_move_needs_the_target_in_sight() -> None:  # GRID-SK-3, GRID-LOS-1
    e = engine("""
A#e
...
..B
""", start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.force_move", user="pa", target="ee", to={"x": 2, "y": 1})
    assert (r.code, r.rule) == ("no_line_of_sight", "GRID-LOS-1")
    assert at(e, "ee") == (2, 0)


def test_grid_sk_3_the_gm_uses_a_characters_skill_under_the_same_guards() -> None:  # GRID-SK-3
    e = engine(FORCE, start=True)
    # naming a user, the GM is held to that user's process like anyone
    r = refused(e, GM, kind="grid.force_move", user="pa", target="pb", to={"x": 3, "y": 0})
    assert r.code == "not_in_process"
    # naming no user it is the GM's own effect (a trap, a scene): anywhere, any time
    do(e, GM, kind="grid.force_move", target="pb", to={"x": 3, "y": 0})
    assert at(e, "pb") == (3, 0)


def test_grid_sk_3_covering_reaches_range_2() -> None:  # GRID-SK-3
    e = engine("""
A.C..
.....
...D.
....e
""", start=True)
    do(e, P2, kind="grid.cover", user="pc", target="pa")
    r = refused(e, P2, kind="grid.cover", user="pd", target="pa")
    assert (r.code, r.rule) == ("cover_out_of_range", "GRID-SK-3")
    r = refused(e, P1, kind="grid.cover", user="pd", target="pa")
    assert r.rule == "GRID-MV-1"  # not P1's character
