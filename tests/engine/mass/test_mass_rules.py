"""Mass combat rules (rules.md MASS-*), driven through Engine.apply; one section per rule ID.

The dice are fixed with reported BCDice lines wherever a rule's arithmetic is checked,
so every expected number below is worked out by hand from the seed's rule.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from mass_kit import GM, War, player, scenario, two_by_two, unit

from komasync.engine.mass.data import DEFAULT_FORMATIONS, DEFAULT_STRATEGIES
from komasync.engine.mass.flow import battle_order
from komasync.engine.mass.rules import attack_of, defence_of
from komasync.engine.scenario import ScenarioError, load_scenario
from komasync.engine.tx import Actor
from komasync.engine.views import Audience, project

P1, P2, P3 = player("p1"), player("p2"), player("p3")


def d6(n: int) -> str:
    """A BCDice 1D6 line as Ccfolia shows it."""
    return f"(1D6) ＞ {n}"


def front_war(**extra: Any) -> War:
    """Two-by-two, everyone in the front row, in battle (a1 acts first)."""
    w = War(scenario(two_by_two(**extra)))
    w.to_battle(rows={"a1": "front", "a2": "front", "b1": "front", "b2": "front"})
    return w


# -- MASS-PREP-1 max strength -----------------------------------------------------------------


def prep_war(**a1: Any) -> War:
    units = two_by_two(a1={"max_strength": None, **a1})
    units[0].pop("max_strength")
    return War(scenario(units))


def test_mass_prep_1_strength_is_the_check_total_rolled_by_komasync() -> None:
    """MASS-PREP-1: a non-commander's 魅力 check: the rule's dice + the ability value."""
    units = two_by_two()
    units[1] = unit("a2", "a", player="p2", abilities={"魅力": 2, "愛": 4}, lp=3)
    w = War(scenario(units))
    out = w.do(P2, kind="mass.strength", unit="a2", ability="愛")
    roll = out.rolls[0]
    assert (roll.dice, roll.source) == ("2D6", "engine")
    assert w.u("a2").max_strength == w.u("a2").strength == (roll.total or 0) + 4
    again = w.refused(P2, kind="mass.strength", unit="a2", ability="魅力")
    assert (again.code, again.rule) == ("strength_set", "MASS-PREP-1")


def test_mass_prep_1_commander_in_chief_rolls_3d6() -> None:
    """MASS-PREP-1: the 総大将's check is 3D6 total (a reported 2D6 line is refused)."""
    w = prep_war()
    bad = w.refused(P1, kind="mass.strength", unit="a1", ability="魅力",
                    result="(2D6+3) ＞ 9[4,5]+3 ＞ 12")
    assert (bad.code, bad.rule) == ("result_mismatch", "MASS-PREP-1")
    out = w.do(P1, kind="mass.strength", unit="a1", ability="魅力",
               result="(3D6+3) ＞ 11[3,4,4]+3 ＞ 14")
    assert w.u("a1").max_strength == 14
    roll = out.rolls[0]
    assert (roll.source, roll.raw, roll.reporter, roll.results) == (
        "external", "(3D6+3) ＞ 11[3,4,4]+3 ＞ 14", "p1", [3, 4, 4])


def test_mass_prep_1_reported_line_must_carry_the_ability_value() -> None:
    """MASS-PREP-1: a reported line's modifier is the leader's ability value (愛 = 2)."""
    w = prep_war()
    bad = w.refused(P1, kind="mass.strength", unit="a1", ability="愛",
                    result="(3D6+3) ＞ 11[3,4,4]+3 ＞ 14")
    assert bad.rule == "MASS-PREP-1"
    w.do(P1, kind="mass.strength", unit="a1", ability="愛",
         result="(3D6+2) ＞ 11[3,4,4]+2 ＞ 13")
    assert w.u("a1").max_strength == 13


def test_mass_prep_1_lp_switches_the_ability_to_body_or_technique() -> None:
    """MASS-PREP-1: paying 1 LP makes ボディ (or テクニック) the check's ability."""
    w = prep_war()
    w.do(P1, kind="mass.strength", unit="a1", ability="ボディ",
         result="(3D6+4) ＞ 10[2,4,4]+4 ＞ 14")
    assert (w.u("a1").max_strength, w.u("a1").lp) == (14, 4)
    w2 = prep_war(lp=0)
    no_lp = w2.refused(P1, kind="mass.strength", unit="a1", ability="テクニック")
    assert (no_lp.code, no_lp.rule) == ("no_lp", "MASS-PREP-1")
    bad = w2.refused(P1, kind="mass.strength", unit="a1", ability="知力")
    assert (bad.code, bad.rule) == ("bad_ability", "MASS-PREP-1")
    assert "魅力" in bad.ja and "魅力" in bad.en


