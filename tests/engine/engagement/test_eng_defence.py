"""Guard (ENG-GUARD) and cover (ENG-COVER): their limits, rows, engagement, checks, the
damage they cut or take, and the engagements they hand over."""

from __future__ import annotations

from eng_kit import (
    GM,
    P1,
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

from komasync.engine.core import Engine


def shot(e: Engine, who: str, target: str, total_dice: tuple[int, ...], power: int = 6,
         attack: str = "shot") -> None:
    """A base-game shot with check value 5 and the given dice."""
    do(e, GM, kind="engagement.shot", combatant=who, target=target, attack=attack, check=5,
       dice=len(total_dice), power=power, result=line(*total_dice))


def test_eng_guard_against_melee_on_oneself_any_number_of_times_and_uncounted() -> None:
    e = engine()
    link(e, "a1", "e1")
    link(e, "a1", "e2")
    for enemy in ("e1", "e2"):
        melee(e, enemy, "a1", 1, 1)  # 6
        defend(e, "a1", "guard", 6)  # 3+2+6 = 11: no damage
        assert eng(e).exchange is None
    assert counter(e, "a1", "HP") == 30
    assert eng(e).used.get("a1") is None or eng(e).used["a1"].guard == 0
    shot(e, "e3", "a1", (1,))
    defend(e, "a1", "guard", 6)  # the once-per-turn guard is still there


def test_eng_guard_against_shot_or_homing_once_per_turn() -> None:
    e = engine()
    shot(e, "e1", "a1", (1,), attack="homing")
    defend(e, "a1", "guard", 6)
    shot(e, "e2", "a1", (1,))
    r = refused(e, P1, kind="engagement.defend", combatant="a1", defence="guard", dp=1,
                result=line(6))
    assert r.rule == "ENG-GUARD" and r.code == "guard_used"


def test_eng_guard_needs_the_melee_skill_and_answers_no_approach() -> None:
    e = engine(profiles={"a1": {"近接戦闘": 0}})
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 1, 1)
    r = refused(e, P1, kind="engagement.defend", combatant="a1", defence="guard", dp=1)
    assert r.rule == "ENG-GUARD" and r.code == "guard_no_skill"
    e = engine(rows={"a2": "front"})
    do(e, GM, kind="engagement.approach", combatant="e1", target="a1", dp=3, result=line(6, 6, 6))
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="guard", dp=1)
    assert r.rule == "ENG-ACT-1" and r.code == "approach_no_defence"


def test_eng_guard_failure_on_oneself_cuts_the_damage_by_twice_the_skill() -> None:
    e = engine(profiles={"a1": {"近接戦闘": 3}})
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 3, 6, 6, 6)  # 23
    defend(e, "a1", "guard", 1)  # 3+3+1 = 7
    damage(e, "e1", 6)  # 3+2+6 = 11, −6
    assert counter(e, "a1", "HP") == 30 - 5
    assert counter(e, "a1", "グレイズ") == 5  # guarding earns no grazes


def test_eng_guard_success_takes_no_damage_and_earns_no_grazes() -> None:
    e = engine()
    shot(e, "e1", "a1", (1,), power=10)
    defend(e, "a1", "guard", 6, 6)
    assert counter(e, "a1", "HP") == 30 and counter(e, "a1", "グレイズ") == 5


def test_eng_guard_for_another_only_from_the_front_row_unengaged_without_a_cover() -> None:
    e = engine()
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 1, 1)
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="guard", dp=1)
    assert r.rule == "ENG-GUARD" and r.code == "guard_not_front"
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    link(e, "a2", "e3")
    melee(e, "e1", "a1", 1, 1)
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="guard", dp=1)
    assert r.rule == "ENG-GUARD" and r.code == "guard_engaged"
    r = refused(e, GM, kind="engagement.defend", combatant="e2", defence="guard", dp=1)
    assert r.rule == "ENG-GUARD" and r.code == "guard_not_an_ally"


def test_eng_guard_for_another_not_after_a_cover_this_turn() -> None:
    e = engine(rows={"a2": "front"})
    shot(e, "e2", "a3", (1,))
    defend(e, "a2", "cover", 6)  # a2 covers a3
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 1, 1)
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="guard", dp=1)
    assert r.rule == "ENG-GUARD" and r.code == "covered_this_turn"


def test_eng_guard_for_another_that_fails_leaves_the_target_hit_without_reduction() -> None:
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 3, 6, 6, 6)  # 23
    defend(e, "a2", "guard", 1)  # 6: fails
    assert eng(e).exchange.victim == "a1" and eng(e).exchange.reduction == 0
    damage(e, "e1", 5)
    assert counter(e, "a1", "HP") == 30 - 10 and counter(e, "a2", "HP") == 30
    assert partners(e, "e1") == {"a1"}  # nothing handed over
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="cover", dp=1)
    assert r.code == "nothing_to_answer"


