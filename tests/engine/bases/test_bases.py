"""The base battle through `Engine.apply`: GP, states, elements, conditions, battle types."""

from __future__ import annotations

import pytest
from test_bases_kit import GM, P1, act, base, effect, element, fired, report, room, rounds

from komasync.engine.bases.model import ConstantEffect, Event, GpCondition
from komasync.engine.bases.states import Status
from komasync.engine.core import Engine
from komasync.engine.errors import Refusal
from komasync.engine.tx import Actor

TWO_SIDES = """
bases:
  - {id: fort, name: 砦, side: pc, gp: 5}
  - {id: gate, name: ゲート, side: enemy, gp: 5}
"""


# -- GP (BASE-GP-1..3) -------------------------------------------------------------------


def test_bases_gp_starts_at_base_gp_without_upper_bound() -> None:
    # BASE-GP-1
    e = room(TWO_SIDES)
    assert (base(e, "fort").gp, base(e, "fort").base_gp) == (5, 5)
    effect(e, "gp", "fort", value=1000)
    assert base(e, "fort").gp == 1005


def test_bases_gp_floor_is_zero_and_zero_destroys() -> None:
    # BASE-GP-2 BASE-GP-3
    e = room(TWO_SIDES)
    out = effect(e, "gp", "fort", value=-99)
    assert base(e, "fort").gp == 0 and base(e, "fort").state is Status.DESTROYED
    changed = [h.data for h in out.happenings if h.kind == "bases.state.changed"]
    assert changed == [{"base": "fort", "old": "active", "new": "destroyed", "via": "destroy"}]
    effect(e, "set_gp", "gate", value=0)
    assert base(e, "gate").state is Status.DESTROYED


def test_bases_destroyed_gains_no_gp_and_only_regenerates() -> None:
    # BASE-ST-4 BASE-TR-3 BASE-TR-1
    e = room(TWO_SIDES)
    effect(e, "gp", "fort", value=-5)
    for do, value in [("gp", 3), ("set_gp", 4), ("excite", None), ("restart", None),
                      ("stop", None)]:
        effect(e, do, "fort", value=value)
        assert (base(e, "fort").gp, base(e, "fort").state) == (0, Status.DESTROYED), do
    effect(e, "regenerate", "fort", value=3, state="excited")
    assert (base(e, "fort").gp, base(e, "fort").state) == (3, Status.EXCITED)
    effect(e, "gp", "gate", value=-5)
    effect(e, "regenerate", "gate")  # no GP named: its 基本GP; no state named: 活動
    assert (base(e, "gate").gp, base(e, "gate").state) == (5, Status.ACTIVE)


def test_bases_state_effects_follow_the_cancel_table() -> None:
    # BASE-ST-1 BASE-ST-2 BASE-ST-3 BASE-TR-2
    e = room(TWO_SIDES)
    assert base(e, "fort").state is Status.ACTIVE  # default 活動
    steps = [("stop", Status.STOPPED), ("excite", Status.ACTIVE), ("excite", Status.EXCITED),
             ("stop", Status.ACTIVE), ("stop", Status.STOPPED), ("restart", Status.ACTIVE),
             ("excite", Status.EXCITED), ("calm", Status.ACTIVE)]
    for do, expected in steps:
        effect(e, do, "fort")
        assert base(e, "fort").state is expected, do


def test_bases_permanent_never_stops_and_counts_from_zero() -> None:
    # BASE-ATTR-3
    e = room("""
        bases:
          - {id: count, name: カウンター, side: none, gp: 0, attributes: [永久拠点]}
    """)
    effect(e, "stop", "count")
    effect(e, "gp", "count", value=-3)
    assert (base(e, "count").gp, base(e, "count").state) == (0, Status.ACTIVE)
    effect(e, "gp", "count", value=2)
    assert base(e, "count").gp == 2


def test_bases_core_and_permanent_warns_the_gm() -> None:
    # BASE-ATTR-3 (core + permanent: allowed, GM warned)
    e = room("""
        bases:
          - {id: x, name: 不滅核, side: enemy, gp: 1, attributes: [core, permanent]}
    """)
    assert e.state.bases is not None and "BASE-ATTR-3" in e.state.bases.notes[0]