def test_mass_prep_1_every_unit_needs_its_strength_before_the_war() -> None:
    """MASS-PREP-1: the GM cannot start the war while a unit's strength is undecided."""
    w = prep_war()
    r = w.refused(kind="mass.next_step", expect="preparation")
    assert (r.code, r.rule) == ("strength_missing", "MASS-PREP-1")
    other = w.refused(P2, kind="mass.strength", unit="a1", ability="魅力")
    assert (other.code, other.rule) == ("not_your_unit", "MASS-PREP-1")
    gm_value = w.refused(P1, kind="mass.strength", unit="a1", value=20)
    assert gm_value.code == "gm_only"
    w.do(kind="mass.strength", unit="a1", value=15)
    w.next()
    assert (w.m.step, w.m.turn) == ("deployment", 1)


# -- MASS-PREP-2 strength 0 = routed ---------------------------------------------------------


def test_mass_prep_2_strength_zero_routs_the_unit() -> None:
    """MASS-PREP-2: damage to 0 routs; a routed unit leaves the order and cannot act."""
    w = front_war(b2={"max_strength": 10, "strength": 1})
    w.do(P1, kind="mass.attack", unit="a1", target="b2", result=d6(1))
    assert (w.u("b2").strength, w.u("b2").routed) == (0, True)
    assert w.m.current == "b1"
    r = w.refused(P1, kind="mass.attack", unit="a1", target="b2")
    assert r.code in ("already_acted", "unit_routed")
    assert "b2" not in battle_order(w.m)


# -- MASS-PREP-3 picks -----------------------------------------------------------------------


def test_mass_prep_3_picks_limited_to_mental_plus_skill_halved() -> None:
    """MASS-PREP-3: (メンタル 4 + 知力 2) ÷ 2 = 3 picks; 縦列陣形 and 全軍退却 are free."""
    w = prep_war()
    too_many = w.refused(P1, kind="mass.pick", unit="a1", skill="知力",
                         formations=["強撃陣", "疾風陣"], strategies=["統率回復", "雨乞い"])
    assert (too_many.code, too_many.rule) == ("too_many_picks", "MASS-PREP-3")
    w.do(P1, kind="mass.pick", unit="a1", skill="知力", formations=["縦列陣形", "強撃陣"],
         strategies=["全軍退却", "統率回復", "雨乞い"])
    a1 = w.u("a1")
    assert a1.formations == ["縦列陣形", "強撃陣"]
    assert a1.strategies == ["全軍退却", "統率回復", "雨乞い"]
    assert a1.uses == {"全軍退却": 1, "統率回復": 3, "雨乞い": 1}
    # (4 + 本能 1) ÷ 2 = 2: the same three picks are one too many with 本能.
    r = w.refused(P1, kind="mass.pick", unit="a1", skill="本能", formations=["強撃陣"],
                  strategies=["統率回復", "雨乞い"])
    assert r.code == "too_many_picks"
    bad = w.refused(P1, kind="mass.pick", unit="a1", skill="魅力")
    assert (bad.code, bad.rule) == ("bad_skill", "MASS-PREP-3")


def test_mass_prep_3_column_and_full_retreat_always_owned() -> None:
    """MASS-PREP-3: a unit that picked nothing still owns 縦列陣形 and 全軍退却."""
    w = War(scenario(two_by_two()))
    for u in w.m.units.values():
        assert "縦列陣形" in u.formations and "全軍退却" in u.strategies
    w.to_battle(rows={"a1": "front", "a2": "back", "b1": "front", "b2": "back"})
    r = w.refused(P1, kind="mass.strategy", unit="a1", strategy="統率回復")
    assert (r.code, r.rule) == ("not_owned", "MASS-PREP-3")


# -- MASS-T-1 deployment ---------------------------------------------------------------------


def three_a(**kw: Any) -> War:
    units = [unit("a1", "a", player="p1", max_strength=12, initiative=9),
             unit("a2", "a", player="p2", max_strength=10, initiative=6),
             unit("a3", "a", player="p3", max_strength=8, initiative=5),
             unit("b1", "b", max_strength=12, commander=True),
             unit("b2", "b", max_strength=10)]
    w = War(scenario(units, **kw))
    w.next()
    for uid in ("a1", "a2", "a3"):
        w.do(kind="mass.deploy", unit=uid, row="back")
    w.do(kind="mass.deploy", unit="b1", row="front")
    w.do(kind="mass.deploy", unit="b2", row="back")
    return w


def test_mass_t_1_rebalance_is_asked_of_the_back_row_players_with_gm_default() -> None:
    """MASS-T-1: front 0 < back 3 → two must move; each back-row player is asked for
    their own unit; when they leave it short, the GM picks."""
    w = three_a()
    w.next()
    asked = w.prompts("mass.rebalance")
    assert sorted(p.to for p in asked) == ["player:p1", "player:p2", "player:p3"]
    by = {p.to: p for p in asked}
    assert [c.id for c in by["player:p1"].choices] == ["a1", "stay"]
    wrong = w.refused(P2, kind="answer", prompt=by["player:p1"].id, choice="a1")
    assert wrong.code == "unknown_prompt"  # another player's prompt does not exist for them
    w.answer(by["player:p1"], "a1")
    w.answer(by["player:p2"], "stay")
    w.answer(by["player:p3"], "stay")
    gm = w.prompts("mass.rebalance")
    assert [p.to for p in gm] == ["gm"] and [c.id for c in gm[0].choices] == ["a2", "a3"]
    w.answer(gm[0], "a3")
    assert (w.u("a1").row, w.u("a2").row, w.u("a3").row) == ("front", "back", "front")
    assert w.m.step == "tactics"


