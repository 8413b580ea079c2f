"""The generic table's actions and checks: moves (TABLE-MV-*), counters (TABLE-CT-1), markers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import StrictBool

from ..actions import ActionBase
from ..bounds import MAX_NUMBER, Id, Number
from ..errors import Code, Refusal
from ..tx import Role, Tx
from .model import Cell, Counter, Marker, Piece, TableState
from .refusals import (
    FOR_NOBODY,
    NOT_YOUR_COUNTER,
    NOT_YOUR_PIECE,
    OFF_GRID,
    OUT_OF_RANGE,
    UNKNOWN_COUNTER,
    UNKNOWN_MARKER,
    UNKNOWN_PIECE,
)

__all__ = [
    "ACTIONS",
    "AddCounter",
    "AllowMove",
    "MovePiece",
    "PlaceCounter",
    "PlaceMarker",
    "PlacePiece",
    "RemoveCounter",
    "RemoveMarker",
    "RemovePiece",
    "RevealPiece",
    "SetCounter",
    "check_on_grid",
    "mover_of",
    "not_yours",
    "table_of",
]


def table_of(tx: Tx) -> TableState:
    """The room's generic table (every room has one)."""
    table = tx.part("table", TableState)
    if table is None:
        raise TypeError("the room state has no table part")
    return table


def _piece(tx: Tx, piece_id: str) -> Piece:
    piece = table_of(tx).pieces.get(piece_id)
    if piece is None or (tx.actor.role != "gm" and piece.hidden):
        raise UNKNOWN_PIECE.missing(piece_id)
    return piece


def _counter(tx: Tx, counter_id: str) -> Counter:
    counter = table_of(tx).counters.get(counter_id)
    if counter is None or not counter.visible_to(tx.audience):
        raise UNKNOWN_COUNTER.missing(counter_id)
    return counter


def check_on_grid(tx: Tx, cell: Cell, size: int = 1) -> None:
    """TABLE-MV-2: every square the piece covers lies on the grid."""
    grid = table_of(tx).grid
    if not (0 <= cell.x and cell.x + size <= grid.width and 0 <= cell.y
            and cell.y + size <= grid.height):
        raise OFF_GRID.refuse(x=cell.x, y=cell.y, w=grid.width, h=grid.height)


def mover_of(tx: Tx) -> str | None:
    """The player a move is made for: the player themself, or the one a bridge acts for."""
    return tx.actor.player if tx.actor.role in ("player", "bridge") else None


def not_yours(tx: Tx, code: Code, name: str = "",
              about: Sequence[Sequence[str | int]] = ()) -> Refusal:
    """The refusal for acting on something of another's (`code`'s reason, with `{name}`);
    the table (a bridge naming no player) is told it must say who acts (the code's `nobody`
    alt). `about`: what the reason names."""
    text = code.text if tx.actor.player is not None else code.alts.get("nobody", FOR_NOBODY)
    return Refusal(code, text.format(name=name), about=about)


class MovePiece(ActionBase):
    """Move a piece to a square (TABLE-MV-1 owner only unless allowed; TABLE-MV-2 on grid)."""

    kind: Literal["table.move"] = "table.move"
    roles = frozenset[Role]({"gm", "player", "bridge"})
    table_move = True
    piece: Id
    to: Cell
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        piece = _piece(tx, self.piece)
        if not tx.actor.acts_for(piece.owner, piece.movers):  # the refusal built only if due
            tx.check(False, not_yours(tx, NOT_YOUR_PIECE, name=piece.name,
                                      about=[("table", "pieces", piece.id, "name")]))
        check_on_grid(tx, self.to, piece.size)
        tx.set(("table", "pieces", piece.id, "cell"), self.to)
        tx.emit("piece.moved", piece=piece.id, to=self.to.model_dump(), by=mover_of(tx))


class PlacePiece(ActionBase):
    """GM: put a new piece on the table, or replace one."""

    kind: Literal["table.piece.place"] = "table.piece.place"
    piece: Piece

    def apply(self, tx: Tx) -> None:
        if self.piece.cell is not None:
            check_on_grid(tx, self.piece.cell, self.piece.size)
        tx.set(("table", "pieces", self.piece.id), self.piece)


