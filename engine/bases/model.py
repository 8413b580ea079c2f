"""State models of the base battle (seed 000): bases, elements, effects, battle types.

Secrets (BASE-OPT-2) live here, as `visible_to` / `redact` / `__secret__` on the
entities, so the per-audience views drop them before anything reaches a player or the
table: a hidden base is invisible, a hidden GP loses `gp`/`base_gp`, a hidden element
part loses its fields, and a wholly hidden element disappears from its list.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, model_validator

from ..bounds import MAX_NUMBER, Count, Id, Name, Number, Paragraph, Sentence
from ..titles import shown
from ..views import Audience, Entity
from .blocks import STATUS_WORDS, Block, Target
from .states import JA_STATUS, CharSide, Side, Status

__all__ = [
    "BATTLE_TYPES",
    "PARTS",
    "Base",
    "BasesState",
    "BattleOutcome",
    "BattleType",
    "ConstantEffect",
    "DefinedCondition",
    "Effect",
    "Element",
    "EndCondition",
    "Event",
    "FieldCharacter",
    "GpCondition",
    "GridSize",
    "Part",
    "Presence",
    "Reporters",
    "SideCount",
]

Presence = Literal["on_field", "incapacitated", "off_field"]  # a character on the roster
Reporters = Literal["own", "any"]  # players report for their own characters, or for anyone
Part = Literal["element", "name", "condition", "effect", "delta", "count"]
PARTS: Final[tuple[Part, ...]] = ("element", "name", "condition", "effect", "delta", "count")
#: The seed's words for each value the GM may pick (the override editor shows them).
PRESENCE_WORDS = {"on_field": ("戦場にいる", "on the field"), "incapacitated": ("戦闘不能", "incapacitated"),
                  "off_field": ("戦場外", "off the field")}
REPORTER_WORDS = {"own": ("自分のキャラクターのみ", "own characters"), "any": ("誰のでも", "anyone")}
PART_WORDS = {"element": ("全体", "the whole element"), "name": ("名前", "name"),
              "condition": ("条件", "condition"),
              "effect": ("効果", "effect"), "delta": ("GPの増減", "GP change"), "count": ("回数", "count")}
CHAR_SIDE_WORDS = {"pc": ("PC側", "PCs' side"), "enemy": ("敵側", "enemy side")}
BY_WORDS = {"rule": ("ルール", "the rules"), "gm": ("GM", "the GM")}
CHOOSER_WORDS = {"players": ("プレイヤー", "players"), "gm": ("GM", "the GM")}
EFFECT_WORDS = {"gp": ("GP増減", "GP change"), "set_gp": ("GPを設定", "set GP"), "stop": ("停止", "stop"),
                "excite": ("励起", "excite"), "calm": ("鎮静", "calm"), "restart": ("再起動", "restart"),
                "regenerate": ("再生", "regenerate"), "reveal": ("公開", "reveal"),
                "message": ("メッセージ", "message")}
EffectDo = Literal["gp", "set_gp", "stop", "excite", "calm", "restart", "regenerate", "reveal",
                   "message"]


class Effect(BaseModel):
    """One structured effect on `target` bases (docs/bases.md lists them); `choose: N`
    asks for N of the targets (BASE-CHOICE). The element's `effect` text is for display."""

    model_config = ConfigDict(extra="forbid")

    do: EffectDo = Field(json_schema_extra=shown("処理", "does", words=EFFECT_WORDS))
    value: Number | None = Field(default=None, json_schema_extra=shown("値", "value"))
    state: Literal["active", "excited", "stopped"] | None = Field(default=None, json_schema_extra=shown(
        "状態", "state", words=STATUS_WORDS))
    target: Target = Field(default_factory=Target, json_schema_extra=shown("対象", "target"))
    choose: StrictInt | None = Field(default=None, ge=1, le=MAX_NUMBER, json_schema_extra=shown(
        "選ぶ数", "choose"))
    chooser: Literal["players", "gm"] | None = Field(default=None, json_schema_extra=shown(
        "選ぶ者", "chooser", words=CHOOSER_WORDS))
    element: Id | None = Field(default=None, json_schema_extra=shown("対象の要素", "element", ref=(
        "bases.bases.*.gp_conditions", "bases.bases.*.constants", "bases.bases.*.events")))
    text: Paragraph = Field(default="", json_schema_extra=shown("文章", "text"))

    @model_validator(mode="after")
    def _complete(self) -> Effect:
        if self.do in ("gp", "set_gp") and self.value is None:
            raise ValueError(f"effect '{self.do}' needs a value")
        if self.do == "message" and not self.text:
            raise ValueError("effect 'message' needs a text")
        return self


