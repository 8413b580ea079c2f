"""A hidden character's attack takes no turn in the scene (issue 26 finding 4, ENG-TURN):
it is resolved in the GM's own slot beside the scene's one attack at a time, so nothing
a player declares waits for it or learns of it; the GM runs it to its end."""

from __future__ import annotations

from eng_kit import GM, P1, counter, do, eng, engine, line, refused

from komasync.engine.core import Engine
from komasync.engine.views import Audience, project


def _hidden(e: Engine, piece: str = "e4", hidden: bool = True) -> None:
    do(e, GM, kind="table.piece.reveal", piece=piece, hidden=hidden)


def _shot(e: Engine, who: str, target: str, power: int, **kw: object) -> None:
    actor = P1 if who in ("a1", "a2") else GM
    fields: dict[str, object] = {"check": 0, "dice": 0, **kw}
    do(e, actor, kind="engagement.shot", combatant=who, target=target, power=power, **fields)


def test_eng_turn_a_hidden_attack_never_makes_a_player_wait() -> None:
    e = engine()
    _hidden(e)
    seq = e.state.meta.seq
    _shot(e, "e4", "e1", 5, dice=1, report_check=True)  # waits for its line
    s = eng(e)
    assert s.exchange is None and s.hidden_exchange is not None
    assert s.hidden_exchange.id == "hx1" and e.state.meta.seq == seq  # numbered apart
    player = project(e.state, Audience("player", "p1"))["engagement"]
    assert "hidden_exchange" not in player and "hidden_seq" not in player
    assert player["exchange"] is None
    # p1 declares as if nothing were open; nothing of the hidden attack answers p1
    _shot(e, "a1", "e1", 2)
    assert eng(e).exchange is not None and eng(e).exchange.stage == "defence"
    assert refused(e, P1, kind="engagement.roll", combatant="a1",
                   result=line(3, sides=6)).code == "no_check_waiting"
    # the GM runs both: the reported line goes to the hidden shot (the only check waiting);
    # 赤鬼 e1, attacked twice, answers the scene's first, then the hidden one
    do(e, GM, kind="engagement.roll", combatant="e4", result=line(4))
    assert eng(e).hidden_exchange.stage == "defence"
    do(e, GM, kind="engagement.defend", combatant="e1", defence="none")
    assert eng(e).exchange is None and counter(e, "e1", "HP") == 30 - 2
    assert refused(e, GM, kind="engagement.phase").code == "exchange_open"  # the GM's to finish
    do(e, GM, kind="engagement.defend", combatant="e1", defence="none")
    assert eng(e).hidden_exchange is None and counter(e, "e1", "HP") == 30 - 2 - 5
    do(e, GM, kind="engagement.phase")


def test_eng_turn_one_hidden_attack_at_a_time_and_the_gm_names_which() -> None:
    e = engine()
    _hidden(e)
    _shot(e, "e4", "e1", 1)
    assert refused(e, GM, kind="engagement.melee", combatant="e4", target="e2",
                   dp=1).code == "exchange_open"
    _shot(e, "e2", "a1", 1)  # the scene's slot is free for the GM's visible enemy
    hidden_id = eng(e).hidden_exchange.id
    assert refused(e, GM, kind="engagement.defend", combatant="e1", defence="none",
                   exchange="x999").code == "nothing_to_answer"
    do(e, GM, kind="engagement.cancel", exchange=hidden_id)
    assert eng(e).hidden_exchange is None and eng(e).exchange is not None
    do(e, GM, kind="engagement.cancel")
    assert eng(e).exchange is None


def test_eng_turn_revealed_mid_attack_the_attack_joins_the_scene() -> None:
    e = engine()
    _hidden(e)
    _shot(e, "e4", "a1", 3)
    _hidden(e, hidden=False)
    s = eng(e)
    assert s.hidden_exchange is None and s.exchange is not None and not s.exchange.hidden
    do(e, P1, kind="engagement.defend", combatant="a1", defence="none")  # now p1's to answer
    assert counter(e, "a1", "HP") == 30 - 3
    # hidden mid-attack, the scene's attack becomes the GM's
    _shot(e, "e4", "a1", 1)
    _hidden(e)
    assert eng(e).exchange is None and eng(e).hidden_exchange is not None
    assert refused(e, P1, kind="engagement.defend", combatant="a1",
                   defence="none").code == "nothing_to_answer"


def test_eng_guard_a_hidden_characters_uses_are_the_gms() -> None:
    e = engine()
    _hidden(e)
    _shot(e, "e1", "e4", 1)
    do(e, GM, kind="engagement.defend", combatant="e4", defence="guard", dp=1, result=line(6))
    assert eng(e).used["e4"].hidden
    assert "e4" not in project(e.state, Audience("player", "p1"))["engagement"]["used"]
    _hidden(e, hidden=False)
    assert "e4" in project(e.state, Audience("player", "p1"))["engagement"]["used"]


def test_eng_hand_1_a_handover_asked_because_of_a_hidden_character_is_the_gms() -> None:
    """e4 (hidden) engages a1, with whom e1 is engaged: e1 is asked whether it leaves — a
    question about e4, so the GM's alone though e1 and a1 are in the scene."""
    e = engine()
    do(e, GM, kind="engagement.link", a="a1", b="e1")
    _hidden(e)
    do(e, GM, kind="engagement.approach", combatant="e4", target="a1", dp=3,
       result=line(6, 6, 6))
    offers = eng(e).offers
    assert len(offers) == 1 and all(o.hidden for o in offers.values())
    player = project(e.state, Audience("player", "p1"))["engagement"]
    assert player["offers"] == {} and "e4" not in str(player)  # (its counters are the kit's)
