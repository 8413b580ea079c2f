"""Reading and changing combatants through a `Tx`, wherever a subsystem keeps them.

Every writer takes `base`, the path of the subsystem's combatant dict (grid combat:
`("grid", "combatants")`), so the same helpers serve any subsystem.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..paths import Path
from ..table import TableState
from .model import Combatant, Status, StatusKind

if TYPE_CHECKING:
    from ..tx import Tx

__all__ = ["add_status", "adjust_counter", "cell_of", "controlled_by", "expire_statuses",
           "has_status", "is_down", "piece_name", "remove_status", "status_of", "sync_hidden"]


def has_status(c: Combatant, kind: StatusKind) -> bool:
    return any(s.kind == kind for s in c.statuses.values())


def status_of(c: Combatant, kind: StatusKind) -> Status | None:
    """The first status of `kind` (in the order they were added), or None."""
    return next((s for s in c.statuses.values() if s.kind == kind), None)


def is_down(c: Combatant) -> bool:
    """Incapacitated or dead: takes no action, and anyone may pass its square."""
    return has_status(c, "incapacitated") or has_status(c, "dead")


def cell_of(pieces: Mapping[str, Any], c: Combatant) -> tuple[int, int] | None:
    """The square of the combatant's table piece (None: not on the board or no piece);
    `pieces` is the table's piece dict."""
    piece = pieces.get(c.piece)
    if piece is None or piece.cell is None:
        return None
    return piece.cell.x, piece.cell.y


def piece_name(pieces: Mapping[str, Any], c: Combatant) -> str:
    """How the table calls the combatant: its piece's name (else its id)."""
    piece = pieces.get(c.piece)
    return str(piece.name) if piece is not None else c.id


def controlled_by(pieces: Mapping[str, Any], c: Combatant, player: str) -> bool:
    """A player controls a PC whose piece they own or may move; nobody but the GM
    controls enemies and neutrals."""
    piece = pieces.get(c.piece)
    return c.side == "pc" and piece is not None and (
        piece.owner == player or player in piece.movers)


def sync_hidden(tx: Tx, base: Path, combatants: Iterable[Combatant],
                pieces: Mapping[str, Any]) -> None:
    """Keep each combatant hidden exactly when its piece is (the GM hides and reveals
    pieces on the table)."""
    for c in list(combatants):
        piece = pieces.get(c.piece)
        hidden = bool(piece.hidden) if piece is not None else c.hidden
        if hidden != c.hidden:
            tx.set((*base, c.id, "hidden"), hidden)


def add_status(tx: Tx, base: Path, c: Combatant, status: Status) -> None:
    tx.set((*base, c.id, "statuses", status.id), status)


def remove_status(tx: Tx, base: Path, c: Combatant, status_id: str) -> None:
    tx.delete((*base, c.id, "statuses", status_id))


def expire_statuses(tx: Tx, base: Path, combatants: Iterable[Combatant], turn: int,
                    durations: Iterable[str] = ()) -> list[tuple[Combatant, Status]]:
    """Remove statuses whose one-cycle end (`expires_turn`) is `turn` or earlier, and every
    status whose duration is in `durations`; returns what was removed."""
    gone: list[tuple[Combatant, Status]] = []
    kinds = set(durations)
    for c in list(combatants):
        for s in list(c.statuses.values()):
            due = s.expires_turn is not None and s.expires_turn <= turn
            if due or s.duration in kinds:
                remove_status(tx, base, c, s.id)
                gone.append((c, s))
    return gone


def adjust_counter(tx: Tx, c: Combatant, name: str, delta: int) -> tuple[int, int] | None:
    """Add `delta` to the table counter the combatant calls `name` (clamped); returns
    (old, new), or None when the combatant has no such counter."""
    table = tx.part("table", TableState)
    counter = table.counters.get(c.counters.get(name, "")) if table is not None else None
    if counter is None:
        return None
    old = counter.value
    new = counter.clamp(old + delta)
    tx.set(("table", "counters", counter.id, "value"), new)
    return old, new