def test_eng_guard_for_another_succeeding_against_a_shot_hands_nothing_over() -> None:
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    shot(e, "e1", "a1", (1,))
    defend(e, "a2", "guard", 6)
    assert partners(e, "e1") == {"a1"} and counter(e, "a1", "HP") == 30


def test_eng_cover_only_from_the_front_row_and_unengaged() -> None:
    e = engine()
    shot(e, "e1", "a1", (1,))
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="cover", dp=1)
    assert r.rule == "ENG-COVER" and r.code == "cover_not_front"
    e = engine(rows={"a2": "front"})
    link(e, "a2", "e3")
    shot(e, "e1", "a1", (1,))
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="cover", dp=1)
    assert r.rule == "ENG-COVER" and r.code == "cover_engaged"
    r = refused(e, P1, kind="engagement.defend", combatant="a1", defence="cover", dp=1)
    assert r.rule == "ENG-COVER" and r.code == "cover_self"


def test_eng_cover_once_per_turn_and_not_after_guarding_for_another() -> None:
    e = engine(rows={"a2": "front", "a3": "front"})
    shot(e, "e1", "a1", (1,))
    defend(e, "a2", "cover", 6)
    shot(e, "e1", "a1", (1,))
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="cover", dp=1)
    assert r.rule == "ENG-COVER" and r.code == "cover_used"
    do(e, P1, kind="engagement.defend", combatant="a1", defence="none")
    shot(e, "e2", "a4", (1,))
    defend(e, "a3", "guard", 6)  # a3 guards for a4 (a shot: no engagement)
    shot(e, "e1", "a1", (1,))
    r = refused(e, GM, kind="engagement.defend", combatant="a3", defence="cover", dp=1)
    assert r.rule == "ENG-COVER" and r.code == "guarded_this_turn"


def test_eng_cover_limits_reset_with_the_next_turn() -> None:
    e = engine(rows={"a2": "front"})
    shot(e, "e1", "a1", (1,))
    defend(e, "a2", "cover", 6)
    for _ in range(3):
        do(e, GM, kind="engagement.phase")
    shot(e, "e1", "a1", (1,))
    defend(e, "a2", "cover", 6)
    assert eng(e).used["a2"].cover == 2


def test_eng_cover_success_takes_the_attack_as_a_hit() -> None:
    e = engine(rows={"a2": "front"})
    shot(e, "e1", "a1", (6,), power=7)  # 11
    defend(e, "a2", "cover", 6, 6)  # 3+2+12 = 17
    assert counter(e, "a2", "HP") == 23 and counter(e, "a1", "HP") == 30
    assert partners(e, "a2") == set()  # a shot hands no engagement over


def test_eng_cover_failure_against_melee_leaves_the_target_to_defend() -> None:
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 3, 6, 6, 6)  # 23
    defend(e, "a2", "cover", 1)  # 6
    ex = eng(e).exchange
    assert ex.stage == "defence" and ex.cover_failed and ex.defence is None
    r = refused(e, P1, kind="engagement.defend", combatant="a2", defence="cover", dp=1)
    assert r.rule == "ENG-COVER"
    defend(e, "a1", "evade", 6, 6, 6, 6)  # 29: evaded
    assert eng(e).exchange is None and partners(e, "e1") == {"a1"}


def test_eng_cover_against_an_approach_failing_lets_the_approach_engage() -> None:
    e = engine(rows={"a2": "front"})
    do(e, GM, kind="engagement.approach", combatant="e1", target="a1", dp=3, result=line(6, 6, 6))
    defend(e, "a2", "cover", 1)
    assert partners(e, "e1") == {"a1"} and partners(e, "a2") == set()


def test_eng_cover_against_an_approach_the_target_side_may_let_it_come() -> None:
    e = engine(rows={"a2": "front"})
    do(e, GM, kind="engagement.approach", combatant="e1", target="a1", dp=3, result=line(6, 6, 6))
    r = refused(e, GM, kind="engagement.defend", combatant="a1", defence="evade", dp=1)
    assert r.rule == "ENG-ACT-1"
    do(e, P1, kind="engagement.defend", combatant="a1", defence="none")
    assert partners(e, "e1") == {"a1"}


def test_eng_cover_ties_are_a_setting() -> None:
    """11 against 11: the defender wins by default (the attacker must win to hit); with
    `ties: attacker` the cover fails and the target defends."""
    e = engine(rows={"a2": "front"})
    shot(e, "e1", "a1", (6,))
    defend(e, "a2", "cover", 6)
    assert eng(e).exchange is None and counter(e, "a2", "HP") == 24
    e = engine(rows={"a2": "front"}, settings={"ties": "attacker"})
    shot(e, "e1", "a1", (6,))
    defend(e, "a2", "cover", 6)
    assert eng(e).exchange.cover_failed and counter(e, "a2", "HP") == 30