def test_mass_t_1_rebalance_stops_asking_once_front_catches_up() -> None:
    """MASS-T-1: as soon as front ≥ back the remaining players' prompts are withdrawn."""
    w = three_a()
    w.next()
    by = {p.to: p for p in w.prompts("mass.rebalance")}
    w.answer(by["player:p2"], "a2")
    w.answer(by["player:p3"], "a3")
    assert w.prompts("mass.rebalance") == []
    assert w.m.step == "tactics"
    front = [u.id for u in w.m.units.values() if u.side == "a" and u.row == "front"]
    assert sorted(front) == ["a2", "a3"]


def test_mass_t_1_attack_and_defence_are_half_strength_odd_point_asked() -> None:
    """MASS-T-1: 12 → 6/6; an odd 11 asks its player where the extra point goes."""
    w = War(scenario(two_by_two(a1={"strength": 11})))
    w.next()
    for uid, row in (("a1", "front"), ("a2", "back"), ("b1", "front"), ("b2", "back")):
        w.do(kind="mass.deploy", unit=uid, row=row)
    w.next()
    odd = w.prompts("mass.odd")
    assert [p.to for p in odd] == ["player:p1"]
    assert w.m.step == "deployment"
    assert (w.u("a1").attack, w.u("a1").defence, w.u("a1").split_pending) == (5, 5, True)
    w.answer(odd[0], "defence")
    a1, a2 = w.u("a1"), w.u("a2")
    assert (a1.attack_half, a1.defence_half, a1.split_pending) == (5, 6, False)
    assert (a2.attack_half, a2.defence_half) == (5, 5)
    assert w.m.step == "tactics"


def test_mass_t_1_odd_point_may_be_said_with_the_deployment() -> None:
    """MASS-T-1: `odd` given with the row: no prompt."""
    w = War(scenario(two_by_two(a1={"strength": 11})))
    w.next()
    w.do(P1, kind="mass.deploy", unit="a1", row="front", odd="attack")
    for uid, row in (("a2", "back"), ("b1", "front"), ("b2", "back")):
        w.do(kind="mass.deploy", unit=uid, row=row)
    w.next()
    assert w.prompts() == [] and (w.u("a1").attack_half, w.u("a1").defence_half) == (6, 5)


def test_mass_t_1_every_unit_needs_a_row_and_only_in_deployment() -> None:
    """MASS-T-1: unplaced units block the step; rows are chosen in deployment only."""
    w = War(scenario(two_by_two()))
    early = w.refused(P1, kind="mass.deploy", unit="a1", row="front")
    assert (early.code, early.rule) == ("wrong_step", "MASS-T-1")
    w.next()
    r = w.refused(kind="mass.next_step", expect="deployment")
    assert (r.code, r.rule) == ("unit_unplaced", "MASS-T-1")
    not_mine = w.refused(P2, kind="mass.deploy", unit="a1", row="front")
    assert (not_mine.code, not_mine.rule) == ("not_your_unit", "MASS-T-1")


# -- MASS-T-2 tactics ------------------------------------------------------------------------


def test_mass_t_2_one_owned_formation_fixes_the_turns_values() -> None:
    """MASS-T-2: 強撃陣 (owned): 6/6 → 10/4; an unowned one is refused; no pick = 縦列陣形."""
    w = War(scenario(two_by_two(a1={"formations": ["強撃陣"]})))
    w.next()
    for uid, row in (("a1", "front"), ("a2", "back"), ("b1", "front"), ("b2", "back")):
        w.do(kind="mass.deploy", unit=uid, row=row)
    w.next()
    r = w.refused(P1, kind="mass.formation", unit="a1", formation="疾風陣")
    assert (r.code, r.rule) == ("not_owned", "MASS-T-2")
    w.do(P1, kind="mass.formation", unit="a1", formation="強撃陣")
    w.next()
    assert (w.u("a1").attack, w.u("a1").defence) == (10, 4)
    assert (w.u("a2").formation, w.u("a2").attack, w.u("a2").defence) == ("縦列陣形", 5, 5)
    late = w.refused(P1, kind="mass.formation", unit="a1", formation="縦列陣形")
    assert (late.code, late.rule) == ("wrong_step", "MASS-T-2")