# -- elements (BASE-EL-1) -----------------------------------------------------------------

ELEMENTS = """
characters: [{name: アリス, side: pc}, {name: ボブ, side: pc}, {name: カレン, side: pc}]
counts: {enemy: {on_field: 3}}
bases:
  - id: fort
    name: 砦
    side: pc
    gp: 5
    gp_conditions:
      - {condition: 味方が戦闘不能になった時, delta: -1}
      - {condition: はじめて敵が戦闘不能になった時, delta: 2}
    constants:
      - {name: 守り, condition: 常時, effect: 防御+1}
      - {name: 昂揚, condition: 【励起】, effect: 攻撃+1}
    events:
      - {name: 救援, count: 2, condition: 味方が戦闘不能になった時, effect: 救援}
      - {name: 鼓舞, count: ∞, condition: ラウンド開始時, effect: 鼓舞}
"""


def test_bases_gp_change_condition_every_time() -> None:
    # BASE-EL-1: a GP change condition applies every time; はじめて… only once
    e = room(ELEMENTS)
    rounds(e)
    assert fired(report(e, "character.incapacitated", character="アリス")) == ["fort.gp1", "fort.ev1"]
    report(e, "character.incapacitated", character="ボブ")
    assert base(e, "fort").gp == 3
    report(e, "character.incapacitated", side="enemy")
    report(e, "character.incapacitated", side="enemy")
    assert base(e, "fort").gp == 5  # +2 only the first time


def test_bases_event_activation_count() -> None:
    # BASE-EL-1: at most 発動回数 times per battle; ∞ = unlimited
    e = room(ELEMENTS)
    rounds(e, 5)
    ev2 = element(e, "fort.ev2")
    assert isinstance(ev2, Event) and ev2.fired == 5 and ev2.count is None
    for name in ("アリス", "ボブ", "カレン"):  # the last one ends the battle (BASE-TYPE-1)
        report(e, "character.incapacitated", character=name)
    ev = element(e, "fort.ev1")
    assert isinstance(ev, Event) and ev.fired == 2


def test_bases_nothing_fires_before_round_one() -> None:
    # BASE-EL-1 / BASE-COND-5: the roster counts, but nothing fires before round 1
    e = room(ELEMENTS)
    assert fired(report(e, "character.incapacitated", character="アリス")) == []
    assert e.state.bases is not None and e.state.bases.sides["pc"].on_field == 2
    with pytest.raises(Refusal) as err:
        act(e, kind="bases.fire", element="fort.ev1")
    assert err.value.code == "battle_not_running"


def test_bases_repeated_report_counts_once() -> None:
    # BASE-COND-5: the roster keeps counts exact; a repeated report changes nothing
    e = room(ELEMENTS)
    rounds(e)
    report(e, "character.incapacitated", character="アリス")
    out = report(e, "character.incapacitated", character="アリス")
    assert fired(out) == []
    assert e.state.bases is not None
    assert e.state.bases.sides["pc"].model_dump() == {"on_field": 2, "incapacitated": 1}


def test_bases_constant_effects_apply_while_condition_holds() -> None:
    # BASE-EL-1 constant effects; BASE-ST-3 excited used by conditions; BASE-ST-2 void if stopped
    e = room(ELEMENTS)
    rounds(e)
    guard, zeal = element(e, "fort.c1"), element(e, "fort.c2")
    assert isinstance(guard, ConstantEffect) and isinstance(zeal, ConstantEffect)
    assert guard.active and not zeal.active
    effect(e, "excite", "fort")
    assert zeal.active
    effect(e, "calm", "fort")
    assert not zeal.active
    effect(e, "stop", "fort")
    assert not guard.active


# -- stopped / destroyed suppression and exemptions (BASE-ST-2, BASE-ST-4) ---------------

SUPPRESS = """
bases:
  - id: fort
    name: 砦
    side: pc
    gp: 5
    gp_conditions:
      - {condition: ラウンド開始時, delta: 1}
    constants:
      - {name: 停止中の守り, condition: 【停止】, effect: 停止中だけ有効}
      - {name: 残骸, condition: 常時（停止状態でも有効）, effect: 常に有効}
    events:
      - {name: 通常, condition: ラウンド開始時}
      - {name: 残響, condition: 【停止】ラウンド開始時}
      - {name: 遺言, condition: 【撃破】ラウンド開始時}
      - {name: 不屈, condition: ラウンド開始時（停止状態でも発動する）}
"""


