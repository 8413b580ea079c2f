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

    critical: Count = 3
    extreme: Count = 2
    hard: Count = 1
    regular: Count = 1

    def of(self, level: Level) -> int:
        return int(getattr(self, level, 0)) if level in ("critical", "extreme", "hard",
                                                         "regular") else 0


class TDSettings(_Spec):
    """Scenario `settings:` — each ambiguity of the seed, defaulting to its examples."""

    #: TD-ATK-4 range units. `same_fort_is_1` (default, seed example 2: the range-1
    #: shotgun reaches only groups at its own fort): range N reaches forts at most N-1
    #: passages away. `steps`: range N reaches forts at most N passages away.
    range_mode: Literal["same_fort_is_1", "steps"] = "same_fort_is_1"
    #: TD-ATK-2 removals per level (hard = regular unless changed).
    removal: LevelRemoval = Field(default_factory=LevelRemoval)
    #: TD-DATA 魔眼: damage multiplier on the marked group for the rest of the round.
    eye_multiplier: StrictInt = Field(default=2, ge=1, le=1000)
    #: Groups that may stand at one fort (None = no limit; the seed sets none). A group
    #: reaching a full, intact fort waits at the end of its passage.
    max_groups_per_fort: StrictInt | None = Field(default=None, ge=1, le=MAX_NUMBER)
    #: TD-ADV-1 when every fort on a group's path is broken: `stay_at_last` (default) the
    #: group stands at the innermost fort of its path; `remove` it leaves the board.
    when_all_broken: Literal["stay_at_last", "remove"] = "stay_at_last"
    #: TD-ADV-1 a group standing at an intact fort: `stay` (default; it stopped there and
    #: moves on only once that fort is broken) or `advance` (walks on every round).
    group_at_intact_fort: Literal["stay", "advance"] = "stay"
    #: TD-OPT-1 traps fire for every group moving on the passage in one advance phase and
    #: are then spent (default), or keep firing every advance phase (`true`).
    traps_persist: StrictBool = False
    #: TD-PRE-1 how many traps the GM allows in total (None = no limit).
    trap_limit: Count | None = None
    #: TD-PRE-1 skills a trap may be set with.
    trap_skills: list[Name] = Field(default_factory=lambda: ["手さばき", "科学"])
    #: Who may send BCDice result lines instead of letting the engine roll.
    reported_results_from: list[Role] = Field(default_factory=_all_reporters)
    #: CoC 7th caps bonus/penalty dice at 2.
    max_penalty_dice: StrictInt = Field(default=2, ge=0, le=2)


# -- scenario-only specs ----------------------------------------------------------------


class SpecialAmmo(_Spec):
    """Limited special rounds (SDASS 特殊グレネード弾: damage 5, 2 uses)."""

    name: Name
    damage: Count
    uses: Count


class WeaponSpec(_Spec):
    """An attack means (TD-ATK-3/4, TD-DATA). `range`/`magazine` None = ∞."""

    id: Id
    name: Name
    kind: WeaponKind = "firearm"
    skill: Name = ""
    magazine: Unlimited = None
    attacks_per_round: StrictInt = Field(default=1, ge=1, le=MAX_NUMBER)
    range: Unlimited = 1
    damage: Count = 1
    special_ammo: SpecialAmmo | None = None


class WaveEntry(_Spec):
    """One group (or, with `special`, one 特異個体) appearing at a direction (TD-SET-1)."""

    name: Name
    direction: Id
    count: Count = 0
    special: SpecialKind | None = None
    tag: Name | None = None
    san: Name | None = None
    fort_damage: Count | None = None
    penalty_dice: StrictInt | None = Field(default=None, ge=0, le=2)
    doubles_attack: StrictBool | None = None
    hp: Number | None = None


class WavePlan(Entity):
    """TD-SET-1 waves: `fixed` per round, `alternate` odd/even, or `random` from a table.

    GM-only through `TowerDefenseState.__secret__` (views check every ancestor).
    """

    model_config = ConfigDict(extra="forbid")

    mode: Literal["fixed", "alternate", "random"] = "fixed"
    rounds: dict[int, list[WaveEntry]] = Field(default_factory=dict)
    odd: list[WaveEntry] = Field(default_factory=list)
    even: list[WaveEntry] = Field(default_factory=list)
    table: list[list[WaveEntry]] = Field(default_factory=list)

    def entries(self) -> list[WaveEntry]:
        return [e for es in (*self.rounds.values(), self.odd, self.even, *self.table)
                for e in es]


