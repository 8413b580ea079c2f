"""The `bases:` part of a scenario file: bases and elements in the seed's own notation.

Conditions are parsed while the file is validated, so a malformed 【】 tag or an unknown
defined condition is reported at its own line. Defined conditions (BASE-OPT-3) are parsed
first and made visible to the element validators through a context variable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    StrictBool,
    field_validator,
    model_validator,
)

from ..bounds import Count, Number
from ..table.scenario import surroundings
from ..titles import shown
from .blocks import Block, ElementKind, normalize_attribute, uses_relative_sides
from .model import (
    BATTLE_TYPES,
    CHAR_SIDE_WORDS,
    PART_WORDS,
    PARTS,
    PRESENCE_WORDS,
    REPORTER_WORDS,
    Base,
    BasesState,
    BattleType,
    ConstantEffect,
    DefinedCondition,
    Effect,
    Element,
    EndCondition,
    Event,
    FieldCharacter,
    GpCondition,
    GridSize,
    Part,
    Presence,
    Reporters,
    SideCount,
)
from .states import JA_STATUS, CharSide, Side, Status
from .tags import parse_condition, parse_defined

__all__ = ["LARGE_SCALE_GRID", "BaseSpec", "BasesScenario", "BattleTypeSpec", "EventSpec"]

LARGE_SCALE_GRID = GridSize(width=5, height=6)  # BASE-OPT-1: 5×6 squares
_DEFINED: ContextVar[dict[str, Block] | None] = ContextVar("bases_defined", default=None)
_ID = r"^[\w\-.]+$"
#: The seed's words for what a scenario picks (a base's side and starting state, the
#: battle types by name).
_SIDE_WORDS = {"pc": ("PC側", "PCs' side"), "enemy": ("敵側", "enemy side"), "none": ("なし", "none")}
_STATE_WORDS = {s.value: (JA_STATUS[s], s.value) for s in (Status.ACTIVE, Status.STOPPED,
                                                           Status.EXCITED)}
_BATTLE_WORDS = {"general": ("一般拠点戦闘", "general base battle"),
                 "important": ("重要拠点戦闘", "important base battle"),
                 "important_offensive": ("重要拠点攻勢戦闘", "important base offensive"),
                 "important_defensive": ("重要拠点防衛戦闘", "important base defence")}
_CONDITION = ("条件", "condition", "拠点戦闘の記法（【】タグ）。複数なら どれか1つで成立",
              "in the seed's notation (【】 tags); a list holds when any one does")


class ElementSpec(BaseModel):
    """What every element kind is written with: condition(s) in the seed's notation."""

    model_config = ConfigDict(extra="forbid")
    KIND: ClassVar[ElementKind] = "event"

    id: str | None = Field(default=None, pattern=_ID, json_schema_extra=shown(
        "ID", "id", about=("空欄なら 拠点id.gp1・.c1・.ev1 の順番",
                           "empty: the base's id and .gp1, .c1, .ev1 in order")))
    condition: str | list[str] = Field(json_schema_extra=shown(
        _CONDITION[0], _CONDITION[1], about=(_CONDITION[2], _CONDITION[3])))
    hidden: StrictBool | list[Part] = Field(default=False, json_schema_extra=shown(
        "伏せている部分", "hidden parts", words=PART_WORDS, rule="BASE-OPT-2",
        about=("true なら全体", "true: the whole element")))
    even_when_stopped: StrictBool = Field(default=False, json_schema_extra=shown(
        "停止中も有効", "even when stopped"))
    _blocks: list[Block] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _parse(self) -> ElementSpec:
        texts = [self.condition] if isinstance(self.condition, str) else self.condition
        if not texts or not all(t.strip() for t in texts):
            raise ValueError("条件が空です / empty condition")
        self._blocks = [parse_condition(t, self.KIND, _DEFINED.get()) for t in texts]
        return self

    @property
    def blocks(self) -> list[Block]:
        return self._blocks

    def build(self, element_id: str) -> Element:
        raise NotImplementedError

    def common(self, element_id: str) -> dict[str, Any]:
        hidden = list(PARTS) if self.hidden is True else list(self.hidden or [])
        return {"id": self.id or element_id, "hidden": hidden,
                "even_when_stopped": self.even_when_stopped,
                "conditions": [b.model_copy(deep=True) for b in self._blocks]}


