"""The actions' costs and dice: approach (ENG-ACT-1), melee and its damage (ENG-ACT-2),
the skill-bonus table (ENG-BONUS); checks rolled by komasync or reported as BCDice lines;
komasync's ENG-DP for the base game's own actions."""

from __future__ import annotations

import pytest
from eng_kit import (
    GM,
    P1,
    approach,
    counter,
    damage,
    defend,
    do,
    eng,
    engine,
    line,
    link,
    melee,
    partners,
    refused,
)

from komasync.engine.engagement import melee_dice, skill_bonus


def test_eng_act_1_approach_costs_its_dice_in_dp() -> None:
    e = engine()
    approach(e, "a1", "e1", 6, 6, 6, 6)
    assert counter(e, "a1", "DP") == 16
    e = engine()
    e.state.table.counters["a1_DP"].value = 2
    r = refused(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=3,
                result=line(6, 6, 6))
    assert r.rule == "ENG-DP" and r.code == "no_dp" and "ENG-ACT-1" in r.en


def test_eng_act_1_approach_needs_the_melee_skill() -> None:
    e = engine(profiles={"a1": {"近接戦闘": 0}})
    r = refused(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=2)
    assert r.rule == "ENG-ACT-1" and r.code == "no_melee_skill" and "〈近接戦闘〉" in r.ja


def test_eng_act_1_no_approach_while_engaged_with_anyone() -> None:
    e = engine()
    link(e, "a1", "e2")
    r = refused(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=2)
    assert r.rule == "ENG-ACT-1" and r.code == "already_engaged" and "E2" in r.en


@pytest.mark.parametrize(("last", "engaged"), [(5, True), (4, False)])
def test_eng_act_1_target_number_is_body_plus_the_higher_of_evasion_and_danmaku_plus_15(
        last: int, engaged: bool) -> None:
    """a1: {身体}3+〈回避〉2 = 5. e1: {身体}4 + max(〈回避〉1, 〈弾幕〉3) + 15 = 22 (with
    〈回避〉 the target number would be 20)."""
    e = engine(profiles={"e1": {"身体": 4, "回避": 1, "弾幕": 3}})
    approach(e, "a1", "e1", 6, 6, last)  # 5 + 17 = 22, or 21
    assert eng(e).exchange is None
    assert (partners(e, "a1") == {"e1"}) is engaged


def test_eng_act_1_the_target_number_boundary() -> None:
    """a1 5 + dice against e1's 3 + 2 + 15 = 20: exactly 20 engages, 19 does not."""
    e = engine()
    approach(e, "a1", "e1", 6, 6, 3)  # 5 + 15 = 20
    assert partners(e, "a1") == {"e1"}
    e = engine()
    approach(e, "a1", "e1", 6, 6, 2)  # 19
    assert partners(e, "a1") == set()


def test_eng_act_1_approach_is_a_main_phase_action() -> None:
    e = engine(phase="setup")
    r = refused(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=2)
    assert r.rule == "ENG-TURN" and r.code == "not_main_phase"


@pytest.mark.parametrize(("mode", "rows", "ok"), [
    ("any", {}, True),
    ("from_front", {}, False),
    ("from_front", {"a1": "front"}, True),
    ("front_to_front", {"a1": "front"}, False),
    ("front_to_front", {"a1": "front", "e1": "front"}, True),
])
def test_eng_act_1_the_row_rule_for_approach_is_a_setting(mode: str, rows: dict[str, str],
                                                          ok: bool) -> None:
    e = engine(settings={"approach_rows": mode}, rows=rows)
    action = {"kind": "engagement.approach", "combatant": "a1", "target": "e1", "dp": 3,
              "result": line(6, 6, 6)}
    if ok:
        do(e, P1, **action)
    else:
        assert refused(e, P1, **action).rule == "ENG-ACT-1"


def test_eng_act_1_rolled_by_komasync_or_reported_later_from_the_vtt() -> None:
    e = engine()
    out = do(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=3)
    roll = out.rolls[0]
    assert roll.source == "engine" and roll.dice == "3D6" and len(roll.results) == 3
    assert (partners(e, "a1") == {"e1"}) is (5 + (roll.total or 0) >= 20)
    e = engine()
    do(e, P1, kind="engagement.approach", combatant="a1", target="e1", dp=2, report_check=True)
    ex = eng(e).exchange
    assert ex.check.total is None and ex.check.dice == 2
    r = refused(e, P1, kind="engagement.roll", combatant="a1", result=line(6, 6, 6))
    assert r.code == "dice_count" and r.rule == "ENG-ROLL" and "ENG-ACT-1" in r.en
    r = refused(e, P1, kind="engagement.roll", combatant="a1", result="(2D6) ＞ 9[6,6] ＞ 9")
    assert r.code == "bad_result"
    r = refused(e, P1, kind="engagement.roll", combatant="a1", result="(2D6KH1) ＞ 6[1,6] ＞ 6")
    assert r.code == "bad_result" and "キープロール（2D6KH1）" in r.ja and "a keep roll" in r.en
    r = refused(e, P1, kind="engagement.roll", combatant="a1", result=line(6, 6, plus=3))
    assert r.code == "result_inconsistent"  # the check value is 5, not 3
    out = do(e, P1, kind="engagement.roll", combatant="a1", result=line(6, 6, plus=5))
    assert out.rolls[0].source == "external" and out.rolls[0].raw and out.rolls[0].reporter == "p1"
    assert partners(e, "a1") == set()  # 5 + 12 = 17 < 20


