"""Base-battle actions (BASE-*): reports, rounds, firing, effects, reveals, the end."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..actions import ActionBase
from ..errors import Refusal, Text
from ..tx import Role, Tx
from .blocks import REPORTABLE, Block, ReportKind, normalize, sides_of
from .effects import run_effects
from .end import end_battle
from .fire import check_fire, fire
from .lookup import Located, battle, find_base, find_element, side_of
from .model import BattleOutcome, ConstantEffect, Effect, SideCount
from .reveal import reveal_base, reveal_element
from .states import CharSide
from .trigger import ADVANCE
from .vocabulary import action_kind

__all__ = [
    "ACTIONS",
    "ApplyEffect",
    "EndBattle",
    "FireElement",
    "NextRound",
    "ReportHappening",
    "RevealBases",
    "SetFieldCount",
    "SetSummary",
    "TriggerEvent",
]

UNKNOWN_SIDE = Text("キャラクター「{name}」の陣営（pc / enemy）を指定してください。",
                    "Say which side (pc / enemy) character '{name}' is on.")
BATTLE_OVER = Text("拠点戦闘は終了しています。", "The base battle is over.")
NOT_ACTIVE = Text("イベント「{name}」に【能動誘発】の条件はありません。",
                  "Event '{name}' has no 【能動誘発】 condition.")
WRONG_DOER = Text("「{name}」の【能動誘発】は {want} が行う必要があります。",
                  "The 【能動誘発】 of '{name}' needs {want} to do it.")
NOTHING_TO_REVEAL = Text("公開する拠点か要素を指定してください。",
                         "Name a base or an element to reveal.")
NEEDS_GM = Text("「{name}」の条件には判断が必要な文があります。GMが発動させてください。",
                "The condition of '{name}' needs the GM's judgement; the GM fires it.")


def _doer_side(tx: Tx, side: CharSide | None, character: str | None) -> CharSide | None:
    """The side an action names, else the roster's; a player's unknown character is a PC."""
    bs = battle(tx)  # refuses first in a room without a base battle
    side = side or side_of(bs, {"character": character})
    return side or ("pc" if tx.actor.role == "player" else None)


class ReportHappening(ActionBase):
    """Report a happening of the vocabulary (BASE-COND-5); side defaults to the roster's,
    or `pc` for a player. Counts on the field follow entered/incapacitated/recovered/left."""

    kind: Literal["bases.report"] = "bases.report"
    roles = frozenset[Role]({"gm", "player", "bridge"})
    happening: ReportKind
    character: str | None = Field(default=None, max_length=100)
    side: CharSide | None = None
    timing: str | None = Field(default=None, max_length=100)
    amount: int | None = None
    action: str | None = Field(default=None, max_length=200)

    def apply(self, tx: Tx) -> None:
        side = _doer_side(tx, self.side, self.character)
        if side is None:
            raise Refusal("unknown_side", UNKNOWN_SIDE.format(name=self.character or "?"))
        tx.emit(self.happening, character=self.character, side=side, timing=self.timing,
                amount=self.amount, action=self.action, by=tx.actor.player or tx.actor.role)


class NextRound(ActionBase):
    """GM: end the current round (`round.ended`) and start the next (`round.started`)."""

    kind: Literal["bases.round"] = "bases.round"

    def apply(self, tx: Tx) -> None:
        bs = battle(tx)
        tx.check(bs.outcome is None, Refusal("battle_over", BATTLE_OVER, rule="BASE-TYPE-1"))
        if bs.round >= 1:
            tx.emit("round.ended", round=bs.round)
        tx.emit(ADVANCE, round=bs.round + 1)


class FireElement(ActionBase):
    """GM: fire a (manual) event / GP change condition, or switch a constant effect on/off.
    Still checked: BASE-ST-2, BASE-EL-1 count, some block's tags; `warn`/`off` force it."""

    kind: Literal["bases.fire"] = "bases.fire"
    element: str
    triggerer: str | None = Field(default=None, max_length=100)
    active: bool = True

    def apply(self, tx: Tx) -> None:
        loc = find_element(tx, self.element)
        if isinstance(loc.element, ConstantEffect):
            tx.set((*loc.path, "manual_on"), self.active)
            return
        check_fire(tx, loc, loc.element.conditions)
        fire(tx, loc, self.triggerer)


