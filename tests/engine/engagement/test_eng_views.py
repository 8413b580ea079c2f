"""What each audience sees of the relation: hidden characters are not in the scene, so
their engagements, offers and attacks are the GM's alone (ENG-1, ENG-HAND-1); the
approach's target number is the GM's; the scenario part validates."""

from __future__ import annotations

import pytest
import yaml
from eng_kit import GM, P1, do, eng, engine, line, link, refused, scenario

from komasync.engine.core import Engine, Outcome
from komasync.engine.registry import parse_action
from komasync.engine.scenario import Scenario, ScenarioError, build_room, load_scenario
from komasync.engine.views import Audience, View, project


def _hide(e: Engine, piece: str, hidden: bool = True) -> Outcome:
    return do(e, GM, kind="table.piece.reveal", piece=piece, hidden=hidden)


def test_eng_1_pairs_with_a_hidden_character_are_the_gms_alone() -> None:
    e = engine()
    link(e, "a1", "e1")
    link(e, "a3", "e4")
    _hide(e, "e4")
    assert eng(e).combatants["e4"].hidden and eng(e).pair("a3", "e4").hidden
    player = project(e.state, Audience("player", "p1"))["engagement"]
    assert list(player["pairs"]) == ["a1|e1"] and "e4" not in player["combatants"]
    assert set(project(e.state, Audience("gm"))["engagement"]["pairs"]) == {"a1|e1", "a3|e4"}
    # a hidden partner is not in the scene: a3 may approach, and e4 is unknown to players
    r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e4", dp=1)
    assert r.code == "unknown_character" and "e4" in r.en
    do(e, GM, kind="engagement.approach", combatant="a3", target="e2", dp=3,
       result=line(6, 6, 6))
    assert eng(e).partners("a3") == ["e4", "e2"]
    _hide(e, "e4", False)
    assert not eng(e).pair("a3", "e4").hidden


def test_eng_hand_1_offers_about_a_hidden_character_stay_hidden_and_views_update() -> None:
    e = engine()
    view = View(Audience("player", "p2"), e.state)
    link(e, "a3", "e4")
    _hide(e, "e4")
    out = link(e, "a1", "e4")  # a3 is asked: the GM's business while e4 is hidden
    ops = view.update(e.state, out.units)
    assert all("e4" not in str(op) for op in ops), ops
    assert eng(e).offers and all(o.hidden for o in eng(e).offers.values())


def test_eng_act_1_the_target_number_is_the_gms_until_the_enemy_is_published() -> None:
    e = engine()
    do(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=1, report_check=True)
    ex_player = project(e.state, Audience("player", "p1"))["engagement"]["exchange"]
    assert "goal" not in ex_player and ex_player["attack"] == "approach"
    assert project(e.state, Audience("gm"))["engagement"]["exchange"]["goal"] == 20
    out = do(e, P1, kind="engagement.roll", combatant="a1", result=line(6))
    assert all("20" not in line_.en for line_ in out.log)


def test_eng_scenario_validates_and_builds() -> None:
    data = scenario()
    room = build_room(Scenario.model_validate(data), "seed")
    assert room.engagement is not None and room.engagement.combatants["a1"].published
    assert not room.engagement.combatants["e1"].published
    data["engagement"]["combatants"].append(dict(data["engagement"]["combatants"][0]))
    with pytest.raises(ValueError, match="used twice"):
        Scenario.model_validate(data)
    with pytest.raises(ScenarioError) as info:
        load_scenario("engagement:\n  settings:\n    ties: nobody\n")
    assert info.value.problems[0].line == 3


def test_eng_scenario_takes_no_more_data_than_a_combatant_holds() -> None:  # issue 27
    """The shared combatant spec has the state's bounds: 51 counters are a scenario
    problem at their line, and a GM action that would add them is refused as malformed,
    not an error raised while the battle is built or the action applied."""
    data = scenario()
    many = {f"c{i}": "a1_DP" for i in range(51)}
    data["engagement"]["combatants"][0]["counters"] = many
    with pytest.raises(ScenarioError) as info:
        load_scenario(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    problem = info.value.problems[0]
    assert "counters" in problem.where and problem.line is not None, problem
    with pytest.raises(ValueError, match="at most 50"):
        parse_action({"kind": "engagement.combatant.add",
                      "combatant": {"id": "z", "piece": "a1", "side": "enemy", "counters": many}})
