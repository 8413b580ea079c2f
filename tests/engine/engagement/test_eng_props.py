"""Property test over random fights (ENG-1, ENG-EF-2, every refusal): after any sequence
of accepted actions the relation is symmetric and well formed, no character meleed twice
in one setup, handover offers match waiting prompts, and every refused declaration has a
reason in both languages with a rule ID."""

from __future__ import annotations

from typing import Any

from eng_kit import ENEMIES, GM, PCS, actor_for, engine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from komasync.engine.core import Engine
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action
from komasync.engine.tx import Actor

IDS = [*PCS, *ENEMIES]
who = st.sampled_from(IDS)
#: Two characters, nearly always different (self-targeting is refused by ENG-1).
duo = st.sampled_from([(a, b) for a in IDS for b in IDS if a != b] + [(a, a) for a in IDS[:2]])
dice = st.lists(st.integers(1, 6), min_size=0, max_size=6)
high = st.lists(st.integers(3, 6), min_size=2, max_size=6)

steps = st.one_of(
    st.tuples(st.just("approach"), duo, high, st.booleans()),
    st.tuples(st.just("melee"), duo, st.sampled_from([1, 3, 6]), st.integers(0, 2),
              st.booleans()),
    st.tuples(st.just("melee_partner"), st.integers(0, 20), st.sampled_from([1, 3, 6]),
              st.integers(0, 2), st.booleans()),
    st.tuples(st.just("melee_partner"), st.integers(0, 20), st.sampled_from([1, 3, 6]),
              st.just(0), st.booleans()),
    st.tuples(st.just("shot"), duo, st.integers(0, 4), st.integers(0, 12)),
    st.tuples(st.just("defend"), who, st.sampled_from(["evade", "guard", "cover", "none"]),
              st.integers(0, 6)),
    st.tuples(st.just("answer_attack"), st.sampled_from(["evade", "guard", "none"]),
              st.integers(0, 4)),
    st.tuples(st.just("roll"), dice),
    st.tuples(st.just("link"), duo, st.booleans()),
    st.tuples(st.just("link"), duo, st.just(True)),
    st.tuples(st.just("row"), who, st.sampled_from(["front", "back"])),
    st.tuples(st.just("phase")),
    st.tuples(st.just("phase")),
    st.tuples(st.just("answer"), st.integers(0, 5), st.sampled_from(["leave", "stay"])),
    st.tuples(st.just("cancel")),
)


def _line(faces: list[int], sides: int) -> str:
    faces = [min(f, sides) for f in faces]
    return f"({len(faces)}D{sides}) ＞ {sum(faces)}[{','.join(map(str, faces))}] ＞ {sum(faces)}"