def test_mass_t_2_stone_throwers_are_declared_in_tactics() -> None:
    """MASS-T-2: 投石部隊 only in the tactics step."""
    w = War(scenario(two_by_two(a1={"strategies": ["投石部隊"]})))
    w.next()
    r = w.refused(P1, kind="mass.strategy", unit="a1", strategy="投石部隊", target="b1")
    assert (r.code, r.rule) == ("wrong_step", "MASS-T-2")


# -- MASS-T-3 battle -------------------------------------------------------------------------


def test_mass_t_3_order_is_war_initiative_highest_first() -> None:
    """MASS-T-3: a1 9, b1 8, a2 6, b2 4; a2 may use its 知力 base value (10) instead."""
    w = front_war()
    assert w.m.order == ["a1", "b1", "a2", "b2"] and w.m.current == "a1"
    w2 = War(scenario(two_by_two(a2={"intellect_base": 10, "initiative_from": "intellect"})))
    w2.to_battle()
    assert w2.m.order == ["a2", "a1", "b1", "b2"]


def test_mass_t_3_gale_formation_acts_first() -> None:
    """MASS-T-3 / 疾風陣: the slowest unit in 疾風陣 acts before everyone."""
    w = War(scenario(two_by_two(b2={"formations": ["疾風陣"]})))
    w.to_battle(formations={"b2": "疾風陣"})
    assert w.m.order[0] == "b2" and w.m.current == "b2"


def test_mass_t_3_only_the_unit_whose_turn_it_is_acts() -> None:
    w = front_war()
    r = w.refused(P2, kind="mass.attack", unit="a2", target="b1")
    assert (r.code, r.rule) == ("not_your_turn", "MASS-T-3")
    other = w.refused(P2, kind="mass.attack", unit="a1", target="b1")
    assert (other.code, other.rule) == ("not_your_unit", "MASS-T-3")


def test_mass_t_3_delay_goes_to_the_end_several_by_raw_initiative() -> None:
    """MASS-T-3: a2 (war init 20 by 知力, raw 6) and a1 (raw 9) delay: the rest act, then
    a1 before a2 (raw initiative); a delayer may not delay again."""
    w = War(scenario(two_by_two(a2={"intellect_base": 20, "initiative_from": "intellect"})))
    w.to_battle()
    assert w.m.order == ["a2", "a1", "b1", "b2"]
    w.do(P2, kind="mass.delay", unit="a2")
    w.do(P1, kind="mass.delay", unit="a1")
    assert w.m.current == "b1"
    w.do(kind="mass.defend", unit="b1", result=d6(2))
    w.do(kind="mass.defend", unit="b2", result=d6(2))
    assert w.m.current == "a1"
    again = w.refused(P1, kind="mass.delay", unit="a1")
    assert (again.code, again.rule) == ("already_delayed", "MASS-T-3")
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))
    assert w.m.current == "a2"


def test_mass_t_3_defend_adds_1d6_defence_instead_of_attacking() -> None:
    w = front_war()
    w.do(P1, kind="mass.defend", unit="a1", result=d6(5))
    a1 = w.u("a1")
    assert (a1.acted, a1.defence_base, w.m.current) == (True, 6, "b1")
    assert defence_of(a1) == a1.defence == 11  # published effective: base + the turn's mods


def test_mass_t_3_reorganize_back_to_column_and_recover_one() -> None:
    w = War(scenario(two_by_two(a1={"formations": ["強撃陣"], "strength": 9})))
    w.to_battle(formations={"a1": "強撃陣"})
    assert (w.u("a1").attack, w.u("a1").defence) == (9, 2)  # 9 → 5/4 (odd to attack)
    w.do(P1, kind="mass.reorganize", unit="a1")
    a1 = w.u("a1")
    assert (a1.formation, a1.attack, a1.defence, a1.strength) == ("縦列陣形", 5, 4, 10)


def test_mass_t_3_strategies_cost_no_action_and_one_is_active_at_a_time() -> None:
    """MASS-T-3: a1 (front) uses 前列前進 (+1 attack) out of turn; switching to 後列前進
    takes the +1 attack back and gives +1 defence; a1 still has its action."""
    w = front_war(a2={"strategies": ["前列前進", "後列前進"]})
    w.do(P2, kind="mass.strategy", unit="a2", strategy="前列前進")
    a2 = w.u("a2")
    assert (attack_of(a2), defence_of(a2), a2.active) == (6, 5, "前列前進")
    w.do(P2, kind="mass.strategy", unit="a2", strategy="後列前進")
    assert (attack_of(a2), defence_of(a2), a2.active) == (5, 6, "後列前進")
    assert not a2.acted and w.m.current == "a1"


def test_mass_t_3_battle_ends_the_turn_when_all_have_acted() -> None:
    """MASS-T-3: after the last unit acts the turn ends and deployment comes again."""
    w = front_war()
    for uid, who in (("a1", P1), ("b1", GM), ("a2", P2), ("b2", GM)):
        w.do(who, kind="mass.defend", unit=uid, result=d6(1))
    assert (w.m.turn, w.m.step, w.m.order) == (2, "deployment", [])
    assert all(not u.acted and u.mods == [] for u in w.m.units.values())


