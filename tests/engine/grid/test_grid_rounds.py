"""Rounds, effect durations, poison, the GM's data and what players may see
(GRID-RND-*, GRID-X-1, GRID-DUR-*, GRID-ST-1, GRID-RNG-3, GRID-GM-1)."""

from __future__ import annotations

from grid_kit import (
    GM,
    P1,
    P2,
    at,
    do,
    engine,
    grid,
    move,
    refused,
    scenario,
    start,
    statuses,
    view,
)

from komasync.engine.core import Engine
from komasync.engine.grid.queries import legal_destinations
from komasync.engine.scenario import Scenario, build_room

TWO_ON_TWO = """
A.C..
.....
...ef
"""


def test_grid_rnd_1_the_gm_starts_and_the_player_round_comes_first() -> None:  # GRID-RND-1
    e = engine(TWO_ON_TWO)
    assert refused(e, P1, kind="grid.start").code == "forbidden_role"
    r = refused(e, P1, kind="grid.process.start", combatant="pa")
    assert (r.code, r.rule) == ("not_active", "GRID-RND-1")
    out = do(e, GM, kind="grid.start")
    assert (grid(e).active, grid(e).round, grid(e).side) == (True, 1, "pc")
    assert "シームレス戦闘開始" in out.log[0].ja
    assert refused(e, GM, kind="grid.start").code == "already_active"


def test_grid_rnd_2_each_side_once_in_declaration_order() -> None:  # GRID-RND-2
    e = engine(TWO_ON_TWO, start=True)
    r = refused(e, GM, kind="grid.process.start", combatant="ee")
    assert (r.code, r.rule) == ("not_your_round", "GRID-RND-2")
    start(e, P2, "pc")  # no initiative: whoever declares first
    r = refused(e, P1, kind="grid.process.start", combatant="pa")
    assert (r.code, r.rule) == ("process_open", "GRID-RND-2")
    do(e, P2, kind="grid.process.end", combatant="pc")
    r = refused(e, P2, kind="grid.process.start", combatant="pc")
    assert (r.code, r.rule) == ("already_acted", "GRID-RND-2")
    start(e, P1, "pa")
    out = do(e, P1, kind="grid.process.end", combatant="pa")
    assert grid(e).side == "enemy" and grid(e).round == 1
    assert any(h.kind == "grid.round.started" and h.data["side"] == "enemy" for h in out.happenings)
    for enemy in ("ef", "ee"):
        start(e, GM, enemy)
        do(e, GM, kind="grid.process.end", combatant=enemy)
    assert (grid(e).side, grid(e).round, grid(e).acted) == ("pc", 2, [])


def test_grid_rnd_3_ends_when_every_enemy_is_down() -> None:  # GRID-RND-3
    e = engine(TWO_ON_TWO, start=True)
    do(e, GM, kind="grid.status.add", combatant="ee", status="incapacitated")
    assert grid(e).active
    out = do(e, GM, kind="grid.status.add", combatant="ef", status="dead")
    assert (grid(e).active, grid(e).outcome) == (False, "wiped")
    assert any(h.kind == "grid.ended" for h in out.happenings)


def test_grid_rnd_3_the_gm_ends_the_scene() -> None:  # GRID-RND-3
    e = engine(TWO_ON_TWO, start=True)
    start(e, P1, "pa")
    do(e, GM, kind="grid.end")
    assert (grid(e).active, grid(e).outcome, grid(e).process) == (False, "ended", None)
    do(e, P1, kind="table.move", piece="pa", to={"x": 4, "y": 0})  # free again


def test_grid_x_1_surprise_is_off_unless_the_scenario_allows_it() -> None:  # GRID-X-1
    e = engine(TWO_ON_TWO)
    r = refused(e, GM, kind="grid.start", surprise=True)
    assert (r.code, r.rule) == ("no_surprise", "GRID-X-1")
    e = engine(TWO_ON_TWO, {"surprise": True})
    do(e, GM, kind="grid.start", surprise=True)
    assert (grid(e).side, grid(e).first) == ("enemy", "enemy")
    for enemy in ("ee", "ef"):
        start(e, GM, enemy)
        do(e, GM, kind="grid.process.end", combatant=enemy)
    assert (grid(e).side, grid(e).round) == ("pc", 1)