class Victory(Entity):
    """TD-SET-1 the PCs' goal, shown to them; defeat when a final fort breaks (default)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["survive", "destroy", "gm"] = "survive"
    rounds: StrictInt = Field(default=6, ge=1, le=MAX_NUMBER)
    tag: Name | None = None
    defeat_on_final_fort: StrictBool = True
    ja: Paragraph = ""
    en: Paragraph = ""


# -- state --------------------------------------------------------------------------------


class Fort(Entity):
    """A 砦 with its 耐久力 (TD-MAP-1); `final` forts decide defeat."""

    id: Id
    name: Name = Field(json_schema_extra=shown("砦名", "fort name"))
    tier: StrictInt = Field(ge=1, le=MAX_NUMBER, json_schema_extra=shown("段", "tier"))
    durability: Number = Field(json_schema_extra=shown("耐久力", "durability"))
    max_durability: Number = Field(json_schema_extra=shown("最大耐久力", "max durability"))
    cell: Cell
    final: StrictBool = Field(default=False, json_schema_extra=shown("最終砦", "final fort"))


class Direction(Entity):
    """A 方角 enemies enter from (TD-MAP-1)."""

    id: Id
    name: Name
    cell: Cell


class Passage(Entity):
    """A 通路 from `outer` (a direction or fort) to `inner`; `lateral` joins one tier."""

    id: Id
    outer: Id
    inner: Id
    cells: list[Cell] = Field(default_factory=list)
    lateral: StrictBool = False


class Walker(Entity):
    """Something walking a route of passages inward: a group or a special individual.

    `at` = passages of `route` completed; `fort` = the fort it stands at (None at its
    direction or while `waiting` at the end of passage `route[at]` for room at a fort).
    """

    id: Id
    name: Name
    direction: Id
    route: list[Id] = Field(default_factory=list)
    at: Count = 0
    fort: Id | None = None
    cell: Cell
    waiting: StrictBool = False
    tag: Name | None = None
    san: Name | None = None
    round: Count = 0


class Group(Walker):
    """An enemy group: 個体数 is its only number, both HP and attack (TD-REIN-1).

    `max_count` is the count it arrived with (for a 個体数 bar's maximum)."""

    count: Count
    max_count: Count | None = None
    snared: StrictBool = False


class Individual(Walker):
    """A 特異個体 (TD-OPT-2), kept with normal data; its field effects apply while it is here."""

    special: SpecialKind
    fort_damage: Count = 0
    penalty_dice: Count = 0
    doubles_attack: StrictBool = False
    hp: Number | None = None


class Trap(Entity):
    """A trap on a passage (TD-OPT-1); `spent` once it has fired (unless traps persist)."""

    id: Id
    passage: Id
    kind: TrapKind
    pc: Id | None = None
    cell: Cell | None = None
    spent: StrictBool = False


class WeaponState(Entity):
    """A PC's weapon: rounds loaded (None = ∞), special rounds left, attacks this round."""

    weapon: Id
    loaded: Count | None = None
    special_left: Count = 0
    used: Count = 0


class PC(Entity):
    """A PC (or NPC, `player` None = the GM's) at a fort, with weapons and skill values."""

    id: Id
    name: Name
    player: Id | None = None
    fort: Id | None = None
    skills: dict[Name, Number] = Field(default_factory=dict)
    weapons: dict[Id, WeaponState] = Field(default_factory=dict)
    acted: list[Name] = Field(default_factory=list)


class TowerDefenseState(Entity):
    """The tower defense of a room: map, enemies, PCs, traps, round/phase and outcome.

    GM-only: `waves` (future waves). Everything else is shown to the table.
    """

    __secret__ = frozenset({"waves"})

    round: Count = 0
    phase: Phase = "setup"
    outcome: Outcome = "none"
    outcome_reason: Sentence = ""
    victory: Victory = Field(default_factory=Victory)
    settings: TDSettings = Field(default_factory=TDSettings)
    weapons: dict[str, WeaponSpec] = Field(default_factory=dict)
    directions: dict[str, Direction] = Field(default_factory=dict)
    forts: dict[str, Fort] = Field(default_factory=dict)
    passages: dict[str, Passage] = Field(default_factory=dict)
    groups: dict[str, Group] = Field(default_factory=dict)
    individuals: dict[str, Individual] = Field(default_factory=dict)
    pcs: dict[str, PC] = Field(default_factory=dict)
    traps: dict[str, Trap] = Field(default_factory=dict)
    marks: dict[Id, Id] = Field(default_factory=dict)
    destroyed_tags: list[Name] = Field(default_factory=list)
    waves: WavePlan = Field(default_factory=WavePlan)