# -- MASS-DMG-1 damage ------------------------------------------------------------------------


def test_mass_dmg_1_front_vs_front_gets_1d6_bonus() -> None:
    """MASS-DMG-1: a1 attack 6 + die 4 − b1 defence 6 = 4."""
    w = front_war()
    out = w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(4))
    assert w.u("b1").strength == 8
    done = next(h for h in out.happenings if h.kind == "mass.attack").data
    assert (done["attack_value"], done["defence_value"], done["damage"]) == (10, 6, 4)
    assert out.rolls[0].source == "external"


def test_mass_dmg_1_bonus_die_rolled_by_komasync_when_not_reported() -> None:
    w = front_war()
    out = w.do(P1, kind="mass.attack", unit="a1", target="b1")
    die = out.rolls[0]
    assert (die.dice, die.source) == ("1D6", "engine")
    assert w.u("b1").strength == 12 - max(6 + (die.total or 0) - 6, 1)


def test_mass_dmg_1_front_vs_back_no_bonus_back_vs_back_not_targetable() -> None:
    """MASS-DMG-1: a1 (front) → b2 (back): 6 − 5 = 1, no die; a2 (back) → b2 refused."""
    w = War(scenario(two_by_two()))
    w.to_battle(rows={"a1": "front", "a2": "back", "b1": "front", "b2": "back"})
    unused = w.refused(P1, kind="mass.attack", unit="a1", target="b2", result=d6(3))
    assert (unused.code, unused.rule) == ("unused_result", "MASS-DMG-1")
    out = w.do(P1, kind="mass.attack", unit="a1", target="b2")
    assert out.rolls == [] and w.u("b2").strength == 9
    w.do(kind="mass.defend", unit="b1", result=d6(1))
    r = w.refused(P2, kind="mass.attack", unit="a2", target="b2")
    assert (r.code, r.rule) == ("back_to_back", "MASS-DMG-1")
    assert "後列" in r.ja and "back-row" in r.en


def test_mass_dmg_1_reported_die_is_checked_when_the_attack_is_declared() -> None:
    """MASS-DMG-1: the bonus die's BCDice line must be a 1D6 roll, refused up front."""
    w = front_war()
    two = w.refused(P1, kind="mass.attack", unit="a1", target="b1",
                    result="(2D6) ＞ 7[1,6] ＞ 7")
    assert (two.code, two.rule) == ("result_mismatch", "MASS-DATA")
    junk = w.refused(P1, kind="mass.attack", unit="a1", target="b1", result="こんにちは")
    assert junk.code == "bad_result" and "こんにちは" in junk.ja
    keep = w.refused(P1, kind="mass.attack", unit="a1", target="b1",
                     result="(4D6KH3) ＞ 14[1,2,6,6] ＞ 14")  # issue 29: named, each language
    assert keep.code == "bad_result" and "キープロール（4D6KH3）" in keep.ja
    assert "a keep roll" in keep.en and "keep roll" not in keep.ja
    cc = w.refused(P1, kind="mass.attack", unit="a1", target="b1",
                   result="(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 2 ＞ 2 ＞ イクストリーム成功")
    assert cc.code == "bad_result" and "足し算" in cc.ja and "not a sum" in cc.en


def test_mass_dmg_1_attacker_always_deals_at_least_one() -> None:
    """MASS-DMG-1: a2 (back, attack 5) → b1 (front, defence 6): −1 → 1 damage."""
    w = War(scenario(two_by_two()))
    w.to_battle(rows={"a1": "front", "a2": "back", "b1": "front", "b2": "back"})
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))
    w.do(kind="mass.defend", unit="b1", result=d6(3))
    w.do(P2, kind="mass.attack", unit="a2", target="b1")
    assert w.u("b1").strength == 11


def test_mass_dmg_1_own_side_and_routed_units_are_no_targets() -> None:
    w = front_war(b2={"max_strength": 10, "strength": 1})
    own = w.refused(P1, kind="mass.attack", unit="a1", target="a2")
    assert (own.code, own.rule) == ("bad_target", "MASS-DMG-1")


# -- MASS-DMG-2 LP ---------------------------------------------------------------------------


def test_mass_dmg_2_commanding_pc_may_take_damage_on_lp() -> None:
    """MASS-DMG-2: b1 hits a1 for 5 (6 + 5 − 6); p1 is asked and takes 2 on LP: LP 5 → 3,
    strength 12 → 9. Only p1 (or the GM) may answer, and the war waits meanwhile."""
    w = front_war()
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))  # a1 defence 6 + 1
    w.do(kind="mass.attack", unit="b1", target="a1", result=d6(6))  # 12 − 7 = 5
    lp = w.prompts("mass.lp")
    assert [p.to for p in lp] == ["player:p1"]
    assert [c.id for c in lp[0].choices] == ["0", "1", "2", "3", "4", "5"]
    assert w.u("a1").strength == 12  # nothing applied before the answer
    wait = w.refused(P2, kind="mass.defend", unit="a2")
    assert (wait.code, wait.rule) == ("lp_pending", "MASS-DMG-2")
    wrong = w.refused(P2, kind="answer", prompt=lp[0].id, choice="2")
    assert wrong.code == "unknown_prompt"  # another player's prompt does not exist for them
    w.answer(lp[0], "2")
    assert (w.u("a1").lp, w.u("a1").strength, w.m.current) == (3, 9, "a2")


