"""The relation itself: mutual, many partners (ENG-1); how it forms (ENG-IN-1); the
handover offers whenever a pair forms (ENG-HAND-1)."""

from __future__ import annotations

from eng_kit import (
    GM,
    P1,
    P2,
    answer,
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
    prompts_for,
    refused,
)

from komasync.engine.engagement import pair_key


def test_eng_1_engagement_is_mutual_and_a_character_may_have_several_partners() -> None:
    e = engine()
    link(e, "a1", "e1")
    link(e, "e2", "a1")
    assert partners(e, "a1") == {"e1", "e2"}
    assert partners(e, "e1") == {"a1"} and partners(e, "e2") == {"a1"}
    link(e, "e1", "a1")  # the same pair from the other side: still one pair
    assert sorted(eng(e).pairs) == [pair_key("a1", "e1"), pair_key("a1", "e2")]
    assert pair_key("a1", "e1") == pair_key("e1", "a1")


def test_eng_1_nobody_is_engaged_with_itself() -> None:
    e = engine()
    assert refused(e, GM, kind="engagement.link", a="a1", b="a1").rule == "ENG-1"
    r = refused(e, P1, kind="engagement.approach", combatant="a1", target="a1", dp=2)
    assert r.rule == "ENG-1" and r.ja and r.en


def test_eng_in_1_a_successful_approach_engages_approacher_and_target() -> None:
    e = engine()
    approach(e, "a1", "e1", 6, 6, 6)  # 3+2+18 = 23 ≥ 3+max(2,1)+15 = 20
    pair = eng(e).pair("a1", "e1")
    assert pair is not None and pair.how == "approach" and pair.turn == 1
    assert eng(e).exchange is None


def test_eng_in_1_a_failed_approach_engages_nobody() -> None:
    e = engine()
    approach(e, "a1", "e1", 1, 1, 1)  # 8 < 20
    assert partners(e, "a1") == set() and eng(e).exchange is None


def test_eng_in_1_a_cover_against_an_approach_engages_the_coverer_instead() -> None:
    e = engine(rows={"a2": "front"})
    approach(e, "e1", "a1", 6, 6, 6)
    ex = eng(e).exchange  # a2 could cover: the table waits for it, a1 decides
    assert ex.stage == "cover" and ex.awaiting is not None
    assert (ex.awaiting.what, ex.awaiting.who, ex.awaiting.decides) == ("cover", ["a2"], "a1")
    defend(e, "a2", "cover", 6, 6, 6, 6)  # 3+2+24 = 29 ≥ 23
    assert partners(e, "e1") == {"a2"} and partners(e, "a1") == set()
    assert eng(e).pair("a2", "e1").how == "cover"


def test_eng_in_1_a_guard_for_another_against_melee_engages_the_guard() -> None:
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 3, 3, 3, 3)  # 3+2+9 = 14
    defend(e, "a2", "guard", 6, 6)  # 3+2+12 = 17 ≥ 14
    assert partners(e, "e1") == {"a2"} and partners(e, "a1") == set()
    assert eng(e).pair("a2", "e1").how == "guard"
    assert eng(e).left[pair_key("a1", "e1")].by == "guard"


def test_eng_in_1_an_ability_engages_and_a_player_uses_it_for_their_own_character() -> None:
    e = engine()
    do(e, P1, kind="engagement.link", a="a1", b="e3", note="[引き寄せ]")
    pair = eng(e).pair("a1", "e3")
    assert pair.how == "ability" and pair.note == "[引き寄せ]"
    r = refused(e, P1, kind="engagement.link", a="a3", b="e1")  # a3 is p2's
    assert r.rule == "ENG-IN-1"


# -- ENG-HAND-1 ----------------------------------------------------------------------------


def test_eng_hand_1_a_b_forms_with_c_already_on_b_offers_c_the_leave() -> None:
    """A=a1 approaches B=e1 while C=a3 (A's ally) is engaged with e1: C's player is asked."""
    e = engine()
    link(e, "a3", "e1")
    approach(e, "a1", "e1", 6, 6, 6)
    asked = prompts_for(e, "player:p2")
    assert len(asked) == 1 and "ENG-HAND-1" in asked[0].en
    assert [c.id for c in asked[0].choices] == ["leave", "stay"]
    offer = eng(e).offers[asked[0].id]
    assert (offer.leaver, offer.partner, offer.formed) == ("a3", "e1", pair_key("a1", "e1"))
    answer(e, P2, asked[0].id, "leave")
    assert partners(e, "e1") == {"a1"} and not eng(e).offers
    # leaving removes that pair from the next setup's targets
    next_phase(e, 2)
    r = refused(e, GM, kind="engagement.melee", combatant="e1", target="a3", dp=1)
    assert r.rule == "ENG-HAND-1" and r.code == "left"
    melee(e, "e1", "a1", 1, 6)  # the new partner is still a target
    assert eng(e).exchange is not None