def test_grid_dur_1_scene_effects_vanish_as_combat_starts() -> None:  # GRID-DUR-1
    e = engine(TWO_ON_TWO)
    do(e, GM, kind="grid.status.add", combatant="pa", status="effect", name="[プロテクション]",
       duration="scene")
    do(e, GM, kind="grid.status.add", combatant="pa", status="poison", value=2)
    out = do(e, GM, kind="grid.start")
    assert statuses(e, "pa") == ["poison"]
    assert any(h.kind == "grid.status.expired" for h in out.happenings)


def test_grid_dur_2_one_round_effects_last_one_cycle() -> None:  # GRID-DUR-2
    e = engine(TWO_ON_TWO, start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="effect", name="[ブレス]",
       duration="round")
    do(e, GM, kind="grid.status.add", combatant="ee", status="effect", name="[放心]",
       duration="cleanup")
    for pc, who in (("pa", P1), ("pc", P2)):
        start(e, who, pc)
        do(e, who, kind="grid.process.end", combatant=pc)
    assert grid(e).side == "enemy"
    assert statuses(e, "pa") == ["effect"] and statuses(e, "ee") == ["effect"]  # still on
    start(e, GM, "ee")
    do(e, GM, kind="grid.process.end", combatant="ee")
    start(e, GM, "ef")
    out = do(e, GM, kind="grid.process.end", combatant="ef")
    assert grid(e).side == "pc" and grid(e).round == 2
    assert statuses(e, "pa") == [] and statuses(e, "ee") == []  # gone as round 2 begins
    assert sum(h.kind == "grid.status.expired" for h in out.happenings) == 2


def test_grid_dur_2_an_effect_from_the_enemy_round_lasts_to_the_next_enemy_round() -> None:  # GRID-DUR-2
    e = engine(TWO_ON_TWO, start=True)
    for pc, who in (("pa", P1), ("pc", P2)):
        start(e, who, pc)
        do(e, who, kind="grid.process.end", combatant=pc)
    do(e, GM, kind="grid.status.add", combatant="ee", status="effect", name="[ブレス]",
       duration="round")
    for enemy in ("ee", "ef"):
        start(e, GM, enemy)
        do(e, GM, kind="grid.process.end", combatant=enemy)
    assert statuses(e, "ee") == ["effect"]  # through the player round of round 2
    for pc, who in (("pa", P1), ("pc", P2)):
        start(e, who, pc)
        do(e, who, kind="grid.process.end", combatant=pc)
    assert statuses(e, "ee") == []


def test_grid_st_1_poison_strikes_as_the_main_process_starts() -> None:  # GRID-ST-1
    e = engine(TWO_ON_TWO, start=True)
    do(e, GM, kind="grid.status.add", combatant="pa", status="poison", value=3, name="[毒]")
    do(e, GM, kind="grid.status.add", combatant="pc", status="poison")  # amount left to the GM
    assert e.state.table.counters["pa_hp"].value == 20
    out = start(e, P1, "pa")
    assert e.state.table.counters["pa_hp"].value == 17
    assert any("毒" in line.ja and "3" in line.ja for line in out.log)
    do(e, P1, kind="grid.process.end", combatant="pa")
    out = start(e, P2, "pc")
    assert e.state.table.counters["pc_hp"].value == 20
    assert any("規定ダメージ" in line.ja for line in out.log)


def test_grid_rng_3_a_player_asks_the_gm_answers_with_a_number() -> None:  # GRID-RNG-3
    e = engine("""
A...*
.....
....e
""", start=True)
    out = do(e, P1, kind="grid.check.ask", combatant="pa", check="罠探知")
    pid = next(h.data["prompt"] for h in out.happenings if h.kind == "prompt.asked")
    assert e.state.prompts[pid].to == "gm"
    r = refused(e, GM, kind="answer", prompt=pid, choice="遠い")
    assert (r.code, r.rule) == ("not_a_range", "GRID-RNG-3")
    do(e, GM, kind="answer", prompt=pid, choice="3")
    assert next(iter(grid(e).check_ranges.values())).range == 3
    start(e, P1, "pa")
    check = {"kind": "grid.act", "combatant": "pa", "what": "check", "name": "罠探知"}
    assert refused(e, P1, **check, target={"x": 4, "y": 0}).rule == "GRID-RNG-1"
    do(e, P1, **check, target={"x": 3, "y": 0})