@pytest.mark.parametrize(("how", "fires", "constants"), [
    (None, {"fort.gp1", "fort.ev1", "fort.ev4"}, {"fort.c2"}),
    ("stop", {"fort.ev2", "fort.ev4"}, {"fort.c1", "fort.c2"}),
    ("destroy", {"fort.ev2", "fort.ev3", "fort.ev4"}, {"fort.c1", "fort.c2"}),
])
def test_bases_stopped_and_destroyed_suppress(how: str | None, fires: set[str],
                                              constants: set[str]) -> None:
    # BASE-ST-2 BASE-ST-4 (destroyed counts as stopped) BASE-COND-1 【停止】【撃破】 exemptions
    e = room(SUPPRESS)
    if how == "stop":
        effect(e, "stop", "fort")
    elif how == "destroy":
        effect(e, "set_gp", "fort", value=0)
    assert set(fired(rounds(e)[0])) == fires
    active = {c.id for c in base(e, "fort").constants if c.active}
    assert active == constants


# -- 【励起】 only, 【○○化】, per round (BASE-COND-1, BASE-COND-2) -------------------------

EXCITE = """
bases:
  - id: gate
    name: ゲート
    side: enemy
    gp: 10
    events:
      - {name: 暴走, count: 3, condition: 【励起】, effects: [{do: gp, value: 1}]}
      - {name: 覚醒, condition: 【励起化】}
      - {name: 沈黙, condition: 【停止化】}
      - {name: 崩壊, condition: 【撃破化】}
      - {name: 脈動, count: ∞, condition: 【励起】【ラウンド1回】}
"""


def test_bases_excited_only_event_fires_its_count_at_once() -> None:
    # BASE-COND-2: 【励起】 alone fires as many times as the count allows, right away
    e = room(EXCITE)
    rounds(e)
    out = effect(e, "excite", "gate")
    assert fired(out).count("gate.ev1") == 3 and base(e, "gate").gp == 13
    assert fired(out).count("gate.ev2") == 1  # 【励起化】 once per transition
    effect(e, "calm", "gate")
    assert fired(effect(e, "excite", "gate")).count("gate.ev1") == 0  # count used up
    assert fired(effect(e, "calm", "gate")) == []


def test_bases_becomes_fires_once_per_transition() -> None:
    # BASE-COND-1 【○○化】; BASE-ST-4 becoming destroyed is also becoming stopped
    e = room(EXCITE)
    rounds(e)
    assert fired(effect(e, "excite", "gate")).count("gate.ev2") == 1
    assert fired(effect(e, "excite", "gate")).count("gate.ev2") == 0
    out = effect(e, "gp", "gate", value=-100)
    assert {"gate.ev3", "gate.ev4"} <= set(fired(out))


def test_bases_per_round_limit_resets_each_round() -> None:
    # BASE-COND-1 【ラウンドX回】
    e = room(EXCITE)
    rounds(e)
    assert fired(effect(e, "excite", "gate")).count("gate.ev5") == 1
    assert fired(effect(e, "excite", "gate")).count("gate.ev5") == 0
    assert fired(rounds(e)[0]).count("gate.ev5") == 1
    ev = element(e, "gate.ev5")
    assert isinstance(ev, Event) and (ev.fired, ev.fired_round) == (2, 1)


# -- seed examples on the engine (BASE-COND-4) --------------------------------------------

EXAMPLE_1 = ("【励起】【2ラウンド〜】【ラウンド1回】敵が2人以上戦闘空間上に存在し、"
             "味方の誰かが戦闘不能になった時、他の味方が2人以上戦闘空間上に存在する。")