class TriggerEvent(ActionBase):
    """【能動誘発】 (BASE-COND-3): `character` does `action` (text, happening kind, or
    `宣言`/`declare` + `timing`) for `event`; the doer is the trigger-er (誘発者)."""

    kind: Literal["bases.trigger"] = "bases.trigger"
    roles = frozenset[Role]({"gm", "player", "bridge"})
    event: str
    character: str = Field(min_length=1, max_length=100)
    action: str = Field(min_length=1, max_length=200)
    side: CharSide | None = None
    timing: str | None = Field(default=None, max_length=100)

    def apply(self, tx: Tx) -> None:
        loc = find_element(tx, self.event)
        name = getattr(loc.element, "name", self.event)
        blocks = [b for b in loc.element.conditions if b.active is not None]
        tx.check(bool(blocks), Refusal("not_active_trigger", NOT_ACTIVE.format(name=name),
                                       rule="BASE-COND-3"))
        side = _doer_side(tx, self.side, self.character)
        mine = [b for b in blocks if self._matches(b, loc, side)]
        want = " / ".join(f"（{b.active.who or b.active.character}/{b.active.action}）"
                          for b in blocks if b.active is not None)
        tx.check(bool(mine), Refusal("wrong_trigger", WRONG_DOER.format(name=name, want=want),
                                     rule="BASE-COND-3"))
        if tx.actor.role != "gm" and any(b.manual for b in mine):
            raise Refusal("needs_gm", NEEDS_GM.format(name=name), rule="BASE-COND-5")
        check_fire(tx, loc, mine or blocks, full=True)
        self._report(tx, side, loc)
        fire(tx, loc, self.character)

    def _matches(self, block: Block, loc: Located, side: CharSide | None) -> bool:
        spec = block.active
        if spec is None:
            return False
        if spec.character is not None and normalize(self.character) != normalize(spec.character):
            return False
        if spec.who is not None and side not in sides_of(spec.who, loc.base.side):
            return False
        if spec.timing is not None:
            return (self.action in ("宣言", "declare")
                    and normalize(self.timing or "") == normalize(spec.timing))
        said = normalize(self.action)
        return said == normalize(spec.action) or (
            spec.kind is not None and spec.kind in (self.action, action_kind(said)))

    def _report(self, tx: Tx, side: CharSide | None, loc: Located) -> None:
        """The action really happened: plain conditions see it too (BASE-COND-3)."""
        kind = self.action if self.action in REPORTABLE else action_kind(self.action)
        if self.action in ("宣言", "declare"):
            tx.emit("bases.declared", event=loc.element.id, character=self.character,
                    timing=self.timing)
        elif kind is not None:
            tx.emit(kind, character=self.character, side=side, timing=self.timing,
                    purpose=loc.element.id)


class ApplyEffect(ActionBase):
    """GM: apply one effect as a base's effect would (`source` = that base, for 味方/this)."""

    kind: Literal["bases.effect"] = "bases.effect"
    effect: Effect
    source: str | None = None

    def apply(self, tx: Tx) -> None:
        source = find_base(tx, self.source).id if self.source else None
        run_effects(tx, source, [self.effect], None)


class RevealBases(ActionBase):
    """GM: reveal a base (`what`: all, base = existence only, gp) or one element (BASE-OPT-2)."""

    kind: Literal["bases.reveal"] = "bases.reveal"
    base: str | None = None
    element: str | None = None
    what: Literal["all", "base", "gp"] = "all"

    def apply(self, tx: Tx) -> None:
        if self.base is None and self.element is None:
            raise Refusal("nothing_to_reveal", NOTHING_TO_REVEAL)
        if self.element is not None:
            reveal_element(tx, find_element(tx, self.element))
        if self.base is not None:
            reveal_base(tx, find_base(tx, self.base), self.what)


class SetFieldCount(ActionBase):
    """GM or bridge: set how many characters of a side are on the field / incapacitated."""

    kind: Literal["bases.count"] = "bases.count"
    roles = frozenset[Role]({"gm", "bridge"})
    side: CharSide
    on_field: int | None = Field(default=None, ge=0)
    incapacitated: int | None = Field(default=None, ge=0)

    def apply(self, tx: Tx) -> None:
        old = battle(tx).sides.get(self.side, SideCount())
        new = SideCount(on_field=old.on_field if self.on_field is None else self.on_field,
                        incapacitated=(old.incapacitated if self.incapacitated is None
                                       else self.incapacitated))
        tx.set(("bases", "sides", self.side), new)
        tx.emit("bases.count.set", side=self.side, **new.model_dump())


class SetSummary(ActionBase):
    """GM: the plain-language summary of the battle or of one base (BASE-OPT-4)."""

    kind: Literal["bases.summary"] = "bases.summary"
    base: str | None = None
    text: str = Field(max_length=4000)

    def apply(self, tx: Tx) -> None:
        battle(tx)
        if self.base is None:
            tx.set(("bases", "summary"), self.text)
        else:
            tx.set(("bases", "bases", find_base(tx, self.base).id, "summary"), self.text)


class EndBattle(ActionBase):
    """GM: end the battle by a GM-defined or manual end condition (BASE-TYPE-5)."""

    kind: Literal["bases.end"] = "bases.end"
    losers: list[CharSide] = Field(default_factory=list)
    reason: str = Field(min_length=1, max_length=500)

    def apply(self, tx: Tx) -> None:
        bs = battle(tx)
        tx.check(bs.outcome is None, Refusal("battle_over", BATTLE_OVER, rule="BASE-TYPE-5"))
        end_battle(tx, BattleOutcome(losers=sorted(set(self.losers)), rule="BASE-TYPE-5",
                                     ja=f"戦闘終了: {self.reason}",
                                     en=f"Battle over: {self.reason}", by="gm"))


ACTIONS: tuple[type[ActionBase], ...] = (
    ReportHappening, NextRound, FireElement, TriggerEvent, ApplyEffect, RevealBases,
    SetFieldCount, SetSummary, EndBattle,
)