class Element(Entity):
    """What the three element kinds share: conditions (OR of blocks) and hidden parts."""

    PART_FIELDS: ClassVar[dict[str, tuple[str, ...]]] = {
        "name": ("name",), "condition": ("conditions",), "effect": ("effect", "effects"),
        "delta": ("delta",), "count": ("count",),
    }

    id: Id
    conditions: list[Block] = Field(default_factory=list, json_schema_extra=shown("条件", "conditions"))
    hidden: list[Part] = Field(default_factory=list, json_schema_extra=shown(
        "伏せている部分", "hidden parts", words=PART_WORDS))
    even_when_stopped: StrictBool = Field(default=False, json_schema_extra=shown(
        "停止中も有効", "even when stopped"))
    latched: StrictBool = Field(default=False, json_schema_extra=shown(
        "一度満たせば有効のまま", "latched"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or "element" not in self.hidden

    def redact(self, audience: Audience, data: dict[str, Any]) -> dict[str, Any]:
        """BASE-OPT-2: drop every hidden part's fields."""
        for part in self.hidden:
            for name in self.PART_FIELDS.get(part, ()):
                data.pop(name, None)
        return data

    @property
    def exempt(self) -> bool:
        """Fires / is valid while stopped (BASE-ST-2; 【停止】【撃破】 tags, BASE-COND-1).

        【停止化】【撃破化】 exempt too: they wait for the very stop that would silence them.
        """
        stopped = {Status.STOPPED, Status.DESTROYED}
        return self.even_when_stopped or any(
            b.exempt or stopped & {*b.state, *b.becomes} for b in self.conditions)


class GpCondition(Element):
    """GP変化条件: every time a block holds, this base's GP changes by `delta` (BASE-EL-1)."""

    delta: Number = Field(json_schema_extra=shown("GPの増減", "GP change"))
    applied: Count = Field(default=0, json_schema_extra=shown("適用した回数", "times applied"))


class ConstantEffect(Element):
    """常時効果: applies while a block holds; `manual_on` is the GM's word for manual blocks."""

    name: Name = Field(json_schema_extra=shown("名前", "name"))
    effect: Paragraph = Field(default="", json_schema_extra=shown("効果", "effect"))
    active: StrictBool = Field(default=False, json_schema_extra=shown("有効", "active"))
    manual_on: StrictBool = Field(default=False, json_schema_extra=shown(
        "GMが有効にした", "turned on by the GM"))


class Event(Element):
    """イベント: fires every time a block holds, at most `count` times (None = ∞)."""

    name: Name = Field(json_schema_extra=shown("名前", "name"))
    count: Count | None = Field(default=None, json_schema_extra=shown("回数", "count"))
    effect: Paragraph = Field(default="", json_schema_extra=shown("効果", "effect"))
    effects: list[Effect] = Field(default_factory=list, json_schema_extra=shown("効果の処理", "effects"))
    fired: Count = Field(default=0, json_schema_extra=shown("発生した回数", "times fired"))
    fired_round: Count = Field(default=0, json_schema_extra=shown("発生したラウンド", "round fired"))
    triggerer: Name | None = Field(default=None, json_schema_extra=shown("発生させた者", "triggered by"))

    def can_fire(self, block: Block) -> bool:
        """BASE-EL-1 activation count, 【ラウンドX回】 (BASE-COND-1), はじめて… once."""
        return ((self.count is None or self.fired < self.count)
                and (block.per_round is None or self.fired_round < block.per_round)
                and not (block.once and self.fired))


class Base(Entity):
    """A base (拠点): side, GP (BASE-GP-1..3), state (BASE-ST-1), attributes, elements."""

    __secret__ = frozenset({"note"})

    id: Id
    name: Name = Field(json_schema_extra=shown("拠点名", "base name"))
    side: Side = Field(default="none", json_schema_extra=shown(
        "陣営", "side", words={"pc": ("PC側", "PCs' side"), "enemy": ("敵側", "enemy side"),
                             "none": ("なし", "none")}))
    base_gp: StrictInt = Field(ge=0, le=MAX_NUMBER, json_schema_extra=shown(
        "基本GP", "base GP", rule="BASE-GP-1"))
    gp: StrictInt = Field(ge=0, le=MAX_NUMBER, json_schema_extra=shown("GP", "GP", rule="BASE-GP-2"))
    state: Status = Field(default=Status.ACTIVE, json_schema_extra=shown(
        "状態", "state", words={s.value: (JA_STATUS[s], s.value) for s in Status}))
    attributes: list[Name] = Field(default_factory=list, json_schema_extra=shown("属性", "attributes"))
    hidden: StrictBool = Field(default=False, json_schema_extra=shown("非公開", "hidden"))
    gp_hidden: StrictBool = Field(default=False, json_schema_extra=shown("GP非公開", "GP hidden"))
    summary: Paragraph = Field(default="", json_schema_extra=shown("概要", "summary"))
    note: Paragraph = Field(default="", json_schema_extra=shown("メモ", "note"))
    gp_conditions: list[GpCondition] = Field(default_factory=list, json_schema_extra=shown(
        "GP条件", "GP conditions"))
    constants: list[ConstantEffect] = Field(default_factory=list, json_schema_extra=shown(
        "常時効果", "constant effects"))
    events: list[Event] = Field(default_factory=list, json_schema_extra=shown("イベント", "events"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden

    def redact(self, audience: Audience, data: dict[str, Any]) -> dict[str, Any]:
        if self.gp_hidden:  # BASE-OPT-2: GP shows when it reaches 0
            data.pop("gp", None)
            data.pop("base_gp", None)
        return data

    def elements(self) -> Iterator[Element]:
        yield from self.gp_conditions
        yield from self.constants
        yield from self.events

    @property
    def core(self) -> bool:
        return "core" in self.attributes

    @property
    def permanent(self) -> bool:
        return "permanent" in self.attributes


class EndCondition(BaseModel):
    """A GM-defined end condition (BASE-TYPE-5): when `condition` holds, `losers` lose."""

    condition: Block = Field(json_schema_extra=shown("条件", "condition"))
    losers: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "敗北する陣営", "losing sides", words=CHAR_SIDE_WORDS))


class BattleType(Entity):
    """Battle type and its end rules (BASE-TYPE-1..5); published to everyone."""

    key: Name = Field(json_schema_extra=shown("種類", "kind"))
    name: Name = Field(json_schema_extra=shown("名前", "name"))
    rule: Name = Field(json_schema_extra=shown("ルール", "rule"))
    core_defeat: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "コア撃破で敗北", "defeated when the core falls", words=CHAR_SIDE_WORDS))
    wipe_defeat: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "全員戦闘不能で敗北", "defeated when wiped out", words=CHAR_SIDE_WORDS))
    core_required: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "コア拠点が必要", "core required", words=CHAR_SIDE_WORDS))
    core_forbidden: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "コア拠点を持てない", "core forbidden", words=CHAR_SIDE_WORDS))
    ends: list[EndCondition] = Field(default_factory=list, json_schema_extra=shown(
        "終了条件", "end conditions"))
    text: Paragraph = Field(default="", json_schema_extra=shown("説明", "text"))