def test_eng_act_2_melee_dice_by_dp_and_its_hit_check() -> None:
    """〈近接戦闘〉4: DP1 → 1 die, DP3 → 3+1, DP6 → 6+2; the check is {身体}3+〈近接戦闘〉4."""
    for dp, dice in ((1, 1), (3, 4), (6, 8)):
        e = engine(profiles={"a1": {"近接戦闘": 4}})
        link(e, "a1", "e1")
        r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=dp,
                    result=line(*[1] * (dice + 1)))
        assert r.code == "dice_count" and r.rule == "ENG-ROLL" and "ENG-ACT-2" in r.en and str(dice) in r.en
        melee(e, "a1", "e1", dp, *[2] * dice)
        assert eng(e).exchange.attack_total == 7 + 2 * dice
        assert counter(e, "a1", "DP") == 20 - dp


def test_eng_act_2_damage_with_weapon_training_and_grazes() -> None:
    """[近接武器鍛錬]2: 2D + {身体}3 + 〈近接戦闘〉2 + 2 grazes × graze_damage 3."""
    e = engine(profiles={"a1": {"近接武器鍛錬": 2}}, settings={"graze_damage": 3})
    link(e, "a1", "e1")
    melee(e, "a1", "e1", 3, 6, 6, 6, grazes=2)
    defend(e, "e1", "none")
    check = eng(e).exchange.check
    assert (check.purpose, check.dice, check.base) == ("damage", 2, 3 + 2 + 6)
    damage(e, "a1", 4, 5)
    assert counter(e, "e1", "HP") == 30 - (11 + 9)
    assert counter(e, "a1", "グレイズ") == 3


def test_eng_act_2_damage_without_weapon_training_is_1d_minus_3_and_takes_no_grazes() -> None:
    e = engine(profiles={"a1": {"近接武器鍛錬": 0}})
    link(e, "a1", "e1")
    r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=1, grazes=1,
                result=line(6))
    assert r.rule == "ENG-ACT-2" and r.code == "no_weapon_training"
    melee(e, "a1", "e1", 1, 6)
    defend(e, "e1", "none")
    check = eng(e).exchange.check
    assert (check.dice, check.base) == (1, 3 + 2 - 3)
    damage(e, "a1", 1)
    assert counter(e, "e1", "HP") == 27


def test_eng_act_2_grazes_beyond_the_counter_are_refused() -> None:
    e = engine()
    link(e, "a1", "e1")
    r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=1, grazes=6,
                result=line(6))
    assert r.rule == "ENG-ACT-2" and r.code == "few_grazes"


def test_eng_act_2_a_missed_melee_spends_no_grazes_and_deals_no_damage() -> None:
    e = engine()
    link(e, "a1", "e1")
    melee(e, "a1", "e1", 1, 1, grazes=2)  # 6
    defend(e, "e1", "evade", 3)  # 3+2+3 = 8 ≥ 6
    assert eng(e).exchange is None
    assert counter(e, "e1", "HP") == 30 and counter(e, "a1", "グレイズ") == 5


def test_eng_act_2_damage_rolled_by_komasync() -> None:
    e = engine()
    link(e, "a1", "e1")
    do(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=1, result=line(6))
    out = defend(e, "e1", "none")
    roll = out.rolls[-1]
    assert roll.dice == "1D6" and roll.source == "engine"
    assert counter(e, "e1", "HP") == 30 - (5 + (roll.total or 0))


@pytest.mark.parametrize(("level", "three", "six"), [
    (0, 0, 0), (1, 0, 0), (2, 0, 1), (3, 1, 1), (4, 1, 2), (5, 2, 2), (6, 2, 3), (7, 3, 3),
    (8, 3, 4), (9, 4, 4), (10, 4, 5), (11, 5, 5), (12, 5, 6),
])
def test_eng_bonus_the_skill_bonus_table(level: int, three: int, six: int) -> None:
    """LV1–8 as the seed's table; from LV9 on, +1 per 2 LV continuing each column."""
    assert skill_bonus(level, 3) == three and skill_bonus(level, 6) == six
    assert skill_bonus(level, 1) == 0
    assert melee_dice(level, 1) == 1
    assert melee_dice(level, 3) == 3 + three and melee_dice(level, 6) == 6 + six


def test_eng_bonus_decides_the_dice_a_reported_melee_must_show() -> None:
    e = engine(profiles={"a1": {"近接戦闘": 7}})  # 6 DP: 6 + 3
    link(e, "a1", "e1")
    assert refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=6,
                   result=line(*[3] * 6)).en.count("ENG-ACT-2") == 1
    melee(e, "a1", "e1", 6, *[3] * 9)
    assert eng(e).exchange.attack_total == 3 + 7 + 27


def test_eng_dp_the_base_games_actions_pay_dp_too() -> None:
    e = engine()
    e.state.table.counters["e1_DP"].value = 1
    link(e, "a1", "e1")
    melee(e, "a1", "e1", 1, 6)
    r = refused(e, GM, kind="engagement.defend", combatant="e1", defence="evade", dp=2,
                result=line(1, 1))
    assert r.rule == "ENG-DP" and r.code == "no_dp"
    e.state.table.counters["a2_DP"].value = 0
    do(e, GM, kind="engagement.defend", combatant="e1", defence="none")
    damage(e, "a1", 1)
    r = refused(e, P1, kind="engagement.shot", combatant="a2", target="e2", check=5, dice=2, dp=2,
                power=4)
    assert r.rule == "ENG-DP"
