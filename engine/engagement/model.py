"""Engagement state: the relation (pairs), the turn, the open exchange, handover offers.

The relation is kept as one `Pair` per two characters, keyed by their sorted ids, so it
is symmetric by construction (ENG-1). Every switch and every reading of an ambiguity in
the seed is an `EngagementSettings` field (docs/engagement.md has the table).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import Count, Id, Number
from ..combatants import Combatant
from ..phases import PhaseSpec, PhaseTable
from ..titles import shown
from ..views import Audience, Entity

__all__ = [
    "ATTACKS",
    "DEFENCES",
    "PHASES",
    "TURN",
    "AttackKind",
    "Awaited",
    "Awaiting",
    "Check",
    "Defence",
    "DefenceKind",
    "EngagementSettings",
    "EngagementState",
    "Exchange",
    "How",
    "Left",
    "Offer",
    "Pair",
    "Phase",
    "Purpose",
    "Stage",
    "Used",
    "pair_key",
]

#: The turn: setup → initiative/main → cleanup (komasync's ENG-TURN).
Phase = Literal["setup", "main", "cleanup"]
PHASES: tuple[Phase, ...] = ("setup", "main", "cleanup")
#: The turn as a table; the GM moves it on (`engagement.phase`), the cleanup's successor
#: is the next turn's setup.
TURN = PhaseTable(path=("engagement", "phase"), rule="ENG-TURN", phases=(
    PhaseSpec(id="setup", ja="セットアップ", en="setup", rule="ENG-EF-2", acts="everyone",
              ends="gm", next="main"),
    PhaseSpec(id="main", ja="イニシアチブ／メインフェイズ", en="initiative / main phase",
              rule="ENG-EF-1", acts="everyone", ends="gm", next="cleanup"),
    PhaseSpec(id="cleanup", ja="クリンナップ", en="cleanup", rule="ENG-TURN", acts="gm",
              ends="gm", next="setup"),
))
#: How a pair formed (ENG-IN-1): a successful approach, a cover, a guard for another,
#: or an ability / the GM.
How = Literal["approach", "cover", "guard", "ability"]
#: Attacks an exchange can be about: the seed's approach and melee, and the base game's
#: shot and homing (guard and cover answer them too).
AttackKind = Literal["approach", "melee", "shot", "homing"]
ATTACKS: tuple[AttackKind, ...] = ("approach", "melee", "shot", "homing")
#: How the attacked side answers: evade, guard, cover, or take it.
DefenceKind = Literal["evade", "guard", "cover", "none"]
DEFENCES: tuple[DefenceKind, ...] = ("evade", "guard", "cover", "none")
Purpose = Literal["approach", "melee", "shot", "homing", "evade", "guard", "cover", "damage"]
#: Where an exchange is: its attack's check (`attack`), an approach an ally may still
#: cover (`cover`), the attacked side's answer and its check (`defence`), the damage.
Stage = Literal["attack", "cover", "defence", "damage"]
#: What an open exchange waits for: the attack's check line (`attack_check`), an ally's
#: cover or the target's `none` against an approach (`cover`), the attacked side's
#: defence (`defence`), the defence check's line (`defence_check`), the damage line.
Awaited = Literal["attack_check", "cover", "defence", "defence_check", "damage"]

#: The seed's words for each value the GM may pick (the override editor shows them).
PHASE_WORDS = {p.id: (p.ja, p.en) for p in TURN.phases}
HOW_WORDS = {"approach": ("接近", "approach"), "cover": ("カバー", "cover"), "guard": ("ガード", "guard"),
             "ability": ("能力・GM", "ability or GM")}
ATTACK_WORDS = {"approach": ("接近", "approach"), "melee": ("近接攻撃", "melee"),
                "shot": ("ショット", "shot"), "homing": ("ホーミング", "homing")}
DEFENCE_WORDS = {"evade": ("回避", "evade"), "guard": ("ガード", "guard"), "cover": ("カバー", "cover"),
                 "none": ("受ける", "take it")}
PURPOSE_WORDS = {**ATTACK_WORDS, **DEFENCE_WORDS, "damage": ("ダメージ", "damage")}
STAGE_WORDS = {"attack": ("攻撃の判定", "attack check"), "cover": ("カバー待ち", "cover"),
               "defence": ("防御", "defence"), "damage": ("ダメージ", "damage")}
AWAITED_WORDS = {"attack_check": ("攻撃の判定", "attack check"), "cover": ("カバー", "cover"),
                 "defence": ("防御の宣言", "defence"), "defence_check": ("防御の判定", "defence check"),
                 "damage": ("ダメージ", "damage")}
TIE_WORDS = {"defender": ("防御側の勝ち", "defender wins"), "attacker": ("攻撃側の勝ち", "attacker wins")}
APPROACH_ROW_WORDS = {"any": ("制限なし (GMが判断)", "any (the GM judges)"),
                      "from_front": ("接近する者が前衛", "from the front row"),
                      "front_to_front": ("前衛から前衛へ", "front row to front row")}
SETUP_TARGET_WORDS = {"earlier": ("前のターンからの接近状態のみ", "pairs from earlier turns"),
                      "any": ("このセットアップの接近状態も", "also pairs from this setup")}
LEFT_WORDS = {"handover": ("離脱", "handover"), "guard": ("ガード", "guard"), "cover": ("カバー", "cover")}
#: Where a combatant's id points.
COMBATANTS = ("engagement", "combatants")


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EngagementSettings(_Spec):
    """Scenario `settings:` — the base game's numbers the seed leaves out, and one field
    per reading of an ambiguity (docs/engagement.md)."""

    #: Sides of a check die: achievement = check value + the dice (base game).
    check_die: StrictInt = Field(default=6, ge=2, le=100, json_schema_extra=shown(
        "判定ダイスの面数", "check die sides"))
    #: Sides of a damage die (`1D-3`, `(LV)D` of ENG-ACT-2).
    damage_die: StrictInt = Field(default=6, ge=2, le=100, json_schema_extra=shown(
        "ダメージダイスの面数", "damage die sides"))
    #: An opposed check that ties: the `defender` wins (the seed: the attacker must win
    #: to hit) or the `attacker` wins.
    ties: Literal["defender", "attacker"] = Field(default="defender", json_schema_extra=shown(
        "同値のとき", "on a tie", words=TIE_WORDS))
    #: ENG-ACT-2 damage added per graze spent on a melee hit (the base game's rate).
    graze_damage: StrictInt = Field(default=1, ge=0, le=100, json_schema_extra=shown(
        "グレイズ1点のダメージ", "damage per graze"))
    #: ENG-ACT-1 the front/back rule of the base game for approach: `any` (no limit here,
    #: the GM judges), `from_front` (the approacher stands in front), `front_to_front`.
    approach_rows: Literal["any", "from_front", "front_to_front"] = Field(
        default="any", json_schema_extra=shown(
        "接近と前衛・後衛", "approach and rows", words=APPROACH_ROW_WORDS))
    #: ENG-EF-2 at a setup, melee only partners engaged in an earlier turn (`earlier`),
    #: or also those a guard/cover engaged in this very setup (`any`).
    setup_targets: Literal["earlier", "any"] = Field(default="earlier", json_schema_extra=shown(
        "セットアップの近接攻撃の相手", "setup melee partners", words=SETUP_TARGET_WORDS))
    #: Names of the combatants' table counters: DP pool, HP, grazes (base game).
    dp_counter: str = Field(default="DP", max_length=64, json_schema_extra=shown(
        "DPのカウンター", "DP counter"))
    hp_counter: str = Field(default="HP", max_length=64, json_schema_extra=shown(
        "HPのカウンター", "HP counter"))
    graze_counter: str = Field(default="グレイズ", max_length=64, json_schema_extra=shown(
        "グレイズのカウンター", "graze counter"))


def pair_key(a: str, b: str) -> str:
    """One key for the pair whichever way round (ENG-1: the relation is mutual)."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


