"""Finding things in the base battle: the battle, bases, elements, a character's side.

Every rule module reaches the room's `BasesState` through `battle` (a refusal when the
room has none) and names an element by its `Located` place, whose `path` is what `Tx.set`
writes to. Lookups on behalf of a sender honour BASE-OPT-2: hidden bases and elements do
not exist for non-GM senders. `say` is the one log writer, for the same reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from ..errors import Text
from ..views import Audience
from . import refusals as no
from .model import Base, BasesState, Element
from .states import CharSide

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = [
    "ALL_FIELDS",
    "FIRING",
    "TABLE",
    "ElementField",
    "Located",
    "base_path",
    "battle",
    "element_by_id",
    "find_base",
    "find_element",
    "locations",
    "locations_of",
    "say",
    "side_of",
]

ElementField = Literal["gp_conditions", "constants", "events"]
ALL_FIELDS: Final[tuple[ElementField, ...]] = ("gp_conditions", "constants", "events")
FIRING: Final[tuple[ElementField, ...]] = ("gp_conditions", "events")
TABLE: Final = Audience("table")



def battle(tx: Tx) -> BasesState:
    """The room's base battle, or a refusal when the room has none."""
    return tx.require("bases", BasesState, no.NO_BASE_BATTLE.refuse())


def find_base(tx: Tx, ref: str) -> Base:
    """A base by id or name; hidden ones do not exist for non-GM senders."""
    bs = battle(tx)
    base = bs.bases.get(ref) or next((b for b in bs.bases.values() if b.name == ref), None)
    if base is None or not base.visible_to(tx.audience):
        raise no.UNKNOWN_BASE.missing(ref)
    return base


def base_path(base: Base) -> tuple[str, str, str]:
    return ("bases", "bases", base.id)


@dataclass(frozen=True)
class Located:
    """Where an element lives: its base, list and index."""

    base: Base
    field: ElementField
    index: int

    @property
    def element(self) -> Element:
        items: Sequence[Element] = getattr(self.base, self.field)
        return items[self.index]

    @property
    def path(self) -> tuple[str | int, ...]:
        return (*base_path(self.base), self.field, self.index)

    @property
    def label(self) -> str:
        """What a message calls the element: its name, or its id if it has none."""
        return str(getattr(self.element, "name", self.element.id))

    def about(self, *parts: str) -> list[tuple[str | int, ...]]:
        """The state a refusal about this element reveals: its label and `parts`."""
        label = "name" if hasattr(self.element, "name") else "id"
        return [(*self.path, f) for f in (label, *parts)]


def locations_of(base: Base, fields: Sequence[ElementField] = ALL_FIELDS) -> list[Located]:
    return [Located(base, f, i) for f in fields for i in range(len(getattr(base, f)))]


def locations(bs: BasesState, fields: Sequence[ElementField] = FIRING) -> list[Located]:
    """Elements of every base, in scenario order (GP change conditions and events by default)."""
    return [loc for b in bs.bases.values() for loc in locations_of(b, fields)]


def element_by_id(bs: BasesState, element_id: str) -> Located | None:
    """The first element with this id, hidden or not."""
    return next((loc for loc in locations(bs, ALL_FIELDS) if loc.element.id == element_id), None)


def find_element(tx: Tx, element_id: str) -> Located:
    """An element by id; hidden ones (or of hidden bases) do not exist for non-GM senders."""
    loc, who = element_by_id(battle(tx), element_id), tx.audience
    if loc is None or not (loc.base.visible_to(who) and loc.element.visible_to(who)):
        raise no.UNKNOWN_ELEMENT.missing(element_id)
    return loc


def side_of(bs: BasesState, data: Mapping[str, Any]) -> CharSide | None:
    """A happening's character side: as reported, else from the roster."""
    side = data.get("side")
    if side == "pc" or side == "enemy":
        return "pc" if side == "pc" else "enemy"
    known = bs.characters.get(str(data.get("character")))
    return known.side if known is not None else None


def say(tx: Tx, base: Base | None, text: Text) -> None:
    """A log line, only for what the table may already see (hidden data never leaks)."""
    if base is None or base.visible_to(TABLE):
        tx.say(text)
