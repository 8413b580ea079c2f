"""The `bases:` part of scenario files: the shipped example and line-numbered errors."""

from __future__ import annotations

import pytest
from test_bases_kit import BRIDGE, GM, P1, act, fired, report, rounds, scenario_text

from conftest import EXAMPLES
from komasync.engine.bases.model import Event
from komasync.engine.bases.states import Status
from komasync.engine.core import Engine
from komasync.engine.scenario import ScenarioError, build_room, load_scenario
from komasync.engine.views import Audience, View

EXAMPLE = EXAMPLES / "base_battle.yaml"


def example() -> Engine:
    return Engine(build_room(load_scenario(EXAMPLE.read_text(encoding="utf-8")), "seed"))


def test_bases_example_loads_whole() -> None:
    # BASE-TYPE-3 BASE-ATTR-2 BASE-ATTR-3 BASE-OPT-2 BASE-OPT-3: the shipped example
    e = example()
    bs = e.state.bases
    assert bs is not None and bs.battle.key == "important_offensive"
    assert set(e.state.meta.players) == {"p1", "p2", "p3"}
    assert bs.bases["gate"].core and bs.bases["erosion"].permanent and bs.bases["battery"].hidden
    assert "孤立" in bs.defined and bs.sides["enemy"].on_field == 4


def test_bases_example_plays() -> None:
    # BASE-COND-2 BASE-COND-3 BASE-CHOICE BASE-EL-1 on the example, round by round
    e = example()
    rounds(e, 4)  # the erosion counter reaches 3 at the end of round 3 → excites the gate
    assert e.state.bases is not None
    gate = e.state.bases.bases["gate"]
    assert gate.state is Status.EXCITED and gate.gp == 13 and gate.constants[0].active
    # 共鳴: 【励起】【ラウンド1回】味方が戦闘不能になった時 (the gate's side: enemies); the
    # table reports for the GM's side once the room lets an uncredited VTT action decide
    act(e, kind="room.uncredited", mode="gm_side")
    assert fired(report(e, "character.incapacitated", BRIDGE, side="enemy")) == ["gate.ev2"]
    assert fired(report(e, "character.incapacitated", BRIDGE, side="enemy")) == []
    # 結界強化 by a player: the players choose an allied base; the gate loses 1 too
    out = act(e, P1, kind="bases.trigger", event="stake.ev1", character="アリス",
              action="発動タイミングを放棄する")
    assert fired(out) == ["stake.ev1", "gate.gp2"]
    prompt = next(iter(e.state.prompts.values()))
    assert prompt.to == "players" and {c.id for c in prompt.choices} == {"stake", "camp"}
    act(e, P1, kind="answer", prompt=prompt.id, choice="camp")
    assert e.state.bases.bases["camp"].gp == 6
    # the manual GP change condition is the GM's
    act(e, GM, kind="bases.fire", element="gate.gp3")
    assert e.state.bases.bases["gate"].gp == 12
    battery = e.state.bases.bases["battery"].events[0]
    assert isinstance(battery, Event) and battery.fired == 3 and not battery.hidden


def test_bases_example_hides_battery_from_players_at_start() -> None:
    # BASE-OPT-2 on the example
    tree = View(Audience("player", "p1"), example().state).tree
    assert "battery" not in tree["bases"]["bases"] and "隠し砲台" not in str(tree)


# (bases part, text expected in the error, line of the error in the whole file)
ERRORS = [
    ("bases:\n  - {id: a, name: A, gp: 1, events: [{name: x, condition: 【謎】}]}",
     "【謎】", 5),
    ("bases:\n  - id: a\n    name: A\n    gp: 1\n    constants:\n"
     "      - {name: x, condition: 【ラウンド1回】常時}", "events only", 9),
    ("type: important\nbases:\n  - {id: a, name: A, side: pc, gp: 1, attributes: [core]}",
     "BASE-TYPE-2", 4),
    ("type: important_offensive\nbases:\n  - {id: a, name: A, side: pc, gp: 1, attributes: [core]}",
     "BASE-TYPE-3", 4),
    ("type: important_defensive\nbases:\n  - {id: a, name: A, side: enemy, gp: 1, attributes: [core]}",
     "BASE-TYPE-4", 4),
    ("bases:\n  - {id: a, name: A, gp: 0}", "BASE-GP-3", 5),
    ("bases:\n  - {id: a, name: A, gp: 1, events: [{name: x, condition: 味方がダメージを受けた時}]}",
     "味方/敵", 5),
    ("bases:\n  - {id: a, name: A, gp: 1}\n  - {id: a, name: B, gp: 1}", "duplicate", 4),
    ("bases:\n  - {id: a, name: A, gp: 1, colour: red}", "colour", 5),
]


@pytest.mark.parametrize(("body", "message", "line"), ERRORS)
def test_bases_scenario_errors_name_the_line(body: str, message: str, line: int) -> None:
    # BASE-COND-1 BASE-TYPE-2 BASE-TYPE-3 BASE-TYPE-4 BASE-GP-3 BASE-OPT-3
    with pytest.raises(ScenarioError) as err:
        load_scenario(scenario_text(body))
    text = str(err.value)
    assert message in text, text
    assert err.value.problems[0].line == line, text
