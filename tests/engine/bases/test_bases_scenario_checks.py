"""Issue 32: the base-battle scenario checks — the bases effects and conditions name,
revealed elements and characters' players resolve; at the offending line, in Japanese
and English."""

from __future__ import annotations

from engine_kit import one_problem, scenario_problems

HEAD = """\
players: [{id: p1, name: P1}]
bases:
  characters:
    - {name: アリス, side: pc, player: p1}
  bases:
    - id: gate
      name: 城門
      side: enemy
      gp: 10
    - id: tower
      name: 塔
      side: enemy
      gp: 5
"""



def test_an_effect_on_a_misspelt_base_is_refused_at_its_line() -> None:
    assert scenario_problems(HEAD + """\
      events:
        - id: fall
          name: 崩落
          condition: 「城門」のGPが3以上
          effects:
            - {do: gp, value: -1, target: {name: gate}}
            - {do: reveal, element: fall}
""") == []
    line, ja, en = one_problem(HEAD + """\
      events:
        - name: 崩落
          condition: ラウンド終了時
          effects:
            - {do: gp, value: -1, target: {name: gaet}}
""")
    assert line == 18  # the effect naming `gaet`
    assert ja == "tower.ev1 の効果: 拠点 gaet はありません"
    assert en == "tower.ev1: an effect targets an unknown base gaet"


def test_a_revealed_element_must_exist() -> None:
    line, ja, en = one_problem(HEAD + """\
      events:
        - name: 崩落
          condition: ラウンド終了時
          effects:
            - {do: reveal, element: gate.ev9}
""")
    assert line == 18
    assert (ja, en) == ("tower.ev1 の効果: 要素 gate.ev9 はありません",
                        "tower.ev1: an effect names an unknown element gate.ev9")


def test_a_condition_naming_an_unknown_base_is_refused() -> None:
    line, ja, en = one_problem(HEAD + """\
      constants:
        - id: ward
          name: 結界
          condition: 「城問」のGPが3以上
""")
    assert line == 15  # the element's id (the base's name is inside the condition text)
    assert ja == "拠点 tower の要素 ward の条件: 拠点「城問」はありません"
    assert en == "ward: the condition names an unknown base '城問'"


def test_a_characters_player_is_one_of_the_players() -> None:
    line, ja, en = one_problem(HEAD.replace("player: p1", "player: p5"))
    assert line == 4
    assert (ja, en) == ("キャラクター アリス: プレイヤー p5 は players にいません",
                        "character アリス: player p5 is not in players")


def test_a_defined_condition_naming_an_unknown_base_is_refused() -> None:  # BASE-OPT-3
    text = HEAD.replace("  characters:", "  defined_conditions:\n    孤立: 「城問」のGPが3以上\n"
                        "  characters:")
    line, ja, en = one_problem(text)
    assert line == 3  # the part's first line: the condition's name is a key, not a value
    assert ja == "定義された条件「孤立」: 拠点「城問」はありません"
    assert en == "defined condition '孤立': unknown base '城問'"
