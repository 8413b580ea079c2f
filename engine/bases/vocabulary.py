"""The clause vocabulary of the base battle (BASE-COND-5): one table of regex → check.

How this works: `tags` splits a block's text into clauses and asks `match_clause`
for each. `VOCABULARY` is tried in order; the first `Phrase` whose pattern matches the
whole clause and whose builder accepts it gives a `HappeningReq` (edge) or a state
predicate (level). A clause no phrase accepts returns None and makes the block manual.
`{WHO}` in a pattern is a character subject (味方/敵/PC/エネミー/誰か/「名前」, 他の…);
`parse_base` reads base references (この拠点, 拠点「X」, コア拠点以外の味方拠点…).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final, Literal, NamedTuple

from .blocks import (
    CountPred,
    FiredPred,
    GpPred,
    HappeningReq,
    Op,
    RoundPred,
    StatePred,
    Target,
    Who,
    WipedPred,
    normalize,
)
from .states import STATUS_OF_JA, Status

__all__ = [
    "OPS",
    "VOCABULARY",
    "WHO",
    "Builder",
    "Built",
    "Phrase",
    "Quant",
    "action_kind",
    "match_clause",
    "parse_base",
    "who_of",
]

OPS: Final[Mapping[str | None, Op]] = {
    "以上": ">=", "以下": "<=", "未満": "<", "を超える": ">", "より多い": ">", "超": ">",
    "以降": ">=", "以前": "<=", "まで": "<=", None: "==",
}
WHO: Final = (r"(?P<others>他の)?(?:(?P<side>味方|敵|PC|エネミー)(?:陣営)?の?(?:キャラクター)?の?"
              r"(?:誰か|いずれか|1人)?|(?P<anyone>誰か|いずれかのキャラクター|キャラクター)"
              r"|「(?P<char>[^」]+)」)")
_SIDE_WORDS: Final[Mapping[str, Literal["ally", "foe", "pc", "enemy", "none"]]] = {
    "味方": "ally", "敵": "foe", "PC": "pc", "エネミー": "enemy", "中立": "none",
}
_BASE_REF = re.compile(
    r"(?P<q>すべての|全ての|いずれかの)?(?P<others>他の)?"
    r"(?:(?P<side>味方|敵|PC|エネミー|中立)(?:陣営)?の?)?"
    r"(?:(?P<without>コア|永久)拠点以外の|属性「(?P<without_c>[^」]+)」を持たない)?"
    r"(?:(?P<side2>味方|敵|PC|エネミー|中立)(?:陣営)?の?)?"
    r"(?:(?P<attr>コア|永久)|属性「(?P<attr_c>[^」]+)」の)?拠点"
)
Quant = Literal["all", "any"] | None


def parse_base(text: str) -> tuple[Target, Quant] | None:
    """`この拠点`, `拠点「X」`, `コア拠点以外の味方拠点`… → (Target, quantifier)."""
    if text in ("この拠点", "自身", "自拠点", "この拠点自身", ""):
        return Target(this=True), None
    if m := re.fullmatch(r"(?:拠点)?「([^」]+)」", text):
        return Target(name=m[1]), None
    m = _BASE_REF.fullmatch(text)
    if m is None:
        return None
    side = m["side"] or m["side2"]
    without = m["without"] or m["without_c"]
    attribute = m["attr"] or m["attr_c"]
    target = Target(side=_SIDE_WORDS[side] if side else None, others=bool(m["others"]),
                    without=without, attribute=attribute)
    if target.side is None and not target.others:
        target.side = "any"  # bare 拠点 / コア拠点: any base, never "this one"
    quant: Quant = "all" if m["q"] in ("すべての", "全ての") else "any" if m["q"] else None
    return target, quant


def who_of(m: re.Match[str]) -> tuple[Who, str | None]:
    """The subject a `WHO` match names: (side word, one character's name or None)."""
    if m["char"]:
        return "any", m["char"]
    side = m["side"]
    if side:
        who = _SIDE_WORDS[side]
        return ("any" if who == "none" else who), None
    return "any", None


Built = HappeningReq | CountPred | WipedPred | GpPred | StatePred | RoundPred | FiredPred
Builder = Callable[[re.Match[str]], Built | None]


class Phrase(NamedTuple):
    """One vocabulary entry: a clause pattern, what it builds, and an example clause."""

    pattern: re.Pattern[str]
    build: Builder
    example: str


def _character(kind: str) -> Builder:
    def build(m: re.Match[str]) -> Built:
        who, char = who_of(m)
        return HappeningReq(kind=kind, who=who, character=char)
    return build


def _count(what: Literal["on_field", "incapacitated"]) -> Builder:
    def build(m: re.Match[str]) -> Built:
        who, _ = who_of(m)
        n = int(m.groupdict().get("n") or 0)
        op = OPS[m.groupdict().get("op")] if m.groupdict().get("n") else "<="
        return CountPred(who=who, what=what, op=op, n=n, others=bool(m["others"]))
    return build


def _wiped(m: re.Match[str]) -> Built:
    return WipedPred(who=who_of(m)[0])


def _about_base(build: Callable[[re.Match[str], Target, Quant], Built | None]) -> Builder:
    """A builder for a clause naming bases; an unreadable base reference leaves it manual."""
    def wrapped(m: re.Match[str]) -> Built | None:
        ref = parse_base(m["base"] or "")
        return None if ref is None else build(m, *ref)
    return wrapped


@_about_base
def _state_changed(m: re.Match[str], target: Target, quant: Quant) -> Built:
    verb = m["v"]
    to = {"再起動": Status.ACTIVE, "鎮静": Status.ACTIVE, "再生": None}.get(verb, STATUS_OF_JA.get(verb))
    came = {"再起動": Status.STOPPED, "鎮静": Status.EXCITED, "再生": Status.DESTROYED}.get(verb)
    return HappeningReq(kind="bases.state.changed", base=target, to=to, came_from=came)


_SIGN: Final[Mapping[str, Literal[-1, 1]]] = {"減少": -1, "増加": 1}
_QUANT: Final[Mapping[str, Literal["all", "any"]]] = {"すべて": "all", "全て": "all",
                                                      "いずれか": "any"}


@_about_base
def _gp_changed(m: re.Match[str], target: Target, quant: Quant) -> Built:
    if m.groupdict().get("v"):
        return HappeningReq(kind="bases.gp.changed", base=target, sign=_SIGN.get(m["v"]))
    return HappeningReq(kind="bases.gp.changed", base=target, op=OPS[m["op"]], n=int(m["n"]))


@_about_base
def _gp_is(m: re.Match[str], target: Target, quant: Quant) -> Built:
    return GpPred(base=target, op=OPS[m["op"]], n=int(m["n"]))


@_about_base
def _state_is(m: re.Match[str], target: Target, quant: Quant) -> Built | None:
    single = target.is_this or target.name is not None
    quant = quant or _QUANT.get(m["q"] or "") or ("all" if single else None)
    if quant is None:
        return None  # "味方拠点が停止" — all of them or any? the GM decides (manual)
    return StatePred(base=target, state=STATUS_OF_JA[m["st"]], quant=quant)


def _phrase(pattern: str, build: Builder, example: str) -> Phrase:
    return Phrase(re.compile(pattern.replace("{WHO}", WHO)), build, example)


VOCABULARY: Final[tuple[Phrase, ...]] = (
    # happenings (edge: the block fires when one is reported)
    _phrase(r"{WHO}が戦闘不能(?:状態)?にな(?:った|る)", _character("character.incapacitated"),
            "味方の誰かが戦闘不能になった時"),
    _phrase(r"{WHO}が戦闘不能(?:状態)?から(?:回復|復帰)(?:した|する)",
            _character("character.recovered"), "敵が戦闘不能から回復した時"),
    _phrase(r"{WHO}が(?:戦闘空間(?:上)?に)?(?:登場|出現|参加|進入)(?:した|する)",
            _character("character.entered"), "敵が戦闘空間に登場した時"),
    _phrase(r"{WHO}が戦闘空間から(?:離脱|退場|脱出)(?:した|する)",
            _character("character.left"), "味方が戦闘空間から離脱した時"),
    _phrase(r"{WHO}がダメージを受け(?:た|る)", _character("character.damaged"),
            "味方がダメージを受けたとき"),
    _phrase(r"{WHO}が(?:発動)?タイミングを放棄(?:した|する)", _character("timing.abandoned"),
            "味方キャラクターが発動タイミングを放棄した場合"),
    _phrase(r"{WHO}がマナを消費(?:した|する)", _character("mana.spent"),
            "敵がマナを消費した時"),
    _phrase(r"(?:各|毎)?ラウンド(?:の)?開始", lambda m: HappeningReq(kind="round.started"),
            "ラウンド開始時"),
    _phrase(r"(?:各|毎)?ラウンド(?:の)?終了", lambda m: HappeningReq(kind="round.ended"),
            "ラウンド終了時"),
    _phrase(r"戦闘(?:の)?開始", lambda m: HappeningReq(kind="battle.started"), "戦闘開始時"),
    _phrase(r"(?P<base>.+?)が(?P<v>停止|励起|撃破|再起動|鎮静|再生)"
            r"(?:した|された|する|される|状態にな(?:った|る))", _state_changed,
            "コア拠点以外の味方拠点が撃破された時"),
    _phrase(r"(?:(?P<base>.+?)の)?GPが(?P<v>減少|増加|変化)(?:した|する)", _gp_changed,
            "拠点「砦」のGPが減少した時"),
    _phrase(r"(?:(?P<base>.+?)の)?GPが(?P<n>\d+)(?P<op>以上|以下|未満)?にな(?:った|る)",
            _gp_changed, "この拠点のGPが5以下になった時"),
    _phrase(r"イベント「(?P<name>[^」]+)」が発動(?:した|する)",
            lambda m: HappeningReq(kind="bases.event.fired", name=m["name"]),
            "イベント「増援」が発動した時"),
    # state predicates (level: hold or not at any moment)
    _phrase(r"{WHO}が(?P<n>\d+)人(?P<op>以上|以下|未満)が?戦闘空間(?:上)?に(?:存在|い)"
            r"(?:する|し|る|て)?", _count("on_field"), "敵が2人以上戦闘空間上に存在し"),
    _phrase(r"戦闘空間(?:上)?に{WHO}が(?P<n>\d+)人(?P<op>以上|以下|未満)(?:存在|い)(?:する|し|る)?",
            _count("on_field"), "戦闘空間上に味方が3人以上存在する"),
    _phrase(r"{WHO}が戦闘空間(?:上)?に(?:存在しない|いない|1人もいない)", _count("on_field"),
            "敵が戦闘空間上に存在しない"),
    _phrase(r"{WHO}が(?P<n>\d+)人(?P<op>以上|以下|未満)戦闘不能(?:状態)?(?:であ(?:る|り))?",
            _count("incapacitated"), "味方が2人以上戦闘不能である"),
    _phrase(r"{WHO}(?:が)?(?:全員|すべて|全て)(?:が)?戦闘不能(?:状態)?"
            r"(?:にな(?:った|る)|であ(?:る|り))?", _wiped, "PC陣営のキャラクター全員が戦闘不能"),
    _phrase(r"(?:(?P<base>.+?)の)?GPが(?P<n>\d+)(?P<op>以上|以下|未満|を超える|より多い|超)",
            _gp_is, "この拠点のGPが10以上"),
    _phrase(r"(?P<base>.+?)が(?P<q>すべて|全て|いずれか)?(?P<st>活動|停止|励起|撃破)(?:状態)?(?:中)?"
            r"(?:であ(?:る|り))?", _state_is, "敵のコア拠点がすべて停止状態である"),
    _phrase(r"(?P<n>\d+)ラウンド目(?P<op>以降|以前|まで)?",
            lambda m: RoundPred(op=OPS[m["op"]], n=int(m["n"])), "3ラウンド目以降"),
    _phrase(r"イベント「(?P<name>[^」]+)」が(?P<n>\d+)回(?P<op>以上|以下|未満)発動(?:している|した)?",
            lambda m: FiredPred(name=m["name"], op=OPS[m["op"]], n=int(m["n"])),
            "イベント「結界」が2回以上発動している"),
)


def match_clause(clause: str) -> Built | None:
    """What one clause means by the first phrase that accepts it, or None (manual)."""
    for phrase in VOCABULARY:
        m = phrase.pattern.fullmatch(clause)
        if m is not None and (built := phrase.build(m)) is not None:
            return built
    return None


_ACTION_KINDS: Final = (
    (re.compile(r"(?:発動)?タイミングを放棄"), "timing.abandoned"),
    (re.compile(r"マナを消費"), "mana.spent"),
    (re.compile(r"ダメージを受け"), "character.damaged"),
)


def action_kind(text: str) -> str | None:
    """The happening an active-trigger action amounts to (`発動タイミングを放棄する` …)."""
    text = normalize(text)
    return next((kind for pattern, kind in _ACTION_KINDS if pattern.search(text)), None)