def example_room(condition: str, excited: bool, allies: int, enemies: int) -> Engine:
    names = ", ".join(f"{{name: pc{i}, side: pc}}" for i in range(allies))
    return room(f"""
        characters: [{names}]
        counts: {{enemy: {{on_field: {enemies}}}}}
        bases:
          - id: post
            name: 前哨
            side: pc
            gp: 5
            state: {"excited" if excited else "active"}
            events:
              - name: 例
                count: ∞
                condition: {condition}
    """)


@pytest.mark.parametrize(("rnd", "excited", "allies", "enemies", "fires"), [
    (2, True, 3, 2, True),   # all six requirements hold (2 other allies remain)
    (1, True, 3, 2, False),  # 【2ラウンド〜】
    (2, False, 3, 2, False),  # 【励起】
    (2, True, 3, 1, False),  # 敵が2人以上
    (2, True, 2, 2, False),  # 他の味方が2人以上 (only 1 other remains)
    (3, True, 5, 3, True),
])
def test_bases_seed_example_1_on_the_engine(rnd: int, excited: bool, allies: int,
                                            enemies: int, fires: bool) -> None:
    # BASE-COND-4 example 1: one block, all six requirements (AND)
    e = example_room(EXAMPLE_1, excited, allies, enemies)
    rounds(e, rnd)
    out = report(e, "character.incapacitated", character="pc0")
    assert (fired(out) == ["post.ev1"]) is fires


def test_bases_seed_example_1_once_per_round() -> None:
    # BASE-COND-4 example 1 with 【ラウンド1回】
    e = example_room(EXAMPLE_1, True, 6, 2)
    rounds(e, 2)
    assert fired(report(e, "character.incapacitated", character="pc0")) == ["post.ev1"]
    assert fired(report(e, "character.incapacitated", character="pc1")) == []
    rounds(e)
    assert fired(report(e, "character.incapacitated", character="pc2")) == ["post.ev1"]


def test_bases_seed_example_2_either_block() -> None:
    # BASE-COND-4 example 2: 条件A or 条件B
    condition = ('["【2ラウンド〜】他の味方が2人以上戦闘空間上に存在する状態で、'
                 '味方の誰かが戦闘不能になった時。", '
                 '"【励起】【ラウンド1回】敵が2人以上戦闘空間上に存在するとき。"]')
    e = example_room(condition, False, 4, 1)
    rounds(e, 2)
    # A: round 2, 3 others remain → fires; B cannot (not excited, 1 enemy)
    assert fired(report(e, "character.incapacitated", character="pc0")) == ["post.ev1"]
    assert fired(report(e, "character.incapacitated", character="pc1")) == ["post.ev1"]
    assert fired(report(e, "character.incapacitated", character="pc2")) == []
    rounds(e)
    effect(e, "excite", "post")
    # B: excited, but still one enemy; a second enemy enters → B fires once this round
    out = report(e, "character.entered", character="オーク", side="enemy")
    assert fired(out) == ["post.ev1"]
    assert fired(report(e, "character.entered", side="enemy")) == []
    assert fired(rounds(e)[0]) == ["post.ev1"]


# -- active triggers (BASE-COND-3) ----------------------------------------------------------

ACTIVE = """
characters: [{name: アリス, side: pc, player: p1}, {name: ゴブリン, side: enemy}]
bases:
  - id: stake
    name: 結界杭
    side: pc
    gp: 5
    events:
      - name: 結界強化
        count: 3
        condition: 【能動誘発】（味方キャラクター/発動タイミングを放棄する）
        effect: 結界杭のGP+1（誘発者が宣言）
        effects: [{do: gp, value: 1}, {do: message, text: "{誘発者}が結界を強化した"}]
      - name: 祈り
        count: 2
        condition: 【能動誘発】（味方キャラクター/宣言(ラウンド終了時)）
        effects: [{do: gp, value: 1}]
      - name: 共振
        condition: 味方キャラクターが発動タイミングを放棄した場合
        effects: [{do: gp, value: 10}]
"""