def test_mass_dmg_2_no_prompt_without_lp() -> None:
    w = front_war(a1={"lp": 0})
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))
    w.do(kind="mass.attack", unit="b1", target="a1", result=d6(6))
    assert w.prompts() == [] and w.u("a1").strength == 7


def test_mass_dmg_2_a_gm_run_unit_takes_nothing_on_lp() -> None:
    """MASS-DMG-2 is the commanding PC's: b1 (GM-run, LP 5 in the scenario) takes the whole
    hit on strength with no prompt, so the war never waits on what the GM's leaders hold."""
    w = front_war(b1={"lp": 5})
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(6))
    assert w.prompts("mass.lp") == []
    assert w.u("b1").lp == 5 and w.u("b1").strength < 12


# -- MASS-DMG-3 frozen values ----------------------------------------------------------------


def test_mass_dmg_3_attack_and_defence_wait_for_the_next_deployment() -> None:
    """MASS-DMG-3: b1 loses 4 strength but keeps 6/6 until turn 2's deployment (8 → 4/4)."""
    w = front_war()
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(4))
    b1 = w.u("b1")
    assert (b1.strength, b1.attack, b1.defence) == (8, 6, 6)
    for uid, who in (("b1", GM), ("a2", P2), ("b2", GM)):
        w.do(who, kind="mass.defend", unit=uid, result=d6(1))
    assert w.m.step == "deployment" and (b1.attack, b1.defence) == (6, 6)
    w.next()
    w.answer_all("mass.odd", "attack")
    assert (b1.attack, b1.defence) == (4, 4)


# -- MASS-END --------------------------------------------------------------------------------


def test_mass_end_commander_in_chief_routed_loses_the_war() -> None:
    w = front_war(b1={"max_strength": 12, "strength": 2})
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(1))
    assert (w.m.outcome, w.m.winner, w.m.outcome_reason, w.m.step) == (
        "won", "a", "commander_routed", "over")
    r = w.refused(kind="mass.defend", unit="b2")
    assert (r.code, r.rule) == ("mass_over", "MASS-END")


def test_mass_end_side_wiped_out_loses() -> None:
    """MASS-END: a side without a 総大将 loses when every unit is routed."""
    units = two_by_two(b1={"commander": False})
    units[2]["commander"] = False
    units[2]["strength"], units[3]["strength"] = 1, 1
    w = War(scenario(units))
    w.to_battle(rows={"a1": "front", "a2": "front", "b1": "front", "b2": "front"})
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(1))
    assert (w.m.outcome, w.m.current) == ("none", "a2")
    w.do(P2, kind="mass.attack", unit="a2", target="b2", result=d6(6))
    assert (w.m.outcome, w.m.winner, w.m.outcome_reason) == ("won", "a", "wiped_out")


def test_mass_end_both_commanders_at_once_is_a_draw() -> None:
    """MASS-END: 雨乞い routs both 総大将 in one go → a draw."""
    w = front_war(a1={"strategies": ["雨乞い"], "strength": 3},
                  b1={"max_strength": 12, "strength": 2})
    w.do(P1, kind="mass.strategy", unit="a1", strategy="雨乞い", results=[d6(3)])
    assert (w.m.outcome, w.m.winner) == ("draw", None)


def test_mass_end_gm_may_declare() -> None:
    w = front_war()
    w.do(kind="mass.declare", winner="b", note="援軍到着")
    assert (w.m.outcome, w.m.winner, w.m.outcome_reason) == ("won", "b", "gm")


# -- MASS-STRAT-1 timing, stacking, reset ----------------------------------------------------


def test_mass_strat_1_strategies_in_any_step_of_a_turn() -> None:
    """MASS-STRAT-1: usable in deployment, tactics and battle — not in preparation."""
    w = War(scenario(two_by_two(a1={"strategies": ["統率回復"], "strength": 2})))
    early = w.refused(P1, kind="mass.strategy", unit="a1", strategy="統率回復")
    assert (early.code, early.rule) == ("wrong_step", "MASS-T-3")
    w.next()
    w.do(P1, kind="mass.strategy", unit="a1", strategy="統率回復", results=[d6(1)])
    assert w.u("a1").strength == 3