class RemovePiece(ActionBase):
    kind: Literal["table.piece.remove"] = "table.piece.remove"
    piece: Id

    def apply(self, tx: Tx) -> None:
        _piece(tx, self.piece)
        tx.delete(("table", "pieces", self.piece))


class RevealPiece(ActionBase):
    """GM: show (or hide again) a hidden piece."""

    kind: Literal["table.piece.reveal"] = "table.piece.reveal"
    piece: Id
    hidden: StrictBool = False

    def apply(self, tx: Tx) -> None:
        _piece(tx, self.piece)
        tx.set(("table", "pieces", self.piece, "hidden"), self.hidden)


class AllowMove(ActionBase):
    """GM: let a player move a piece that is not theirs (TABLE-MV-1), or take it back."""

    kind: Literal["table.piece.allow"] = "table.piece.allow"
    piece: Id
    player: Id
    allow: StrictBool = True

    def apply(self, tx: Tx) -> None:
        piece = _piece(tx, self.piece)
        movers = [p for p in piece.movers if p != self.player]
        if self.allow:
            movers.append(self.player)
        tx.set(("table", "pieces", piece.id, "movers"), movers)


class SetCounter(ActionBase):
    """Set a counter (GM; an owning player for `owner` counters), clamped to min/max."""

    kind: Literal["table.counter.set"] = "table.counter.set"
    roles = frozenset[Role]({"gm", "player"})
    counter: Id
    value: Number

    def apply(self, tx: Tx) -> None:
        counter = _counter(tx, self.counter)
        _may_change(tx, counter)
        tx.set(("table", "counters", counter.id, "value"), counter.clamp(self.value))


class AddCounter(ActionBase):
    """Add `delta` to a counter, clamped to min/max."""

    kind: Literal["table.counter.add"] = "table.counter.add"
    roles = frozenset[Role]({"gm", "player"})
    counter: Id
    delta: Number

    def apply(self, tx: Tx) -> None:
        counter = _counter(tx, self.counter)
        _may_change(tx, counter)
        value = counter.clamp(counter.value + self.delta)
        if abs(value) > MAX_NUMBER:  # TABLE-CT-2: repeated deltas never leave the bound
            raise OUT_OF_RANGE.refuse(name=counter.name, limit=MAX_NUMBER,
                                      details={"limit": MAX_NUMBER})
        tx.set(("table", "counters", counter.id, "value"), value)


def _may_change(tx: Tx, counter: Counter) -> None:
    if tx.actor.role == "player" and counter.owner != tx.actor.player:
        raise NOT_YOUR_COUNTER.refuse(name=counter.name,
                                      about=[("table", "counters", counter.id, "name")])


class PlaceCounter(ActionBase):
    kind: Literal["table.counter.place"] = "table.counter.place"
    counter: Counter

    def apply(self, tx: Tx) -> None:
        tx.set(("table", "counters", self.counter.id), self.counter)


class RemoveCounter(ActionBase):
    kind: Literal["table.counter.remove"] = "table.counter.remove"
    counter: Id

    def apply(self, tx: Tx) -> None:
        _counter(tx, self.counter)
        tx.delete(("table", "counters", self.counter))


class PlaceMarker(ActionBase):
    kind: Literal["table.marker.place"] = "table.marker.place"
    marker: Marker

    def apply(self, tx: Tx) -> None:
        check_on_grid(tx, self.marker.cell)
        tx.set(("table", "markers", self.marker.id), self.marker)


class RemoveMarker(ActionBase):
    kind: Literal["table.marker.remove"] = "table.marker.remove"
    marker: Id

    def apply(self, tx: Tx) -> None:
        if self.marker not in table_of(tx).markers:
            raise UNKNOWN_MARKER.missing(self.marker)
        tx.delete(("table", "markers", self.marker))


ACTIONS: tuple[type[ActionBase], ...] = (
    MovePiece, PlacePiece, RemovePiece, RevealPiece, AllowMove, SetCounter, AddCounter,
    PlaceCounter, RemoveCounter, PlaceMarker, RemoveMarker,
)