def _action(e: Engine, step: tuple[Any, ...]) -> tuple[Actor, dict[str, Any]] | None:
    """The action a step makes, sent by the one who controls the character."""
    kind = step[0]
    if kind == "approach":
        _, (a, t), faces, report = step
        action = {"kind": "engagement.approach", "combatant": a, "target": t, "dp": len(faces)}
        if report:
            action["result"] = _line(faces, 6)
        return actor_for(a), action
    if kind == "melee_partner":  # someone engaged melees one of its partners
        pairs = sorted(e.state.engagement.pairs.values(), key=lambda p: (p.a, p.b)) \
            if e.state.engagement else []
        if not pairs:
            return None
        pair = pairs[step[1] % len(pairs)]
        a, t = (pair.a, pair.b) if step[1] % 2 else (pair.b, pair.a)
        step = ("melee", (a, t), *step[2:])
    if kind in ("melee", "melee_partner"):
        _, (a, t), dp, grazes, report = step
        return actor_for(a), {"kind": "engagement.melee", "combatant": a, "target": t, "dp": dp,
                              "grazes": grazes, "report_check": report, "report_damage": report}
    if kind == "shot":
        _, (a, t), n, power = step
        return actor_for(a), {"kind": "engagement.shot", "combatant": a, "target": t, "check": 5,
                              "dice": n, "dp": n, "power": power}
    if kind == "answer_attack":  # the attacked character answers the open attack
        ex = e.state.engagement.exchange if e.state.engagement else None
        if ex is None:
            return None
        step = ("defend", ex.target, *step[1:])
    if kind in ("defend", "answer_attack"):
        _, d, how, dp = step
        return actor_for(d), {"kind": "engagement.defend", "combatant": d, "defence": how, "dp": dp}
    if kind == "roll":
        ex = e.state.engagement.exchange if e.state.engagement else None
        if ex is None or ex.check is None or ex.check.total is not None:
            return None
        faces = ((list(step[1]) or [1]) * 100)[: ex.check.dice]
        return actor_for(ex.check.who), {"kind": "engagement.roll", "combatant": ex.check.who,
                                         "result": _line(faces, ex.check.sides)}
    if kind == "link":
        (a, b), engaged = step[1], step[2]
        return GM, {"kind": "engagement.link", "a": a, "b": b, "engaged": engaged}
    if kind == "row":
        return actor_for(step[1]), {"kind": "engagement.row", "combatant": step[1], "row": step[2]}
    if kind == "phase":
        return GM, {"kind": "engagement.phase"}
    if kind == "answer":
        waiting = sorted(e.state.prompts)
        if not waiting:
            return None
        prompt = e.state.prompts[waiting[step[1] % len(waiting)]]
        actor = GM if prompt.to == "gm" else actor_for(
            next(c for c, p in PCS.items() if f"player:{p}" == prompt.to))
        return actor, {"kind": "answer", "prompt": prompt.id, "choice": step[2]}
    return GM, {"kind": "engagement.cancel"}


def _check_invariants(e: Engine, setup_melees: set[tuple[int, str]]) -> None:
    s = e.state.engagement
    assert s is not None
    for key, pair in s.pairs.items():
        assert pair.a < pair.b and key == f"{pair.a}|{pair.b}"  # ENG-1: one pair, two people
        assert pair.a in s.combatants and pair.b in s.combatants
    for a in s.combatants:
        for b in s.partners(a):
            assert a in s.partners(b)  # ENG-1: mutual
    for pid, offer in s.offers.items():  # ENG-HAND-1: every offer is a waiting prompt
        assert pid in e.state.prompts and s.pair(offer.leaver, offer.partner) is not None
    for pid, prompt in e.state.prompts.items():
        assert prompt.resume != "engagement.handover" or pid in s.offers
    for cid, used in s.used.items():
        if used.setup_melee:
            assert (used.setup_melee, cid) in setup_melees


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, min_size=1, max_size=60),
       st.dictionaries(st.sampled_from(IDS), st.sampled_from(["front", "back"])),
       st.lists(duo, max_size=6))
def test_eng_relation_symmetric_one_setup_melee_and_refusals_name_rules(
        plan: list[tuple[Any, ...]], rows: dict[str, str], before: list[tuple[str, str]]) -> None:
    """`before`: engagements of turn 1; when there are any the plan starts at turn 2's
    setup, else in turn 1's main phase."""
    e = engine(phase="main", rows=rows)
    for a, b in before:
        if a != b:
            e.apply(parse_action({"kind": "engagement.link", "a": a, "b": b}), GM)
    if before:
        for _ in range(2):
            e.apply(parse_action({"kind": "engagement.phase"}), GM)
    setup_melees: set[tuple[int, str]] = set()
    for step in plan:
        made = _action(e, step)
        if made is None:
            continue
        actor, action = made
        s = e.state.engagement
        assert s is not None
        phase, turn = s.phase, s.turn
        try:
            e.apply(parse_action(action), actor)
        except Refusal as r:
            assert r.rule and r.rule.startswith("ENG-"), (action, r.code)
            assert r.ja and r.en
            continue
        if action["kind"] == "engagement.melee" and phase == "setup":
            key = (turn, action["combatant"])
            assert key not in setup_melees  # ENG-EF-2: once per setup
            setup_melees.add(key)
        _check_invariants(e, setup_melees)
