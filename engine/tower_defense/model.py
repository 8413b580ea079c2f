"""Tower defense data: the scenario part (`tower_defense:` in YAML), settings and state.

Scenario models are plain pydantic models validated once at load (cross references are
checked in `TowerDefenseScenario`); state models are `Entity`s the engine writes through
`Tx`. `None` in a magazine or range means ∞ (YAML may also say `∞` or `inf`).
Every seed ambiguity (rules.md, end of TD) is a field of `TDSettings`, documented there.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import MAX_NUMBER, Count, Id, Name, Number, Paragraph, Sentence
from ..levels import Level
from ..phases import PhaseSpec, PhaseTable
from ..players import Role
from ..table import Cell
from ..titles import shown
from ..views import Entity

__all__ = [
    "PC",
    "PHASES",
    "ROUND",
    "Direction",
    "Fort",
    "Group",
    "Individual",
    "LevelRemoval",
    "Passage",
    "Phase",
    "SpecialAmmo",
    "SpecialKind",
    "TDSettings",
    "TowerDefenseState",
    "Trap",
    "TrapKind",
    "Victory",
    "Walker",
    "WaveEntry",
    "WavePlan",
    "WeaponSpec",
    "WeaponState",
]


def _infinite(value: Any) -> Any:
    """`∞`, `inf`, `infinite` (any case) or null → None (unlimited)."""
    if isinstance(value, str) and value.strip().lower() in ("∞", "inf", "infinite"):
        return None
    return value


# Scenario files may write ∞ for "unlimited"; the JSON Schema for editors says so too.
Unlimited = Annotated[Count | None, BeforeValidator(
    _infinite, json_schema_input_type=Count | Literal["∞", "inf", "infinite"] | None)]

#: TD-RND: the four phases of a round, after the one-off setup (TD-PRE-1).
Phase = Literal["setup", "reinforcement", "advance", "pc_attack", "enemy_attack"]
PHASES: tuple[Phase, ...] = ("setup", "reinforcement", "advance", "pc_attack", "enemy_attack")
#: TD-RND as a table: each phase's names, rule, who acts and successor. The GM moves on
#: (`td.next_phase`); the engine does the automatic work of reinforcement, advance and
#: enemy attack, the players act in the PC attack phase.
ROUND = PhaseTable(path=("tower_defense", "phase"), rule="TD-RND", phases=(
    PhaseSpec(id="setup", ja="準備", en="setup", rule="TD-PRE-1", acts="players", ends="gm",
              next="reinforcement"),
    PhaseSpec(id="reinforcement", ja="敵増援フェイズ", en="reinforcement", rule="TD-REIN-1",
              acts="engine", ends="gm", next="advance"),
    PhaseSpec(id="advance", ja="敵進軍フェイズ", en="advance", rule="TD-ADV-1", acts="engine",
              ends="gm", next="pc_attack"),
    PhaseSpec(id="pc_attack", ja="PC攻撃フェイズ", en="PC attack", rule="TD-ATK-1",
              acts="players", ends="gm", next="enemy_attack"),
    PhaseSpec(id="enemy_attack", ja="敵攻撃フェイズ", en="enemy attack", rule="TD-EATK-1",
              acts="engine", ends="gm", next="reinforcement"),
))
Outcome = Literal["none", "victory", "defeat"]
TrapKind = Literal["explosive", "snare"]
SpecialKind = Literal["priest", "frozen", "nofke", "other"]
WeaponKind = Literal["firearm", "melee", "eye"]
#: The seed's words for each value the GM may pick (the override editor shows them).
PHASE_WORDS = {p.id: (p.ja, p.en) for p in ROUND.phases}
OUTCOME_WORDS = {"none": ("決着前", "undecided"), "victory": ("勝利", "victory"),
                 "defeat": ("敗北", "defeat")}
TRAP_WORDS = {"explosive": ("爆破", "explosive"), "snare": ("足止め", "snare")}
SPECIAL_WORDS = {"priest": ("深きもの共の司祭", "Deep One priest"), "frozen": ("凍てつく者", "frozen one"),
                 "nofke": ("ノフケー", "Gnoph-Keh"), "other": ("その他", "other")}
WEAPON_WORDS = {"firearm": ("銃器", "firearm"), "melee": ("近接武器", "melee"), "eye": ("魔眼", "evil eye")}
RANGE_MODE_WORDS = {"same_fort_is_1": ("同じ砦が射程1", "same fort is range 1"),
                    "steps": ("通路の数", "passages away")}
ALL_BROKEN_WORDS = {"stay_at_last": ("最後の砦に留まる", "stays at the last fort"),
                    "remove": ("盤面から去る", "leaves the board")}
AT_FORT_WORDS = {"stay": ("砦が壊れるまで留まる", "stays until it falls"),
                 "advance": ("毎ラウンド進む", "advances every round")}
ROLE_WORDS = {"gm": ("GM", "GM"), "player": ("プレイヤー", "player"), "bridge": ("VTT連携", "VTT bridge"),
              "observer": ("見学者", "observer")}
WAVE_MODE_WORDS = {"fixed": ("ラウンドごと", "by round"), "alternate": ("奇数・偶数", "odd and even"),
                   "random": ("ランダム表", "random table")}
VICTORY_WORDS = {"survive": ("規定ラウンド耐える", "survive the rounds"),
                 "destroy": ("タグの敵を倒す", "destroy the tag"),
                 "gm": ("GMが決める", "the GM decides")}
#: A scenario may write ∞ for "unlimited" (None in the state).
INFINITE_WORDS = {v: ("∞", "unlimited") for v in ("∞", "inf", "infinite")}
#: Where the ids of directions, forts and passages point.
DIRECTIONS = ("tower_defense", "directions")
FORTS = ("tower_defense", "forts")
PASSAGES = ("tower_defense", "passages")


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _all_reporters() -> list[Role]:
    return ["gm", "player", "bridge"]


# -- settings: the seed's ambiguities -----------------------------------------------


class LevelRemoval(_Spec):
    """TD-ATK-2: groups removed per success level, before the weapon's damage multiplier.

    The seed names regular 1, extreme 2, critical 3; hard success is not mentioned and
    counts as regular (1) by default.
    """

    critical: Count = Field(default=3, json_schema_extra=shown("クリティカル", "critical"))
    extreme: Count = Field(default=2, json_schema_extra=shown("イクストリーム成功", "extreme success"))
    hard: Count = Field(default=1, json_schema_extra=shown("ハード成功", "hard success"))
    regular: Count = Field(default=1, json_schema_extra=shown("レギュラー成功", "regular success"))

    def of(self, level: Level) -> int:
        return int(getattr(self, level, 0)) if level in ("critical", "extreme", "hard",
                                                         "regular") else 0


class TDSettings(_Spec):
    """Scenario `settings:` — each ambiguity of the seed, defaulting to its examples."""

    #: TD-ATK-4 range units. `same_fort_is_1` (default, seed example 2: the range-1
    #: shotgun reaches only groups at its own fort): range N reaches forts at most N-1
    #: passages away. `steps`: range N reaches forts at most N passages away.
    range_mode: Literal["same_fort_is_1", "steps"] = Field(default="same_fort_is_1", json_schema_extra=shown(
        "射程の数え方", "range counting", words=RANGE_MODE_WORDS))
    #: TD-ATK-2 removals per level (hard = regular unless changed).
    removal: LevelRemoval = Field(default_factory=LevelRemoval, json_schema_extra=shown(
        "成功度ごとの除去数", "removals per success level"))
    #: TD-DATA 魔眼: damage multiplier on the marked group for the rest of the round.
    eye_multiplier: StrictInt = Field(default=2, ge=1, le=1000, json_schema_extra=shown(
        "魔眼の倍率", "evil eye multiplier"))
    #: Groups that may stand at one fort (None = no limit; the seed sets none). A group
    #: reaching a full, intact fort waits at the end of its passage.
    max_groups_per_fort: StrictInt | None = Field(default=None, ge=1, le=MAX_NUMBER, json_schema_extra=shown(
        "砦ごとの敵集団の上限", "groups per fort"))
    #: TD-ADV-1 when every fort on a group's path is broken: `stay_at_last` (default) the
    #: group stands at the innermost fort of its path; `remove` it leaves the board.
    when_all_broken: Literal["stay_at_last", "remove"] = Field(
        default="stay_at_last", json_schema_extra=shown(
        "全ての砦が壊れたとき", "when every fort is broken", words=ALL_BROKEN_WORDS))
    #: TD-ADV-1 a group standing at an intact fort: `stay` (default; it stopped there and
    #: moves on only once that fort is broken) or `advance` (walks on every round).
    group_at_intact_fort: Literal["stay", "advance"] = Field(default="stay", json_schema_extra=shown(
        "壊れていない砦の敵集団", "a group at an intact fort", words=AT_FORT_WORDS))
    #: TD-OPT-1 traps fire for every group moving on the passage in one advance phase and
    #: are then spent (default), or keep firing every advance phase (`true`).
    traps_persist: StrictBool = Field(default=False, json_schema_extra=shown(
        "罠が残り続ける", "traps persist"))
    #: TD-PRE-1 how many traps the GM allows in total (None = no limit).
    trap_limit: Count | None = Field(default=None, json_schema_extra=shown("罠の上限", "trap limit"))
    #: TD-PRE-1 skills a trap may be set with.
    trap_skills: list[Name] = Field(default_factory=lambda: ["手さばき", "科学"], json_schema_extra=shown(
        "罠に使える技能", "trap skills"))
    #: Who may send BCDice result lines instead of letting the engine roll.
    reported_results_from: list[Role] = Field(default_factory=_all_reporters, json_schema_extra=shown(
        "ダイス結果を送れる者", "who may report dice", words=ROLE_WORDS))
    #: CoC 7th caps bonus/penalty dice at 2.
    max_penalty_dice: StrictInt = Field(default=2, ge=0, le=2, json_schema_extra=shown(
        "ペナルティ・ダイスの上限", "penalty dice cap"))


# -- scenario-only specs ----------------------------------------------------------------


class SpecialAmmo(_Spec):
    """Limited special rounds (SDASS 特殊グレネード弾: damage 5, 2 uses)."""

    name: Name = Field(json_schema_extra=shown("名前", "name"))
    damage: Count = Field(json_schema_extra=shown("ダメージ", "damage"))
    uses: Count = Field(json_schema_extra=shown("弾数", "rounds"))


class WeaponSpec(_Spec):
    """An attack means (TD-ATK-3/4, TD-DATA). `range`/`magazine` None = ∞."""

    id: Id = Field(json_schema_extra=shown("ID", "id"))
    name: Name = Field(json_schema_extra=shown("武器名", "weapon name"))
    kind: WeaponKind = Field(default="firearm", json_schema_extra=shown(
        "種類", "kind", words=WEAPON_WORDS))
    skill: Name = Field(default="", json_schema_extra=shown("技能", "skill", about=(
        "判定に使う技能（魔眼は空欄なら目星）", "the skill its check uses (evil eye: 目星 when empty)")))
    magazine: Unlimited = Field(default=None, json_schema_extra=shown(
        "装弾数", "magazine", words=INFINITE_WORDS, about=("空欄か ∞ なら無制限", "empty or ∞: unlimited")))
    attacks_per_round: StrictInt = Field(default=1, ge=1, le=MAX_NUMBER, json_schema_extra=shown(
        "攻撃回数", "attacks per round"))
    range: Unlimited = Field(default=1, json_schema_extra=shown("射程", "range", words=INFINITE_WORDS, about=(
        "届く砦の遠さ（settings の射程の数え方による）。∞ なら全ての砦",
        "how far it reaches (counted as settings say); ∞: every fort")))
    damage: Count = Field(default=1, json_schema_extra=shown("ダメージ", "damage"))
    special_ammo: SpecialAmmo | None = Field(default=None, json_schema_extra=shown(
        "特殊弾", "special ammo"))


class WaveEntry(_Spec):
    """One group (or, with `special`, one 特異個体) appearing at a direction (TD-SET-1)."""

    name: Name = Field(json_schema_extra=shown("敵集団名", "group name"))
    direction: Id = Field(json_schema_extra=shown("方角", "direction", ids=DIRECTIONS))
    count: Count = Field(default=0, json_schema_extra=shown("個体数", "count", about=(
        "敵集団の個体数（特異個体なら不要）", "the group's size (not for a special individual)")))
    special: SpecialKind | None = Field(default=None, json_schema_extra=shown(
        "特異個体", "special individual", words=SPECIAL_WORDS))
    tag: Name | None = Field(default=None, json_schema_extra=shown("タグ", "tag"))
    san: Name | None = Field(default=None, json_schema_extra=shown("SANチェック", "SAN check"))
    fort_damage: Count | None = Field(default=None, json_schema_extra=shown(
        "砦へのダメージ", "fort damage"))
    penalty_dice: StrictInt | None = Field(default=None, ge=0, le=2, json_schema_extra=shown(
        "ペナルティ・ダイス", "penalty dice"))
    doubles_attack: StrictBool | None = Field(default=None, json_schema_extra=shown(
        "攻撃が2倍", "doubles attack"))
    hp: Number | None = Field(default=None, json_schema_extra=shown("耐久力", "hit points"))


class WavePlan(Entity):
    """TD-SET-1 waves: `fixed` per round, `alternate` odd/even, or `random` from a table.

    GM-only through `TowerDefenseState.__secret__` (views check every ancestor).
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["fixed", "alternate", "random"] = Field(default="fixed", json_schema_extra=shown(
        "増援の決め方", "wave mode", words=WAVE_MODE_WORDS))
    rounds: dict[int, list[WaveEntry]] = Field(default_factory=dict, json_schema_extra=shown(
        "ラウンドごとの増援", "waves by round", key=("ラウンド", "round"), key_pattern="^[0-9]+$",
        value=("そのラウンドの増援", "that round's groups")))
    odd: list[WaveEntry] = Field(default_factory=list, json_schema_extra=shown(
        "奇数ラウンドの増援", "odd-round waves"))
    even: list[WaveEntry] = Field(default_factory=list, json_schema_extra=shown(
        "偶数ラウンドの増援", "even-round waves"))
    table: list[list[WaveEntry]] = Field(default_factory=list, json_schema_extra=shown(
        "ランダム表", "random table", about=("1行がダイスの1つの目の増援", "one row of groups per die face")))

    def entries(self) -> list[WaveEntry]:
        return [e for es in (*self.rounds.values(), self.odd, self.even, *self.table)
                for e in es]


