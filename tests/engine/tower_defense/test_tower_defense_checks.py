"""Issue 32: the tower-defense scenario checks — the map on the board, every fort reached
from a direction, PCs' players, traps' PCs and weapon skills; at the offending line, in
Japanese and English."""

from __future__ import annotations

from engine_kit import one_problem, scenario_problems

HEAD = """\
players: [{id: p1, name: P1}]
table:
  grid: {width: 10, height: 10}
tower_defense:
  directions:
    - {id: north, name: 北, cell: {x: 2, y: 0}}
  weapons:
    - {id: pistol, name: 拳銃, kind: firearm, skill: 射撃, magazine: 7, attacks_per_round: 3,
       range: 1, damage: 1}
  forts:
    - {id: outer, name: 外砦, tier: 1, durability: 10, cell: {x: 2, y: 4}}
"""
WAY_IN = """\
  passages:
    - id: in
      outer: north
      inner: outer
      cells:
        - {x: 2, y: 1}
        - {x: 2, y: 2}
"""


def test_a_fort_no_passage_leads_to_is_refused() -> None:  # TD-MAP-1
    assert scenario_problems(HEAD + WAY_IN) == []
    line, ja, en = one_problem(HEAD + "    - {id: lonely, name: 離れ砦, tier: 2, durability: 20, "
                               "cell: {x: 6, y: 8}}\n" + WAY_IN)
    assert line == 12  # the lonely fort
    assert ja == "砦 lonely: どの方角からも通路でたどり着けません（TD-MAP-1）"
    assert en == "fort lonely: no passage leads to it from any direction (TD-MAP-1)"


def test_forts_directions_and_passage_squares_lie_on_the_board() -> None:  # TABLE-MV-2
    found = scenario_problems(HEAD.replace("{x: 2, y: 4}", "{x: 2, y: 14}")
                              + WAY_IN.replace("{x: 2, y: 2}", "{x: 12, y: 2}"))
    assert found == [
        (11, "x=2 y=14 は盤面 10×10 の外です（TABLE-MV-2）",
         "x=2 y=14 is outside the 10×10 board (TABLE-MV-2)"),
        (18, "x=12 y=2 は盤面 10×10 の外です（TABLE-MV-2）",
         "x=12 y=2 is outside the 10×10 board (TABLE-MV-2)"),
    ]


def test_a_pc_needs_its_weapons_check_skill() -> None:  # TD-SET-1, TD-ATK-2
    line, ja, en = one_problem(HEAD + WAY_IN + """\
  pcs:
    - {id: pc1, name: A, player: p1, weapons: [pistol], skills: {射撃: 50}}
    - id: pc2
      name: B
      weapons: [pistol]
      skills: {目星: 60}
""")
    assert line == 21  # pc2's id
    assert ja == "武器 pistol の技能「射撃」の値が PC pc2 の skills にありません（TD-SET-1）"
    assert en == "pc pc2: weapon pistol needs the skill '射撃', which its skills lack (TD-SET-1)"


def test_a_pcs_player_is_one_of_the_players() -> None:
    line, ja, en = one_problem(HEAD + WAY_IN + """\
  pcs:
    - id: pc1
      name: A
      player: p2
""")
    assert line == 22  # `player: p2`
    assert (ja, en) == ("PC pc1: プレイヤー p2 は players にいません",
                        "pc pc1: player p2 is not in players")


def test_a_trap_names_an_existing_pc() -> None:  # TD-PRE-1
    line, ja, en = one_problem(HEAD + WAY_IN + """\
  pcs:
    - {id: pc1, name: A, player: p1}
  traps:
    - {id: t1, passage: in, kind: explosive, pc: pc9}
""")
    assert line == 22
    assert (ja, en) == ("罠 t1: PC pc9 はいません", "trap t1: unknown pc pc9")
