"""Invariants of a war under any sequence of actions (hypothesis): strength within
0..max, front ≥ back whenever deployment closes, uses never negative, attack/defence/LP
never negative, strength 0 = routed — after every action, accepted or refused."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mass_kit import GM, War, check_invariants, player

from komasync.engine.core import Engine
from komasync.engine.errors import Refusal
from komasync.engine.scenario import build_room, load_scenario_file
from komasync.engine.tx import Actor

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "mass_combat.yaml"
PCS = {"alice": "p1", "boris": "p2", "kana": "p3", "dean": "p4"}


def _war(seed: str) -> War:
    w = War.__new__(War)
    w.engine = Engine(build_room(load_scenario_file(EXAMPLE), seed))
    w.gm_passes = False  # the GM's empty reaction windows are answered like any prompt
    return w


def _actor(w: War, uid: str) -> Actor:
    p = w.u(uid).player
    return player(p) if p else GM


def _prepare(w: War, picks: list[int]) -> None:
    """Each PC rolls its strength and picks from the data set as far as its limit allows."""
    strategies, formations = sorted(w.m.strategies), sorted(w.m.formations)
    for i, (uid, pid) in enumerate(PCS.items()):
        p = player(pid)
        w.do(p, kind="mass.strength", unit=uid, ability=("魅力", "愛", "ボディ")[picks[i] % 3])
        n = picks[i]
        try:
            w.do(p, kind="mass.pick", unit=uid, skill="知力",
                 formations=[formations[n % 10]],
                 strategies=sorted({strategies[(n // 7) % 25], strategies[(n // 3) % 25]}))
        except Refusal:
            w.do(p, kind="mass.pick", unit=uid, skill="知力", formations=[formations[n % 10]])
    w.next()


def _step(w: War, n: int) -> None:
    """One action chosen by `n`: a prompt answer, a strategy, or the step's own action."""
    m = w.m
    live = [u for u in m.units.values() if not u.routed]
    prompts = w.prompts()
    if prompts:
        p = prompts[n % len(prompts)]
        w.answer(p, p.choices[(n // 7) % len(p.choices)].id)
        return
    u = live[n % len(live)]
    kind = (n // 11) % 10
    if kind == 0:
        w.do(_actor(w, u.id), kind="mass.strategy", unit=u.id,
             strategy=u.strategies[(n // 13) % len(u.strategies)],
             target=live[(n // 17) % len(live)].id,
             formation=u.formations[(n // 19) % len(u.formations)])
    elif m.step == "deployment":
        if kind < 6:
            w.do(_actor(w, u.id), kind="mass.deploy", unit=u.id, row=("front", "back")[n % 2])
        else:
            w.next()
    elif m.step == "tactics":
        if kind < 5:
            w.do(_actor(w, u.id), kind="mass.formation", unit=u.id,
                 formation=u.formations[(n // 23) % len(u.formations)])
        else:
            w.next()
    elif m.step == "battle" and m.current:
        cur = m.units[m.current]
        foes = [x for x in live if x.side != cur.side]
        action = {0: "mass.defend", 1: "mass.reorganize", 2: "mass.delay"}.get(kind % 6,
                                                                              "mass.attack")
        extra = {"target": foes[(n // 29) % len(foes)].id} if action == "mass.attack" else {}
        w.do(_actor(w, cur.id), kind=action, unit=cur.id, **extra)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), picks=st.lists(st.integers(0, 10**6), min_size=4,
                                                  max_size=4),
       moves=st.lists(st.integers(0, 10**6), min_size=1, max_size=150))
def test_mass_invariants_hold_after_every_action(seed: int, picks: list[int],
                                                 moves: list[int]) -> None:
    w = _war(f"prop-{seed}")
    _prepare(w, picks)
    before = w.m.step
    for n in moves:
        if w.m.outcome != "none":
            break
        try:
            _step(w, n)
        except Refusal:
            pass
        check_invariants(w.m, before)
        before = w.m.step
    check_invariants(w.m, before)
