"""Issue 32: the engagement scenario checks — each character's piece and its DP, HP and
graze counters are on the table; at the offending line, in Japanese and English."""

from __future__ import annotations

from engine_kit import one_problem, scenario_problems

TEXT = """\
table:
  pieces:
    - {id: aya, name: Aya}
    - {id: oni, name: Oni}
  counters:
    - {id: aya_dp, name: DP, value: 20}
    - {id: oni_hp, name: HP, value: 30}
engagement:
  combatants:
    - {id: aya, side: pc, row: front, counters: {DP: aya_dp}}
"""



def test_a_misspelt_counter_reference_is_refused_at_its_line() -> None:
    assert scenario_problems(TEXT) == []
    line, ja, en = one_problem(TEXT + """\
    - id: oni
      side: enemy
      counters: {DP: oni_dp, HP: oni_hp}
""")
    assert line == 13
    assert ja == "戦闘者 oni: DP のカウンター oni_dp が table.counters にありません"
    assert en == "combatant oni: counter oni_dp (for DP) is not in table.counters"


def test_a_character_needs_its_piece_on_the_table() -> None:
    line, ja, en = one_problem(TEXT + "    - {id: fox, side: enemy, piece: foks}\n")
    assert line == 11
    assert ja == "戦闘者 fox: 駒 foks が table.pieces にありません"
    assert en == "combatant fox: piece foks is not in table.pieces"