class GpConditionSpec(ElementSpec):
    """GP変化条件: 条件, 変化値 (BASE-EL-1)."""

    KIND: ClassVar[ElementKind] = "gp"
    delta: Number = Field(json_schema_extra=shown("変化値", "GP change"))

    def build(self, element_id: str) -> GpCondition:
        return GpCondition(delta=self.delta, **self.common(element_id))


class ConstantSpec(ElementSpec):
    """常時効果: 名称, 条件, 効果 (BASE-EL-1)."""

    KIND: ClassVar[ElementKind] = "constant"
    name: str = Field(json_schema_extra=shown("名称", "name"))
    effect: str = Field(default="", json_schema_extra=shown("効果", "effect"))

    def build(self, element_id: str) -> ConstantEffect:
        return ConstantEffect(name=self.name, effect=self.effect, **self.common(element_id))


class EventSpec(ElementSpec):
    """イベント: 名称, 発動回数 (∞ or missing = unlimited), 条件, 効果 (BASE-EL-1)."""

    name: str = Field(json_schema_extra=shown("名称", "name"))
    count: Count | Literal["∞"] | None = Field(default=None, json_schema_extra=shown(
        "発動回数", "activations", words={"∞": ("∞", "unlimited")},
        about=("空欄か ∞ なら無制限", "empty or ∞: unlimited")))
    effect: str = Field(default="", json_schema_extra=shown(
        "効果", "effect", about=("表示する文章", "the text shown")))
    effects: list[Effect] = Field(default_factory=list, json_schema_extra=shown(
        "効果の処理", "effects", about=("ルールが行う処理", "what the rules carry out")))

    @field_validator("count")
    @classmethod
    def _count(cls, value: int | str | None) -> int | str | None:
        if isinstance(value, int) and value < 1:
            raise ValueError("発動回数は1以上か∞です / count must be ≥ 1 or ∞")
        return value

    def build(self, element_id: str) -> Event:
        count = self.count if isinstance(self.count, int) else None
        return Event(name=self.name, count=count, effect=self.effect,
                     effects=[e.model_copy(deep=True) for e in self.effects],
                     **self.common(element_id))