BATTLE_TYPES: Final[dict[str, BattleType]] = {
    # BASE-TYPE-1 (+ BASE-ATTR-2 wherever core bases exist): end conditions unchanged
    "general": BattleType(key="general", name="一般拠点戦闘", rule="BASE-TYPE-1",
                          core_defeat=["pc", "enemy"], wipe_defeat=["pc", "enemy"]),
    "important": BattleType(key="important", name="重要拠点戦闘", rule="BASE-TYPE-2",
                            core_defeat=["pc", "enemy"], core_required=["pc", "enemy"]),
    "important_offensive": BattleType(
        key="important_offensive", name="重要拠点攻勢戦闘", rule="BASE-TYPE-3",
        core_defeat=["enemy"], wipe_defeat=["pc"], core_required=["enemy"],
        core_forbidden=["pc"]),
    "important_defensive": BattleType(
        key="important_defensive", name="重要拠点防衛戦闘", rule="BASE-TYPE-4",
        core_defeat=["pc"], wipe_defeat=["enemy"], core_required=["pc"],
        core_forbidden=["enemy"]),
}


class BattleOutcome(Entity):
    """How the battle ended: who lost, by which rule, in both languages."""

    losers: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "敗北した陣営", "losing sides", words=CHAR_SIDE_WORDS))
    rule: Name = Field(json_schema_extra=shown("ルール", "rule"))
    ja: Paragraph = Field(json_schema_extra=shown("理由", "reason"))
    en: Paragraph = Field(json_schema_extra=shown("英語の理由", "English reason"))
    by: Literal["rule", "gm"] = Field(default="rule", json_schema_extra=shown(
        "決めたもの", "decided by", words=BY_WORDS))


