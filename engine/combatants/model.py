"""The combatant and status models (state entities; scenarios use the same shapes)."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field, StrictBool, StrictInt

from ..bounds import Id, Name, Number, Serial
from ..titles import shown
from ..views import Audience, Entity

__all__ = ["DURATIONS", "MAX_ANY_SEVEN", "MAX_DATA", "SIDE_WORDS", "STATUS_NAMES", "Combatant", "Duration",
           "Row", "Side", "Status", "StatusKind"]

#: How many counters and how many `profile` entries one combatant holds, and how many
#: エニーセブン checks: tighter than `MAX_ITEMS`, and the one bound every scenario spec and
#: GM action that makes a combatant declares, so what validates there always fits here.
MAX_DATA: Final = 50
MAX_ANY_SEVEN: Final = 20

#: Which side a combatant fights on. Neutral pieces take no turn and are nobody's ally.
Side = Literal["pc", "enemy", "neutral"]
SIDE_WORDS = {"pc": ("PC", "PC"), "enemy": ("エネミー", "enemy"), "neutral": ("中立", "neutral")}
#: Front or back row (engagement, seed 004, uses it; grid combat does not).
Row = Literal["front", "back"]
ROW_WORDS = {"front": ("前列", "front row"), "back": ("後列", "back row")}
#: Statuses the rules know by kind; anything else is an `effect` with a free name.
StatusKind = Literal["poison", "paralysis", "bind", "flying", "incapacitated", "dead",
                     "no_major_move", "hindered", "effect"]
#: How long a status lasts: until removed, the scene (GRID-DUR-1), one round or until
#: cleanup (both one cycle in grid combat, GRID-DUR-2).
Duration = Literal["until_removed", "scene", "round", "cleanup"]
DURATION_WORDS = {"until_removed": ("解除まで", "until removed"), "scene": ("シーン", "scene"),
                  "round": ("1ラウンド", "one round"), "cleanup": ("クリンナップまで", "until cleanup")}
DURATIONS: tuple[Duration, ...] = ("until_removed", "scene", "round", "cleanup")

STATUS_NAMES: dict[str, tuple[str, str]] = {
    "poison": ("[毒]", "poison"),
    "paralysis": ("[麻痺]", "paralysis"),
    "bind": ("[束縛]", "bind"),
    "flying": ("[飛行状態]", "flying"),
    "incapacitated": ("[戦闘不能状態]", "incapacitated"),
    "dead": ("[死亡状態]", "dead"),
    "no_major_move": ("メジャー移動不可", "no move in the major"),
    "hindered": ("[移動妨害]", "movement hindered"),
    "effect": ("効果", "effect"),
}


class Status(Entity):
    """One status or effect on a combatant; `name` is how the table calls it ([ブレス])."""

    id: str = Field(min_length=1, max_length=64, json_schema_extra=shown("ID", "id"))
    kind: StatusKind = Field(default="effect", json_schema_extra=shown(
        "種類", "kind", words=STATUS_NAMES))
    name: Name = Field(default="", json_schema_extra=shown("名前", "name"))
    #: Poison: the damage dealt when the character starts its main process (GRID-ST-1).
    value: StrictInt | None = Field(default=None, ge=0, le=10_000, json_schema_extra=shown(
        "毒のダメージ", "poison damage"))
    #: Which of the combatant's counters that damage comes off (default "HP").
    counter: Id = Field(default="HP", json_schema_extra=shown("減らすカウンター", "counter it lowers"))
    duration: Duration = Field(default="until_removed", json_schema_extra=shown(
        "持続", "duration", words=DURATION_WORDS))
    #: False when an effect says the status cannot be shaken off by the usual action
    #: (GRID-ST-2 move action for paralysis, GRID-ST-3 major action for bind).
    removable: StrictBool = Field(default=True, json_schema_extra=shown(
        "解除できる", "can be shaken off"))
    #: For one-cycle effects: the side-round at whose start it ends (set by the engine).
    expires_turn: Serial | None = Field(default=None, json_schema_extra=shown(
        "終了するラウンド", "ends at side-round"))
    source: Name = Field(default="", json_schema_extra=shown("効果の出所", "source"))

    def label(self) -> tuple[str, str]:
        """The status as the table says it, in Japanese and English."""
        ja, en = STATUS_NAMES[self.kind]
        if self.name:
            return self.name, self.name if self.kind == "effect" else f"{self.name} ({en})"
        return ja, en


class Combatant(Entity):
    """A character in battle: a table piece with a side, statuses and counters.

    `counters` maps a name ("HP", "MP") to a table counter id, so the numbers show on
    every table the way counters do. `profile` (HP, defences…) is the GM's until
    `published` (GRID-GM-1 auto-publish); `any_seven` (check → modifier) is public:
    the GM announces 7 + modifier instead of rolling (GRID-GM-1 エニーセブン).
    """

    __secret__ = frozenset({"profile"})

    id: str = Field(min_length=1, max_length=64, json_schema_extra=shown("ID", "id"))
    piece: str = Field(min_length=1, max_length=64, json_schema_extra=shown(
        "駒", "piece", ids=("table", "pieces")))
    side: Side = Field(json_schema_extra=shown("陣営", "side", words=SIDE_WORDS))
    statuses: dict[Id, Status] = Field(default_factory=dict, json_schema_extra=shown(
        "状態", "statuses"))
    counters: dict[Id, Id] = Field(default_factory=dict, max_length=MAX_DATA, json_schema_extra=shown(
        "カウンター", "counters"))
    row: Row | None = Field(default=None, json_schema_extra=shown("配置", "row", words=ROW_WORDS))
    profile: dict[Id, Number] = Field(default_factory=dict, max_length=MAX_DATA, json_schema_extra=shown(
        "データ", "data"))
    published: StrictBool = Field(default=False, json_schema_extra=shown("データ公開", "data published"))
    any_seven: dict[Id, Number] = Field(default_factory=dict, max_length=MAX_ANY_SEVEN,
                                        json_schema_extra=shown("エニーセブン", "any seven"))
    #: Mirrors the piece's `hidden` (kept in step by the subsystem that holds it): a
    #: hidden combatant is the GM's alone and not yet in the scene.
    hidden: StrictBool = Field(default=False, json_schema_extra=shown("GMのみ", "GM only"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden

    def redact(self, audience: Audience, data: dict[str, Any]) -> dict[str, Any]:
        if self.published:
            data["profile"] = dict(self.profile)
        return data
