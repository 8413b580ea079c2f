"""Permissions over the turn: melee in the main phase while engaged (ENG-EF-1), one setup
melee (ENG-EF-2), the end of the next setup and rows (ENG-EF-3), setup-time changes
(ENG-SETUP), and komasync's turn structure (ENG-TURN)."""

from __future__ import annotations

from eng_kit import (
    GM,
    P1,
    approach,
    damage,
    defend,
    do,
    eng,
    engine,
    link,
    melee,
    next_phase,
    partners,
    refused,
)

from komasync.engine.core import Engine


def _finish_melee(e: Engine, attacker: str, target: str) -> None:
    """Let the open melee hit and report its damage."""
    defend(e, target, "none")
    damage(e, attacker, 1)


def test_eng_ef_1_engaged_characters_melee_in_the_main_phase_whatever_their_rows() -> None:
    e = engine()  # everyone in the back row
    link(e, "a1", "e1")
    melee(e, "a1", "e1", 1, 6)
    assert eng(e).exchange.attack == "melee"
    _finish_melee(e, "a1", "e1")
    melee(e, "e1", "a1", 1, 6)  # the partner may melee back


def test_eng_ef_1_approach_then_melee_in_the_same_main_phase() -> None:
    e = engine()
    approach(e, "a1", "e1", 6, 6, 6)
    melee(e, "a1", "e1", 3, 4, 4, 4)
    assert eng(e).exchange.stage == "defence"


def test_eng_ef_1_no_melee_without_engagement_or_in_the_cleanup() -> None:
    e = engine()
    r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=3)
    assert r.rule == "ENG-EF-1" and r.code == "not_engaged"
    link(e, "a1", "e1")
    next_phase(e)
    assert eng(e).phase == "cleanup"
    assert refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=3).rule == "ENG-EF-1"


def test_eng_ef_2_a_setup_melee_against_last_turns_partner_leaves_the_main_action() -> None:
    e = engine()
    approach(e, "a1", "e1", 6, 6, 6)
    next_phase(e, 2)
    assert (eng(e).turn, eng(e).phase) == (2, "setup")
    melee(e, "a1", "e1", 3, 6, 6, 6)
    _finish_melee(e, "a1", "e1")
    assert eng(e).used["a1"].setup_melee == 2
    next_phase(e)  # the setup ends: the engagement with it
    assert partners(e, "a1") == set()
    approach(e, "a1", "e2", 6, 6, 6)  # the main-phase action is still there
    assert partners(e, "a1") == {"e2"}


def test_eng_ef_2_one_setup_melee_however_many_partners() -> None:
    e = engine()
    link(e, "a1", "e1")
    link(e, "a1", "e2")
    next_phase(e, 2)
    melee(e, "a1", "e1", 1, 1)
    _finish_melee(e, "a1", "e1")
    r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e2", dp=1)
    assert r.rule == "ENG-EF-2" and r.code == "setup_melee_used"
    melee(e, "e2", "a1", 1, 1)  # each character has its own
    _finish_melee(e, "e2", "a1")
    melee(e, "e1", "a1", 1, 1)


def test_eng_ef_2_no_setup_melee_without_an_engagement() -> None:
    e = engine()
    next_phase(e, 2)
    r = refused(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=1)
    assert r.rule == "ENG-EF-2" and r.code == "not_engaged_setup"


def test_eng_ef_3_engagements_end_at_the_end_of_the_next_setup_across_two_turns() -> None:
    e = engine()
    approach(e, "a1", "e1", 6, 6, 6)  # turn 1, main
    next_phase(e)  # cleanup
    assert partners(e, "a1") == {"e1"}
    next_phase(e)  # turn 2 setup: still engaged
    assert partners(e, "a1") == {"e1"}
    next_phase(e)  # turn 2 main: dissolved
    assert partners(e, "a1") == set()
    approach(e, "a1", "e1", 6, 6, 6)  # turn 2, main: engaged again
    next_phase(e, 2)  # turn 3 setup
    assert partners(e, "a1") == {"e1"} and eng(e).pair("a1", "e1").turn == 2
    next_phase(e)
    assert not eng(e).pairs


def test_eng_ef_3_moving_between_rows_keeps_the_engagement_and_the_setup_melee() -> None:
    e = engine(rows={"a1": "front", "e1": "front"})
    link(e, "a1", "e1")
    do(e, P1, kind="engagement.row", combatant="a1", row="back")
    do(e, GM, kind="engagement.row", combatant="e1", row="back")
    assert partners(e, "a1") == {"e1"} and eng(e).combatants["a1"].row == "back"
    next_phase(e, 2)
    melee(e, "e1", "a1", 1, 1)  # both have moved back: the setup melee is still allowed


