"""What a condition block of the base battle (seed 000 特殊な条件) is made of.

How this works: `tags.parse_condition` turns one block of the seed's notation into a
`Block`: its 【】 tags as fields, at most one `HappeningReq` (what an edge block waits for)
and state `Predicate`s, all AND (BASE-COND-4). `Block.mode` says how the block fires.
This module also holds the small helpers the parser and the rules share: text
normalisation, comparison operators and 味方/敵 → absolute sides. Nothing here reads the
room state; `eval` evaluates what is built from these models.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from ..bounds import Count, Name, Number, OnlyInt, Sentence
from ..titles import shown
from .states import JA_STATUS, CharSide, Side, Status

__all__ = [
    "CHARACTER_KINDS",
    "REPORTABLE",
    "ActiveSpec",
    "Block",
    "CountPred",
    "ElementKind",
    "FiredPred",
    "GpPred",
    "HappeningReq",
    "Mode",
    "Op",
    "Predicate",
    "ReportKind",
    "RoundPred",
    "StatePred",
    "Target",
    "Who",
    "WipedPred",
    "compare",
    "normalize",
    "normalize_attribute",
    "sides_of",
    "uses_relative_sides",
]

Who = Literal["ally", "foe", "pc", "enemy", "any"]
Op = Literal[">=", "<=", "<", ">", "=="]
ElementKind = Literal["gp", "constant", "event"]
Mode = Literal["edge", "level", "active", "manual"]

#: The seed's words for each value the GM may pick (the override editor shows them).
WHO_WORDS = {"ally": ("味方", "ally"), "foe": ("敵", "foe"), "pc": ("PC側", "PCs' side"),
             "enemy": ("敵側", "enemy side"), "any": ("誰でも", "anyone")}
TARGET_SIDE_WORDS = {**WHO_WORDS, "none": ("なし", "none")}
OP_WORDS = {">=": ("以上", "at least"), "<=": ("以下", "at most"), "<": ("未満", "less than"),
            ">": ("より多い", "more than"), "==": ("ちょうど", "exactly")}
STATUS_WORDS = {s.value: (ja, s.value) for s, ja in JA_STATUS.items()}
PRED_WORDS = {"count": ("人数", "count"), "wiped": ("全員戦闘不能", "wiped"), "gp": ("GP", "GP"),
              "state": ("拠点の状態", "base state"), "round": ("ラウンド", "round"),
              "fired": ("イベントの発生", "event fired")}
COUNT_WORDS = {"on_field": ("戦場にいる", "on the field"), "incapacitated": ("戦闘不能", "incapacitated")}
SIGN_WORDS = {"-1": ("減少", "decrease"), "1": ("増加", "increase")}
QUANT_WORDS = {"all": ("すべて", "all"), "any": ("いずれか", "any")}

# character happenings a player, the GM or a bridge may report (BASE-COND-5)
ReportKind = Literal["character.entered", "character.incapacitated", "character.recovered",
                     "character.left", "character.damaged", "timing.abandoned", "mana.spent"]
REPORTABLE: Final[tuple[str, ...]] = get_args(ReportKind)
CHARACTER_KINDS: Final = frozenset(REPORTABLE)

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


class Target(BaseModel):
    """Which bases an effect or a condition names; all fields empty = this base."""

    model_config = ConfigDict(extra="forbid")

    this: StrictBool = Field(default=False, json_schema_extra=shown("この拠点", "this base"))
    name: Name | None = Field(default=None, json_schema_extra=shown(
        "拠点名", "base name", ref="bases.bases", about=("拠点の id か名前", "a base's id or name")))
    side: Literal["ally", "foe", "pc", "enemy", "none", "any"] | None = Field(default=None,
                                                                              json_schema_extra=shown(
        "陣営", "side", words=TARGET_SIDE_WORDS))
    attribute: Name | None = Field(default=None, json_schema_extra=shown("属性", "attribute"))
    without: Name | None = Field(default=None, json_schema_extra=shown("除く属性", "without attribute"))
    others: StrictBool = Field(default=False, json_schema_extra=shown("ほかの拠点", "other bases"))

    @field_validator("attribute", "without")
    @classmethod
    def _attr(cls, value: str | None) -> str | None:
        return None if value is None else normalize_attribute(value)

    @property
    def is_this(self) -> bool:
        return self.this or self == Target()


class HappeningReq(BaseModel):
    """One happening a block waits for (`character.incapacitated`, `round.ended`…)."""

    kind: Name = Field(json_schema_extra=shown("出来事", "happening"))
    who: Who | None = Field(default=None, json_schema_extra=shown("誰の", "whose", words=WHO_WORDS))
    character: Name | None = Field(default=None, json_schema_extra=shown("キャラクター", "character"))
    base: Target | None = Field(default=None, json_schema_extra=shown("拠点", "base"))
    to: Status | None = Field(default=None, json_schema_extra=shown(
        "なった状態", "became", words=STATUS_WORDS))
    came_from: Status | None = Field(default=None, json_schema_extra=shown(
        "元の状態", "came from", words=STATUS_WORDS))
    sign: Annotated[Literal[-1, 1], OnlyInt] | None = Field(default=None, json_schema_extra=shown(
        "増減", "sign", words=SIGN_WORDS))
    op: Op | None = Field(default=None, json_schema_extra=shown("比較", "comparison", words=OP_WORDS))
    n: Number | None = Field(default=None, json_schema_extra=shown("値", "value"))
    name: Name | None = Field(default=None, json_schema_extra=shown("名前", "name"))


class CountPred(BaseModel):
    """Characters of a side on the field (or incapacitated) compared with `n`."""

    kind: Literal["count"] = Field(default="count", json_schema_extra=shown(
        "条件の種類", "kind", words=PRED_WORDS))
    who: Who = Field(json_schema_extra=shown("陣営", "side", words=WHO_WORDS))
    what: Literal["on_field", "incapacitated"] = Field(default="on_field", json_schema_extra=shown(
        "数えるもの", "counts", words=COUNT_WORDS))
    op: Op = Field(json_schema_extra=shown("比較", "comparison", words=OP_WORDS))
    n: Number = Field(json_schema_extra=shown("値", "value"))
    others: StrictBool = Field(default=False, json_schema_extra=shown("自分を除く", "others only"))


class WipedPred(BaseModel):
    """Every character of the side is incapacitated (全員戦闘不能)."""

    kind: Literal["wiped"] = Field(default="wiped", json_schema_extra=shown(
        "条件の種類", "kind", words=PRED_WORDS))
    who: Who = Field(json_schema_extra=shown("陣営", "side", words=WHO_WORDS))


class GpPred(BaseModel):
    kind: Literal["gp"] = Field(default="gp", json_schema_extra=shown(
        "条件の種類", "kind", words=PRED_WORDS))
    base: Target = Field(default_factory=Target, json_schema_extra=shown("拠点", "base"))
    op: Op = Field(json_schema_extra=shown("比較", "comparison", words=OP_WORDS))
    n: Number = Field(json_schema_extra=shown("値", "value"))


class StatePred(BaseModel):
    """Bases are (all / any) in a state; 撃破 counts as 停止 (BASE-ST-4)."""

    kind: Literal["state"] = Field(default="state", json_schema_extra=shown(
        "条件の種類", "kind", words=PRED_WORDS))
    base: Target = Field(json_schema_extra=shown("拠点", "base"))
    state: Status = Field(json_schema_extra=shown("状態", "state", words=STATUS_WORDS))
    quant: Literal["all", "any"] = Field(default="all", json_schema_extra=shown(
        "すべて・いずれか", "all or any", words=QUANT_WORDS))


class RoundPred(BaseModel):
    kind: Literal["round"] = Field(default="round", json_schema_extra=shown(
        "条件の種類", "kind", words=PRED_WORDS))
    op: Op = Field(json_schema_extra=shown("比較", "comparison", words=OP_WORDS))
    n: Number = Field(json_schema_extra=shown("値", "value"))


class FiredPred(BaseModel):
    """An event (by name) has fired `op n` times this battle."""

    kind: Literal["fired"] = Field(default="fired", json_schema_extra=shown(
        "条件の種類", "kind", words=PRED_WORDS))
    name: Name = Field(json_schema_extra=shown("イベント名", "event name"))
    op: Op = Field(json_schema_extra=shown("比較", "comparison", words=OP_WORDS))
    n: Number = Field(json_schema_extra=shown("値", "value"))


Predicate = Annotated[
    CountPred | WipedPred | GpPred | StatePred | RoundPred | FiredPred,
    Field(discriminator="kind"),
]


class ActiveSpec(BaseModel):
    """`【能動誘発】（character/action）` (BASE-COND-3); `timing` set for 宣言(timing)."""

    who: Who | None = Field(default=None, json_schema_extra=shown("誰の", "whose", words=WHO_WORDS))
    character: Name | None = Field(default=None, json_schema_extra=shown("キャラクター", "character"))
    action: Name = Field(json_schema_extra=shown("行動", "action"))
    kind: Name | None = Field(default=None, json_schema_extra=shown("種類", "kind"))
    timing: Name | None = Field(default=None, json_schema_extra=shown("タイミング", "timing"))


class Block(BaseModel):
    """One condition block (AND of everything in it, BASE-COND-4), with its text."""

    text: Sentence = Field(json_schema_extra=shown("条件の文章", "condition text"))
    state: list[Status] = Field(default_factory=list, json_schema_extra=shown(
        "この拠点の状態", "this base's state", words=STATUS_WORDS))
    from_round: Count | None = Field(default=None, json_schema_extra=shown("開始ラウンド", "from round"))
    per_round: Count | None = Field(default=None, json_schema_extra=shown(
        "ラウンドごとの回数", "times per round"))
    becomes: list[Status] = Field(default_factory=list, json_schema_extra=shown(
        "なった状態", "becomes", words=STATUS_WORDS))
    active: ActiveSpec | None = Field(default=None, json_schema_extra=shown("能動誘発", "active trigger"))
    happening: HappeningReq | None = Field(default=None, json_schema_extra=shown("出来事", "happening"))
    predicates: list[Predicate] = Field(default_factory=list, json_schema_extra=shown(
        "状態の条件", "state conditions"))
    always: StrictBool = Field(default=False, json_schema_extra=shown("常時", "always"))
    once: StrictBool = Field(default=False, json_schema_extra=shown("1回のみ", "once"))
    exempt: StrictBool = Field(default=False, json_schema_extra=shown("制限を受けない", "exempt"))
    manual: Sentence | None = Field(default=None, json_schema_extra=shown("GMが判断", "GM judges"))
    defined: list[Name] = Field(default_factory=list, json_schema_extra=shown(
        "定義された条件", "defined conditions"))

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