class _Shown(Entity):
    """Hidden from players and the table while it involves a hidden character."""

    hidden: StrictBool = Field(default=False, json_schema_extra=shown("GMのみ", "GM only"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class Pair(_Shown):
    """ENG-1 two characters engaged with each other. `turn` is the turn it counts for:
    it lasts until the end of the next turn's setup (ENG-EF-2/3, ENG-SETUP)."""

    a: Id = Field(json_schema_extra=shown("キャラクターA", "character A", ids=COMBATANTS))
    b: Id = Field(json_schema_extra=shown("キャラクターB", "character B", ids=COMBATANTS))
    turn: Count = Field(json_schema_extra=shown("ターン", "turn"))
    phase: Phase = Field(json_schema_extra=shown("フェイズ", "phase", words=PHASE_WORDS))
    how: How = Field(json_schema_extra=shown("接近状態になった理由", "how it formed", words=HOW_WORDS))
    #: The ability or GM reason, for `ability`.
    note: str = Field(default="", max_length=100, json_schema_extra=shown("メモ", "note"))

    def other(self, cid: str) -> str:
        return self.b if cid == self.a else self.a

    def has(self, cid: str) -> bool:
        return cid in (self.a, self.b)


class Used(_Shown):
    """What a character used up, as the turn number it was used in (0: never); the GM's
    while the character is hidden."""

    #: ENG-GUARD the once-per-turn guard (not a guard against melee on oneself).
    guard: Count = Field(default=0, json_schema_extra=shown("ガードしたターン", "guard used in turn"))
    #: ENG-GUARD / ENG-COVER a guard for another this turn (no cover then).
    guard_other: Count = Field(default=0, json_schema_extra=shown(
        "他人へのガードをしたターン", "guard for another in turn"))
    #: ENG-COVER the once-per-turn cover (no guard for another then).
    cover: Count = Field(default=0, json_schema_extra=shown("カバーしたターン", "cover used in turn"))
    #: ENG-EF-2 its one melee at a setup.
    setup_melee: Count = Field(default=0, json_schema_extra=shown(
        "セットアップで近接攻撃したターン", "setup melee in turn"))


class Check(_Spec):
    """A check or damage roll: the fixed part (check value), how many dice of how many
    sides, and the total once rolled or reported (None: waiting for a report)."""

    who: Id = Field(json_schema_extra=shown("判定する者", "who rolls", ids=COMBATANTS))
    purpose: Purpose = Field(json_schema_extra=shown("判定の目的", "purpose", words=PURPOSE_WORDS))
    base: Number = Field(json_schema_extra=shown("判定値", "check value"))
    dice: StrictInt = Field(ge=0, le=100, json_schema_extra=shown("ダイスの数", "dice"))
    sides: StrictInt = Field(ge=2, le=100, json_schema_extra=shown("ダイスの面数", "die sides"))
    total: Number | None = Field(default=None, json_schema_extra=shown("達成値", "total"))


class Defence(_Spec):
    kind: DefenceKind = Field(json_schema_extra=shown("防御の種類", "defence", words=DEFENCE_WORDS))
    by: Id = Field(json_schema_extra=shown("防御する者", "defender", ids=COMBATANTS))


class Awaiting(_Spec):
    """What an open exchange waits for and from whom, built only from what every audience
    of the exchange is shown (an unpublished character's 〈近接戦闘〉 is not consulted)."""

    what: Awaited = Field(json_schema_extra=shown("待っているもの", "waiting for", words=AWAITED_WORDS))
    #: The characters any one of whom may send it (declare the defence or cover, or
    #: report the line); the GM may answer for anyone.
    who: list[Id] = Field(default_factory=list, max_length=64, json_schema_extra=shown(
        "答えられる者", "who may answer", ids=COMBATANTS))
    #: Whose `engagement.defend {defence: none}` ends the wait (the target), if any.
    decides: Id | None = Field(default=None, json_schema_extra=shown(
        "決める者", "who decides", ids=COMBATANTS))
    #: The players who answer for `who` and `decides` (their owners).
    players: list[Id] = Field(default_factory=list, max_length=64, json_schema_extra=shown(
        "答えるプレイヤー", "players who answer", ids=("meta", "players")))
    #: One of them is a character no player owns: the GM answers for it.
    by_gm: StrictBool = Field(default=False, json_schema_extra=shown("GMが答える", "the GM answers"))


class Exchange(_Shown):
    """The attack being resolved: declared → (cover | defence) → (damage). One at a time.

    `goal` (approach: the target number from the target's data) is the GM's; `awaiting`
    says what it waits for and from whom."""

    __secret__ = frozenset({"goal"})

    id: Id
    attack: AttackKind = Field(json_schema_extra=shown("攻撃の種類", "attack", words=ATTACK_WORDS))
    attacker: Id = Field(json_schema_extra=shown("攻撃者", "attacker", ids=COMBATANTS))
    target: Id = Field(json_schema_extra=shown("対象", "target", ids=COMBATANTS))
    turn: Count = Field(json_schema_extra=shown("ターン", "turn"))
    phase: Phase = Field(json_schema_extra=shown("フェイズ", "phase", words=PHASE_WORDS))
    stage: Stage = Field(default="attack", json_schema_extra=shown("段階", "stage", words=STAGE_WORDS))
    dp: Count = Field(default=0, json_schema_extra=shown("DP", "DP"))
    grazes: Count = Field(default=0, json_schema_extra=shown("グレイズ", "grazes"))
    #: Shot/homing: the damage on a hit (the base game's power, as declared).
    power: Count = Field(default=0, json_schema_extra=shown("威力", "power"))
    #: The melee's damage roll waits for a reported line (`report_damage`) instead of
    #: being rolled; the checks' own waits are each declaration's `report_check`.
    report_damage: StrictBool = Field(default=False, json_schema_extra=shown(
        "ダメージを報告で受ける", "damage reported"))
    goal: Number | None = Field(default=None, json_schema_extra=shown("目標値", "target number"))
    attack_total: Number | None = Field(default=None, json_schema_extra=shown(
        "攻撃の達成値", "attack total"))
    check: Check | None = Field(default=None, json_schema_extra=shown("判定", "check"))
    defence: Defence | None = Field(default=None, json_schema_extra=shown("防御", "defence"))
    cover_failed: StrictBool = Field(default=False, json_schema_extra=shown("カバー失敗", "cover failed"))
    victim: Id | None = Field(default=None, json_schema_extra=shown(
        "攻撃を受ける者", "who is hit", ids=COMBATANTS))
    reduction: Count = Field(default=0, json_schema_extra=shown("軽減", "reduction"))
    awaiting: Awaiting | None = Field(default=None, json_schema_extra=shown(
        "待っているもの", "waiting for"))


class Offer(_Shown):
    """ENG-HAND-1 a leave offered to `leaver`, engaged with `partner`, when `formed`
    (a new pair) appeared; `prompt` is the question waiting for its answer."""

    prompt: Id = Field(json_schema_extra=shown("問いかけ", "prompt", ids=("prompts",)))
    leaver: Id = Field(json_schema_extra=shown("離脱する者", "leaver", ids=COMBATANTS))
    partner: Id = Field(json_schema_extra=shown("相手", "partner", ids=COMBATANTS))
    formed: Id = Field(json_schema_extra=shown("新しい接近状態", "new pair", ids=("engagement", "pairs")))


class Left(_Shown):
    """`leaver` left its engagement with `partner` in `turn` (ENG-HAND-1, or the target
    of a guard/cover, ENG-GUARD/ENG-COVER): the partner cannot pick it at the next setup."""

    leaver: Id = Field(json_schema_extra=shown("離脱した者", "leaver", ids=COMBATANTS))
    partner: Id = Field(json_schema_extra=shown("相手", "partner", ids=COMBATANTS))
    turn: Count = Field(json_schema_extra=shown("ターン", "turn"))
    #: `handover` (ENG-HAND-1), or the `guard` / `cover` its partner's attack was
    #: taken by (ENG-GUARD / ENG-COVER: the target leaves).
    by: Literal["handover", "guard", "cover"] = Field(default="handover", json_schema_extra=shown(
        "離脱の理由", "left by", words=LEFT_WORDS))


class EngagementState(Entity):
    """Engagement (seed 004): combatants, the turn, the relation and what is pending.

    `exchange` is the scene's attack (one at a time, ENG-TURN); `hidden_exchange` is an
    attack involving a hidden character, resolved beside it and never shown to non-GMs:
    it takes no turn in the scene, so it shapes nothing a player is told. Its ids come
    from `hidden_seq`, not the room's sequence (which every audience sees)."""

    __secret__ = frozenset({"hidden_exchange", "hidden_seq"})

    settings: EngagementSettings = Field(default_factory=EngagementSettings, json_schema_extra=shown(
        "設定", "settings"))
    combatants: dict[str, Combatant] = Field(default_factory=dict, json_schema_extra=shown(
        "キャラクター", "characters"))
    active: StrictBool = Field(default=False, json_schema_extra=shown("戦闘中", "in battle"))
    turn: Count = Field(default=0, json_schema_extra=shown("ターン", "turn"))
    phase: Phase = Field(default="setup", json_schema_extra=shown("フェイズ", "phase", words=PHASE_WORDS))
    pairs: dict[str, Pair] = Field(default_factory=dict, json_schema_extra=shown(
        "接近状態", "engaged pairs"))
    used: dict[str, Used] = Field(default_factory=dict, json_schema_extra=shown("使用済み", "used"))
    exchange: Exchange | None = Field(default=None, json_schema_extra=shown(
        "解決中の攻撃", "attack being resolved"))
    hidden_exchange: Exchange | None = Field(default=None, json_schema_extra=shown(
        "GMのみの攻撃", "hidden attack"))
    hidden_seq: Count = 0
    offers: dict[str, Offer] = Field(default_factory=dict, json_schema_extra=shown(
        "離脱の申し出", "leave offers"))
    left: dict[str, Left] = Field(default_factory=dict, json_schema_extra=shown(
        "離脱", "left engagements"))

    def partners(self, cid: str) -> list[str]:
        """Everyone `cid` is engaged with, in the order the pairs formed."""
        return [p.other(cid) for p in self.pairs.values() if p.has(cid)]

    def open_exchanges(self) -> list[Exchange]:
        """The attacks being resolved: the scene's first, then the hidden one."""
        return [ex for ex in (self.exchange, self.hidden_exchange) if ex is not None]

    def pair(self, a: str, b: str) -> Pair | None:
        return self.pairs.get(pair_key(a, b))
