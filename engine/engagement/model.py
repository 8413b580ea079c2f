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


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EngagementSettings(_Spec):
    """Scenario `settings:` — the base game's numbers the seed leaves out, and one field
    per reading of an ambiguity (docs/engagement.md)."""

    #: Sides of a check die: achievement = check value + the dice (base game).
    check_die: StrictInt = Field(default=6, ge=2, le=100)
    #: Sides of a damage die (`1D-3`, `(LV)D` of ENG-ACT-2).
    damage_die: StrictInt = Field(default=6, ge=2, le=100)
    #: An opposed check that ties: the `defender` wins (the seed: the attacker must win
    #: to hit) or the `attacker` wins.
    ties: Literal["defender", "attacker"] = "defender"
    #: ENG-ACT-2 damage added per graze spent on a melee hit (the base game's rate).
    graze_damage: StrictInt = Field(default=1, ge=0, le=100)
    #: ENG-ACT-1 the front/back rule of the base game for approach: `any` (no limit here,
    #: the GM judges), `from_front` (the approacher stands in front), `front_to_front`.
    approach_rows: Literal["any", "from_front", "front_to_front"] = "any"
    #: ENG-EF-2 at a setup, melee only partners engaged in an earlier turn (`earlier`),
    #: or also those a guard/cover engaged in this very setup (`any`).
    setup_targets: Literal["earlier", "any"] = "earlier"
    #: Names of the combatants' table counters: DP pool, HP, grazes (base game).
    dp_counter: str = Field(default="DP", max_length=64)
    hp_counter: str = Field(default="HP", max_length=64)
    graze_counter: str = Field(default="グレイズ", max_length=64)


def pair_key(a: str, b: str) -> str:
    """One key for the pair whichever way round (ENG-1: the relation is mutual)."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


class _Shown(Entity):
    """Hidden from players and the table while it involves a hidden character."""

    hidden: StrictBool = False

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class Pair(_Shown):
    """ENG-1 two characters engaged with each other. `turn` is the turn it counts for:
    it lasts until the end of the next turn's setup (ENG-EF-2/3, ENG-SETUP)."""

    a: Id
    b: Id
    turn: Count
    phase: Phase
    how: How
    #: The ability or GM reason, for `ability`.
    note: str = Field(default="", max_length=100)

    def other(self, cid: str) -> str:
        return self.b if cid == self.a else self.a

    def has(self, cid: str) -> bool:
        return cid in (self.a, self.b)


class Used(_Shown):
    """What a character used up, as the turn number it was used in (0: never); the GM's
    while the character is hidden."""

    #: ENG-GUARD the once-per-turn guard (not a guard against melee on oneself).
    guard: Count = 0
    #: ENG-GUARD / ENG-COVER a guard for another this turn (no cover then).
    guard_other: Count = 0
    #: ENG-COVER the once-per-turn cover (no guard for another then).
    cover: Count = 0
    #: ENG-EF-2 its one melee at a setup.
    setup_melee: Count = 0


class Check(_Spec):
    """A check or damage roll: the fixed part (check value), how many dice of how many
    sides, and the total once rolled or reported (None: waiting for a report)."""

    who: Id
    purpose: Purpose
    base: Number
    dice: StrictInt = Field(ge=0, le=100)
    sides: StrictInt = Field(ge=2, le=100)
    total: Number | None = None


class Defence(_Spec):
    kind: DefenceKind
    by: Id


class Awaiting(_Spec):
    """What an open exchange waits for and from whom, built only from what every audience
    of the exchange is shown (an unpublished character's 〈近接戦闘〉 is not consulted)."""

    what: Awaited
    #: The characters any one of whom may send it (declare the defence or cover, or
    #: report the line); the GM may answer for anyone.
    who: list[Id] = Field(default_factory=list, max_length=64)
    #: Whose `engagement.defend {defence: none}` ends the wait (the target), if any.
    decides: Id | None = None
    #: The players who answer for `who` and `decides` (their owners).
    players: list[Id] = Field(default_factory=list, max_length=64)
    #: One of them is a character no player owns: the GM answers for it.
    by_gm: StrictBool = False


class Exchange(_Shown):
    """The attack being resolved: declared → (cover | defence) → (damage). One at a time.

    `goal` (approach: the target number from the target's data) is the GM's; `awaiting`
    says what it waits for and from whom."""

    __secret__ = frozenset({"goal"})

    id: Id
    attack: AttackKind
    attacker: Id
    target: Id
    turn: Count
    phase: Phase
    stage: Stage = "attack"
    dp: Count = 0
    grazes: Count = 0
    #: Shot/homing: the damage on a hit (the base game's power, as declared).
    power: Count = 0
    #: The melee's damage roll waits for a reported line (`report_damage`) instead of
    #: being rolled; the checks' own waits are each declaration's `report_check`.
    report_damage: StrictBool = False
    goal: Number | None = None
    attack_total: Number | None = None
    check: Check | None = None
    defence: Defence | None = None
    cover_failed: StrictBool = False
    victim: Id | None = None
    reduction: Count = 0
    awaiting: Awaiting | None = None


class Offer(_Shown):
    """ENG-HAND-1 a leave offered to `leaver`, engaged with `partner`, when `formed`
    (a new pair) appeared; `prompt` is the question waiting for its answer."""

    prompt: Id
    leaver: Id
    partner: Id
    formed: Id


class Left(_Shown):
    """`leaver` left its engagement with `partner` in `turn` (ENG-HAND-1, or the target
    of a guard/cover, ENG-GUARD/ENG-COVER): the partner cannot pick it at the next setup."""

    leaver: Id
    partner: Id
    turn: Count
    #: `handover` (ENG-HAND-1), or the `guard` / `cover` its partner's attack was
    #: taken by (ENG-GUARD / ENG-COVER: the target leaves).
    by: Literal["handover", "guard", "cover"] = "handover"


class EngagementState(Entity):
    """Engagement (seed 004): combatants, the turn, the relation and what is pending.

    `exchange` is the scene's attack (one at a time, ENG-TURN); `hidden_exchange` is an
    attack involving a hidden character, resolved beside it and never shown to non-GMs:
    it takes no turn in the scene, so it shapes nothing a player is told. Its ids come
    from `hidden_seq`, not the room's sequence (which every audience sees)."""

    __secret__ = frozenset({"hidden_exchange", "hidden_seq"})

    settings: EngagementSettings = Field(default_factory=EngagementSettings)
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    active: StrictBool = False
    turn: Count = 0
    phase: Phase = "setup"
    pairs: dict[str, Pair] = Field(default_factory=dict)
    used: dict[str, Used] = Field(default_factory=dict)
    exchange: Exchange | None = None
    hidden_exchange: Exchange | None = None
    hidden_seq: Count = 0
    offers: dict[str, Offer] = Field(default_factory=dict)
    left: dict[str, Left] = Field(default_factory=dict)

    def partners(self, cid: str) -> list[str]:
        """Everyone `cid` is engaged with, in the order the pairs formed."""
        return [p.other(cid) for p in self.pairs.values() if p.has(cid)]

    def open_exchanges(self) -> list[Exchange]:
        """The attacks being resolved: the scene's first, then the hidden one."""
        return [ex for ex in (self.exchange, self.hidden_exchange) if ex is not None]

    def pair(self, a: str, b: str) -> Pair | None:
        return self.pairs.get(pair_key(a, b))