def test_bases_active_trigger_records_triggerer_and_counts_as_plain() -> None:
    # BASE-COND-3: the trigger-er is recorded; the action also satisfies plain conditions
    e = room(ACTIVE)
    rounds(e)
    out = act(e, P1, kind="bases.trigger", event="stake.ev1", character="アリス",
              action="発動タイミングを放棄する")
    assert fired(out) == ["stake.ev1", "stake.ev3"]
    ev = element(e, "stake.ev1")
    assert isinstance(ev, Event) and ev.triggerer == "アリス"
    assert "アリスが結界を強化した" in [line.ja for line in out.log]
    abandoned = [h for h in out.happenings if h.kind == "timing.abandoned"]
    assert abandoned[0].data["purpose"] == "stake.ev1"
    assert base(e, "stake").gp == 16


def test_bases_plain_action_does_not_satisfy_active_trigger() -> None:
    # BASE-COND-3: abandoning a timing for another reason fires only plain conditions
    e = room(ACTIVE)
    rounds(e)
    out = report(e, "timing.abandoned", P1, character="アリス")
    assert fired(out) == ["stake.ev3"]


def test_bases_active_trigger_wrong_doer_refused() -> None:
    # BASE-COND-3: the named character (here: an ally of the base) must do it
    e = room(ACTIVE)
    rounds(e)
    with pytest.raises(Refusal) as err:
        act(e, GM, kind="bases.trigger", event="stake.ev1", character="ゴブリン",
            action="timing.abandoned")
    assert (err.value.code, err.value.rule) == ("wrong_trigger", "BASE-COND-3")
    with pytest.raises(Refusal) as err2:
        act(e, P1, kind="bases.trigger", event="stake.ev3", character="アリス",
            action="timing.abandoned")
    assert err2.value.code == "not_active_trigger"


def test_bases_declaration_is_free_and_repeatable() -> None:
    # BASE-COND-3: 宣言(timing) — declaration alone, any number of times at that timing
    e = room(ACTIVE)
    rounds(e)
    for _ in range(2):
        out = act(e, P1, kind="bases.trigger", event="stake.ev2", character="アリス",
                  action="宣言", timing="ラウンド終了時")
        assert fired(out) == ["stake.ev2"]
    with pytest.raises(Refusal) as err:  # the count (2) is used up
        act(e, P1, kind="bases.trigger", event="stake.ev2", character="アリス",
            action="宣言", timing="ラウンド終了時")
    assert err.value.rule == "BASE-EL-1"
    with pytest.raises(Refusal):  # the wrong timing
        act(e, GM, kind="bases.trigger", event="stake.ev1", character="アリス",
            action="宣言", timing="ラウンド開始時")


# -- manual conditions and GM firing (BASE-COND-5) -------------------------------------------

MANUAL = """
bases:
  - id: gate
    name: ゲート
    side: enemy
    gp: 6
    gp_conditions:
      - {condition: 敵がゲートに封印術を使用した時, delta: -3}
    events:
      - {name: 封鎖, count: 1, condition: 【2ラウンド〜】敵が門を叩いた時}
"""


def test_bases_manual_condition_fired_by_gm() -> None:
    # BASE-COND-5: text outside the vocabulary stays a manual trigger the GM fires
    e = room(MANUAL)
    rounds(e)
    gpc = element(e, "gate.gp1")
    assert isinstance(gpc, GpCondition) and gpc.conditions[0].mode == "manual"
    act(e, kind="bases.fire", element="gate.gp1")
    assert base(e, "gate").gp == 3
    with pytest.raises(Refusal) as err:  # its 【2ラウンド〜】 tag is still checked
        act(e, kind="bases.fire", element="gate.ev1")
    assert err.value.rule == "BASE-COND-4"
    with pytest.raises(Refusal):  # only the GM fires
        act(e, P1, kind="bases.fire", element="gate.gp1")


def test_bases_manual_fire_respects_enforcement_mode() -> None:
    # BASE-COND-5 with enforcement `warn`: applied and flagged
    e = room(MANUAL, enforcement="warn")
    rounds(e)
    out = act(e, kind="bases.fire", element="gate.ev1")
    assert fired(out) == ["gate.ev1"] and out.warnings[0].rule == "BASE-COND-4"


# -- choices (BASE-CHOICE) -------------------------------------------------------------------

