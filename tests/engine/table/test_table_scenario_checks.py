"""Issue 32: the table's scenario checks — what `scenario check` and `room create` refuse
in `table:`, at the offending line, in Japanese and English."""

from __future__ import annotations

from engine_kit import one_problem, scenario_problems

PLAYERS = "players: [{id: alice, name: Alice}]\n"


def table(body: str) -> str:
    return PLAYERS + "table:\n  grid: {width: 10, height: 8}\n" + body


def test_a_piece_off_a_10_wide_map_is_refused_at_its_line() -> None:  # TABLE-MV-2
    line, ja, en = one_problem(table("""\
  pieces:
    - {id: knight, name: K, cell: {x: 1, y: 1}}
    - id: goblin
      name: G
      cell: {x: 12, y: 3}
"""))
    assert line == 6  # the goblin's id
    assert ja == "駒 goblin: x=12 y=3 は盤面 10×8 の外です（TABLE-MV-2）"
    assert en == "piece goblin: x=12 y=3 is outside the 10×8 board (TABLE-MV-2)"


def test_every_square_a_big_piece_covers_is_on_the_map() -> None:  # TABLE-MV-2
    assert scenario_problems(table("""\
  pieces:
    - {id: ogre, name: O, owner: alice, size: 2, cell: {x: 8, y: 6}}
  counters:
    - {id: hp, name: HP, value: 3, min: 0, max: 5, visibility: owner, owner: alice}
  markers:
    - {id: gate, text: Gate, cell: {x: 7, y: 0}, width: 3}
""")) == []
    line, ja, en = one_problem(table("  pieces:\n    - {id: ogre, name: O, size: 2, cell: {x: 9, y: 0}}\n"))
    assert line == 5
    assert "駒 ogre" in ja and "size=2" in ja and "盤面 10×8 の外" in ja
    assert "piece ogre" in en and "outside the 10×8 board" in en


def test_a_marker_hanging_off_the_map_is_refused() -> None:  # TABLE-MV-2
    line, ja, en = one_problem(table(
        "  markers:\n    - {id: gate, text: Gate, cell: {x: 8, y: 0}, width: 3}\n"))
    assert line == 5
    assert "マーカー gate" in ja and "はみ出しています（TABLE-MV-2）" in ja
    assert "marker gate" in en and "goes outside the 10×8 board" in en


def test_a_piece_owner_must_be_a_player() -> None:
    line, ja, en = one_problem(table("""\
  pieces:
    - {id: knight, name: K, cell: {x: 1, y: 1}}
    - id: archer
      name: A
      owner: alise
"""))
    assert line == 8  # `owner: alise`
    assert ja == "駒 archer: プレイヤー alise は players にいません"
    assert en == "piece archer: player alise is not in players"


def test_a_counter_owner_and_a_mover_must_be_players() -> None:
    found = scenario_problems(table("""\
  pieces:
    - {id: knight, name: K, movers: [bob]}
  counters:
    - {id: hp, name: HP, visibility: owner, owner: carol}
"""))
    assert [(line, ja) for line, ja, _ in found] == [
        (5, "駒 knight: プレイヤー bob は players にいません"),
        (7, "カウンター hp: プレイヤー carol は players にいません")]


def test_ids_written_twice_are_refused() -> None:
    line, ja, en = one_problem(table("  pieces:\n    - {id: a, name: A}\n    - {id: a, name: B}\n"))
    assert line == 5
    assert (ja, en) == ("駒 a が重複しています", "duplicate piece id a")


def test_a_counter_starts_within_its_bounds() -> None:
    line, ja, en = one_problem(table("  counters:\n    - {id: clock, name: C, value: 9, max: 6}\n"))
    assert line == 5
    assert (ja, en) == ("カウンター clock: value が min〜max の外です",
                        "counter clock: value is outside min..max")


def test_an_owner_only_counter_needs_an_owner() -> None:
    line, ja, en = one_problem(table("  counters:\n    - {id: hp, name: HP, visibility: owner}\n"))
    assert line == 5
    assert (ja, en) == ("カウンター hp: visibility owner には owner が必要です",
                        "counter hp: visibility owner needs an owner")
