"""Condition notation (seed 000 特殊な条件): tags, vocabulary, seed examples 1 and 2."""

from __future__ import annotations

import pytest

from komasync.engine.bases.blocks import CountPred, HappeningReq, StatePred, Target
from komasync.engine.bases.states import Status
from komasync.engine.bases.tags import parse_condition, parse_defined
from komasync.engine.bases.vocabulary import VOCABULARY

EXAMPLE_1 = ("条件：【励起】【2ラウンド〜】【ラウンド1回】敵が2人以上戦闘空間上に存在し、"
             "味方の誰かが戦闘不能になった時、他の味方が2人以上戦闘空間上に存在する。")
EXAMPLE_2A = ("条件A：【2ラウンド〜】他の味方が2人以上戦闘空間上に存在する状態で、"
              "味方の誰かが戦闘不能になった時。")
EXAMPLE_2B = "条件B：【励起】【ラウンド1回】敵が2人以上戦闘空間上に存在するとき。"


def test_bases_seed_example_1_is_one_block_of_six() -> None:
    # BASE-COND-4 (example 1): six requirements, one AND block
    b = parse_condition(EXAMPLE_1)
    assert b.mode == "edge" and b.manual is None
    assert b.state == [Status.EXCITED]  # 【励起】
    assert b.from_round == 2  # 【2ラウンド〜】
    assert b.per_round == 1  # 【ラウンド1回】
    assert b.happening == HappeningReq(kind="character.incapacitated", who="ally")
    assert b.predicates == [
        CountPred(who="foe", op=">=", n=2),
        CountPred(who="ally", op=">=", n=2, others=True),
    ]


def test_bases_seed_example_2_is_two_blocks() -> None:
    # BASE-COND-4 (example 2): 条件A / 条件B are separate blocks (OR)
    a, b = parse_condition(EXAMPLE_2A), parse_condition(EXAMPLE_2B)
    assert a.mode == "edge" and a.from_round == 2 and not a.state and a.per_round is None
    assert a.happening == HappeningReq(kind="character.incapacitated", who="ally")
    assert a.predicates == [CountPred(who="ally", op=">=", n=2, others=True)]
    assert b.mode == "level" and b.state == [Status.EXCITED] and b.per_round == 1
    assert b.predicates == [CountPred(who="foe", op=">=", n=2)]


@pytest.mark.parametrize("phrase", VOCABULARY, ids=[p.example for p in VOCABULARY])
def test_bases_vocabulary_examples_parse(phrase: object) -> None:
    # BASE-COND-5: every vocabulary entry's own example is understood, not manual
    b = parse_condition(phrase.example)  # type: ignore[attr-defined]
    assert b.manual is None, b
    assert b.mode in ("edge", "level")


# tag → (field, value) — BASE-COND-1
TAGS = [
    ("【励起】", "state", [Status.EXCITED]),
    ("【停止】", "state", [Status.STOPPED]),
    ("【撃破】", "state", [Status.DESTROYED]),
    ("【3ラウンド〜】", "from_round", 3),
    ("【３ラウンド～】", "from_round", 3),  # full-width digits and wave dash
    ("【ラウンド2回】", "per_round", 2),
    ("【励起化】", "becomes", [Status.EXCITED]),
    ("【停止化】", "becomes", [Status.STOPPED]),
    ("【撃破化】", "becomes", [Status.DESTROYED]),
]


@pytest.mark.parametrize(("text", "field", "value"), TAGS)
def test_bases_tags(text: str, field: str, value: object) -> None:
    # BASE-COND-1
    assert getattr(parse_condition(text), field) == value


def test_bases_tag_exemptions_and_becomes_mode() -> None:
    # BASE-COND-1 【停止】 exempts; 【励起化】 waits for the transition (edge)
    assert parse_condition("【励起化】").mode == "edge"
    assert parse_condition("【励起】").mode == "level"  # BASE-COND-2
    assert parse_condition("味方がダメージを受けた時（停止状態でも発動する）").exempt


def test_bases_active_trigger_notation() -> None:
    # BASE-COND-3: 【能動誘発】（character/action）, and 宣言(timing)
    b = parse_condition("【能動誘発】（味方キャラクター/発動タイミングを放棄する）")
    assert b.mode == "active" and b.active is not None
    assert (b.active.who, b.active.kind, b.active.timing) == ("ally", "timing.abandoned", None)
    d = parse_condition("【能動誘発】（「アリス」/宣言（ラウンド終了時））")
    assert d.active is not None
    assert (d.active.character, d.active.timing) == ("アリス", "ラウンド終了時")


def test_bases_unknown_text_stays_manual() -> None:
    # BASE-COND-5: what the vocabulary cannot read is the GM's to fire, tags still kept
    b = parse_condition("【励起】敵がゲートに封印術を使用した時")
    assert b.mode == "manual" and b.state == [Status.EXCITED]
    assert b.manual == "敵がゲートに封印術を使用した時"


def test_bases_base_references() -> None:
    # BASE-ATTR-1: conditions refer to bases by attribute ("non-core allied bases")
    b = parse_condition("コア拠点以外の味方拠点が撃破された時")
    assert b.happening is not None
    assert b.happening.base == Target(side="ally", without="core")
    assert b.happening.to is Status.DESTROYED
    s = parse_condition("敵のコア拠点がすべて停止状態である")
    assert s.predicates == [StatePred(base=Target(side="foe", attribute="core"),
                                      state=Status.STOPPED, quant="all")]
    # neither すべて nor いずれか for several bases: the GM decides
    assert parse_condition("味方拠点が停止状態である").mode == "manual"


@pytest.mark.parametrize("text", ["【ラウンド1回】常時", "【励起化】",
                                  "【能動誘発】（味方/宣言(ラウンド開始時)）"])
def test_bases_event_only_tags_refused_elsewhere(text: str) -> None:
    # BASE-COND-1: 【ラウンドX回】【○○化】【能動誘発】 exist for events only
    with pytest.raises(ValueError, match="events only"):
        parse_condition(text, "constant")
    parse_condition(text, "event")


def test_bases_constant_waiting_for_happening_is_manual() -> None:
    # BASE-EL-1: a constant effect's condition is a state; a happening cannot be one
    assert parse_condition("味方がダメージを受けた時", "constant").mode == "manual"
    assert parse_condition("常時", "constant").always


def test_bases_defined_conditions_by_name() -> None:
    # BASE-OPT-3: named conditions used as 【name】, AND-merged, may build on each other
    defined = parse_defined({"孤立": "味方が1人以下戦闘空間上に存在する",
                             "窮地": "【孤立】【2ラウンド〜】"})
    b = parse_condition("【窮地】【ラウンド1回】味方がダメージを受けた時", "event", defined)
    assert b.defined == ["孤立", "窮地"]
    assert b.from_round == 2 and b.per_round == 1
    assert b.predicates == [CountPred(who="ally", op="<=", n=1)]
    with pytest.raises(ValueError, match="【未定義】"):
        parse_condition("【未定義】", "event", defined)


def test_bases_zero_per_round_limit_is_refused_at_load() -> None:  # BASE-COND-1
    import pytest

    from komasync.engine.bases.tags import parse_condition

    with pytest.raises(ValueError, match="1以上"):
        parse_condition("【ラウンド0回】ラウンド開始時", "event")