CHOICE = """
bases:
  - id: fort
    name: 砦
    side: pc
    gp: 5
    events:
      - name: 補強
        condition: ラウンド開始時
        effect: 味方の拠点1つのGP+2
        effects: [{do: gp, value: 2, target: {side: ally}, choose: 1}]
  - {id: wall, name: 城壁, side: pc, gp: 3}
  - id: gate
    name: ゲート
    side: enemy
    gp: 5
    events:
      - name: 侵食
        condition: ラウンド開始時
        effects: [{do: gp, value: -1, target: {side: foe}, choose: 1}, {do: excite}]
  - {id: tower, name: 塔, side: enemy, gp: 2}
"""


def test_bases_choice_players_for_allied_base_gm_otherwise() -> None:
    # BASE-CHOICE
    e = room(CHOICE)
    rounds(e)
    prompts = {p.to: p for p in e.state.prompts.values()}
    assert set(prompts) == {"players", "gm"}
    assert {c.id for c in prompts["players"].choices} == {"fort", "wall"}
    act(e, P1, kind="answer", prompt=prompts["players"].id, choice="wall")
    assert base(e, "wall").gp == 5
    with pytest.raises(Refusal):  # a player cannot answer the GM's choice
        act(e, P1, kind="answer", prompt=prompts["gm"].id, choice="fort")
    act(e, GM, kind="answer", prompt=prompts["gm"].id, choice="fort")
    assert base(e, "fort").gp == 4
    assert base(e, "gate").state is Status.EXCITED  # the effect after the choice ran too


def test_bases_no_prompt_when_nothing_to_choose() -> None:
    # BASE-CHOICE: one candidate is no choice
    e = room(TWO_SIDES)
    out = act(e, kind="bases.effect", source="fort",
              effect={"do": "gp", "value": 1, "target": {"side": "ally"}, "choose": 1})
    assert not e.state.prompts and base(e, "fort").gp == 6 and out.version == 1


# -- attributes and targets (BASE-ATTR-1) --------------------------------------------------


def test_bases_gm_attributes_and_non_core_allied_targets() -> None:
    # BASE-ATTR-1: GM-defined attributes; "コア拠点以外の味方拠点" as a target
    e = room("""
        type: important
        bases:
          - {id: core, name: 本陣, side: pc, gp: 5, attributes: [コア拠点]}
          - {id: a, name: 砲台, side: pc, gp: 5, attributes: [砲台]}
          - {id: b, name: 櫓, side: pc, gp: 5}
          - {id: ec, name: 敵陣, side: enemy, gp: 5, attributes: [core]}
    """)
    assert base(e, "core").attributes == ["core"] and base(e, "a").attributes == ["砲台"]
    act(e, kind="bases.effect", source="core",
        effect={"do": "gp", "value": -1, "target": {"side": "ally", "without": "コア拠点"}})
    assert [base(e, i).gp for i in ("core", "a", "b", "ec")] == [5, 4, 4, 5]
    act(e, kind="bases.effect", effect={"do": "stop", "target": {"attribute": "砲台"}})
    assert base(e, "a").state is Status.STOPPED


# -- battle types and end conditions (BASE-TYPE-1..5, BASE-ATTR-2) ----------------------------


def battle(kind: str, pc_core: bool, enemy_core: bool) -> Engine:
    return room(f"""
        type: {kind}
        characters: [{{name: アリス, side: pc}}, {{name: ゴブリン, side: enemy}}]
        bases:
          - {{id: home, name: 本陣, side: pc, gp: 3, attributes: {"[core]" if pc_core else "[]"}}}
          - {{id: gate, name: ゲート, side: enemy, gp: 3, attributes: {"[core]" if enemy_core else "[]"}}}
    """)


# type, cores (pc, enemy), what happens, expected losers (None = battle goes on)
END_CASES = [
    ("general", (False, False), "wipe_pc", ["pc"]),  # BASE-TYPE-1 usual end
    ("general", (True, True), "stop_pc_core", ["pc"]),  # BASE-ATTR-2
    ("important", (True, True), "wipe_pc", None),  # BASE-TYPE-2
    ("important", (True, True), "wipe_enemy", None),  # BASE-TYPE-2
    ("important", (True, True), "stop_enemy_core", ["enemy"]),  # BASE-TYPE-2
    ("important_offensive", (False, True), "stop_enemy_core", ["enemy"]),  # BASE-TYPE-3
    ("important_offensive", (False, True), "wipe_pc", ["pc"]),  # BASE-TYPE-3
    ("important_offensive", (False, True), "wipe_enemy", None),  # BASE-TYPE-3
    ("important_defensive", (True, False), "stop_pc_core", ["pc"]),  # BASE-TYPE-4
    ("important_defensive", (True, False), "wipe_enemy", ["enemy"]),  # BASE-TYPE-4
    ("important_defensive", (True, False), "wipe_pc", None),  # BASE-TYPE-4
]