class BaseSpec(BaseModel):
    """One base: 基本GP as `gp`, side, attributes, hidden flags and its elements."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=_ID, json_schema_extra=shown("ID", "id"))
    name: str = Field(min_length=1, json_schema_extra=shown("拠点名", "base name"))
    side: Side = Field(default="none", json_schema_extra=shown("陣営", "side", words=_SIDE_WORDS))
    gp: Count = Field(json_schema_extra=shown("基本GP", "base GP", rule="BASE-GP-1"))
    state: Literal["active", "stopped", "excited"] = Field(default="active", json_schema_extra=shown(
        "状態", "state", words=_STATE_WORDS))
    attributes: list[str] = Field(default_factory=list, json_schema_extra=shown(
        "属性", "attributes", rule="BASE-ATTR-1",
        about=("コア拠点・永久拠点など", "core (コア拠点), permanent (永久拠点), or the GM's own")))
    hidden: StrictBool = Field(default=False, json_schema_extra=shown(
        "非公開", "hidden", rule="BASE-OPT-2",
        about=("拠点と全ての要素を伏せる", "hides the base and all of it")))
    hide_gp: StrictBool = Field(default=False, json_schema_extra=shown(
        "GP非公開", "GP hidden", about=("GPが0になるまで伏せる", "hidden until it reaches 0")))
    summary: str = Field(default="", json_schema_extra=shown("概要", "summary"))
    note: str = Field(default="", json_schema_extra=shown(
        "メモ", "note", about=("GMだけが見る", "the GM's alone")))
    gp_conditions: list[GpConditionSpec] = Field(default_factory=list, json_schema_extra=shown(
        "GP変化条件", "GP conditions", rule="BASE-EL-1"))
    constants: list[ConstantSpec] = Field(default_factory=list, json_schema_extra=shown(
        "常時効果", "constant effects", rule="BASE-EL-1"))
    events: list[EventSpec] = Field(default_factory=list, json_schema_extra=shown(
        "イベント", "events", rule="BASE-EL-1"))

    @field_validator("attributes")
    @classmethod
    def _attributes(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(normalize_attribute(a) for a in value))  # BASE-ATTR-1

    @model_validator(mode="after")
    def _check(self) -> BaseSpec:
        if self.gp == 0 and "permanent" not in self.attributes:
            raise ValueError("基本GP 0 は永久拠点だけです / only a permanent base may start "
                             "at 0 GP (BASE-GP-3, BASE-ATTR-3)")
        if self.side == "none" and any(uses_relative_sides(b) for b in self.blocks()):
            raise ValueError("陣営なしの拠点の条件に味方・敵は使えません / a base of side "
                             "'none' cannot say 味方/敵 in its conditions")
        return self

    def specs(self) -> Iterator[tuple[str, ElementSpec]]:
        yield from ((f"{self.id}.gp{i}", s) for i, s in enumerate(self.gp_conditions, 1))
        yield from ((f"{self.id}.c{i}", s) for i, s in enumerate(self.constants, 1))
        yield from ((f"{self.id}.ev{i}", s) for i, s in enumerate(self.events, 1))

    def blocks(self) -> Iterator[Block]:
        for _, spec in self.specs():
            yield from spec.blocks

    def element_ids(self) -> list[str]:
        return [spec.id or default for default, spec in self.specs()]

    def build(self) -> Base:
        built = [spec.build(default) for default, spec in self.specs()]
        base = Base(
            id=self.id, name=self.name, side=self.side, base_gp=self.gp, gp=self.gp,
            state=Status(self.state), attributes=self.attributes, hidden=self.hidden,
            gp_hidden=self.hide_gp or self.hidden, summary=self.summary, note=self.note,
            gp_conditions=[e for e in built if isinstance(e, GpCondition)],
            constants=[e for e in built if isinstance(e, ConstantEffect)],
            events=[e for e in built if isinstance(e, Event)],
        )
        if self.hidden:  # BASE-OPT-2: a hidden base hides everything in it
            for element in base.elements():
                element.hidden = list(PARTS)
        return base


class EndSpec(BaseModel):
    """A GM-defined end condition (state predicates; anything else stays manual)."""

    model_config = ConfigDict(extra="forbid")

    condition: str = Field(json_schema_extra=shown(
        _CONDITION[0], _CONDITION[1], about=("PC・エネミーで書く（味方・敵や状態タグは不可）",
                                             "written with PC/エネミー (not 味方/敵 or state tags)")))
    losers: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "敗北する陣営", "losing sides", words=CHAR_SIDE_WORDS))
    _block: Block | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _parse(self) -> EndSpec:
        block = parse_condition(self.condition, "constant", _DEFINED.get())
        if block.state or uses_relative_sides(block):
            raise ValueError("終了条件に【励起】等や味方・敵は使えません（PC・エネミーと書きます）"
                             " / end conditions use PC/エネミー, not 味方/敵 or state tags")
        self._block = block
        return self


class BattleTypeSpec(BaseModel):
    """BASE-TYPE-5: a GM-defined battle type with its published end conditions."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(json_schema_extra=shown("名前", "name"))
    text: str = Field(default="", json_schema_extra=shown("説明", "text"))
    core_defeat: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "コア撃破で敗北", "defeated when the core falls", words=CHAR_SIDE_WORDS))
    wipe_defeat: list[CharSide] = Field(default_factory=list, json_schema_extra=shown(
        "全員戦闘不能で敗北", "defeated when wiped out", words=CHAR_SIDE_WORDS))
    ends: list[EndSpec] = Field(default_factory=list, json_schema_extra=shown(
        "終了条件", "end conditions"))

    def build(self) -> BattleType:
        ends = [EndCondition(condition=e._block, losers=e.losers)
                for e in self.ends if e._block is not None]
        return BattleType(key="custom", name=self.name, rule="BASE-TYPE-5", text=self.text,
                          core_defeat=self.core_defeat, wipe_defeat=self.wipe_defeat, ends=ends)


class CharacterSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, json_schema_extra=shown("名前", "name"))
    side: CharSide = Field(json_schema_extra=shown("陣営", "side", words=CHAR_SIDE_WORDS))
    status: Presence = Field(default="on_field", json_schema_extra=shown(
        "状態", "status", words=PRESENCE_WORDS))
    player: str | None = Field(default=None, min_length=1, max_length=64, json_schema_extra=shown(
        "プレイヤー", "player", ref="players"))


BattleTypeKey = Literal["general", "important", "important_offensive", "important_defensive"]


