"""Reveals of hidden base data (BASE-OPT-2): a base's existence, its GP, its elements.

The rules reveal automatically (GP reaching 0, an element first applied or fired) and the
GM reveals by `bases.reveal` or a `reveal` effect; all of it goes through here, which
clears the hidden flags and emits `bases.revealed` once per reveal that shows something.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from .lookup import Located, base_path, locations_of
from .model import Base

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["reveal_base", "reveal_element"]


def reveal_base(tx: Tx, base: Base, what: Literal["all", "base", "gp"] = "all") -> None:
    """Show a hidden base (its existence), its GP, or everything in it (BASE-OPT-2)."""
    changed = False
    if base.hidden:
        tx.set((*base_path(base), "hidden"), False)
        changed = True
    if what != "base" and base.gp_hidden:
        tx.set((*base_path(base), "gp_hidden"), False)
        changed = True
    if what == "all":
        for loc in locations_of(base):
            changed |= _unhide(tx, loc)
    if changed:
        tx.emit("bases.revealed", base=base.id, what=what)


def _unhide(tx: Tx, loc: Located) -> bool:
    if not loc.element.hidden:
        return False
    tx.set((*loc.path, "hidden"), [])
    return True


def reveal_element(tx: Tx, loc: Located) -> None:
    """An element's hidden parts show (and its base's existence), BASE-OPT-2."""
    shown = _unhide(tx, loc)
    if loc.base.hidden:
        tx.set((*base_path(loc.base), "hidden"), False)
        shown = True
    if shown:
        tx.emit("bases.revealed", base=loc.base.id, element=loc.element.id, what="element")