def test_grid_gm_1_event_spots_timed_events_any_seven_and_published_data() -> None:  # GRID-GM-1
    e = engine(TWO_ON_TWO, spots=[{"id": "lever", "cell": {"x": 1, "y": 1}, "ja": "レバー",
                                   "en": "a lever"},
                                  {"id": "trap", "cell": {"x": 2, "y": 1}, "hidden": True}],
               events=[{"id": "flood", "round": 2, "side": "pc", "ja": "水位上昇",
                        "en": "The water rises"},
                       {"id": "boss", "round": 2, "side": "pc", "ja": "増援", "announced": False}])
    seen = view(e, "player:p1")["grid"]
    assert list(seen["spots"]) == ["lever"] and list(seen["events"]) == ["flood"]
    assert "profile" not in seen["combatants"]["ee"]
    assert view(e, "gm")["grid"]["combatants"]["ee"]["profile"] == {"HP": 30, "物理防御": 5}
    do(e, GM, kind="grid.publish", combatant="ee", published=True, any_seven={"命中": 4})
    seen = view(e, "player:p1")["grid"]["combatants"]["ee"]
    assert seen["profile"] == {"HP": 30, "物理防御": 5} and seen["any_seven"] == {"命中": 4}
    do(e, GM, kind="grid.start")
    for pc, who in (("pa", P1), ("pc", P2)):
        start(e, who, pc)
        do(e, who, kind="grid.process.end", combatant=pc)
    for enemy in ("ee", "ef"):
        start(e, GM, enemy)
        out = do(e, GM, kind="grid.process.end", combatant=enemy)
    due = [h.data["event"] for h in out.happenings if h.kind == "grid.event.due"]
    assert due == ["flood", "boss"]
    public = [x.ja for x in out.log if x.chat]
    assert "イベント: 水位上昇" in public and all("増援" not in x for x in public)


def test_grid_gm_1_publish_enemy_data_setting_shows_it_from_the_start() -> None:  # GRID-GM-1
    e = engine(TWO_ON_TWO, {"publish_enemy_data": True})
    assert view(e, "table")["grid"]["combatants"]["ee"]["profile"]["HP"] == 30


def test_grid_gm_1_a_scenario_combatant_may_say_whether_it_is_published() -> None:  # GRID-GM-1
    """grid lists the shared combatant spec (issue 27): its `published` says what the
    setting would otherwise decide, as `grid.publish` later can."""
    data = scenario(TWO_ON_TWO, {"publish_enemy_data": True})
    for spec in data["grid"]["combatants"]:
        if spec["id"] == "ef":
            spec["published"] = False
    e = Engine(build_room(Scenario.model_validate(data), "seed"))
    seen = view(e, "table")["grid"]["combatants"]
    assert seen["ee"]["profile"]["HP"] == 30 and "profile" not in seen["ef"]


def test_grid_hidden_enemies_are_not_in_the_scene_and_never_explain_a_refusal() -> None:  # GRID-MV-3
    e = engine("""
A.e..
#####
....f
""")
    do(e, GM, kind="table.piece.reveal", piece="ee", hidden=True)
    assert "ee" not in view(e, "player:p1")["grid"]["combatants"]
    assert "ee" not in view(e, "table")["grid"]["combatants"]
    do(e, GM, kind="grid.start")
    start(e, P1, "pa")
    g = grid(e)
    assert (2, 0) in legal_destinations(g, e.state.table, "pa")  # a hidden piece blocks nothing
    r = refused(e, P1, kind="grid.process.start", combatant="ee")
    assert r.code == "unknown_character" and "ee" in r.en  # the same as a missing id
    assert refused(e, P1, kind="grid.process.start", combatant="zz").code == "unknown_character"
    move(e, P1, "pa", (3, 0))
    assert at(e, "pa") == (3, 0)
