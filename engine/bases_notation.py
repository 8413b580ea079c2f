"""Condition notation of the base battle (seed 000 特殊な条件), parsed into exact checks.

How this works: `parse_condition` takes ONE condition block as the seed writes it, e.g.
`【励起】【2ラウンド〜】【ラウンド1回】味方が戦闘不能になった時`. It pulls out the 【】 tags
(BASE-COND-1, and defined conditions by name, BASE-OPT-3), splits the remaining text into
clauses at 、 and 。, and matches each clause against `VOCABULARY` — a table of regex →
happening or state predicate (BASE-COND-5). Everything in one block must hold (AND,
BASE-COND-4); an element's several blocks are OR. If any clause is not in the vocabulary
the block is MANUAL: its tags are still checked, but the GM judges the text and fires it.
Nothing here reads the room state; `bases_rules` evaluates what this module builds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Final, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .bases_states import Side, Status

__all__ = [
    "VOCABULARY",
    "ActiveSpec",
    "Block",
    "CountPred",
    "FiredPred",
    "GpPred",
    "HappeningReq",
    "Phrase",
    "Predicate",
    "RoundPred",
    "StatePred",
    "Target",
    "WipedPred",
    "action_kind",
    "compare",
    "normalize",
    "normalize_attribute",
    "parse_condition",
    "parse_defined",
    "sides_of",
    "uses_relative_sides",
]

Who = Literal["ally", "foe", "pc", "enemy", "any"]
Op = Literal[">=", "<=", "<", ">", "=="]
ElementKind = Literal["gp", "constant", "event"]
Mode = Literal["edge", "level", "active", "manual"]
CharSide = Literal["pc", "enemy"]

ATTRIBUTE_ALIASES: Final[Mapping[str, str]] = {
    "コア": "core", "コア拠点": "core", "core": "core",
    "永久": "permanent", "永久拠点": "permanent", "permanent": "permanent",
}


def normalize_attribute(name: str) -> str:
    """`コア拠点` → `core`, `永久拠点` → `permanent`; GM-defined names stay (BASE-ATTR-1)."""
    return ATTRIBUTE_ALIASES.get(name.strip(), name.strip())


def normalize(text: str) -> str:
    """NFKC (full-width digits, （）, ／), one wave dash `~`, no whitespace."""
    text = unicodedata.normalize("NFKC", text).replace("〜", "~")
    return re.sub(r"\s+", "", text)


# -- what a block is made of ------------------------------------------------------------


class Target(BaseModel):
    """Which bases an effect or a condition names; all fields empty = this base."""

    model_config = ConfigDict(extra="forbid")

    this: bool = False
    name: str | None = None
    side: Literal["ally", "foe", "pc", "enemy", "none", "any"] | None = None
    attribute: str | None = None
    without: str | None = None
    others: bool = False

    @field_validator("attribute", "without")
    @classmethod
    def _attr(cls, value: str | None) -> str | None:
        return None if value is None else normalize_attribute(value)

    @property
    def is_this(self) -> bool:
        return self.this or self == Target()


class HappeningReq(BaseModel):
    """One happening a block waits for (`character.incapacitated`, `round.ended`…)."""

    kind: str
    who: Who | None = None
    character: str | None = None
    base: Target | None = None
    to: Status | None = None
    came_from: Status | None = None
    sign: Literal[-1, 1] | None = None
    op: Op | None = None
    n: int | None = None
    name: str | None = None


class CountPred(BaseModel):
    """Characters of a side on the field (or incapacitated) compared with `n`."""

    kind: Literal["count"] = "count"
    who: Who
    what: Literal["on_field", "incapacitated"] = "on_field"
    op: Op
    n: int
    others: bool = False


class WipedPred(BaseModel):
    """Every character of the side is incapacitated (全員戦闘不能)."""

    kind: Literal["wiped"] = "wiped"
    who: Who


class GpPred(BaseModel):
    kind: Literal["gp"] = "gp"
    base: Target = Field(default_factory=Target)
    op: Op
    n: int


class StatePred(BaseModel):
    """Bases are (all / any) in a state; 撃破 counts as 停止 (BASE-ST-4)."""

    kind: Literal["state"] = "state"
    base: Target
    state: Status
    quant: Literal["all", "any"] = "all"


class RoundPred(BaseModel):
    kind: Literal["round"] = "round"
    op: Op
    n: int


class FiredPred(BaseModel):
    """An event (by name) has fired `op n` times this battle."""

    kind: Literal["fired"] = "fired"
    name: str
    op: Op
    n: int


Predicate = Annotated[
    CountPred | WipedPred | GpPred | StatePred | RoundPred | FiredPred,
    Field(discriminator="kind"),
]


class ActiveSpec(BaseModel):
    """`【能動誘発】（character/action）` (BASE-COND-3); `timing` set for 宣言(timing)."""

    who: Who | None = None
    character: str | None = None
    action: str
    kind: str | None = None
    timing: str | None = None


class Block(BaseModel):
    """One condition block (AND of everything in it, BASE-COND-4), with its text."""

    text: str
    state: list[Status] = Field(default_factory=list)
    from_round: int | None = None
    per_round: int | None = None
    becomes: list[Status] = Field(default_factory=list)
    active: ActiveSpec | None = None
    happening: HappeningReq | None = None
    predicates: list[Predicate] = Field(default_factory=list)
    always: bool = False
    once: bool = False
    exempt: bool = False
    manual: str | None = None
    defined: list[str] = Field(default_factory=list)

    @property
    def mode(self) -> Mode:
        """active: `bases.trigger`; manual: GM `bases.fire`; edge: a happening; level: a state."""
        if self.active is not None:
            return "active"
        if self.manual is not None:
            return "manual"
        if self.happening is not None or self.becomes:
            return "edge"
        return "level"


# -- small shared helpers ----------------------------------------------------------------

OPS: Final[Mapping[str | None, Op]] = {
    "以上": ">=", "以下": "<=", "未満": "<", "を超える": ">", "より多い": ">", "超": ">",
    "以降": ">=", "以前": "<=", "まで": "<=", None: "==",
}
_CMP: Final[Mapping[Op, Callable[[int, int], bool]]] = {
    ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "==": lambda a, b: a == b,
}


def compare(op: Op, value: int, n: int) -> bool:
    return _CMP[op](value, n)


def sides_of(who: Who, side: Side) -> tuple[CharSide, ...]:
    """Absolute character sides meant by `who`, seen from a base of `side`."""
    if who == "any":
        return ("pc", "enemy")
    if who in ("pc", "enemy"):
        return (who,)
    if side == "none":
        return ()
    other: CharSide = "enemy" if side == "pc" else "pc"
    return (side,) if who == "ally" else (other,)


def _targets(block: Block) -> Iterator[Target]:
    if block.happening is not None and block.happening.base is not None:
        yield block.happening.base
    for pred in block.predicates:
        if isinstance(pred, GpPred | StatePred):
            yield pred.base


def uses_relative_sides(block: Block) -> bool:
    """Whether the block says 味方/敵 (meaningless for a base of side `none`)."""
    whos: list[str | None] = [block.happening.who if block.happening else None,
                              block.active.who if block.active else None]
    whos += [p.who for p in block.predicates if isinstance(p, CountPred | WipedPred)]
    whos += [t.side for t in _targets(block)]
    return any(w in ("ally", "foe") for w in whos)


# -- the vocabulary (BASE-COND-5) ---------------------------------------------------------

_WHO = (r"(?P<others>他の)?(?:(?P<side>味方|敵|PC|エネミー)(?:陣営)?の?(?:キャラクター)?の?"
        r"(?:誰か|いずれか|1人)?|(?P<anyone>誰か|いずれかのキャラクター|キャラクター)"
        r"|「(?P<char>[^」]+)」)")
_SIDE_WORDS: Final[Mapping[str, Literal["ally", "foe", "pc", "enemy", "none"]]] = {
    "味方": "ally", "敵": "foe", "PC": "pc", "エネミー": "enemy", "中立": "none",
}
_JA_STATUS: Final[Mapping[str, Status]] = {
    "活動": Status.ACTIVE, "停止": Status.STOPPED, "励起": Status.EXCITED,
    "撃破": Status.DESTROYED,
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


def _who(m: re.Match[str]) -> tuple[Who, str | None]:
    if m["char"]:
        return "any", m["char"]
    side = m["side"]
    if side:
        who = _SIDE_WORDS[side]
        return ("any" if who == "none" else who), None
    return "any", None


Built = HappeningReq | CountPred | WipedPred | GpPred | StatePred | RoundPred | FiredPred


class Phrase(NamedTuple):
    """One vocabulary entry: a clause pattern, what it builds, and an example clause."""

    pattern: re.Pattern[str]
    build: Callable[[re.Match[str]], Built | None]
    example: str


def _character(kind: str) -> Callable[[re.Match[str]], Built | None]:
    def build(m: re.Match[str]) -> Built:
        who, char = _who(m)
        return HappeningReq(kind=kind, who=who, character=char)
    return build


def _count(what: Literal["on_field", "incapacitated"]) -> Callable[[re.Match[str]], Built | None]:
    def build(m: re.Match[str]) -> Built:
        who, _ = _who(m)
        n = int(m.groupdict().get("n") or 0)
        op = OPS[m.groupdict().get("op")] if m.groupdict().get("n") else "<="
        return CountPred(who=who, what=what, op=op, n=n, others=bool(m["others"]))
    return build


def _wiped(m: re.Match[str]) -> Built:
    return WipedPred(who=_who(m)[0])


def _state_changed(m: re.Match[str]) -> Built | None:
    ref = parse_base(m["base"])
    if ref is None:
        return None
    verb = m["v"]
    to = {"再起動": Status.ACTIVE, "鎮静": Status.ACTIVE, "再生": None}.get(verb, _JA_STATUS.get(verb))
    came = {"再起動": Status.STOPPED, "鎮静": Status.EXCITED, "再生": Status.DESTROYED}.get(verb)
    return HappeningReq(kind="bases.state.changed", base=ref[0], to=to, came_from=came)


_SIGN: Final[Mapping[str, Literal[-1, 1]]] = {"減少": -1, "増加": 1}
_QUANT: Final[Mapping[str, Literal["all", "any"]]] = {"すべて": "all", "全て": "all",
                                                      "いずれか": "any"}


def _gp_changed(m: re.Match[str]) -> Built | None:
    ref = parse_base(m["base"] or "")
    if ref is None:
        return None
    if m.groupdict().get("v"):
        return HappeningReq(kind="bases.gp.changed", base=ref[0], sign=_SIGN.get(m["v"]))
    return HappeningReq(kind="bases.gp.changed", base=ref[0], op=OPS[m["op"]], n=int(m["n"]))


def _gp_is(m: re.Match[str]) -> Built | None:
    ref = parse_base(m["base"] or "")
    return None if ref is None else GpPred(base=ref[0], op=OPS[m["op"]], n=int(m["n"]))


def _state_is(m: re.Match[str]) -> Built | None:
    ref = parse_base(m["base"])
    if ref is None:
        return None
    target, quant = ref
    single = target.is_this or target.name is not None
    quant = quant or _QUANT.get(m["q"] or "") or ("all" if single else None)
    if quant is None:
        return None  # "味方拠点が停止" — all of them or any? the GM decides (manual)
    return StatePred(base=target, state=_JA_STATUS[m["st"]], quant=quant)


def _phrase(pattern: str, build: Callable[[re.Match[str]], Built | None], example: str) -> Phrase:
    return Phrase(re.compile(pattern.replace("{WHO}", _WHO)), build, example)


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

_ACTION_KINDS: Final = (
    (re.compile(r"(?:発動)?タイミングを放棄"), "timing.abandoned"),
    (re.compile(r"マナを消費"), "mana.spent"),
    (re.compile(r"ダメージを受け"), "character.damaged"),
)


def action_kind(text: str) -> str | None:
    """The happening an active-trigger action amounts to (`発動タイミングを放棄する` …)."""
    text = normalize(text)
    return next((kind for pattern, kind in _ACTION_KINDS if pattern.search(text)), None)


def _match(clause: str) -> Built | None:
    for phrase in VOCABULARY:
        m = phrase.pattern.fullmatch(clause)
        if m is not None and (built := phrase.build(m)) is not None:
            return built
    return None


# -- tags (BASE-COND-1) -----------------------------------------------------------------

_TAG = re.compile(r"【([^】]*)】")
_EXEMPT = re.compile(r"[(]?停止状態でも(?:発動する|発動|有効である|有効)[)]?")
_ONCE = re.compile(r"^(?:はじめて|初めて|最初に)")
_END = re.compile(r"(?:とき|時|場合|際|瞬間|状態で|状態であり|状態である|状態であること|であり"
                  r"|である|であること|こと)(?:に|は)?$")
_PREFIX = re.compile(r"^条件[A-Za-z0-9]*:")


def _state_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    block.state.append(_JA_STATUS[m[1]])


def _round_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    block.from_round = max(block.from_round or 0, int(m[1]))


def _per_round_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    n = int(m[1])
    block.per_round = n if block.per_round is None else min(block.per_round, n)


def _becomes_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    block.becomes.append(_JA_STATUS[m[1]])


def _active_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    if arg is None:
        raise ValueError("【能動誘発】には（キャラクター/行動）が必要です / "
                         "【能動誘発】 needs (character/action)")
    if block.active is not None:
        raise ValueError("1つの条件に【能動誘発】は1つまでです / one 【能動誘発】 per condition")
    block.active = _parse_active(arg)


TagRule = tuple[re.Pattern[str], bool, Callable[[Block, re.Match[str], str | None], None]]
TAGS: Final[tuple[TagRule, ...]] = (  # pattern, events only?, handler
    (re.compile(r"(励起|停止|撃破)"), False, _state_tag),
    (re.compile(r"(\d+)ラウンド~?(?:以降)?"), False, _round_tag),
    (re.compile(r"ラウンド(\d+)回"), True, _per_round_tag),
    (re.compile(r"(励起|停止|撃破)化"), True, _becomes_tag),
    (re.compile(r"能動誘発"), True, _active_tag),
)


def _parens(text: str, i: int) -> tuple[str, int]:
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j], j + 1
    raise ValueError("【能動誘発】の（）が閉じていません / unclosed ( after 【能動誘発】")


def _split_tags(text: str) -> tuple[list[tuple[str, str | None]], str]:
    tags: list[tuple[str, str | None]] = []
    rest: list[str] = []
    i = 0
    while (m := _TAG.search(text, i)) is not None:
        rest.append(text[i:m.start()])
        i, arg = m.end(), None
        if m[1] == "能動誘発" and text.startswith("(", i):
            arg, i = _parens(text, i)
        tags.append((m[1], arg))
    rest.append(text[i:])
    return tags, "".join(rest)


def _parse_active(arg: str) -> ActiveSpec:
    who_text, sep, action = arg.partition("/")
    if not sep or not action:
        raise ValueError("【能動誘発】は（キャラクター/行動）と書きます / "
                         "write 【能動誘発】(character/action)")
    spec = ActiveSpec(action=action)
    if (m := re.fullmatch(_WHO, who_text)) is not None:
        spec.who, spec.character = _who(m)
    else:
        spec.character = who_text.strip("「」")
    if (d := re.fullmatch(r"宣言\((.*)\)", action)) is not None:
        spec.timing = d[1]
    else:
        spec.kind = action_kind(action)
    return spec


def _merge(block: Block, name: str, other: Block) -> None:
    """AND a defined condition (BASE-OPT-3) into `block`."""
    block.state += other.state
    block.becomes += other.becomes
    block.predicates += other.predicates
    block.defined += [*other.defined, name]
    if other.from_round is not None:
        block.from_round = max(block.from_round or 0, other.from_round)
    if other.per_round is not None:
        block.per_round = min(block.per_round or other.per_round, other.per_round)
    if other.active is not None:
        if block.active is not None:
            raise ValueError(f"【{name}】: 【能動誘発】が重複しています / two 【能動誘発】")
        block.active = other.active
    if other.happening is not None:
        if block.happening is not None:
            block.manual = " ".join(filter(None, [block.manual, other.text]))
        block.happening = other.happening
    if other.manual is not None:
        block.manual = " ".join(filter(None, [block.manual, other.manual]))
    block.always |= other.always
    block.once |= other.once
    block.exempt |= other.exempt


def _apply_tag(block: Block, name: str, arg: str | None, defined: Mapping[str, Block]) -> None:
    for pattern, _, handler in TAGS:
        if (m := pattern.fullmatch(name)) is not None:
            handler(block, m, arg)
            return
    if name in defined:
        _merge(block, name, defined[name])
        return
    raise ValueError(f"【{name}】は特殊な条件でも定義された条件でもありません / "
                     f"【{name}】 is neither a special condition nor a defined condition")


def _clauses(block: Block, rest: str, kind: ElementKind) -> None:
    if _EXEMPT.search(rest):
        block.exempt = True
        rest = _EXEMPT.sub("", rest)
    unmatched = False
    for raw in filter(None, re.split(r"[、。,]|かつ", rest)):
        clause = _ONCE.sub("", raw)
        block.once |= clause != raw
        if clause == "常時":
            block.always = True
            continue
        built = _match(_END.sub("", clause))
        if isinstance(built, HappeningReq):
            if block.happening is not None or block.becomes or kind == "constant":
                built = None  # two happenings at once, or a constant waiting for one
            else:
                block.happening = built
                continue
        if built is None:
            unmatched = True
        else:
            block.predicates.append(built)
    if unmatched:
        block.manual = rest.strip("、。")


def parse_condition(text: str, kind: ElementKind = "event",
                    defined: Mapping[str, Block] | None = None) -> Block:
    """One condition block in the seed's notation → `Block` (raises ValueError if malformed)."""
    norm = _PREFIX.sub("", normalize(text))
    block = Block(text=text.strip())
    tags, rest = _split_tags(norm)
    for name, arg in tags:
        _apply_tag(block, name, arg, defined or {})
    _clauses(block, rest, kind)
    if kind != "event" and (block.per_round or block.becomes or block.active):
        raise ValueError("【ラウンドX回】【○○化】【能動誘発】はイベントにのみ使えます / "
                         "【ラウンドX回】, 【○○化】 and 【能動誘発】 are for events only")
    return block


def parse_defined(texts: Mapping[str, str]) -> dict[str, Block]:
    """Defined conditions (BASE-OPT-3), in order; each may use the ones before it."""
    blocks: dict[str, Block] = {}
    for name, text in texts.items():
        try:
            blocks[name] = parse_condition(text, "event", blocks)
        except ValueError as e:
            raise ValueError(f"定義された条件【{name}】: {e}") from None
    return blocks