def test_mass_strat_1_same_strategy_twice_on_one_target_is_void() -> None:
    """MASS-STRAT-1: two back units' 前進攻撃 on the same front unit: the second is refused."""
    units = [unit("a1", "a", player="p1", max_strength=12, initiative=9),
             unit("a2", "a", player="p2", max_strength=10, strategies=["前進攻撃"]),
             unit("a3", "a", player="p3", max_strength=10, strategies=["前進攻撃"]),
             unit("a4", "a", player="p3", max_strength=10),
             unit("b1", "b", max_strength=12, commander=True)]
    w = War(scenario(units))
    w.to_battle(rows={"a1": "front", "a2": "back", "a3": "back", "a4": "front", "b1": "front"})
    w.do(P2, kind="mass.strategy", unit="a2", strategy="前進攻撃", target="a1")
    r = w.refused(P3, kind="mass.strategy", unit="a3", strategy="前進攻撃", target="a1")
    assert (r.code, r.rule) == ("no_stacking", "MASS-STRAT-1")
    w.do(P3, kind="mass.strategy", unit="a3", strategy="前進攻撃", target="a4")
    assert (attack_of(w.u("a1")), attack_of(w.u("a4"))) == (7, 6)


def test_mass_strat_1_modifiers_reset_at_turn_end_recovery_stays() -> None:
    """MASS-STRAT-1: 全軍後退 heals 3 (kept) and costs 3 defence this turn only."""
    w = front_war(a1={"strategies": ["全軍後退"], "strength": 6})
    w.do(P1, kind="mass.strategy", unit="a1", strategy="全軍後退", results=[d6(3)])
    assert (w.u("a1").strength, defence_of(w.u("a1"))) == (9, 0)
    for uid, who in (("a1", P1), ("b1", GM), ("a2", P2), ("b2", GM)):
        w.do(who, kind="mass.defend", unit=uid, result=d6(1))
    a1 = w.u("a1")
    assert (a1.strength, a1.mods, a1.active) == (9, [], None)


# -- MASS-DATA -------------------------------------------------------------------------------


def test_mass_data_the_seeds_formations_and_strategies_with_use_counts() -> None:
    """MASS-DATA: 10 formations and the 25 strategies, with the seed's use counts."""
    assert [f.id for f in DEFAULT_FORMATIONS] == [
        "縦列陣形", "防壁の波陣", "攻撃の波陣", "疾風陣", "強撃陣", "波状盾の陣", "片翼突撃の陣",
        "中央突破の陣", "三波状陣", "背水の陣"]
    uses = {s.id: s.uses for s in DEFAULT_STRATEGIES}
    assert uses == {
        "全軍突撃": 1, "指揮官突撃": 1, "後列前進": None, "前列前進": None, "前進攻撃": None,
        "後退攻撃": 4, "強撃前進": 4, "爆裂部隊": 1, "全軍後退": None, "全軍防御": None,
        "全軍防御・強": 1, "統率回復": 3, "統率回復・強": 1, "陣形変更": 3, "陣形変更・速": 2,
        "速攻前進": 4, "速攻後退": 4, "分断作戦": 1, "全軍退却": 1, "情報操作": 3, "煙攻め": 1,
        "雨乞い": 1, "囮作戦": 1, "偽りの白旗": 1, "投石部隊": 1}
    assert all(s.ja_text and s.en_text for s in DEFAULT_STRATEGIES)


def test_mass_data_uses_count_down_and_never_below_zero() -> None:
    """MASS-DATA: 統率回復 three times, the fourth refused; uses stay at 0."""
    w = front_war(a1={"strategies": ["統率回復"], "strength": 1})
    for n in (1, 1, 1):
        w.do(P1, kind="mass.strategy", unit="a1", strategy="統率回復", results=[d6(n)])
    assert (w.u("a1").uses["統率回復"], w.u("a1").strength) == (0, 4)
    r = w.refused(P1, kind="mass.strategy", unit="a1", strategy="統率回復")
    assert (r.code, r.rule) == ("no_uses_left", "MASS-DATA")
    assert w.u("a1").uses["統率回復"] == 0


def test_mass_data_open_effect_is_a_scenario_field_or_gm_adjustment() -> None:
    """MASS-DATA: 全軍突撃 has no effect in the seed: by default the GM adjusts by hand
    (`mass.adjust`); a scenario may give it one (`effect: modifier`)."""
    w = front_war(a1={"strategies": ["全軍突撃"]})
    out = w.do(P1, kind="mass.strategy", unit="a1", strategy="全軍突撃")
    assert any(h.kind == "mass.strategy.manual" for h in out.happenings)
    assert w.u("a1").uses["全軍突撃"] == 0
    w.do(kind="mass.adjust", unit="a1", attack=2, note="全軍突撃")
    assert attack_of(w.u("a1")) == 8
    gm_only = w.refused(P1, kind="mass.adjust", unit="a1", attack=5)
    assert gm_only.code == "forbidden_role"

    data = scenario(two_by_two(a1={"strategies": ["全軍突撃"]}), strategies=[{
        "id": "全軍突撃", "uses": 1, "effect": "modifier",
        "modifier": {"scope": "allies", "attack": 2, "defence": -1}}])
    w2 = War(data)
    w2.to_battle()
    w2.do(P1, kind="mass.strategy", unit="a1", strategy="全軍突撃")
    assert [(attack_of(w2.u(u))) for u in ("a1", "a2")] == [8, 7]


