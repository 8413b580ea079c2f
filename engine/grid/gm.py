"""The GM's grid data: statuses and effects (GRID-ST-*, GRID-DUR-*), the map, characters,
event spots and timed events, published enemy data and エニーセブン (GRID-GM-1), and the
range question of a check (GRID-RNG-3: a prompt to the GM, the answer kept)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool, StrictInt

from ..actions import ActionBase
from ..bounds import Id, Number
from ..combatants import (
    MAX_ANY_SEVEN,
    MAX_DATA,
    Combatant,
    Duration,
    Side,
    Status,
    StatusKind,
    add_status,
    remove_status,
)
from ..errors import Text
from ..prompts import Prompt
from ..table import Cell
from ..tx import Role, Tx
from .model import CheckRange, GridState, RoundSide, Spot, TimedEvent
from .moves import move_piece
from .refusals import EXISTS, NO_STATUS, NOT_A_RANGE, PIECE_TAKEN, UNKNOWN_PIECE
from .rounds import expiry_turn
from .rules import BASE, combatant, grid, may_act, name_of, table

__all__ = ["CHECK_RESUME", "GM_ACTIONS", "resume_check_range"]

ACTORS = frozenset[Role]({"gm", "player", "bridge"})
CHECK_RESUME = "grid.check_range"

ADDED = Text("「{n}」に{s}", "{n}: {s_en}")
REMOVED = Text("「{n}」の{s}を解除", "{n}: {s_en} removed")
DEAD_OFF = Text("「{n}」は[死亡状態]: マップから除外（GRID-ST-6）",
                "{n} is dead and leaves the map (GRID-ST-6)")
ASK = Text("「{n}」の判定「{c}」の射程は？（数字で答えてください、GRID-RNG-3）",
           "Range of {n}'s check '{c}'? (answer with a number, GRID-RNG-3)")
ANSWERED = Text("GM: 「{n}」の判定「{c}」の射程は{r}", "GM: {n}'s check '{c}' has range {r}")


class AddStatus(ActionBase):
    """GM: put a status or effect on a character. `round`/`cleanup` effects end after one
    cycle (GRID-DUR-2); [死亡状態] takes the piece off the map (GRID-ST-6)."""

    kind: Literal["grid.status.add"] = "grid.status.add"
    combatant: Id
    status: StatusKind = "effect"
    id: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[\w\-.]+$")
    name: str = Field(default="", max_length=100)
    value: StrictInt | None = Field(default=None, ge=0, le=10_000)
    counter: str = Field(default="HP", max_length=64)
    duration: Duration = "until_removed"
    removable: StrictBool = True
    source: str = Field(default="", max_length=100)

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        c = combatant(tx, self.combatant)
        s = Status(id=self.id or tx.next_id("st", secret=c.hidden), kind=self.status, name=self.name,
                   value=self.value, counter=self.counter, duration=self.duration,
                   removable=self.removable, source=self.source)
        s = s.model_copy(update={"expires_turn": expiry_turn(g, s)})
        add_status(tx, BASE, c, s)
        tx.made("status", s.id, (*BASE, c.id, "statuses", s.id))
        name = name_of(table(tx), c)
        ja, en = s.label()
        tx.emit("grid.status.added", combatant=c.id, status=s.id, status_kind=s.kind)
        tx.say(ADDED.format(n=name, s=ja, s_en=en), chat=not c.hidden)
        if s.kind == "dead":
            _off_map(tx, g, c, name)


def _off_map(tx: Tx, g: GridState, c: Combatant, name: str) -> None:
    """GRID-ST-6 a dead character's piece leaves the map; a PC's goes to a free square of
    the off-map area when the scenario has one."""
    t = table(tx)
    target = None
    if c.side == "pc" and g.off_map is not None:
        used = {(p.cell.x, p.cell.y) for p in t.pieces.values() if p.cell is not None}
        target = next((sq for sq in g.off_map.squares() if sq not in used), None)
    if target is not None:
        move_piece(tx, c, target)
    else:
        tx.set(("table", "pieces", c.piece, "cell"), None)
    tx.emit("grid.removed_from_map", combatant=c.id)
    tx.say(DEAD_OFF.format(n=name), chat=not c.hidden)


class RemoveStatus(ActionBase):
    """GM: take a status or effect off a character."""

    kind: Literal["grid.status.remove"] = "grid.status.remove"
    combatant: Id
    status: Id

    def apply(self, tx: Tx) -> None:
        grid(tx)
        c = combatant(tx, self.combatant)
        name = name_of(table(tx), c)
        s = c.statuses.get(self.status)
        if s is None:
            raise NO_STATUS.refuse(alt="by_id", n=name, s=self.status[:64], s_en=self.status[:64])
        remove_status(tx, BASE, c, s.id)
        ja, en = s.label()
        tx.emit("grid.status.removed", combatant=c.id, status=s.id)
        tx.say(REMOVED.format(n=name, s=ja, s_en=en), chat=not c.hidden)


class AddCombatant(ActionBase):
    """GM: a table piece joins the fight as a character of a side."""

    kind: Literal["grid.combatant.add"] = "grid.combatant.add"
    id: str = Field(min_length=1, max_length=64, pattern=r"^[\w\-.]+$")
    piece: Id
    side: Side
    counters: dict[Id, Id] = Field(default_factory=dict, max_length=MAX_DATA)
    profile: dict[Id, Number] = Field(default_factory=dict, max_length=MAX_DATA)

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        t = table(tx)
        piece = t.pieces.get(self.piece)
        if piece is None:
            raise UNKNOWN_PIECE.missing(self.piece)
        if self.id in g.combatants:
            raise EXISTS.refuse(id=self.id)
        taken = next((c for c in g.combatants.values() if c.piece == self.piece), None)
        if taken is not None:
            raise PIECE_TAKEN.refuse(id=self.piece, c=taken.id)
        c = Combatant(id=self.id, piece=self.piece, side=self.side, counters=self.counters,
                      profile=self.profile, hidden=piece.hidden,
                      published=g.settings.publish_enemy_data and self.side == "enemy")
        tx.set((*BASE, c.id), c)
        tx.emit("grid.combatant.added", combatant=c.id)


class RemoveCombatant(ActionBase):
    """GM: a character leaves the fight (its piece stays on the table)."""

    kind: Literal["grid.combatant.remove"] = "grid.combatant.remove"
    combatant: Id

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        c = combatant(tx, self.combatant)
        if g.process is not None and g.process.combatant == c.id:
            tx.set(("grid", "process"), None)
        tx.delete((*BASE, c.id))
        tx.emit("grid.combatant.removed", combatant=c.id)


class SetObstacles(ActionBase):
    """GM: add or remove obstacle squares (they block movement and sight)."""

    kind: Literal["grid.obstacles"] = "grid.obstacles"
    add: list[Cell] = Field(default_factory=list, max_length=2500)
    remove: list[Cell] = Field(default_factory=list, max_length=2500)

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        gone = {(c.x, c.y) for c in self.remove}
        cells = {(c.x, c.y): c for c in g.obstacles if (c.x, c.y) not in gone}
        w, h = table(tx).grid.width, table(tx).grid.height
        for c in self.add:
            if 0 <= c.x < w and 0 <= c.y < h:
                cells.setdefault((c.x, c.y), c)
        tx.set(("grid", "obstacles"), sorted(cells.values(), key=lambda c: (c.y, c.x)))


class SetSpot(ActionBase):
    """GM: place, change or remove an event spot (GRID-GM-1)."""

    kind: Literal["grid.spot"] = "grid.spot"
    id: str = Field(min_length=1, max_length=64, pattern=r"^[\w\-.]+$")
    cell: Cell | None = None
    ja: str = Field(default="", max_length=300)
    en: str = Field(default="", max_length=300)
    hidden: StrictBool = False

    def apply(self, tx: Tx) -> None:
        grid(tx)
        if self.cell is None:
            tx.delete(("grid", "spots", self.id))
            return
        tx.set(("grid", "spots", self.id), Spot(id=self.id, cell=self.cell, ja=self.ja,
                                                en=self.en, hidden=self.hidden))


class SetEvent(ActionBase):
    """GM: announce (or keep to yourself) an event due at the start of a round (GRID-GM-1)."""

    kind: Literal["grid.event"] = "grid.event"
    id: str = Field(min_length=1, max_length=64, pattern=r"^[\w\-.]+$")
    round: StrictInt | None = Field(default=None, ge=1, le=1000)
    side: RoundSide = "pc"
    ja: str = Field(default="", max_length=300)
    en: str = Field(default="", max_length=300)
    announced: StrictBool = True

    def apply(self, tx: Tx) -> None:
        grid(tx)
        if self.round is None:
            tx.delete(("grid", "events", self.id))
            return
        tx.set(("grid", "events", self.id), TimedEvent(
            id=self.id, round=self.round, side=self.side, ja=self.ja, en=self.en,
            announced=self.announced))


class Publish(ActionBase):
    """GM: show (or hide again) an enemy's durability data; set エニーセブン modifiers —
    the achievement shown as 7 + modifier instead of a roll (GRID-GM-1)."""

    kind: Literal["grid.publish"] = "grid.publish"
    combatant: Id
    published: StrictBool | None = None
    any_seven: dict[Id, Number | None] = Field(default_factory=dict, max_length=MAX_ANY_SEVEN)

    def apply(self, tx: Tx) -> None:
        grid(tx)
        c = combatant(tx, self.combatant)
        if self.published is not None:
            tx.set((*BASE, c.id, "published"), self.published)
        if self.any_seven:
            seven = dict(c.any_seven)
            for check, mod in self.any_seven.items():
                if mod is None:
                    seven.pop(check, None)
                else:
                    seven[check[:100]] = mod
            tx.set((*BASE, c.id, "any_seven"), seven)


class AskCheckRange(ActionBase):
    """Ask the GM the range of a check before acting (GRID-RNG-3); the answer is kept."""

    kind: Literal["grid.check.ask"] = "grid.check.ask"
    roles = ACTORS
    combatant: Id
    check: str = Field(min_length=1, max_length=100)
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        grid(tx)
        c = combatant(tx, self.combatant)
        may_act(tx, c)
        name = name_of(table(tx), c)
        pid = tx.ask("gm", ASK.format(n=name, c=self.check), CHECK_RESUME, free=True,
                     kind="grid.check_range", about={"combatant": c.id},
                     combatant=c.id, check=self.check)
        tx.set(("grid", "check_ranges", pid), CheckRange(combatant=c.id, check=self.check))


def resume_check_range(tx: Tx, prompt: Prompt, choice: str) -> None:
    """The GM's number is the check's range from now on (GRID-RNG-3)."""
    text = choice.strip()
    if not text.isdigit() or int(text) > 99:
        raise NOT_A_RANGE.refuse()
    g = grid(tx)
    entry = g.check_ranges.get(prompt.id)
    if entry is None:
        return
    tx.set(("grid", "check_ranges", prompt.id, "range"), int(text))
    c = g.combatants.get(entry.combatant)
    name = name_of(table(tx), c) if c is not None else entry.combatant
    tx.emit("grid.check_range", combatant=entry.combatant, check=entry.check, range=int(text))
    tx.say(ANSWERED.format(n=name, c=entry.check, r=int(text)), chat=c is None or not c.hidden)


GM_ACTIONS: tuple[type[ActionBase], ...] = (AddStatus, RemoveStatus, AddCombatant,
                                            RemoveCombatant, SetObstacles, SetSpot, SetEvent,
                                            Publish, AskCheckRange)