@pytest.mark.parametrize(("kind", "cores", "what", "losers"), END_CASES)
def test_bases_battle_type_end_conditions(kind: str, cores: tuple[bool, bool], what: str,
                                          losers: list[str] | None) -> None:
    # BASE-TYPE-1 BASE-TYPE-2 BASE-TYPE-3 BASE-TYPE-4 BASE-ATTR-2
    e = battle(kind, *cores)
    rounds(e)
    if what.startswith("wipe"):
        name = "アリス" if what == "wipe_pc" else "ゴブリン"
        out = report(e, "character.incapacitated", character=name)
    else:
        out = effect(e, "gp", "home" if what == "stop_pc_core" else "gate", value=-3)
    assert e.state.bases is not None
    outcome = e.state.bases.outcome
    if losers is None:
        assert outcome is None
    else:
        assert outcome is not None and outcome.losers == losers
        ended = [h for h in out.happenings if h.kind == "bases.battle.ended"]
        assert ended and ended[0].data["losers"] == losers


def test_bases_stopped_core_ends_even_when_not_destroyed() -> None:
    # BASE-ATTR-2: all core bases stopped (a stop effect, not GP) ends it
    e = battle("important_offensive", False, True)
    rounds(e)
    effect(e, "stop", "gate")
    assert e.state.bases is not None and e.state.bases.outcome is not None
    assert e.state.bases.outcome.rule == "BASE-TYPE-3"
    with pytest.raises(Refusal) as err:
        rounds(e)
    assert err.value.code == "battle_over"


def test_bases_gm_defined_battle_type() -> None:
    # BASE-TYPE-5: GM-defined end conditions (published), plus a manual end
    e = room("""
        type:
          name: 防衛演習
          text: 砦のGPが10以上になればエネミーの敗北。
          ends:
            - {condition: 拠点「砦」のGPが10以上, losers: [enemy]}
            - {condition: 教官が終了を告げた時, losers: [pc]}
        bases:
          - {id: fort, name: 砦, side: pc, gp: 8}
    """)
    bs = e.state.bases
    assert bs is not None and bs.battle.rule == "BASE-TYPE-5"
    assert bs.battle.ends[1].condition.mode == "manual"
    rounds(e)
    effect(e, "gp", "fort", value=1)
    assert bs.outcome is None
    effect(e, "gp", "fort", value=1)
    assert bs.outcome is not None and bs.outcome.losers == ["enemy"]


def test_bases_gm_ends_battle_by_hand() -> None:
    # BASE-TYPE-5 manual end condition declared by the GM
    e = room(TWO_SIDES)
    rounds(e)
    act(e, kind="bases.end", losers=["pc"], reason="教官が終了を告げた")
    bs = e.state.bases
    assert bs is not None and bs.outcome is not None and bs.outcome.by == "gm"


def test_bases_counts_set_by_gm_or_bridge() -> None:
    # BASE-COND-5: counts of characters on the field, GM-set or bridged
    e = room(TWO_SIDES)
    rounds(e)
    # the table (a bridge naming no one) decides nothing unless the room lets it
    with pytest.raises(Refusal) as err:
        act(e, Actor(role="bridge"), kind="bases.count", side="pc", on_field=0, incapacitated=4)
    assert err.value.code == "uncredited"
    act(e, kind="room.uncredited", mode="gm_side")
    act(e, Actor(role="bridge"), kind="bases.count", side="pc", on_field=0, incapacitated=4)
    bs = e.state.bases
    assert bs is not None and bs.outcome is not None and bs.outcome.losers == ["pc"]
    with pytest.raises(Refusal):
        act(e, P1, kind="bases.count", side="pc", on_field=3)