def test_eng_ef_3_an_engagement_dissolved_by_an_ability_allows_no_setup_melee() -> None:
    e = engine()
    link(e, "a1", "e1")
    next_phase(e, 2)
    do(e, GM, kind="engagement.link", a="e1", b="a1", engaged=False, note="[瞬間移動]")
    r = refused(e, GM, kind="engagement.melee", combatant="e1", target="a1", dp=1)
    assert r.rule == "ENG-EF-2"
    assert refused(e, GM, kind="engagement.link", a="e1", b="a1", engaged=False).rule == "ENG-EF-3"


def test_eng_setup_a_guard_at_the_setup_counts_like_an_approach_this_turn() -> None:
    """Turn 2 setup: e1 melees a1 (engaged in turn 1), a2 guards for a1 and wins: a2↔e1
    is this turn's engagement — main-phase melee both ways, setup melee at turn 3."""
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    next_phase(e, 2)
    melee(e, "e1", "a1", 3, 1, 1, 1)  # 8
    defend(e, "a2", "guard", 6)  # 11
    pair = eng(e).pair("a2", "e1")
    assert pair.turn == 2 and pair.phase == "setup" and partners(e, "a1") == set()
    r = refused(e, P1, kind="engagement.melee", combatant="a2", target="e1", dp=1)
    assert r.rule == "ENG-SETUP"  # not in the same setup: from the main phase on
    next_phase(e)  # the end of this setup does not end it
    assert partners(e, "e1") == {"a2"}
    melee(e, "a2", "e1", 1, 6)
    _finish_melee(e, "a2", "e1")
    melee(e, "e1", "a2", 1, 6)
    _finish_melee(e, "e1", "a2")
    next_phase(e, 2)  # turn 3 setup
    melee(e, "e1", "a2", 1, 6)


def test_eng_setup_a_cover_at_the_setup_counts_like_an_approach_this_turn() -> None:
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    next_phase(e, 2)
    melee(e, "e1", "a1", 3, 1, 1, 1)
    defend(e, "a2", "cover", 6, 6)
    damage(e, "e1", 2)
    assert eng(e).pair("a2", "e1").turn == 2
    next_phase(e)
    assert partners(e, "e1") == {"a2"}
    melee(e, "e1", "a2", 1, 6)


def test_eng_setup_setting_any_allows_the_melee_in_the_same_setup() -> None:
    e = engine(rows={"a2": "front"}, settings={"setup_targets": "any"})
    link(e, "a1", "e1")
    next_phase(e, 2)
    melee(e, "e1", "a1", 3, 1, 1, 1)
    defend(e, "a2", "guard", 6)
    melee(e, "a2", "e1", 1, 6)
    assert eng(e).used["a2"].setup_melee == 2


def test_eng_turn_phases_cycle_and_wait_for_an_open_attack() -> None:
    e = engine(start=False)
    assert refused(e, GM, kind="engagement.phase").rule == "ENG-TURN"
    do(e, GM, kind="engagement.start")
    assert refused(e, GM, kind="engagement.start").rule == "ENG-TURN"
    assert (eng(e).turn, eng(e).phase) == (1, "setup")
    r = refused(e, GM, kind="engagement.phase", to="cleanup")
    assert r.rule == "ENG-TURN" and r.code == "wrong_phase"
    do(e, GM, kind="engagement.phase", to="main")
    link(e, "a1", "e1")
    melee(e, "a1", "e1", 1, 6)
    r = refused(e, GM, kind="engagement.phase")
    assert r.rule == "ENG-TURN" and r.code == "exchange_open"
    r = refused(e, GM, kind="engagement.approach", combatant="e2", target="a2", dp=1)
    assert r.rule == "ENG-TURN" and r.code == "exchange_open"
    do(e, GM, kind="engagement.cancel")
    next_phase(e, 2)
    assert (eng(e).turn, eng(e).phase) == (2, "setup")
    do(e, GM, kind="engagement.end")
    assert not eng(e).active and not eng(e).pairs


def test_eng_turn_players_declare_only_for_their_own_characters() -> None:
    e = engine()
    r = refused(e, P1, kind="engagement.approach", combatant="a3", target="e1", dp=1)
    assert r.code == "not_your_character"
    r = refused(e, P1, kind="engagement.approach", combatant="e1", target="a1", dp=1)
    assert r.code == "not_your_character"
    r = refused(e, P1, kind="engagement.phase")
    assert r.code == "forbidden_role"
