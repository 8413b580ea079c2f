"""Moves that are not a piece walking: [強制転移] and [カバーリング] (GRID-SK-3),
[地動説] (GRID-X-5), towing (GRID-X-6) and [瞬間移動] as a major (GRID-X-4).

[強制転移] and [地動説] are skills used in the user's own main process: they pass the
same guards as every act (steps.py) and aim within the scenario's `SkillUse` for them."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..actions import ActionBase
from ..bounds import Id
from ..combatants import Combatant, is_down
from ..errors import Text
from ..table import Cell
from ..tx import Role, Tx
from .geometry import DIRECTIONS, ORTHOGONAL, Sq, manhattan
from .model import GridState, Process, SkillUse
from .moves import move_piece
from .process import settle_step, spend
from .refusals import (
    CANNOT_LAND,
    CHOOSE_DIRECTION,
    CHOOSE_NEAREST,
    NEED_USER,
    NO_DIRECTION,
    NOT_ADJACENT,
    NOT_YOUR_CHARACTER,
    RULE_OFF,
    TELEPORT_SQUARE,
    TOW_SELF_MOVING,
    TOW_SQUARE,
    TOW_TOO_FAR,
    UNKNOWN_PIECE,
)
from .rules import (
    as_cell,
    board_for,
    combatant,
    grid,
    may_act,
    name_of,
    need_active,
    on_map,
    owner_of,
    table,
)
from .steps import open_step
from .targets import aim, in_cover_range

__all__ = ["SKILL_ACTIONS", "Cover", "ForceMove", "Geocentric", "teleport_to", "tow"]

ACTORS = frozenset[Role]({"gm", "player", "bridge"})

FORCED = Text("「{n}」を({x}, {y})へ移動（{skill}）", "{n} is moved to ({x}, {y}) ({skill})")
COVERS = Text("「{u}」が「{n}」を[カバーリング]", "{u} covers {n} ([カバーリング])")
STAYS = Text("「{n}」は動けません（移動先がふさがっています）", "{n} cannot move (the square is taken)")
EXTRA = {"geocentric": ("[地動説]", "GRID-X-5"), "towing": ("牽引", "GRID-X-6"),
         "timeless_skills": ("タイミングのないスキルのメジャー使用", "GRID-X-4")}


def extra_on(tx: Tx, g: GridState, switch: Literal["geocentric", "towing", "timeless_skills"]
             ) -> None:
    """An extra rule (GRID-X-*) applies only when the scenario turns it on."""
    what, rule = EXTRA[switch]
    tx.check(bool(getattr(g.settings, switch)),
             RULE_OFF.refuse(under=rule, what=what))


def _land(tx: Tx, g: GridState, who: Combatant, sq: Sq) -> None:
    board = board_for(g, table(tx), who)
    if not board.enterable(sq):
        raise CANNOT_LAND.refuse(x=sq[0], y=sq[1])


def _user(tx: Tx, user: str | None) -> Combatant | None:
    """Who uses the skill: named by everyone but the GM (the table names the enemy)."""
    if user is None:
        if tx.actor.role == "gm":
            return None
        raise NEED_USER.refuse()
    c = combatant(tx, user)
    may_act(tx, c)
    return c


def _used(tx: Tx, g: GridState, user: Combatant | None, use: SkillUse, aimed: list[Sq]
          ) -> Process | None:
    """GRID-SK-3 a skill is used in its user's own main process, on its step, with every
    aimed square in its range and sight; None: the GM moves without a user (an effect)."""
    if user is None:
        return None
    p = open_step(tx, g, user, use.timing)
    here = on_map(tx, user)
    for sq in aimed:
        aim(tx, g, here, sq, use.range, False, "single", use.sight)
    return p


def _spent(tx: Tx, g: GridState, user: Combatant | None, p: Process | None,
           use: SkillUse) -> None:
    """The skill's step is spent on it (the process goes on or ends as after any act)."""
    if user is not None and p is not None:
        settle_step(tx, g, user, spend(p, use.timing, "action"))


