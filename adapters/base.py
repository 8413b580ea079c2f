"""What a platform adapter is: the `table` projection in, platform operations out;
platform events in, engine actions out. Pure (no I/O): the server drives it.

The server keeps one adapter per (room, platform) while a bridge of that platform is
connected. It calls `reset(tree)` when a bridge joins (every object the table should
show), `update(tree, ops, log)` after each change of the table audience (or `patch`,
then `redraw` if it answered None, to keep a large table's redraw off the event loop),
`event(...)` when the bridge reports something, and `snap_back(...)` when that event was
refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, Field, StrictFloat

from ..engine.errors import Text

__all__ = ["Calibration", "EventResult", "PlatformAdapter", "PlatformOp", "RollSeen"]

PlatformOp = dict[str, Any]


class Calibration(BaseModel):
    """How grid cells map to platform coordinates (per room and platform; issue 5)."""

    origin_x: StrictFloat = 0.0
    origin_y: StrictFloat = 0.0
    cell_size: StrictFloat = Field(default=24.0, gt=0)
    units: str = "px"


@dataclass
class RollSeen:
    """A roll a platform event carried, for the GM's roll ledger (server/roll_ledger.py).

    A translation sets it on `EventResult.roll` whether or not the roll made an action;
    a chat event without one gets it from `adapters.rolls.chat_roll`. `text` is the dice
    line(s) as the VTT printed them; a structured (native) roll gives `formula`, `dice`
    (`[{"faces": 6, "results": [2, 5]}]`) and `total` instead or as well. `speaker` is
    the name or alias the VTT gave; `pc`/`pc_name` the rules' id (the table object's
    `ref`, e.g. `pc1`) and name of the character the roll was credited to,
    `player`/`player_name` the komasync player (None: nobody); `note` how it was credited
    when the speaker named no piece (rolls.credit_alias), or why it was left unbound.
    """

    text: str = ""
    speaker: str = ""
    pc: str | None = None
    pc_name: str | None = None
    player: str | None = None
    player_name: str | None = None
    formula: str | None = None
    dice: list[dict[str, Any]] = field(default_factory=list)
    total: float | None = None
    note: Text | None = None


@dataclass
class EventResult:
    """A platform event translated: the engine action to submit, or why it is ignored
    (`ignored` in one line of both languages, `why` the same apart), and the roll it
    carried, if any."""

    action: dict[str, Any] | None = None
    ignored: str | None = None
    context: dict[str, Any] = field(default_factory=dict)
    why: Text | None = None
    roll: RollSeen | None = None


class PlatformAdapter(Protocol):
    platform: str

    def reset(self, tree: dict[str, Any]) -> list[PlatformOp]:
        """Operations that build the whole table from nothing (a bridge just joined)."""
        ...

    def update(self, tree: dict[str, Any], ops: list[dict[str, Any]],
               log: list[dict[str, str]]) -> list[PlatformOp]:
        """Operations for one change: `tree` is the table projection after `ops`."""
        ...

    def patch(self, tree: dict[str, Any], ops: list[dict[str, Any]],
              log: list[dict[str, str]]) -> list[PlatformOp] | None:
        """`update`, if it can be made from what `ops` touched alone (cheap whatever the
        table's size); None if the whole table must be drawn: then `redraw` follows."""
        ...

    def redraw(self, tree: dict[str, Any], log: list[dict[str, str]]) -> list[PlatformOp]:
        """`update` by drawing the whole table (after `patch` answered None)."""
        ...

    def event(self, event: dict[str, Any], tree: dict[str, Any]) -> EventResult:
        """A platform event (piece dropped, chat line) as an engine action, or ignored."""
        ...

    def snap_back(self, event: dict[str, Any], tree: dict[str, Any],
                  reason: dict[str, str]) -> list[PlatformOp]:
        """Operations that undo a refused move on the table and tell the mover why."""
        ...
