"""Mass combat data: formation and strategy specs, settings, and the state the engine writes.

Spec models (`FormationSpec`, `StrategySpec`, `MassSettings`) are plain pydantic models
validated once at scenario load; state models are `Entity`s written through `Tx`.
Strength, attack and defence never go below 0; strength never above the unit's maximum.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..views import Audience, Entity

__all__ = [
    "HALVES",
    "ROWS",
    "STEPS",
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

#: The war phase (戦争フェイズ) after preparation (戦争準備フェイズ): three steps a turn.
Step = Literal["preparation", "deployment", "tactics", "battle", "over"]
STEPS: tuple[Step, ...] = ("preparation", "deployment", "tactics", "battle", "over")
Row = Literal["front", "back"]
ROWS: tuple[Row, ...] = ("front", "back")
Half = Literal["attack", "defence"]
HALVES: tuple[Half, ...] = ("attack", "defence")
Outcome = Literal["none", "won", "draw"]

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


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FormationSpec(_Spec):
    """One formation (陣形): flat modifiers and a special effect (MASS-T-2, MASS-DATA)."""

    id: str = Field(min_length=1, max_length=40)
    en: str = ""
    attack: int = Field(default=0, ge=-20, le=20)
    defence: int = Field(default=0, ge=-20, le=20)
    effect: FormationEffect = "none"
    #: `fixed_die`: the face the attack die is fixed at; `surge`: +1s per turn.
    value: int = Field(default=0, ge=0, le=20)
    ja_text: str = ""
    en_text: str = ""


class ModifierEffect(_Spec):
    """A scenario-supplied effect (`effect: modifier`): flat or dice changes to a scope."""

    scope: Literal["self", "allies", "target"] = "self"
    attack: int | str = 0
    defence: int | str = 0
    strength: int | str = 0


class StrategySpec(_Spec):
    """One strategy (作戦): its use count (None = 無制限) and the effect it runs."""

    id: str = Field(min_length=1, max_length=40)
    en: str = ""
    category: Literal["attack", "recovery", "trick"] = "attack"
    uses: int | None = Field(default=1, ge=0, le=99)
    effect: StrategyEffect = "manual"
    modifier: ModifierEffect | None = None
    ja_text: str = ""
    en_text: str = ""


class MassSettings(_Spec):
    """Scenario `settings:` — each reading of the seed that a table may want otherwise."""

    #: MASS-PREP-1 the dice of a 魅力/愛 check (the commander-in-chief always uses 3D6).
    check_dice: str = Field(default="2D6", pattern=r"^\d*[Dd]\d+$")
    commander_dice: str = Field(default="3D6", pattern=r"^\d*[Dd]\d+$")
    #: MASS-PREP-1 abilities the check may use; the `lp_abilities` cost 1 LP.
    abilities: list[str] = Field(default_factory=lambda: ["魅力", "愛"])
    lp_abilities: list[str] = Field(default_factory=lambda: ["ボディ", "テクニック"])
    #: MASS-PREP-3 skills that may stand beside メンタル in the picks formula.
    pick_skills: list[str] = Field(default_factory=lambda: ["知力", "本能"])
    #: MASS-PREP-3 always owned, free of the pick limit.
    free_formations: list[str] = Field(default_factory=lambda: ["縦列陣形"])
    free_strategies: list[str] = Field(default_factory=lambda: ["全軍退却"])
    #: MASS-T-2 the formation a unit has when it picks none (and after 再編成).
    default_formation: str = "縦列陣形"
    #: MASS-DMG-1 dice of the front-row attack bonus.
    bonus_dice: str = Field(default="1D6", pattern=r"^\d*[Dd]\d+$")
    #: Who may send BCDice lines instead of letting komasync roll.
    reported_results_from: list[Literal["gm", "player", "bridge"]] = Field(
        default_factory=lambda: ["gm", "player", "bridge"])  # type: ignore[arg-type]


class Side(Entity):
    """One army: its units and its commander-in-chief (総大将), if it names one."""

    id: str
    name: str
    en: str = ""
    commander: str | None = None


class Mod(Entity):
    """A turn-long change to a unit's attack/defence or a flag, from a strategy or action.

    `source` is the unit whose strategy (or action) made it, or `gm`. Cleared at turn end
    (MASS-STRAT-1); the source's mods go when it switches strategy (MASS-T-3).
    """

    strategy: str
    source: str
    attack: int = 0
    defence: int = 0
    flags: list[Flag] = Field(default_factory=list)


class Unit(Entity):
    """A unit (部隊) led by a PC (or an NPC of the GM's): stats, strength, row, formation."""

    id: str
    name: str
    side: str
    player: str | None = None
    leader: str = ""
    commander: bool = False
    # -- the leader's numbers (MASS-PREP-1/3, MASS-T-3, 指揮官突撃)
    abilities: dict[str, int] = Field(default_factory=dict)
    mental: int = 0
    skills: dict[str, int] = Field(default_factory=dict)
    initiative: int = 0
    intellect_base: int | None = None
    weapon_base: int | None = None
    lp: int | None = Field(default=None, ge=0)
    initiative_from: Literal["initiative", "intellect"] = "initiative"
    # -- strength (MASS-PREP-1/2)
    max_strength: int | None = Field(default=None, ge=0,
                                     json_schema_extra={"rule": "MASS-PREP-1"})
    strength: int = Field(default=0, ge=0, json_schema_extra={"rule": "MASS-PREP-2"})
    ability_used: str | None = None
    routed: bool = False
    retreated: bool = False
    # -- picks (MASS-PREP-3)
    picked: bool = False
    formations: list[str] = Field(default_factory=list)
    strategies: list[str] = Field(default_factory=list)
    uses: dict[str, int | None] = Field(default_factory=dict)
    # -- this turn (MASS-T-1..3)
    row: Row | None = None
    odd: Half | None = None
    attack_base: int = 0
    defence_base: int = 0
    formation: str | None = None
    attack: int = 0
    defence: int = 0
    active: str | None = None
    mods: list[Mod] = Field(default_factory=list)
    acted: bool = False
    delayed: bool = False
    reroll_used: bool = False
    surges_left: int = 0

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

    id: str
    attacker: str
    target: str
    stage: Literal["declared", "rolled"] = "declared"
    bonus: bool = False
    die: int | None = None
    fixed: bool = False
    reported: str | None = None
    reporter: str | None = None
    charge: bool = False
    rerolled: bool = False
    information: bool = False
    white_flag: bool = False
    decoy: str | None = None
    surge_attack: int = 0
    surge_defence: int = 0
    passed: list[str] = Field(default_factory=list)


class Stone(Entity):
    """投石部隊 declared in the tactics step: 1D6 damage to `target` at the turn's end."""

    id: str
    user: str
    target: str


class MassState(Entity):
    """The whole war: data set, sides, units, step, battle order and what is pending."""

    settings: MassSettings = Field(default_factory=MassSettings)
    formations: dict[str, FormationSpec] = Field(default_factory=dict)
    strategies: dict[str, StrategySpec] = Field(default_factory=dict)
    sides: dict[str, Side] = Field(default_factory=dict)
    units: dict[str, Unit] = Field(default_factory=dict)
    turn: int = 0
    step: Step = "preparation"
    closing: Literal["deployment", "turn_end"] | None = None
    rebalance_asked: list[str] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list)
    current: str | None = None
    attack: PendingAttack | None = None
    stones: list[Stone] = Field(default_factory=list)
    outcome: Outcome = "none"
    winner: str | None = None
    outcome_reason: str = ""