def _table_may_move(tx: Tx, c: Combatant) -> None:
    """A bridge naming no player never moves a player's character with a skill."""
    if tx.actor.role == "bridge" and tx.actor.player is None and owner_of(table(tx), c)[0]:
        raise NOT_YOUR_CHARACTER.refuse(alt="uncredited", name=name_of(table(tx), c))


class ForceMove(ActionBase):
    """[強制転移]: in its user's main process, the target goes to a square adjacent to it,
    ignoring what would hinder its movement (GRID-SK-3)."""

    kind: Literal["grid.force_move"] = "grid.force_move"
    roles = ACTORS
    target: Id
    to: Cell
    user: Id | None = None
    skill: str = Field(default="[強制転移]", max_length=100)
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        need_active(g)
        user = _user(tx, self.user)
        target = combatant(tx, self.target)
        here, to = on_map(tx, target), (self.to.x, self.to.y)
        p = _used(tx, g, user, g.settings.force_move, [here])
        _table_may_move(tx, target)
        near = max(abs(here[0] - to[0]), abs(here[1] - to[1])) == 1
        if g.settings.teleport_adjacent == "orthogonal":
            near = manhattan(here, to) == 1
        tx.check(near, NOT_ADJACENT.refuse())
        _land(tx, g, target, to)
        move_piece(tx, target, to)
        tx.emit("grid.forced", combatant=target.id, to=as_cell(to), skill=self.skill)
        tx.say(FORCED.format(n=name_of(table(tx), target), x=to[0], y=to[1], skill=self.skill))
        _spent(tx, g, user, p, g.settings.force_move)


class Cover(ActionBase):
    """[カバーリング] on someone within range 2 (GRID-SK-3)."""

    kind: Literal["grid.cover"] = "grid.cover"
    roles = ACTORS
    user: Id
    target: Id
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        need_active(g)
        user = _user(tx, self.user)
        assert user is not None
        target = combatant(tx, self.target)
        in_cover_range(tx, user, target)
        t = table(tx)
        tx.emit("grid.covered", user=user.id, target=target.id)
        tx.say(COVERS.format(u=name_of(t, user), n=name_of(t, target)))


def _dist2(a: Sq, b: Sq) -> int:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2


class Geocentric(ActionBase):
    """[地動説] (GRID-X-5): the target nearest the user moves 1 square so that the distance
    shrinks most; every other target moves 1 square the same way (if it can)."""

    kind: Literal["grid.geocentric"] = "grid.geocentric"
    roles = ACTORS
    user: Id
    targets: list[Id] = Field(min_length=1, max_length=20)
    nearest: Id | None = None
    direction: Cell | None = None
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g = grid(tx)
        need_active(g)
        extra_on(tx, g, "geocentric")
        user = _user(tx, self.user)
        assert user is not None
        u = on_map(tx, user)
        t = table(tx)
        targets = [combatant(tx, i) for i in dict.fromkeys(self.targets)]
        placed = [(o, on_map(tx, o)) for o in targets]
        p = _used(tx, g, user, g.settings.geocentric_use, [sq for _o, sq in placed])
        for o in targets:
            _table_may_move(tx, o)
        near = self._nearest(t, u, placed)
        d = self._direction(tx, g, u, near)
        for o, sq in [(near[0], near[1]), *[x for x in placed if x[0].id != near[0].id]]:
            dest = (sq[0] + d[0], sq[1] + d[1])
            if board_for(g, t, o).enterable(dest):
                move_piece(tx, o, dest)
                tx.say(FORCED.format(n=name_of(t, o), x=dest[0], y=dest[1], skill="[地動説]"))
            else:
                tx.say(STAYS.format(n=name_of(t, o)))
        tx.emit("grid.geocentric", user=user.id, direction=as_cell(d),
                targets=[o.id for o in targets])
        _spent(tx, g, user, p, g.settings.geocentric_use)

    def _nearest(self, t: object, u: Sq, placed: list[tuple[Combatant, Sq]]
                 ) -> tuple[Combatant, Sq]:
        best = min(_dist2(u, sq) for _o, sq in placed)
        tied = [(o, sq) for o, sq in placed if _dist2(u, sq) == best]
        chosen = [x for x in tied if x[0].id == self.nearest] if len(tied) > 1 else tied
        if not chosen:
            names = "、".join(o.id for o, _sq in tied)
            raise CHOOSE_NEAREST.refuse(names=names, details={
                "candidates": [o.id for o, _sq in tied]})
        return chosen[0]

    def _direction(self, tx: Tx, g: GridState, u: Sq, near: tuple[Combatant, Sq]) -> Sq:
        o, sq = near
        board = board_for(g, table(tx), o)
        dirs = ORTHOGONAL if g.settings.geocentric_directions == "orthogonal" else DIRECTIONS
        options = {d: _dist2(u, (sq[0] + d[0], sq[1] + d[1])) for d in dirs
                   if board.enterable((sq[0] + d[0], sq[1] + d[1]))}
        if not options:
            raise NO_DIRECTION.refuse()
        best = min(options.values())
        tied = [d for d, v in options.items() if v == best]
        if len(tied) == 1:
            return tied[0]
        want = (self.direction.x, self.direction.y) if self.direction else None
        if want not in tied:
            raise CHOOSE_DIRECTION.refuse(details={
                "candidates": [{"x": d[0], "y": d[1]} for d in tied]})
        return want


