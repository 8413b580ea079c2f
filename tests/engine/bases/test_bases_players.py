"""Characters are bound to players (issue 13 finding 5; BASE-COND-3, BASE-COND-5 reports).

A player reports and triggers only for a character they play, on its own side; the GM
(and, with `players_report: any`, everyone) for anyone. A bridge names the player in `by`.
"""

from __future__ import annotations

from engine_kit import part, refused
from test_bases_kit import BRIDGE, GM, P1, report, room, rounds

from komasync.engine.bases.model import BasesState
from komasync.engine.core import Engine
from komasync.engine.tx import Actor

P2 = Actor(role="player", player="p2", label="p2")

BOUND = """
characters:
  - {name: アリス, side: pc, player: p1}
  - {name: A, side: pc, player: p2}
  - {name: ボブ, side: pc}
  - {name: ゴブリン, side: enemy}
bases:
  - id: stake
    name: 結界杭
    side: pc
    gp: 5
    events:
      - name: 結界強化
        condition: 【能動誘発】（味方キャラクター/発動タイミングを放棄する）
        effects: [{do: gp, value: 1}]
"""


def battle(e: Engine) -> BasesState:
    return part(e, "bases", BasesState)


def test_bound_characters_are_their_players_alone() -> None:
    e = room(BOUND)
    rounds(e)
    down = {"kind": "bases.report", "happening": "character.incapacitated"}
    # p1 plays アリス (bound); `A` is p1's name but bound to p2, so it is not p1's.
    assert refused(e, P1, **down, character="A").code == "not_your_character"
    assert refused(e, P1, **down, character="ゴブリン").rule == "BASE-COND-5"
    assert refused(e, P1, **down, character="ボブ").code == "not_your_character"
    assert refused(e, P1, **down).code == "character_required"
    assert refused(e, P1, **down, character="アリス", side="enemy").code == "wrong_side"
    assert refused(e, P1, kind="bases.trigger", event="stake.ev1", character="A",
                   action="発動タイミングを放棄する").rule == "BASE-COND-5"
    report(e, "character.incapacitated", P1, character="アリス")
    report(e, "character.damaged", P2, character="A", amount=1)
    # The roster keeps who plays whom through status changes.
    assert battle(e).characters["アリス"].model_dump() == {
        "side": "pc", "status": "incapacitated", "player": "p1"}
    # A bridge acts for the player it names, and as the table when it names nobody.
    assert refused(e, BRIDGE, **down, character="ゴブリン", by="p1").code == "not_your_character"
    report(e, "character.recovered", BRIDGE, character="アリス", by="p1")
    report(e, "character.incapacitated", GM, character="ゴブリン")
    assert battle(e).outcome is not None and battle(e).outcome.losers == ["enemy"]


def test_a_player_named_character_off_the_roster_becomes_theirs() -> None:
    # Older scenario files: characters are named as their players are.
    e = room(BOUND.replace("  - {name: ボブ, side: pc}\n", ""))
    rounds(e)
    report(e, "character.entered", Actor(role="player", player="p2", label="p2"),
           character="B")
    assert battle(e).characters["B"].player == "p2"
    assert refused(e, P1, kind="bases.report", happening="character.left",
                   character="B").code == "not_your_character"


def test_scenario_switch_lets_players_report_for_anyone() -> None:
    e = room("players_report: any\n" + BOUND)
    rounds(e)
    assert battle(e).players_report == "any"
    report(e, "character.incapacitated", P1, character="ゴブリン")
    assert battle(e).outcome is not None and battle(e).outcome.losers == ["enemy"]
