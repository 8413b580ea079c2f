"""Lookups every grid action shares: the grid, a combatant, who may act, the board.

A combatant is *in the scene* when its piece exists, is not hidden and stands on the
board. Hidden pieces take no part in the rules until the GM reveals them (they neither
block nor count), so no refusal a player gets can depend on something hidden.
"""

from __future__ import annotations

from ..combatants import Combatant, cell_of, is_down
from ..table import Cell, TableState
from ..table import table_of as table
from ..tx import Tx
from .geometry import Sq, manhattan
from .model import GridState
from .movement import Board
from .refusals import (
    NO_GRID,
    NOT_ACTIVE,
    NOT_ON_MAP,
    NOT_YOUR_CHARACTER,
    UNKNOWN_CHARACTER,
)

__all__ = ["BASE", "acting", "board_for", "cell", "combatant",
           "down_squares", "grid", "in_scene", "may_act", "need_active", "opponents", "owner_of",
           "sharing_ally", "table"]

#: Where grid combat keeps its combatants (the path the combatants helpers write under).
BASE = ("grid", "combatants")


def grid(tx: Tx) -> GridState:
    """The room's seamless combat, or a refusal if it has none."""
    return tx.require("grid", GridState, NO_GRID.refuse())


def need_active(g: GridState) -> None:
    if not g.active:
        raise NOT_ACTIVE.refuse()


def combatant(tx: Tx, cid: str) -> Combatant:
    """A combatant the sender may know of (hidden ones are unknown to all but the GM)."""
    c = grid(tx).combatants.get(cid)
    if c is None or (c.hidden and tx.actor.role != "gm"):
        raise UNKNOWN_CHARACTER.missing(cid)
    return c


def name_of(t: TableState, c: Combatant) -> str:
    piece = t.pieces.get(c.piece)
    return piece.name if piece is not None else c.id


def owner_of(t: TableState, c: Combatant) -> tuple[str | None, list[str]]:
    piece = t.pieces.get(c.piece)
    return (piece.owner, list(piece.movers)) if piece is not None else (None, [])


def may_act(tx: Tx, c: Combatant) -> None:
    """GRID-MV-1 each player moves their own PC (a bridge, the player it names in `by`);
    the table (a bridge naming no player) only what no player owns; the GM anyone."""
    actor = tx.actor
    if actor.role == "gm":
        return
    owner, movers = owner_of(table(tx), c)
    ok = actor.acts_for(owner, movers) and (actor.player is None or c.side == "pc")
    tx.check(ok, NOT_YOUR_CHARACTER.refuse(name=name_of(table(tx), c)))


def acting(tx: Tx, cid: str) -> tuple[GridState, Combatant]:
    """The grid and the character an action is for: combat on, the character known to the
    sender, and the sender allowed to act for it."""
    g = grid(tx)
    need_active(g)
    c = combatant(tx, cid)
    may_act(tx, c)
    return g, c


def cell(t: TableState, c: Combatant) -> Sq | None:
    return cell_of(t.pieces, c)


def on_map(tx: Tx, c: Combatant) -> Sq:
    here = cell(table(tx), c)
    if here is None:
        raise NOT_ON_MAP.refuse(name=name_of(table(tx), c))
    return here


def in_scene(t: TableState, c: Combatant) -> bool:
    return not c.hidden and cell(t, c) is not None


def opponents(a: Combatant, b: Combatant) -> bool:
    """Enemies of each other: PC against enemy (neutrals are nobody's enemy)."""
    return {a.side, b.side} == {"pc", "enemy"}


def down_squares(g: GridState, t: TableState) -> set[Sq]:
    return {sq for c in g.combatants.values()
            if in_scene(t, c) and is_down(c) and (sq := cell(t, c)) is not None}


def board_for(g: GridState, t: TableState, mover: Combatant) -> Board:
    """GRID-MV-3 what `mover` may cross: allies and incapacitated pieces yes; enemies,
    hindered characters (GRID-X-3), neutrals (setting) and obstacles no. Hidden pieces
    are not in the scene (one flat pass: this runs for every legal-move push)."""
    walls = {(o.x, o.y) for o in g.obstacles}
    if g.off_map is not None:
        walls.update(g.off_map.squares())
    neutral_blocks = g.settings.neutral_blocks
    blockers: set[Sq] = set()
    for c in g.combatants.values():
        piece = t.pieces.get(c.piece)
        if c.id == mover.id or c.hidden or piece is None or piece.cell is None:
            continue
        kinds = {s.kind for s in c.statuses.values()} if c.statuses else set()
        if "incapacitated" in kinds or "dead" in kinds:
            continue
        if opponents(mover, c) or "hindered" in kinds or (
                neutral_blocks and c.side != mover.side and "neutral" in (c.side, mover.side)):
            blockers.add((piece.cell.x, piece.cell.y))
    return Board(t.grid.width, t.grid.height, frozenset(walls), frozenset(blockers),
                 g.settings.diagonal_past_corners)


def sharing_ally(g: GridState, t: TableState, c: Combatant) -> bool:
    """GRID-MV-4 the combatant stands on the same square as an ally."""
    here = cell(t, c)
    return here is not None and any(
        o.id != c.id and o.side == c.side and in_scene(t, o) and cell(t, o) == here
        for o in g.combatants.values())


def distance(a: Sq, b: Sq) -> int:
    """Travel in squares on an open map (a diagonal costs 2, so it is Manhattan)."""
    return manhattan(a, b)


def as_cell(sq: Sq) -> Cell:
    return Cell(x=sq[0], y=sq[1])
