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
from .states import CharSide, Side, Status

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

    this: StrictBool = False
    name: Name | None = None
    side: Literal["ally", "foe", "pc", "enemy", "none", "any"] | None = None
    attribute: Name | None = None
    without: Name | None = None
    others: StrictBool = False

    @field_validator("attribute", "without")
    @classmethod
    def _attr(cls, value: str | None) -> str | None:
        return None if value is None else normalize_attribute(value)

    @property
    def is_this(self) -> bool:
        return self.this or self == Target()


class HappeningReq(BaseModel):
    """One happening a block waits for (`character.incapacitated`, `round.ended`…)."""

    kind: Name
    who: Who | None = None
    character: Name | None = None
    base: Target | None = None
    to: Status | None = None
    came_from: Status | None = None
    sign: Annotated[Literal[-1, 1], OnlyInt] | None = None
    op: Op | None = None
    n: Number | None = None
    name: Name | None = None


class CountPred(BaseModel):
    """Characters of a side on the field (or incapacitated) compared with `n`."""

    kind: Literal["count"] = "count"
    who: Who
    what: Literal["on_field", "incapacitated"] = "on_field"
    op: Op
    n: Number
    others: StrictBool = False


class WipedPred(BaseModel):
    """Every character of the side is incapacitated (全員戦闘不能)."""

    kind: Literal["wiped"] = "wiped"
    who: Who


class GpPred(BaseModel):
    kind: Literal["gp"] = "gp"
    base: Target = Field(default_factory=Target)
    op: Op
    n: Number


class StatePred(BaseModel):
    """Bases are (all / any) in a state; 撃破 counts as 停止 (BASE-ST-4)."""

    kind: Literal["state"] = "state"
    base: Target
    state: Status
    quant: Literal["all", "any"] = "all"


class RoundPred(BaseModel):
    kind: Literal["round"] = "round"
    op: Op
    n: Number


class FiredPred(BaseModel):
    """An event (by name) has fired `op n` times this battle."""

    kind: Literal["fired"] = "fired"
    name: Name
    op: Op
    n: Number


Predicate = Annotated[
    CountPred | WipedPred | GpPred | StatePred | RoundPred | FiredPred,
    Field(discriminator="kind"),
]


class ActiveSpec(BaseModel):
    """`【能動誘発】（character/action）` (BASE-COND-3); `timing` set for 宣言(timing)."""

    who: Who | None = None
    character: Name | None = None
    action: Name
    kind: Name | None = None
    timing: Name | None = None


class Block(BaseModel):
    """One condition block (AND of everything in it, BASE-COND-4), with its text."""

    text: Sentence
    state: list[Status] = Field(default_factory=list)
    from_round: Count | None = None
    per_round: Count | None = None
    becomes: list[Status] = Field(default_factory=list)
    active: ActiveSpec | None = None
    happening: HappeningReq | None = None
    predicates: list[Predicate] = Field(default_factory=list)
    always: StrictBool = False
    once: StrictBool = False
    exempt: StrictBool = False
    manual: Sentence | None = None
    defined: list[Name] = Field(default_factory=list)

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