class BasesScenario(BaseModel):
    """The `bases:` part: battle type, bases, defined conditions, summary, options."""

    model_config = ConfigDict(extra="forbid")

    type: BattleTypeKey | BattleTypeSpec = Field(default="general", json_schema_extra=shown(
        "戦闘の種類", "battle type", words=_BATTLE_WORDS,
        about=("種類の名前か、GMが決める種類（BASE-TYPE-5）",
               "a type's name, or the GM's own (BASE-TYPE-5)")))
    large_scale: StrictBool = Field(default=False, json_schema_extra=shown(
        "大規模戦闘", "large scale", rule="BASE-OPT-1", about=("5×6マスの戦場", "a 5×6 battlefield")))
    summary: str = Field(default="", json_schema_extra=shown("概要", "summary"))
    defined_conditions: dict[str, str] = Field(default_factory=dict, json_schema_extra=shown(
        "定義された条件", "defined conditions", rule="BASE-OPT-3", key=("条件名", "condition name"),
        value=(_CONDITION[0], _CONDITION[1]), about=("要素の条件で【条件名】として使う",
                                                     "used as 【name】 in any element's condition")))
    characters: list[CharacterSpec] = Field(default_factory=list, json_schema_extra=shown(
        "キャラクター", "characters"))
    players_report: Reporters = Field(default="own", json_schema_extra=shown(
        "プレイヤーの報告", "players report for", words=REPORTER_WORDS))
    counts: dict[CharSide, SideCount] = Field(default_factory=dict, json_schema_extra=shown(
        "名前のないキャラクターの数", "unnamed characters", words=CHAR_SIDE_WORDS,
        key=("陣営", "side"), value=("人数", "how many")))
    bases: list[BaseSpec] = Field(default_factory=list, json_schema_extra=shown("拠点", "bases"))
    _defined: dict[str, Block] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _with_defined(cls, data: Any, handler: ModelWrapValidatorHandler[BasesScenario]
                      ) -> BasesScenario:
        """Parse defined conditions first (BASE-OPT-3) so elements can use them by name."""
        raw = data.get("defined_conditions") if isinstance(data, dict) else None
        texts = {str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {}
        defined = parse_defined(texts)
        token = _DEFINED.set(defined)
        try:
            scenario = handler(data)
        finally:
            _DEFINED.reset(token)
        scenario._defined = defined
        return scenario

    @model_validator(mode="after")
    def _check(self) -> BasesScenario:
        ids = [b.id for b in self.bases]
        elements = [i for b in self.bases for i in b.element_ids()]
        for what, seen in (("拠点 / base", ids), ("要素 / element", elements)):
            dup = sorted({i for i in seen if seen.count(i) > 1})
            if dup:
                raise ValueError(f"{what} id が重複しています / duplicate ids: {dup}")
        if isinstance(self.type, str):
            self._check_cores(BATTLE_TYPES[self.type])
        return self

    @model_validator(mode="after")
    def _references(self) -> BasesScenario:
        """Every base, element and player the bases name exists (a misspelt one would
        make an effect or a condition silently do nothing)."""
        problems = _reference_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def _check_cores(self, battle: BattleType) -> None:
        """BASE-TYPE-2..4: which sides must (and must not) have core bases."""
        cores = {b.side for b in self.bases if "core" in b.attributes}
        missing = [s for s in battle.core_required if s not in cores]
        extra = [s for s in battle.core_forbidden if s in cores]
        if missing or extra:
            raise ValueError(f"{battle.name}（{battle.rule}）: コア拠点が必要な陣営 "
                             f"{battle.core_required}、持てない陣営 {battle.core_forbidden} / "
                             f"core bases required for {battle.core_required}, "
                             f"forbidden for {battle.core_forbidden}")

    def build(self) -> BasesState:
        bases = {spec.id: spec.build() for spec in self.bases}
        battle = (BATTLE_TYPES[self.type].model_copy(deep=True) if isinstance(self.type, str)
                  else self.type.build())
        return BasesState(
            battle=battle, large_scale=self.large_scale, summary=self.summary,
            battle_grid=LARGE_SCALE_GRID.model_copy() if self.large_scale else None,
            defined={name: DefinedCondition(text=self.defined_conditions[name],
                                            block=block.model_copy(deep=True))
                     for name, block in self._defined.items()},
            bases=bases, sides=self._sides(),
            characters={c.name: FieldCharacter(side=c.side, status=c.status, player=c.player)
                        for c in self.characters},
            players_report=self.players_report,
            notes=_core_permanent_notes(bases) + _guard_hidden_names(bases),
        )

    def _sides(self) -> dict[CharSide, SideCount]:
        """Counts: listed characters plus the unnamed ones in `counts`."""
        sides: dict[CharSide, SideCount] = {}
        for side in ("pc", "enemy"):
            extra = self.counts.get(side, SideCount())
            mine = [c for c in self.characters if c.side == side]
            sides[side] = SideCount(
                on_field=extra.on_field + sum(c.status == "on_field" for c in mine),
                incapacitated=extra.incapacitated + sum(c.status == "incapacitated" for c in mine))
        return sides


def _reference_problems(s: BasesScenario) -> list[str]:
    """Effects' and conditions' bases, revealed elements, characters' players (each
    problem names the offending reference last: its line is the one shown; a condition's
    is in its text, so the element's id, or its base's, gives the line)."""
    bases = {n for b in s.bases for n in (b.id, b.name)}
    elements = {i for b in s.bases for i in b.element_ids()}
    out: list[str] = []
    for b in s.bases:
        for default, spec in b.specs():
            where = spec.id or default
            for name in _condition_bases(spec.blocks):
                if name not in bases:
                    out.append(f"拠点 {b.id} の要素 {where} の条件: 拠点「{name}」はありません / "
                               f"{where}: the condition names an unknown base '{name}'")
            for e in spec.effects if isinstance(spec, EventSpec) else []:
                if e.target.name is not None and e.target.name not in bases:
                    out.append(f"{where} の効果: 拠点 {e.target.name} はありません / {where}: "
                               f"an effect targets an unknown base {e.target.name}")
                if e.element is not None and e.element not in elements:
                    out.append(f"{where} の効果: 要素 {e.element} はありません / {where}: an "
                               f"effect names an unknown element {e.element}")
    for name, block in s._defined.items():  # BASE-OPT-3 (parsed before these checks run)
        out += [f"定義された条件「{name}」: 拠点「{base}」はありません / defined condition "
                f"'{name}': unknown base '{base}'"
                for base in _condition_bases([block]) if base not in bases]
    players = surroundings().players
    out += [f"キャラクター {c.name}: プレイヤー {c.player} は players にいません / character "
            f"{c.name}: player {c.player} is not in players" for c in s.characters
            if players is not None and c.player is not None and c.player not in players]
    return out


def _condition_bases(blocks: list[Block]) -> list[str]:
    """The bases a condition names by id or name (GP, state and happening predicates)."""
    targets = [getattr(p, "base", None) for b in blocks for p in b.predicates]
    targets += [b.happening.base for b in blocks if b.happening is not None]
    return [t.name for t in targets if t is not None and t.name is not None]


def _core_permanent_notes(bases: dict[str, Base]) -> list[str]:
    """BASE-ATTR-3: core + permanent usually means the battle never ends — warn the GM."""
    return [f"拠点「{b.name}」はコア拠点かつ永久拠点です。戦闘が終わらない可能性があります"
            f" (BASE-ATTR-3) / base '{b.name}' is core and permanent: the battle may never end"
            for b in bases.values() if b.core and b.permanent]


def _leaks(element: Element, hidden: list[Base]) -> list[Part]:
    """The shown parts of `element` that name a hidden base."""
    names = [b.name for b in hidden] + [f"「{b.id}」" for b in hidden]
    refs = {b.id for b in hidden} | {b.name for b in hidden}
    texts: dict[Part, list[str]] = {"condition": [b.text for b in element.conditions]}
    targets: list[str] = []
    if isinstance(element, ConstantEffect | Event):
        texts["name"], texts["effect"] = [element.name], [element.effect]
    if isinstance(element, Event):
        texts["effect"] += [e.text for e in element.effects]
        targets = [e.target.name or "" for e in element.effects]
        targets += [(e.element or "").split(".")[0] for e in element.effects]
    leaks = [part for part, ts in texts.items() if any(n in t for n in names for t in ts)]
    if "effect" not in leaks and refs & set(targets):
        leaks.append("effect")
    return [p for p in leaks if p not in element.hidden]


def _guard_hidden_names(bases: dict[str, Base]) -> list[str]:
    """BASE-OPT-2: a shown part naming a hidden base would leak it — hide that part too."""
    hidden = [b for b in bases.values() if b.hidden]
    notes: list[str] = []
    for base in bases.values():
        for element in base.elements() if hidden and not base.hidden else ():
            for part in _leaks(element, hidden):
                element.hidden.append(part)
                notes.append(f"{element.id}: 隠された拠点の名前を含むため「{part}」を非公開にしました"
                             f" / '{part}' hidden: it names a hidden base")
    return notes
