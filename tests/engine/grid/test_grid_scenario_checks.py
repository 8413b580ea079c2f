"""Issue 32: the grid's scenario checks — characters' pieces and counters on the table,
the map's squares on the board, nobody where GRID-MV-3 forbids; at the offending line,
in Japanese and English."""

from __future__ import annotations

from engine_kit import one_problem, scenario_problems

TABLE = """\
table:
  grid: {width: 10, height: 8}
  pieces:
    - {id: hero, name: H, cell: {x: 2, y: 2}}
    - {id: goblin, name: G, cell: {x: 5, y: 5}}
  counters:
    - {id: hero_hp, name: HP, value: 10}
    - {id: goblin_hp, name: HP, value: 8}
grid:
"""


def test_a_misspelt_counter_reference_is_refused_at_its_line() -> None:
    line, ja, en = one_problem(TABLE + """\
  combatants:
    - {id: hero, side: pc, counters: {HP: hero_hp}}
    - id: goblin
      side: enemy
      counters: {HP: gobln_hp}
""")
    assert line == 14  # `counters: {HP: gobln_hp}`
    assert ja == "戦闘者 goblin: HP のカウンター gobln_hp が table.counters にありません"
    assert en == "combatant goblin: counter gobln_hp (for HP) is not in table.counters"


def test_a_pc_placed_on_an_obstacle_is_refused() -> None:  # GRID-MV-3
    line, ja, en = one_problem(TABLE + """\
  obstacles:
    - {x: 2, y: 2}
  combatants:
    - id: hero
      side: pc
""")
    assert line == 13  # the hero's id
    assert ja == "戦闘者 hero: x=2 y=2 は障害物です。障害物には立てません（GRID-MV-3）"
    assert en == "combatant hero: x=2 y=2 is an obstacle, where nobody may stand (GRID-MV-3)"


def test_a_wall_is_an_obstacle_too() -> None:  # GRID-MV-3
    line, ja, _ = one_problem(TABLE + """\
  walls:
    - {cell: {x: 5, y: 3}, width: 1, height: 4}
  combatants:
    - {id: goblin, side: enemy}
""")
    assert line == 13
    assert ja.startswith("戦闘者 goblin: x=5 y=5 は障害物です") and "GRID-MV-3" in ja


def test_enemies_never_share_a_square_allies_may() -> None:  # GRID-MV-3, GRID-MV-4
    text = """\
table:
  pieces:
    - {id: a, name: A, cell: {x: 1, y: 1}}
    - {id: b, name: B, cell: {x: 1, y: 1}}
    - {id: c, name: C, cell: {x: 1, y: 1}}
grid:
  combatants:
    - {id: a, side: pc}
    - {id: b, side: pc}
"""
    assert scenario_problems(text) == []  # GRID-MV-4: allies may share a square
    line, ja, en = one_problem(text + "    - {id: c, side: enemy}\n")
    assert line == 10  # the enemy's id, the later of the two
    assert ja == "戦闘者 a と c: 敵どうしが同じマス x=1 y=1 にいます（GRID-MV-3）"
    assert en == "combatants a and c: enemies share the square x=1 y=1 (GRID-MV-3)"
    down = text + "    - {id: c, side: enemy, statuses: [{id: ko, kind: incapacitated}]}\n"
    assert scenario_problems(down) == []  # GRID-ST-5: an incapacitated piece is no block


def test_a_character_needs_its_piece_on_the_table() -> None:  # GRID-RND-1
    line, ja, en = one_problem(TABLE + "  combatants:\n    - {id: ghost, side: enemy}\n")
    assert line == 11
    assert ja == "戦闘者 ghost: 駒 ghost が table.pieces にありません（GRID-RND-1）"
    assert en == "combatant ghost: piece ghost is not in table.pieces (GRID-RND-1)"


def test_obstacles_walls_off_map_area_and_spots_lie_on_the_board() -> None:  # TABLE-MV-2
    found = scenario_problems(TABLE + """\
  obstacles:
    - {x: 1, y: 1}
    - {x: 11, y: 2}
  walls:
    - {cell: {x: 0, y: 6}, width: 1, height: 3}
  off_map: {cell: {x: 8, y: 7}, width: 4, height: 1}
  spots:
    - {id: altar, cell: {x: 3, y: 9}}
""")
    assert found == [
        (12, "x=11 y=2 は盤面 10×8 の外です（TABLE-MV-2）",
         "x=11 y=2 is outside the 10×8 board (TABLE-MV-2)"),
        (14, "x=0 y=6（1×3） は盤面 10×8 の外です（TABLE-MV-2）",
         "x=0 y=6 (1×3) is outside the 10×8 board (TABLE-MV-2)"),
        (15, "x=8 y=7（4×1） は盤面 10×8 の外です（TABLE-MV-2）",
         "x=8 y=7 (4×1) is outside the 10×8 board (TABLE-MV-2)"),
        (17, "x=3 y=9 は盤面 10×8 の外です（TABLE-MV-2）",
         "x=3 y=9 is outside the 10×8 board (TABLE-MV-2)"),
    ]