# -- options (BASE-OPT-1, BASE-OPT-3, BASE-OPT-4) ---------------------------------------------


def test_bases_large_scale_grid() -> None:
    # BASE-OPT-1: the battle grid becomes 5×6, stored for the grid subsystem
    e = room("large_scale: true\nbases: []")
    bs = e.state.bases
    assert bs is not None and bs.large_scale
    assert bs.battle_grid is not None and (bs.battle_grid.width, bs.battle_grid.height) == (5, 6)


def test_bases_defined_condition_used_by_name() -> None:
    # BASE-OPT-3: listed at battle start (public), usable as 【name】
    e = room("""
        defined_conditions:
          孤立: 味方が1人以下戦闘空間上に存在する
        characters: [{name: アリス, side: pc}, {name: ボブ, side: pc}]
        bases:
          - id: fort
            name: 砦
            side: pc
            gp: 5
            events:
              - {name: 孤立無援, count: 1, condition: 【孤立】, effects: [{do: stop}]}
    """)
    bs = e.state.bases
    assert bs is not None and bs.defined["孤立"].text == "味方が1人以下戦闘空間上に存在する"
    rounds(e)
    assert base(e, "fort").state is Status.ACTIVE
    report(e, "character.incapacitated", character="アリス")
    assert base(e, "fort").state is Status.STOPPED


def test_bases_gm_summary() -> None:
    # BASE-OPT-4 GMによる要約: per battle and per base, shown to players
    e = room(TWO_SIDES)
    act(e, kind="bases.summary", text="砦を守れ")
    act(e, kind="bases.summary", base="gate", text="ゲートは毎ラウンド強くなる")
    bs = e.state.bases
    assert bs is not None and bs.summary == "砦を守れ"
    assert base(e, "gate").summary == "ゲートは毎ラウンド強くなる"
    with pytest.raises(Refusal):
        act(e, P1, kind="bases.summary", text="x")


def test_bases_gm_correction_by_override() -> None:
    # BASE-OPT-4 GMによる修正: `override` of a base's gp/state, logged with a reason
    e = battle("important_offensive", False, True)
    rounds(e)
    out = act(e, kind="override", path=["bases", "bases", "gate", "gp"], value=9,
              reason="記述ミスの修正")
    assert base(e, "gate").gp == 9
    assert any("記述ミスの修正" in line.ja for line in out.log)
    with pytest.raises(Refusal) as err:  # BASE-GP-2 holds for overrides too
        act(e, kind="override", path=["bases", "bases", "gate", "gp"], value=-1, reason="x")
    assert (err.value.code, err.value.rule) == ("bad_value", "BASE-GP-2")
    assert base(e, "gate").gp == 9
    # a state override is checked against the end conditions like any change
    act(e, kind="override", path=["bases", "bases", "gate", "state"], value="stopped",
        reason="停止しているものとみなす")
    assert base(e, "gate").state is Status.STOPPED
    assert e.state.bases is not None and e.state.bases.outcome is not None
    assert e.state.bases.outcome.losers == ["enemy"]


def test_bases_report_roles_and_side() -> None:
    # BASE-COND-5: players, the GM and bridges report; an unknown character needs a side.
    # A bridge naming no player is the table: it reports for no PC (issue 13 finding 4).
    e = room(TWO_SIDES)
    with pytest.raises(Refusal) as err:  # the table decides nothing by default
        report(e, "character.damaged", Actor(role="bridge"), character="ゴブリン", side="enemy")
    assert err.value.code == "uncredited"
    act(e, kind="room.uncredited", mode="gm_side")
    report(e, "character.damaged", Actor(role="bridge"), character="ゴブリン", side="enemy")
    with pytest.raises(Refusal) as err:
        report(e, "character.damaged", Actor(role="bridge"), character="アリス", side="pc")
    assert err.value.code == "not_your_character"
    with pytest.raises(Refusal) as err:
        report(e, "character.damaged", Actor(role="bridge"), character="謎")
    assert err.value.code == "unknown_side"
    with pytest.raises(Refusal):
        report(e, "character.damaged", Actor(role="observer"), character="アリス", side="pc")