class Victory(Entity):
    """TD-SET-1 the PCs' goal, shown to them; defeat when a final fort breaks (default)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["survive", "destroy", "gm"] = Field(default="survive", json_schema_extra=shown(
        "勝利条件", "victory condition", words=VICTORY_WORDS))
    rounds: StrictInt = Field(default=6, ge=1, le=MAX_NUMBER, json_schema_extra=shown(
        "ラウンド数", "rounds"))
    tag: Name | None = Field(default=None, json_schema_extra=shown("タグ", "tag"))
    defeat_on_final_fort: StrictBool = Field(default=True, json_schema_extra=shown(
        "最終砦の破壊で敗北", "defeat when the final fort falls"))
    ja: Paragraph = Field(default="", json_schema_extra=shown("説明", "text"))
    en: Paragraph = Field(default="", json_schema_extra=shown("英語の説明", "English text"))


# -- state --------------------------------------------------------------------------------


class Fort(Entity):
    """A 砦 with its 耐久力 (TD-MAP-1); `final` forts decide defeat."""

    id: Id
    name: Name = Field(json_schema_extra=shown("砦名", "fort name"))
    tier: StrictInt = Field(ge=1, le=MAX_NUMBER, json_schema_extra=shown("段", "tier"))
    durability: Number = Field(json_schema_extra=shown("耐久力", "durability"))
    max_durability: Number = Field(json_schema_extra=shown("最大耐久力", "max durability"))
    cell: Cell = Field(json_schema_extra=shown("マス", "square"))
    final: StrictBool = Field(default=False, json_schema_extra=shown("最終砦", "final fort"))


class Direction(Entity):
    """A 方角 enemies enter from (TD-MAP-1)."""

    id: Id
    name: Name = Field(json_schema_extra=shown("方角名", "direction name"))
    cell: Cell = Field(json_schema_extra=shown("マス", "square"))


class Passage(Entity):
    """A 通路 from `outer` (a direction or fort) to `inner`; `lateral` joins one tier."""

    id: Id
    outer: Id = Field(json_schema_extra=shown("外側の砦・方角", "outer end"))
    inner: Id = Field(json_schema_extra=shown("内側の砦", "inner fort", ids=FORTS))
    cells: list[Cell] = Field(default_factory=list, json_schema_extra=shown("マス", "squares"))
    lateral: StrictBool = Field(default=False, json_schema_extra=shown("横の通路", "lateral passage"))


class Walker(Entity):
    """Something walking a route of passages inward: a group or a special individual.

    `at` = passages of `route` completed; `fort` = the fort it stands at (None at its
    direction or while `waiting` at the end of passage `route[at]` for room at a fort).
    """

    id: Id
    name: Name = Field(json_schema_extra=shown("名前", "name"))
    direction: Id = Field(json_schema_extra=shown("方角", "direction", ids=DIRECTIONS))
    route: list[Id] = Field(default_factory=list, json_schema_extra=shown("経路", "route", ids=PASSAGES))
    at: Count = Field(default=0, json_schema_extra=shown("進んだ通路の数", "passages walked"))
    fort: Id | None = Field(default=None, json_schema_extra=shown("いる砦", "at fort", ids=FORTS))
    cell: Cell = Field(json_schema_extra=shown("マス", "square"))
    waiting: StrictBool = Field(default=False, json_schema_extra=shown(
        "通路の端で待機", "waiting at the passage end"))
    tag: Name | None = Field(default=None, json_schema_extra=shown("タグ", "tag"))
    san: Name | None = Field(default=None, json_schema_extra=shown("SANチェック", "SAN check"))
    round: Count = Field(default=0, json_schema_extra=shown("出現ラウンド", "arrival round"))


class Group(Walker):
    """An enemy group: 個体数 is its only number, both HP and attack (TD-REIN-1).

    `max_count` is the count it arrived with (for a 個体数 bar's maximum)."""

    count: Count = Field(json_schema_extra=shown("個体数", "count"))
    max_count: Count | None = Field(default=None, json_schema_extra=shown("最大個体数", "max count"))
    snared: StrictBool = Field(default=False, json_schema_extra=shown("足止め", "snared"))


class Individual(Walker):
    """A 特異個体 (TD-OPT-2), kept with normal data; its field effects apply while it is here."""

    special: SpecialKind = Field(json_schema_extra=shown(
        "特異個体", "special individual", words=SPECIAL_WORDS))
    fort_damage: Count = Field(default=0, json_schema_extra=shown("砦へのダメージ", "fort damage"))
    penalty_dice: Count = Field(default=0, json_schema_extra=shown("ペナルティ・ダイス", "penalty dice"))
    doubles_attack: StrictBool = Field(default=False, json_schema_extra=shown(
        "攻撃が2倍", "doubles attack"))
    hp: Number | None = Field(default=None, json_schema_extra=shown("耐久力", "hit points"))


class Trap(Entity):
    """A trap on a passage (TD-OPT-1); `spent` once it has fired (unless traps persist)."""

    id: Id
    passage: Id = Field(json_schema_extra=shown("通路", "passage", ids=PASSAGES))
    kind: TrapKind = Field(json_schema_extra=shown("罠の種類", "trap kind", words=TRAP_WORDS))
    pc: Id | None = Field(default=None, json_schema_extra=shown(
        "仕掛けたPC", "set by", ids=("tower_defense", "pcs")))
    cell: Cell | None = Field(default=None, json_schema_extra=shown("マス", "square"))
    spent: StrictBool = Field(default=False, json_schema_extra=shown("発動済み", "spent"))


class WeaponState(Entity):
    """A PC's weapon: rounds loaded (None = ∞), special rounds left, attacks this round."""

    weapon: Id = Field(json_schema_extra=shown("武器", "weapon", ids=("tower_defense", "weapons")))
    loaded: Count | None = Field(default=None, json_schema_extra=shown("残弾", "rounds loaded"))
    special_left: Count = Field(default=0, json_schema_extra=shown("特殊弾の残り", "special rounds left"))
    used: Count = Field(default=0, json_schema_extra=shown(
        "このラウンドの攻撃回数", "attacks this round"))


class PC(Entity):
    """A PC (or NPC, `player` None = the GM's) at a fort, with weapons and skill values."""

    id: Id
    name: Name = Field(json_schema_extra=shown("名前", "name"))
    player: Id | None = Field(default=None, json_schema_extra=shown(
        "プレイヤー", "player", ids=("meta", "players")))
    fort: Id | None = Field(default=None, json_schema_extra=shown("いる砦", "at fort", ids=FORTS))
    skills: dict[Name, Number] = Field(default_factory=dict, json_schema_extra=shown("技能", "skills"))
    weapons: dict[Id, WeaponState] = Field(default_factory=dict, json_schema_extra=shown(
        "武器", "weapons"))
    acted: list[Name] = Field(default_factory=list, json_schema_extra=shown(
        "このラウンドの行動", "acted this round"))


class TowerDefenseState(Entity):
    """The tower defense of a room: map, enemies, PCs, traps, round/phase and outcome.

    GM-only: `waves` (future waves). Everything else is shown to the table.
    """

    __secret__ = frozenset({"waves"})

    round: Count = Field(default=0, json_schema_extra=shown("ラウンド", "round"))
    phase: Phase = Field(default="setup", json_schema_extra=shown("フェイズ", "phase", words=PHASE_WORDS))
    outcome: Outcome = Field(default="none", json_schema_extra=shown(
        "決着", "outcome", words=OUTCOME_WORDS))
    outcome_reason: Sentence = Field(default="", json_schema_extra=shown("決着の理由", "outcome reason"))
    victory: Victory = Field(default_factory=Victory, json_schema_extra=shown(
        "勝利条件", "victory condition"))
    settings: TDSettings = Field(default_factory=TDSettings, json_schema_extra=shown("設定", "settings"))
    weapons: dict[str, WeaponSpec] = Field(default_factory=dict, json_schema_extra=shown(
        "武器", "weapons"))
    directions: dict[str, Direction] = Field(default_factory=dict, json_schema_extra=shown(
        "方角", "directions"))
    forts: dict[str, Fort] = Field(default_factory=dict, json_schema_extra=shown("砦", "forts"))
    passages: dict[str, Passage] = Field(default_factory=dict, json_schema_extra=shown(
        "通路", "passages"))
    groups: dict[str, Group] = Field(default_factory=dict, json_schema_extra=shown(
        "敵集団", "enemy groups"))
    individuals: dict[str, Individual] = Field(default_factory=dict, json_schema_extra=shown(
        "特異個体", "special individuals"))
    pcs: dict[str, PC] = Field(default_factory=dict, json_schema_extra=shown("PC", "PCs"))
    traps: dict[str, Trap] = Field(default_factory=dict, json_schema_extra=shown("罠", "traps"))
    marks: dict[Id, Id] = Field(default_factory=dict, json_schema_extra=shown(
        "魔眼の印", "evil eye marks"))
    destroyed_tags: list[Name] = Field(default_factory=list, json_schema_extra=shown(
        "倒したタグ", "destroyed tags"))
    waves: WavePlan = Field(default_factory=WavePlan, json_schema_extra=shown("増援", "waves"))