def test_eng_hand_1_d_already_on_a_is_offered_too_and_npcs_are_asked_through_the_gm() -> None:
    """A=a1 and B=e1 engage while D=e2 (B's ally) is engaged with A: the GM is asked for D."""
    e = engine()
    link(e, "e2", "a1")
    link(e, "a1", "e1")
    asked = prompts_for(e, "gm")
    assert len(asked) == 1
    offer = eng(e).offers[asked[0].id]
    assert (offer.leaver, offer.partner) == ("e2", "a1")
    answer(e, GM, asked[0].id, "stay")
    assert partners(e, "a1") == {"e1", "e2"} and not eng(e).offers and not e.state.prompts


def test_eng_hand_1_offers_go_to_every_ally_engaged_and_never_to_others() -> None:
    e = engine()
    link(e, "a3", "e1")
    link(e, "a4", "e1")
    link(e, "e3", "e1")  # the same side as e1: not a1's ally, not asked
    approach(e, "a1", "e1", 6, 6, 6)
    leavers = sorted(o.leaver for o in eng(e).offers.values())
    assert leavers == ["a3", "a4"]
    a3 = next(p for p in prompts_for(e, "player:p2") if eng(e).offers[p.id].leaver == "a3")
    r = refused(e, P1, kind="answer", prompt=a3.id, choice="leave")  # not p1's character
    assert r.code == "unknown_prompt"  # p1 is not even told it exists


def test_eng_hand_1_during_setup_a_guard_transfer_offers_the_leave() -> None:
    """Turn 1: e1 engaged with a1 and a3. Turn 2's setup: e1 melees a1, a2 guards → a2↔e1
    forms during the setup; a3 (a2's ally on e1) is offered the leave right then."""
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    link(e, "a3", "e1")
    for p in list(e.state.prompts):
        answer(e, GM, p, "stay")
    next_phase(e, 2)
    assert eng(e).phase == "setup" and eng(e).turn == 2
    melee(e, "e1", "a1", 3, 2, 2, 2)  # 3+2+6 = 11
    defend(e, "a2", "guard", 6)  # 3+2+6 = 11 ≥ 11: ties go to the defender
    asked = prompts_for(e, "player:p2")
    assert len(asked) == 1 and eng(e).offers[asked[0].id].leaver == "a3"
    answer(e, P2, asked[0].id, "leave")
    assert partners(e, "e1") == {"a2"}


def test_eng_hand_1_an_unanswered_offer_is_withdrawn_when_its_pair_ends_with_the_setup() -> None:
    e = engine()
    link(e, "a3", "e1")
    approach(e, "a1", "e1", 6, 6, 6)
    assert eng(e).offers
    next_phase(e, 3)  # cleanup, setup of turn 2, then main: the end of that setup
    assert not eng(e).offers and not e.state.prompts and not eng(e).pairs


def test_eng_in_1_a_cover_against_melee_hands_the_engagement_and_the_hit_over() -> None:
    """A cover against melee on a1: a1 leaves, the coverer is engaged and takes the damage."""
    e = engine(rows={"a2": "front"})
    link(e, "a1", "e1")
    melee(e, "e1", "a1", 3, 3, 3, 3)
    defend(e, "a2", "cover", 6, 6, 6)
    assert partners(e, "e1") == {"a2"}
    damage(e, "e1", 4)  # 3+2+4 = 9 to a2
    assert e.state.table.counters["a2_HP"].value == 21
    assert e.state.table.counters["a1_HP"].value == 30


def test_eng_1_warn_mode_flags_rules_but_never_pairs_a_character_with_itself() -> None:
    e = engine()
    do(e, GM, kind="room.enforcement", mode="warn")
    out = do(e, P1, kind="engagement.melee", combatant="a1", target="e1", dp=1, result="(1D6) ＞ 6")
    assert [w.rule for w in out.warnings] == ["ENG-EF-1"]  # applied, and flagged to the GM
    do(e, GM, kind="engagement.cancel")
    assert refused(e, P1, kind="engagement.approach", combatant="a1", target="a1", dp=1).rule == "ENG-1"
    assert all(p.a != p.b for p in eng(e).pairs.values())
