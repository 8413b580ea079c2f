"""The trigger of the base battle: happenings → roster, rounds and edge blocks.

How this works: `on_happening` is registered for the happenings edge blocks can wait for
(`bases.TRIGGER_KINDS`). `bases.round.advance` starts the next round (resetting
【ラウンドX回】 counts); a character happening first updates the roster and the counts
on the field (a repeated report changes nothing and fires nothing); then every GP change
condition and event with an *edge* block matching the happening fires once
(BASE-COND-3: all with the same plain condition fire together).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..errors import Text
from .eval import Ctx, happening_matches, ready
from .fire import fire
from .lookup import locations, side_of
from .model import BasesState, Event, FieldCharacter, Presence, SideCount
from .results import BasesRound

if TYPE_CHECKING:
    from ..tx import Happening, Tx

__all__ = ["ADVANCE", "ROSTER_MOVES", "on_happening"]

ADVANCE: Final = "bases.round.advance"

# roster moves: happening → (status assumed for an unknown character, new status)
ROSTER_MOVES: Final[dict[str, tuple[Presence, Presence]]] = {
    "character.entered": ("off_field", "on_field"),
    "character.incapacitated": ("on_field", "incapacitated"),
    "character.recovered": ("incapacitated", "on_field"),
    "character.left": ("on_field", "off_field"),
}


def on_happening(tx: Tx, h: Happening) -> None:
    """Trigger: keep the roster, advance rounds, fire edge blocks."""
    bs = tx.part("bases", BasesState)
    if bs is None:
        return
    if h.kind == ADVANCE:
        _advance(tx, bs)
    elif (h.kind not in ROSTER_MOVES or _track(tx, bs, h)) and bs.running:
        _edge(tx, bs, h)


def _edge(tx: Tx, bs: BasesState, h: Happening) -> None:
    for loc in locations(bs):
        ctx, element = Ctx(bs, loc.base, h), loc.element
        if any(b.mode == "edge" and happening_matches(ctx, b, h) and ready(ctx, element, b)
               for b in element.conditions):
            fire(tx, loc)


def _track(tx: Tx, bs: BasesState, h: Happening) -> bool:
    """Roster and counts from a happening; False when it repeats a known status."""
    name = h.data.get("character")
    known = bs.characters.get(str(name)) if name else None
    side = side_of(bs, h.data)
    assumed, new = ROSTER_MOVES[h.kind]
    prev = known.status if known is not None else assumed
    if side is None:
        return True  # cannot be counted; conditions still see it
    if prev == new:
        return False  # a repeated report changes nothing
    if name:  # the binding to a player stays; a new character is its reporter's, if any
        player = known.player if known is not None else h.data.get("player")
        tx.set(("bases", "characters", str(name)),
               FieldCharacter(side=side, status=new, player=player))
    count = bs.sides.get(side, SideCount())
    tx.set(("bases", "sides", side), SideCount(
        on_field=max(0, count.on_field + (new == "on_field") - (prev == "on_field")),
        incapacitated=max(0, count.incapacitated + (new == "incapacitated")
                          - (prev == "incapacitated"))))
    return True


def _advance(tx: Tx, bs: BasesState) -> None:
    """Next round: reset 【ラウンドX回】 counts, emit battle.started / round.started."""
    r = bs.round + 1
    tx.set(("bases", "round"), r)
    for loc in locations(bs, ("events",)):
        if isinstance(loc.element, Event) and loc.element.fired_round:
            tx.set((*loc.path, "fired_round"), 0)
    if r == 1:
        tx.emit("battle.started")
    tx.emit("round.started", round=r)
    tx.report(BasesRound(round=r), about=[("bases", "round")])
    tx.say(Text(f"第{r}ラウンド開始", f"Round {r} begins"))
