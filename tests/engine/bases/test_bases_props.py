"""Properties of random play: GP ≥ 0, destroyed only regenerates, permanent never stops."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bases_kit import GM, act, room

from komasync.engine.bases.states import Status
from komasync.engine.core import Engine
from komasync.engine.errors import Refusal

SCENARIO = """
characters: [{name: アリス, side: pc}, {name: ゴブリン, side: enemy}]
bases:
  - id: n
    name: 砦
    side: pc
    gp: 5
    events:
      - {name: 暴走, count: 2, condition: 【励起】, effects: [{do: gp, value: -2}]}
      - {name: 反動, condition: 【停止化】, effects: [{do: excite, target: {name: p}}]}
  - id: p
    name: カウンター
    side: pc
    gp: 0
    attributes: [永久拠点]
    gp_conditions:
      - {condition: 拠点「砦」が撃破された時, delta: -1}
    events:
      - {name: 連動, count: 3, condition: 【励起化】, effects: [{do: stop, target: {name: c}}]}
  - id: c
    name: ゲート
    side: enemy
    gp: 4
    attributes: [コア拠点]
    gp_conditions:
      - {condition: ラウンド終了時, delta: 1}
"""
MOVES = ["gp", "set_gp", "stop", "excite", "calm", "restart", "regenerate"]
STEP = st.tuples(st.sampled_from(["n", "p", "c"]), st.sampled_from([*MOVES, "round"]),
                 st.integers(min_value=-8, max_value=8))


def snapshot(engine: Engine) -> dict[str, tuple[int, Status]]:
    assert engine.state.bases is not None
    return {b.id: (b.gp, b.state) for b in engine.state.bases.bases.values()}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(STEP, max_size=25))
def test_bases_random_play_keeps_the_invariants(steps: list[tuple[str, str, int]]) -> None:
    # BASE-GP-2 (GP ≥ 0), BASE-ST-4 / BASE-TR-3 (destroyed changes only by 再生),
    # BASE-ATTR-3 (a permanent base is never stopped or destroyed), BASE-TR-1
    e = room(SCENARIO)
    act(e, GM, kind="bases.round")
    for target, do, value in steps:
        before = snapshot(e)
        try:
            if do == "round":
                act(e, GM, kind="bases.round")
            else:
                effect = {"do": do, "target": {"name": target},
                          "value": abs(value) if do in ("set_gp", "regenerate") else value}
                act(e, GM, kind="bases.effect", effect=effect)
        except Refusal as refusal:
            assert refusal.code == "battle_over"
            continue
        after = snapshot(e)
        for base_id, (gp, state) in after.items():
            assert gp >= 0
            if base_id == "p":
                assert state not in (Status.STOPPED, Status.DESTROYED)
            if before[base_id][1] is Status.DESTROYED and not (do == "regenerate"
                                                               and target == base_id):
                assert (gp, state) == before[base_id]