def tow(tx: Tx, g: GridState, c: Combatant, p: Process, obj: str, to: Cell | None) -> Sq:
    """GRID-X-6 towing in the major: an object that cannot move by itself, in range 0 of
    where the user began, goes to a square of the user's range 0 nearest to it."""
    extra_on(tx, g, "towing")
    t = table(tx)
    thing = g.combatants.get(obj)
    if thing is not None and (thing.hidden and tx.actor.role != "gm"):
        thing = None
    if thing is not None:
        tx.check(is_down(thing), TOW_SELF_MOVING.refuse())
        piece_id = thing.piece
    else:
        piece_id = obj
        # A hidden combatant is not in the scene for a non-GM: its piece is unknown below.
        known = [x for x in g.combatants.values() if not x.hidden or tx.actor.role == "gm"]
        if any(x.piece == obj and not is_down(x) for x in known):
            raise TOW_SELF_MOVING.refuse()
    piece = t.pieces.get(piece_id)
    if piece is None or piece.cell is None or (piece.hidden and tx.actor.role != "gm"):
        raise UNKNOWN_PIECE.missing(obj)
    at = (piece.cell.x, piece.cell.y)
    start, now = (p.start.x, p.start.y), on_map(tx, c)
    tx.check(manhattan(start, at) <= 1 or manhattan(now, at) <= 1,
             TOW_TOO_FAR.refuse())
    board = board_for(g, t, c)
    squares = [(now[0] + dx, now[1] + dy) for dx, dy in ((0, 0), *ORTHOGONAL)]
    free = [sq for sq in squares if sq == now or board.enterable(sq)]
    best = min(manhattan(at, sq) for sq in free)
    fits = [sq for sq in free if manhattan(at, sq) == best]
    want = (to.x, to.y) if to is not None else (fits[0] if len(fits) == 1 else None)
    if want not in fits:
        raise TOW_SQUARE.refuse(cells=", ".join(map(str, fits)), details={
            "candidates": [{"x": sq[0], "y": sq[1]} for sq in fits]})
    assert want is not None
    tx.set(("table", "pieces", piece_id, "cell"), as_cell(want))
    tx.emit("grid.towed", user=c.id, piece=piece_id, to=as_cell(want))
    tx.say(FORCED.format(n=piece.name, x=want[0], y=want[1], skill="牽引 / towing"))
    return want


def teleport_to(tx: Tx, g: GridState, c: Combatant, to: Cell | None) -> int:
    """GRID-X-4 [瞬間移動] as a major: up to 2 squares ignoring obstacles on the way."""
    extra_on(tx, g, "timeless_skills")
    here = on_map(tx, c)
    if to is None:
        raise TELEPORT_SQUARE.refuse()
    dest = (to.x, to.y)
    tx.check(0 < manhattan(here, dest) <= 2, TELEPORT_SQUARE.refuse())
    _land(tx, g, c, dest)
    move_piece(tx, c, dest)
    return manhattan(here, dest)


SKILL_ACTIONS: tuple[type[ActionBase], ...] = (ForceMove, Cover, Geocentric)
