"""Base-battle actions (BASE-*): reports, rounds, firing, effects, reveals, the end."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from ..actions import ActionBase
from ..bounds import Count, Id, Number
from ..tx import Role, Tx
from . import refusals as no
from .blocks import REPORTABLE, Block, ReportKind, normalize, sides_of
from .effects import run_effects
from .end import end_battle
from .fire import check_fire, fire
from .lookup import Located, battle, find_base, find_element
from .model import BattleOutcome, ConstantEffect, Effect, SideCount
from .players import doer_side, unknown_side
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



def _bound(player: str | None) -> dict[str, str]:
    """Happening data naming the player a new roster entry is bound to (bases_trigger)."""
    return {"player": player} if player is not None else {}


class ReportHappening(ActionBase):
    """Report a happening of the vocabulary (BASE-COND-5); side defaults to the roster's.
    A player reports only for their own character (bases_players); a bridge names the
    player in `by`. Counts on the field follow entered/incapacitated/recovered/left."""

    kind: Literal["bases.report"] = "bases.report"
    roles = frozenset[Role]({"gm", "player", "bridge"})
    happening: ReportKind
    character: str | None = Field(default=None, max_length=100)
    side: CharSide | None = None
    timing: str | None = Field(default=None, max_length=100)
    amount: Number | None = None
    action: str | None = Field(default=None, max_length=200)
    by: str | None = Field(default=None, max_length=64)

    def apply(self, tx: Tx) -> None:
        side, player = doer_side(tx, self.side, self.character)
        if side is None:
            raise unknown_side(self.character)
        tx.emit(self.happening, character=self.character, side=side, timing=self.timing,
                amount=self.amount, action=self.action, by=tx.actor.player or tx.actor.role,
                **_bound(player))


class NextRound(ActionBase):
    """GM: end the current round (`round.ended`) and start the next (`round.started`)."""

    kind: Literal["bases.round"] = "bases.round"

    def apply(self, tx: Tx) -> None:
        bs = battle(tx)
        tx.check(bs.outcome is None, no.BATTLE_OVER.refuse())
        if bs.round >= 1:
            tx.emit("round.ended", round=bs.round)
        tx.emit(ADVANCE, round=bs.round + 1)


class FireElement(ActionBase):
    """GM: fire a (manual) event / GP change condition, or switch a constant effect on/off.
    Still checked: BASE-ST-2, BASE-EL-1 count, some block's tags; `warn`/`off` force it."""

    kind: Literal["bases.fire"] = "bases.fire"
    element: Id
    triggerer: str | None = Field(default=None, max_length=100)
    active: StrictBool = True

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
    event: Id
    character: str = Field(min_length=1, max_length=100)
    action: str = Field(min_length=1, max_length=200)
    side: CharSide | None = None
    timing: str | None = Field(default=None, max_length=100)
    by: str | None = Field(default=None, max_length=64)

    def apply(self, tx: Tx) -> None:
        loc = find_element(tx, self.event)
        name, about = loc.label, loc.about("conditions")  # hidden parts stay unnamed
        blocks = [b for b in loc.element.conditions if b.active is not None]
        tx.check(bool(blocks), no.NOT_ACTIVE_TRIGGER.refuse(name=name, about=about))
        side, player = doer_side(tx, self.side, self.character)
        mine = [b for b in blocks if self._matches(b, loc, side)]
        want = " / ".join(f"（{b.active.who or b.active.character}/{b.active.action}）"
                          for b in blocks if b.active is not None)
        tx.check(bool(mine), no.WRONG_TRIGGER.refuse(name=name, want=want, about=about))
        if tx.actor.role != "gm" and any(b.manual for b in mine):
            raise no.NEEDS_GM.refuse(name=name, about=about)
        check_fire(tx, loc, mine or blocks, full=True)
        self._report(tx, side, player, loc)
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

    def _report(self, tx: Tx, side: CharSide | None, player: str | None, loc: Located) -> None:
        """The action really happened: plain conditions see it too (BASE-COND-3)."""
        kind = self.action if self.action in REPORTABLE else action_kind(self.action)
        if self.action in ("宣言", "declare"):
            tx.emit("bases.declared", event=loc.element.id, character=self.character,
                    timing=self.timing)
        elif kind is not None:
            tx.emit(kind, character=self.character, side=side, timing=self.timing,
                    purpose=loc.element.id, **_bound(player))


class ApplyEffect(ActionBase):
    """GM: apply one effect as a base's effect would (`source` = that base, for 味方/this)."""

    kind: Literal["bases.effect"] = "bases.effect"
    effect: Effect
    source: Id | None = None

    def apply(self, tx: Tx) -> None:
        source = find_base(tx, self.source).id if self.source else None
        run_effects(tx, source, [self.effect], None)


class RevealBases(ActionBase):
    """GM: reveal a base (`what`: all, base = existence only, gp) or one element (BASE-OPT-2)."""

    kind: Literal["bases.reveal"] = "bases.reveal"
    base: Id | None = None
    element: Id | None = None
    what: Literal["all", "base", "gp"] = "all"

    def apply(self, tx: Tx) -> None:
        if self.base is None and self.element is None:
            raise no.NOTHING_TO_REVEAL.refuse()
        if self.element is not None:
            reveal_element(tx, find_element(tx, self.element))
        if self.base is not None:
            reveal_base(tx, find_base(tx, self.base), self.what)


class SetFieldCount(ActionBase):
    """GM or bridge: set how many characters of a side are on the field / incapacitated."""

    kind: Literal["bases.count"] = "bases.count"
    roles = frozenset[Role]({"gm", "bridge"})
    side: CharSide
    on_field: Count | None = None
    incapacitated: Count | None = None

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
    base: Id | None = None
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
    losers: list[CharSide] = Field(default_factory=list, max_length=2)
    reason: str = Field(min_length=1, max_length=500)

    def apply(self, tx: Tx) -> None:
        bs = battle(tx)
        tx.check(bs.outcome is None, no.BATTLE_OVER.refuse())
        end_battle(tx, BattleOutcome(losers=sorted(set(self.losers)), rule="BASE-TYPE-5",
                                     ja=f"戦闘終了: {self.reason}",
                                     en=f"Battle over: {self.reason}", by="gm"))


ACTIONS: tuple[type[ActionBase], ...] = (
    ReportHappening, NextRound, FireElement, TriggerEvent, ApplyEffect, RevealBases,
    SetFieldCount, SetSummary, EndBattle,
)