class SideCount(Entity):
    """Characters of one side on the field / incapacitated (reported or GM-set)."""

    on_field: Count = Field(default=0, json_schema_extra=shown("戦場にいる数", "on the field"))
    incapacitated: Count = Field(default=0, json_schema_extra=shown("戦闘不能の数", "incapacitated"))


class FieldCharacter(Entity):
    """A character on the roster; `player` plays it (None: the GM's, or bound by name)."""

    side: CharSide = Field(json_schema_extra=shown("陣営", "side", words=CHAR_SIDE_WORDS))
    status: Presence = Field(default="on_field", json_schema_extra=shown(
        "状態", "status", words=PRESENCE_WORDS))
    player: Id | None = Field(default=None, json_schema_extra=shown(
        "プレイヤー", "player", ids=("meta", "players")))


class DefinedCondition(Entity):
    """A named condition (BASE-OPT-3), usable as 【name】 in any element; public."""

    text: Sentence = Field(json_schema_extra=shown("条件の文章", "condition text"))
    block: Block = Field(json_schema_extra=shown("条件", "condition"))


class GridSize(BaseModel):
    width: Count = Field(json_schema_extra=shown("幅", "width"))
    height: Count = Field(json_schema_extra=shown("高さ", "height"))


def _both_sides() -> dict[CharSide, SideCount]:
    return {"pc": SideCount(), "enemy": SideCount()}


class BasesState(Entity):
    """The base battle of a room; `notes` (scenario warnings) are the GM's alone."""

    __secret__ = frozenset({"notes"})

    battle: BattleType = Field(default_factory=lambda: BATTLE_TYPES["general"].model_copy(deep=True),
                               json_schema_extra=shown("戦闘の種類", "battle type"))
    round: Count = Field(default=0, json_schema_extra=shown("ラウンド", "round"))
    large_scale: StrictBool = Field(default=False, json_schema_extra=shown(
        "大規模戦闘", "large-scale battle"))
    battle_grid: GridSize | None = Field(default=None, json_schema_extra=shown(
        "戦場の広さ", "battle grid"))
    summary: Paragraph = Field(default="", json_schema_extra=shown("概要", "summary"))
    defined: dict[str, DefinedCondition] = Field(default_factory=dict, json_schema_extra=shown(
        "定義された条件", "defined conditions"))
    bases: dict[str, Base] = Field(default_factory=dict, json_schema_extra=shown("拠点", "bases"))
    sides: dict[CharSide, SideCount] = Field(
        default_factory=lambda: _both_sides(), json_schema_extra=shown(
            "陣営ごとの人数", "characters by side", words=CHAR_SIDE_WORDS))
    characters: dict[str, FieldCharacter] = Field(default_factory=dict, json_schema_extra=shown(
        "キャラクター", "characters"))
    players_report: Reporters = Field(default="own", json_schema_extra=shown(
        "プレイヤーが報告できる範囲", "players report for", words=REPORTER_WORDS))
    outcome: BattleOutcome | None = Field(default=None, json_schema_extra=shown("決着", "outcome"))
    notes: list[Paragraph] = Field(default_factory=list, json_schema_extra=shown("メモ", "notes"))

    @property
    def running(self) -> bool:
        """Automatic rules run from round 1 until the battle has an outcome."""
        return self.round >= 1 and self.outcome is None
