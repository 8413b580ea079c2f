"""Issue 32: the mass-combat scenario checks — units' sides and players resolve, a PC's
unit can make its max strength check, one commander-in-chief a side; at the offending
line, in Japanese and English."""

from __future__ import annotations

from engine_kit import one_problem, scenario_problems

HEAD = """\
players: [{id: p1, name: P1}]
mass:
  sides:
    - {id: kingdom, name: 王国軍}
    - {id: demons, name: 魔王軍}
  units:
    - {id: lord, name: 魔王隊, side: demons, commander: true, max_strength: 16}
"""



def test_a_units_player_is_one_of_the_players() -> None:
    line, ja, en = one_problem(HEAD + """\
    - id: alice
      name: A隊
      side: kingdom
      player: p7
      abilities: {魅力: 4}
""")
    assert line == 11  # `player: p7`
    assert (ja, en) == ("部隊 alice: プレイヤー p7 は players にいません",
                        "unit alice: player p7 is not in players")


def test_a_pcs_unit_needs_an_ability_for_its_max_strength_check() -> None:  # MASS-PREP-1
    assert scenario_problems(
        HEAD + "    - {id: alice, name: A隊, side: kingdom, player: p1, abilities: {愛: 3}}\n") == []
    line, ja, en = one_problem(HEAD + """\
    - id: alice
      name: A隊
      side: kingdom
      player: p1
      abilities: {知力: 2}
""")
    assert line == 8  # alice's id
    assert ja == ("最大戦力の判定（MASS-PREP-1）には 魅力・愛・ボディ・テクニック のどれかの値が"
                  "要ります: 部隊 alice")
    assert en == ("unit alice: its max strength check (MASS-PREP-1) needs a value for one of "
                  "魅力, 愛, ボディ, テクニック in abilities (or a max_strength)")


def test_a_units_side_resolves_at_its_line() -> None:
    line, ja, en = one_problem(HEAD + "    - {id: bob, name: B隊, side: kingdomm, max_strength: 5}\n"
                               "    - {id: cat, name: C隊, side: kingdom, max_strength: 5}\n")
    assert line == 8
    assert (ja, en) == ("部隊 bob: 陣営 kingdomm はありません", "unit bob: unknown side kingdomm")


def test_one_commander_in_chief_a_side() -> None:  # MASS-PREP-1, MASS-END
    found = scenario_problems(HEAD + "    - {id: imp, name: 小鬼隊, side: demons, commander: true, "
                              "max_strength: 4}\n")
    assert (8, "陣営 demons に総大将が複数います（MASS-PREP-1）: lord, imp",
            "side demons has more than one commander-in-chief (総大将): lord, imp") in found
    assert (4, "陣営 kingdom に部隊がありません", "side kingdom has no units") in found