def test_mass_data_scenario_is_checked_at_load() -> None:
    bad = scenario(two_by_two(a1={"strategies": ["ない作戦"]}))
    with pytest.raises(ScenarioError) as e:
        load_scenario(yaml.safe_dump(bad, allow_unicode=True))
    assert "ない作戦" in str(e.value)
    two = scenario(two_by_two(a2={"commander": True}))
    with pytest.raises(ScenarioError):
        load_scenario(yaml.safe_dump(two, allow_unicode=True))


def test_mass_refusals_speak_japanese_and_english() -> None:
    w = front_war()
    r = w.refused(P2, kind="mass.attack", unit="a2", target="b1")
    assert r.ja and r.en and r.ja != r.en and r.rule == "MASS-T-3"


def test_mass_gm_units_numbers_and_picks_are_the_gms() -> None:
    """A GM-run unit's leader numbers, picks and uses never reach a player or the table;
    its strength, row and formation do. Prompt context stays the GM's."""
    w = front_war(b1={"strategies": ["統率回復"], "lp": 3, "mental": 5})
    w.do(P1, kind="mass.delay", unit="a1")
    w.do(kind="mass.attack", unit="b1", target="a1", result=d6(6))
    for audience in (Audience("player", "p1"), Audience("table")):
        tree = project(w.engine.state, audience)
        b1 = tree["mass"]["units"]["b1"]
        assert {"uses", "strategies", "formations", "lp", "mental"}.isdisjoint(b1)
        assert (b1["strength"], b1["row"], b1["formation"]) == (12, "front", "縦列陣形")
        assert "uses" in tree["mass"]["units"]["a1"]
        for prompt in tree["prompts"].values():
            assert "context" not in prompt and "resume" not in prompt
    gm = project(w.engine.state, Audience("gm"))
    assert gm["mass"]["units"]["b1"]["uses"] == {"全軍退却": 1, "統率回復": 3}


def test_mass_t_3_a_bridge_acts_for_the_player_it_names_or_as_the_table() -> None:
    """A bridge naming p1 acts for p1's unit; naming no one it is the table, which may
    act only for a unit no player leads (the GM's)."""
    bridge = Actor(role="bridge", label="ccfolia")
    w = War(scenario(two_by_two()))
    w.next()
    anonymous = w.refused(bridge, kind="mass.deploy", unit="a1", row="front")
    assert (anonymous.code, anonymous.rule) == ("not_your_unit", "MASS-T-1")
    assert "ブリッジ" in anonymous.ja and "bridge" in anonymous.en
    wrong = w.refused(bridge, kind="mass.deploy", unit="a1", row="front", by="p2")
    assert wrong.code == "not_your_unit"
    w.do(bridge, kind="mass.deploy", unit="a1", row="front", by="p1")
    w.do(bridge, kind="mass.deploy", unit="b1", row="front")
    assert (w.u("a1").row, w.u("b1").row) == ("front", "front")


def test_mass_pending_prompt_names_only_a_question_the_sender_may_see() -> None:
    """While the GM's odd-point question waits, a player is told only that someone must
    answer first — not the GM's question."""
    w = War(scenario(two_by_two(b1={"strength": 11})))
    w.next()
    for uid, row in (("a1", "front"), ("a2", "back"), ("b1", "front"), ("b2", "back")):
        w.do(kind="mass.deploy", unit=uid, row=row, odd="attack" if uid != "b1" else None)
    w.next()
    gm_question = w.prompts("mass.odd")[0]
    assert gm_question.to == "gm"
    r = w.refused(P1, kind="mass.deploy", unit="a1", row="back")
    assert (r.code, r.rule) == ("odd_point_pending", "MASS-T-1")
    assert "B1" not in r.ja and "B1" not in r.en
    assert "prompt" not in r.details
    gm = w.refused(kind="mass.deploy", unit="a1", row="back")
    assert "B1" in gm.ja and gm.details["prompt"] == gm_question.id


def test_mass_data_player_typed_dice_need_the_gms_leave() -> None:
    """Dice results typed by a player count only when the GM allows them (room
    player_rolls): refused up front, even for the attack die read after the reactions;
    komasync's own dice and the GM's lines are always fine."""
    data = scenario(two_by_two())
    data["room"]["player_rolls"] = "refuse"
    w = War(data)
    w.to_battle(rows={"a1": "front", "a2": "front", "b1": "front", "b2": "front"})
    r = w.refused(P1, kind="mass.attack", unit="a1", target="b1", result=d6(6))
    assert r.code == "player_rolls_refused"
    w.do(P1, kind="mass.delay", unit="a1")
    out = w.do(kind="mass.attack", unit="b1", target="a1", result=d6(2))
    assert out.rolls[0].source == "external" and out.rolls[0].reporter == "GM"
