"""Mass combat data: formation and strategy specs, settings, and the state the engine writes.

Spec models (`FormationSpec`, `StrategySpec`, `MassSettings`) are plain pydantic models
validated once at scenario load; state models are `Entity`s written through `Tx`.
Strength, attack and defence never go below 0; strength never above the unit's maximum.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import MAX_NUMBER, Count, Id, Name, Number, Sentence
from ..phases import PhaseSpec, PhaseTable
from ..titles import shown
from ..tx import parse_dice
from ..views import Audience, Entity

__all__ = [
    "HALVES",
    "ROWS",
    "STEPS",
    "TURN",
    "Flag",
    "FormationEffect",
    "FormationSpec",
    "Half",
    "MassSettings",
    "MassState",
    "Mod",
    "PendingAttack",
    "Row",
    "Side",
    "Step",
    "Stone",
    "StrategyEffect",
    "StrategySpec",
    "Unit",
]


def _dice(value: str) -> str:
    """A dice expression komasync can roll (`1D6`, `3D6`, `-1D6` for a loss)."""
    parse_dice(value.lstrip("+-"))
    return value


Dice = Annotated[str, Field(pattern=r"^[+-]?\d{0,3}[Dd]\d{1,4}$", max_length=10),
                 AfterValidator(_dice)]

#: The war phase (戦争フェイズ) after preparation (戦争準備フェイズ): three steps a turn.
Step = Literal["preparation", "deployment", "tactics", "battle", "over"]
STEPS: tuple[Step, ...] = ("preparation", "deployment", "tactics", "battle", "over")
#: The turn flow as a table (flow.py walks it): the GM closes preparation, deployment and
#: tactics (`mass.next_step`); the battle ends by itself once every unit has acted, and
#: after the turn end comes the next turn's deployment. The war ends in `over` (MASS-END).
TURN = PhaseTable(path=("mass", "step"), rule="MASS-T-3", phases=(
    PhaseSpec(id="preparation", ja="戦争準備フェイズ", en="preparation", rule="MASS-PREP-1",
              acts="players", ends="gm", next="deployment"),
    PhaseSpec(id="deployment", ja="戦力配置", en="deployment", rule="MASS-T-1", acts="players",
              ends="gm", next="tactics"),
    PhaseSpec(id="tactics", ja="戦術決定", en="tactics", rule="MASS-T-2", acts="players",
              ends="gm", next="battle"),
    PhaseSpec(id="battle", ja="戦闘", en="battle", rule="MASS-T-3", acts="acting",
              ends="all_acted", next="deployment"),
    PhaseSpec(id="over", ja="終了", en="over", rule="MASS-END", acts="nobody", ends="never"),
))
Row = Literal["front", "back"]
#: The seed's words for the rows (MASS-T-1).
ROW_WORDS = {"front": ("前列", "front row"), "back": ("後列", "back row")}
ROWS: tuple[Row, ...] = ("front", "back")
Half = Literal["attack", "defence"]
HALF_WORDS = {"attack": ("攻撃力", "attack"), "defence": ("防御力", "defence")}
HALVES: tuple[Half, ...] = ("attack", "defence")
Outcome = Literal["none", "won", "draw"]
OUTCOME_WORDS = {"none": ("決着前", "undecided"), "won": ("勝利", "won"), "draw": ("引き分け", "draw")}
#: The seed's words for each value the GM may pick (the override editor shows them).
STEP_WORDS = {p.id: (p.ja, p.en) for p in TURN.phases}
STAGE_WORDS = {"declared": ("宣言", "declared"), "rolled": ("ロール済み", "rolled")}
CLOSING_WORDS = {"deployment": ("戦力配置", "deployment"), "split": ("配分", "split"),
                 "turn_end": ("ターン終了", "turn end")}
INITIATIVE_WORDS = {"initiative": ("行動値", "initiative"), "intellect": ("知力", "intellect")}
GM_REACTION_WORDS = {"ask": ("毎回尋ねる", "ask every time"), "never": ("対応しない", "never react")}
REPORTER_WORDS = {"gm": ("GM", "GM"), "player": ("プレイヤー", "player"), "bridge": ("VTT連携", "VTT bridge")}
FLAG_WORDS = {"treat_front": ("前列扱い", "treated as front"), "treat_back": ("後列扱い", "treated as back"),
              "divide": ("分断作戦", "divide"), "smoke": ("煙攻め", "smoke"),
              "no_front_bonus": ("前列ボーナスなし", "no front-row bonus"), "lp_only": ("LPのみ", "LP only"),
              "charge": ("突撃", "charge")}
#: Where the ids of a side and a unit point (the override editor offers them by name).
SIDES = ("mass", "sides")
UNITS = ("mass", "units")

#: What a formation does beyond its flat attack/defence change (MASS-DATA).
FormationEffect = Literal["none", "first", "reroll_front", "fixed_die", "surge", "backwater"]

#: Which handler a strategy's effect runs (mass/strategies.py); `manual` = the GM applies
#: it by hand (全軍突撃: the seed gives no effect), `modifier` = the scenario's own numbers.
StrategyEffect = Literal[
    "manual", "modifier", "commander_charge", "rear_advance", "front_advance",
    "advance_attack", "retreat_attack", "strong_advance", "blast", "full_retreat",
    "full_defence", "full_defence_strong", "rally", "rally_strong", "formation_change",
    "formation_change_fast", "rapid_front", "rapid_back", "divide", "retreat",
    "information", "smoke", "rain", "decoy", "white_flag", "stones",
]

#: Turn-long conditions a strategy leaves on a unit (reset at turn end, MASS-STRAT-1).
Flag = Literal["treat_front", "treat_back", "divide", "smoke", "no_front_bonus", "lp_only",
               "charge"]

#: A formation's and a strategy's effect in words: the default data set's name for it.
FORMATION_EFFECT_WORDS = {
    "none": ("修正のみ", "modifiers only"), "first": ("疾風陣", "Gale"),
    "reroll_front": ("片翼突撃の陣", "One-wing charge"),
    "fixed_die": ("中央突破の陣", "Central breakthrough"),
    "surge": ("三波状陣", "Triple wave"), "backwater": ("背水の陣", "Back to the river")}
STRATEGY_EFFECT_WORDS = {
    "manual": ("GMが処理", "applied by the GM"), "modifier": ("シナリオの修正", "scenario modifier"),
    "commander_charge": ("指揮官突撃", "Commander's charge"), "rear_advance": ("後列前進", "Rear advance"),
    "front_advance": ("前列前進", "Front advance"), "advance_attack": ("前進攻撃", "Advancing attack"),
    "retreat_attack": ("後退攻撃", "Retreating attack"), "strong_advance": ("強撃前進", "Heavy advance"),
    "blast": ("爆裂部隊", "Blast squad"), "full_retreat": ("全軍後退", "General withdrawal"),
    "full_defence": ("全軍防御", "General defence"),
    "full_defence_strong": ("全軍防御・強", "General defence+"),
    "rally": ("統率回復", "Rally"), "rally_strong": ("統率回復・強", "Rally+"),
    "formation_change": ("陣形変更", "Change formation"),
    "formation_change_fast": ("陣形変更・速", "Quick formation change"),
    "rapid_front": ("速攻前進", "Rush forward"), "rapid_back": ("速攻後退", "Rush back"),
    "divide": ("分断作戦", "Divide"), "retreat": ("全軍退却", "Full retreat"),
    "information": ("情報操作", "Disinformation"), "smoke": ("煙攻め", "Smoke"),
    "rain": ("雨乞い", "Rain dance"),
    "decoy": ("囮作戦", "Decoy"), "white_flag": ("偽りの白旗", "False white flag"),
    "stones": ("投石部隊", "Stone throwers")}
CATEGORY_WORDS = {"attack": ("攻撃", "attack"), "recovery": ("回復", "recovery"), "trick": ("策略", "trick")}
SCOPE_WORDS = {"self": ("自部隊", "own unit"), "allies": ("味方全体", "allies"), "target": ("対象", "target")}


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FormationSpec(_Spec):
    """One formation (陣形): flat modifiers and a special effect (MASS-T-2, MASS-DATA)."""

    id: str = Field(min_length=1, max_length=40, json_schema_extra=shown(
        "陣形名", "formation name", about=("データの陣形と同じ名前ならそれを置き換える",
                                         "the name of one of the seed's formations replaces it")))
    en: Name = Field(default="", json_schema_extra=shown("英語名", "English name"))
    attack: StrictInt = Field(default=0, ge=-20, le=20, json_schema_extra=shown(
        "攻撃力の修正", "attack modifier"))
    defence: StrictInt = Field(default=0, ge=-20, le=20, json_schema_extra=shown(
        "防御力の修正", "defence modifier"))
    effect: FormationEffect = Field(default="none", json_schema_extra=shown(
        "特殊効果", "special effect", words=FORMATION_EFFECT_WORDS))
    #: `fixed_die`: the face the attack die is fixed at; `surge`: +1s per turn.
    value: StrictInt = Field(default=0, ge=0, le=20, json_schema_extra=shown("効果の値", "effect value"))
    ja_text: Sentence = Field(default="", json_schema_extra=shown("説明", "text"))
    en_text: Sentence = Field(default="", json_schema_extra=shown("英語の説明", "English text"))


class ModifierEffect(_Spec):
    """A scenario-supplied effect (`effect: modifier`): flat or dice changes to a scope."""

    scope: Literal["self", "allies", "target"] = Field(default="self", json_schema_extra=shown(
        "範囲", "scope", words=SCOPE_WORDS))
    attack: Number | Dice = Field(default=0, json_schema_extra=shown("攻撃力の修正", "attack change"))
    defence: Number | Dice = Field(default=0, json_schema_extra=shown("防御力の修正", "defence change"))
    strength: Number | Dice = Field(default=0, json_schema_extra=shown("戦力の修正", "strength change"))


class StrategySpec(_Spec):
    """One strategy (作戦): its use count (None = 無制限) and the effect it runs."""

    id: str = Field(min_length=1, max_length=40, json_schema_extra=shown(
        "作戦名", "strategy name", about=("データの作戦と同じ名前ならそれを置き換える",
                                        "the name of one of the seed's strategies replaces it")))
    en: Name = Field(default="", json_schema_extra=shown("英語名", "English name"))
    category: Literal["attack", "recovery", "trick"] = Field(default="attack", json_schema_extra=shown(
        "分類", "category", words=CATEGORY_WORDS))
    uses: StrictInt | None = Field(default=1, ge=0, le=99, json_schema_extra=shown("使用回数", "uses"))
    effect: StrategyEffect = Field(default="manual", json_schema_extra=shown(
        "効果の処理", "effect handler", words=STRATEGY_EFFECT_WORDS))
    modifier: ModifierEffect | None = Field(default=None, json_schema_extra=shown(
        "シナリオの修正", "scenario modifier"))
    ja_text: Sentence = Field(default="", json_schema_extra=shown("説明", "text"))
    en_text: Sentence = Field(default="", json_schema_extra=shown("英語の説明", "English text"))


class MassSettings(_Spec):
    """Scenario `settings:` — each reading of the seed that a table may want otherwise."""

    #: MASS-PREP-1 the dice of a 魅力/愛 check (the commander-in-chief always uses 3D6).
    check_dice: Dice = Field(default="2D6", json_schema_extra=shown("判定のダイス", "check dice"))
    commander_dice: Dice = Field(default="3D6", json_schema_extra=shown(
        "総大将のダイス", "commander-in-chief dice"))
    #: MASS-PREP-1 abilities the check may use; the `lp_abilities` cost 1 LP.
    abilities: list[Name] = Field(default_factory=lambda: ["魅力", "愛"], max_length=20,
                                  json_schema_extra=shown("判定に使える能力", "check abilities"))
    lp_abilities: list[Name] = Field(default_factory=lambda: ["ボディ", "テクニック"],
                                     max_length=20, json_schema_extra=shown(
                                         "LPを使う能力", "abilities costing LP"))
    #: MASS-PREP-3 skills that may stand beside メンタル in the picks formula.
    pick_skills: list[Name] = Field(default_factory=lambda: ["知力", "本能"], max_length=20,
                                    json_schema_extra=shown("選択数に使える技能", "pick skills"))
    #: MASS-PREP-3 always owned, free of the pick limit.
    free_formations: list[Name] = Field(default_factory=lambda: ["縦列陣形"], max_length=20,
                                        json_schema_extra=shown(
                                            "無条件の陣形", "free formations", ref="mass.formations"))
    free_strategies: list[Name] = Field(default_factory=lambda: ["全軍退却"], max_length=20,
                                        json_schema_extra=shown(
                                            "無条件の作戦", "free strategies", ref="mass.strategies"))
    #: MASS-T-2 the formation a unit has when it picks none (and after 再編成).
    default_formation: Name = Field(default="縦列陣形", json_schema_extra=shown(
        "標準の陣形", "default formation", ref="mass.formations"))
    #: MASS-DMG-1 dice of the front-row attack bonus.
    bonus_dice: Dice = Field(default="1D6", json_schema_extra=shown(
        "前列ボーナスのダイス", "front-row bonus dice"))
    #: GM-run units' reactions to an attack with their strategies (囮作戦, 情報操作,
    #: 偽りの白旗): `ask` — the GM is asked at every window where one could react,
    #: whatever it holds (just "pass" when nothing), so a wait tells the players nothing;
    #: `never` — GM-run units do not react with strategies and their attacks never wait.
    gm_reactions: Literal["ask", "never"] = Field(default="ask", json_schema_extra=shown(
        "GMの部隊の対応", "GM units' reactions", words=GM_REACTION_WORDS))
    #: Who may send BCDice lines instead of letting komasync roll.
    reported_results_from: list[Literal["gm", "player", "bridge"]] = Field(
        default_factory=lambda: ["gm", "player", "bridge"],  # type: ignore[arg-type]
        json_schema_extra=shown("ダイス結果を送れる者", "who may report dice", words=REPORTER_WORDS))


class Side(Entity):
    """One army: its units and its commander-in-chief (総大将), if it names one."""

    id: Id
    name: Name = Field(json_schema_extra=shown("名前", "name"))
    en: Name = Field(default="", json_schema_extra=shown("英語名", "English name"))
    commander: Id | None = Field(default=None, json_schema_extra=shown(
        "総大将", "commander-in-chief", ids=UNITS))


class Mod(Entity):
    """A turn-long change to a unit's attack/defence or a flag, from a strategy or action.

    `source` is the unit whose strategy (or action) made it, or `gm`. Cleared at turn end
    (MASS-STRAT-1); the source's mods go when it switches strategy (MASS-T-3).
    """

    strategy: Name = Field(json_schema_extra=shown("作戦", "strategy"))
    source: Id = Field(json_schema_extra=shown("出所", "source"))
    attack: Number = Field(default=0, json_schema_extra=shown("攻撃力の増減", "attack change"))
    defence: Number = Field(default=0, json_schema_extra=shown("防御力の増減", "defence change"))
    flags: list[Flag] = Field(default_factory=list, json_schema_extra=shown(
        "効果", "flags", words=FLAG_WORDS))


class Unit(Entity):
    """A unit (部隊) led by a PC (or an NPC of the GM's): stats, strength, row, formation."""

    id: Id
    name: Name = Field(json_schema_extra=shown("部隊名", "unit name"))
    side: Id = Field(json_schema_extra=shown("陣営", "side", ids=SIDES))
    player: Id | None = Field(default=None, json_schema_extra=shown(
        "プレイヤー", "player", ids=("meta", "players")))
    leader: Name = Field(default="", json_schema_extra=shown("指揮官", "leader"))
    commander: StrictBool = Field(default=False, json_schema_extra=shown(
        "総大将", "commander-in-chief"))
    # -- the leader's numbers (MASS-PREP-1/3, MASS-T-3, 指揮官突撃)
    abilities: dict[str, Number] = Field(default_factory=dict, json_schema_extra=shown(
        "能力値", "abilities"))
    mental: Number = Field(default=0, json_schema_extra=shown("精神力", "mental"))
    skills: dict[str, Number] = Field(default_factory=dict, json_schema_extra=shown("技能", "skills"))
    initiative: Number = Field(default=0, json_schema_extra=shown("行動値", "initiative"))
    intellect_base: Number | None = Field(default=None, json_schema_extra=shown(
        "知力の基本値", "intellect base"))
    weapon_base: Number | None = Field(default=None, json_schema_extra=shown(
        "武器の基本値", "weapon base"))
    lp: Count | None = Field(default=None, json_schema_extra=shown("LP", "LP"))
    initiative_from: Literal["initiative", "intellect"] = Field(default="initiative", json_schema_extra=shown(
        "行動値の元", "initiative from", words=INITIATIVE_WORDS))
    # -- strength (MASS-PREP-1/2)
    max_strength: StrictInt | None = Field(default=None, ge=0, le=MAX_NUMBER,
                                           json_schema_extra=shown("最大戦力", "max strength",
                                                                   rule="MASS-PREP-1"))
    strength: StrictInt = Field(default=0, ge=0, le=MAX_NUMBER,
                                json_schema_extra=shown("戦力", "strength", rule="MASS-PREP-2"))
    ability_used: Name | None = Field(default=None, json_schema_extra=shown(
        "判定に使った能力", "ability used"))
    routed: StrictBool = Field(default=False, json_schema_extra=shown(
        "敗走", "routed"))
    retreated: StrictBool = Field(default=False, json_schema_extra=shown("退却", "retreated"))
    # -- picks (MASS-PREP-3)
    picked: StrictBool = Field(default=False, json_schema_extra=shown("選択済み", "picked"))
    formations: list[Name] = Field(default_factory=list, json_schema_extra=shown("陣形", "formations"))
    strategies: list[Name] = Field(default_factory=list, json_schema_extra=shown("作戦", "strategies"))
    uses: dict[str, Count | None] = Field(default_factory=dict, json_schema_extra=shown(
        "作戦の残り回数", "uses left"))
    # -- this turn (MASS-T-1..3)
    row: Row | None = Field(default=None, json_schema_extra=shown(
        "配置", "row", words=ROW_WORDS))
    odd: Half | None = Field(default=None, json_schema_extra=shown(
        "余りの1点", "odd point", words=HALF_WORDS))
    #: MASS-T-1 strength ÷ 2, the odd point where its player put it (or not yet: pending).
    attack_half: Count = Field(default=0, json_schema_extra=shown(
        "攻撃への配分", "attack half", rule="MASS-T-1"))
    defence_half: Count = Field(default=0, json_schema_extra=shown(
        "防御への配分", "defence half", rule="MASS-T-1"))
    #: The halves still wait on the odd point (a `mass.odd_point` prompt about this unit):
    #: they hold strength ÷ 2 rounded down until it is answered.
    split_pending: StrictBool = Field(default=False, json_schema_extra=shown("配分待ち", "split pending"))
    formation: Name | None = Field(default=None, json_schema_extra=shown(
        "陣形", "formation"))
    #: MASS-T-2 the halves changed by the formation: the turn's values before `mods`.
    attack_base: Count = Field(default=0, json_schema_extra=shown(
        "陣形後の攻撃力", "attack after formation", rule="MASS-T-2"))
    defence_base: Count = Field(default=0, json_schema_extra=shown(
        "陣形後の防御力", "defence after formation", rule="MASS-T-2"))
    #: The effective values (MASS-STRAT-1): base plus every turn-long `mods` change, never
    #: below 0; the engine keeps them in step with base and mods (rules.set_unit).
    attack: Count = Field(default=0, json_schema_extra=shown(
        "攻撃力", "attack", rule="MASS-STRAT-1"))
    defence: Count = Field(default=0, json_schema_extra=shown(
        "防御力", "defence", rule="MASS-STRAT-1"))
    active: Name | None = Field(default=None, json_schema_extra=shown("使用中の作戦", "strategy in use"))
    mods: list[Mod] = Field(default_factory=list, json_schema_extra=shown(
        "ターン中の変化", "turn-long changes"))
    acted: StrictBool = Field(default=False, json_schema_extra=shown("行動済み", "acted"))
    delayed: StrictBool = Field(default=False, json_schema_extra=shown("遅延", "delayed"))
    reroll_used: StrictBool = Field(default=False, json_schema_extra=shown("振り直し済み", "reroll used"))
    surges_left: Count = Field(default=0, json_schema_extra=shown("三波状陣の残り", "surges left"))

    def redact(self, audience: Audience, data: dict[str, Any]) -> dict[str, Any]:
        """A GM-run unit's picks, uses and numbers are the GM's hand; players see the board."""
        if audience.is_gm or self.player is not None:
            return data
        for key in ("abilities", "mental", "skills", "weapon_base", "intellect_base", "lp",
                    "formations", "strategies", "uses", "ability_used"):
            data.pop(key, None)
        return data


class PendingAttack(Entity):
    """An attack between its declaration and its damage (MASS-DMG-1), with the reactions
    made so far. Stages: `declared` (囮作戦 may re-target), `rolled` (rerolls, 白旗,
    三波状陣), then damage. `passed` lists who declined to react this round of asking."""

    id: Id
    attacker: Id = Field(json_schema_extra=shown("攻撃する部隊", "attacker", ids=UNITS))
    target: Id = Field(json_schema_extra=shown("対象の部隊", "target", ids=UNITS))
    stage: Literal["declared", "rolled"] = Field(default="declared", json_schema_extra=shown(
        "段階", "stage", words=STAGE_WORDS))
    bonus: StrictBool = Field(default=False, json_schema_extra=shown("前列ボーナス", "front-row bonus"))
    die: Count | None = Field(default=None, json_schema_extra=shown("出目", "die"))
    fixed: StrictBool = Field(default=False, json_schema_extra=shown("出目固定", "fixed die"))
    reported: Sentence | None = Field(default=None, json_schema_extra=shown(
        "報告された結果", "reported result"))
    reporter: Name | None = Field(default=None, json_schema_extra=shown("報告した者", "reporter"))
    charge: StrictBool = Field(default=False, json_schema_extra=shown("指揮官突撃", "commander charge"))
    rerolled: StrictBool = Field(default=False, json_schema_extra=shown("振り直した", "rerolled"))
    information: StrictBool = Field(default=False, json_schema_extra=shown("情報操作", "information"))
    white_flag: StrictBool = Field(default=False, json_schema_extra=shown("偽りの白旗", "white flag"))
    decoy: Id | None = Field(default=None, json_schema_extra=shown("囮", "decoy", ids=UNITS))
    surge_attack: Count = Field(default=0, json_schema_extra=shown("三波状陣の攻撃", "surge attack"))
    surge_defence: Count = Field(default=0, json_schema_extra=shown("三波状陣の防御", "surge defence"))
    passed: list[Id] = Field(default_factory=list, json_schema_extra=shown(
        "対応しなかった部隊", "passed", ids=UNITS))


class Stone(Entity):
    """投石部隊 declared in the tactics step: 1D6 damage to `target` at the turn's end."""

    id: Id
    user: Id = Field(json_schema_extra=shown("投石部隊", "stone unit", ids=UNITS))
    target: Id = Field(json_schema_extra=shown("対象の部隊", "target", ids=UNITS))


class MassState(Entity):
    """The whole war: data set, sides, units, step, battle order and what is pending."""

    settings: MassSettings = Field(default_factory=MassSettings, json_schema_extra=shown(
        "設定", "settings"))
    formations: dict[str, FormationSpec] = Field(default_factory=dict, json_schema_extra=shown(
        "陣形", "formations"))
    strategies: dict[str, StrategySpec] = Field(default_factory=dict, json_schema_extra=shown(
        "作戦", "strategies"))
    sides: dict[str, Side] = Field(default_factory=dict, json_schema_extra=shown("陣営", "sides"))
    units: dict[str, Unit] = Field(default_factory=dict, json_schema_extra=shown("部隊", "units"))
    turn: Count = Field(default=0, json_schema_extra=shown("ターン", "turn"))
    step: Step = Field(default="preparation", json_schema_extra=shown(
        "ステップ", "step", words=STEP_WORDS))
    #: What the war closes by itself: deployment (then `split`: the halves are set and the
    #: odd points asked), or the turn's end.
    closing: Literal["deployment", "split", "turn_end"] | None = Field(default=None, json_schema_extra=shown(
        "自動で閉じる段階", "closing", words=CLOSING_WORDS))
    rebalance_asked: list[Id] = Field(default_factory=list, json_schema_extra=shown(
        "配分を尋ねた部隊", "rebalance asked", ids=UNITS))
    order: list[Id] = Field(default_factory=list, json_schema_extra=shown(
        "行動順", "battle order", ids=UNITS))
    current: Id | None = Field(default=None, json_schema_extra=shown(
        "行動中の部隊", "acting unit", ids=UNITS))
    attack: PendingAttack | None = Field(default=None, json_schema_extra=shown(
        "解決中の攻撃", "attack being resolved"))
    stones: list[Stone] = Field(default_factory=list, json_schema_extra=shown("投石", "stones"))
    outcome: Outcome = Field(default="none", json_schema_extra=shown(
        "決着", "outcome", words=OUTCOME_WORDS))
    winner: Id | None = Field(default=None, json_schema_extra=shown(
        "勝者", "winner", ids=SIDES))
    outcome_reason: Name = Field(default="", json_schema_extra=shown("決着の理由", "outcome reason"))
