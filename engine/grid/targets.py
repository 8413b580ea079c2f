"""Checking what an action aims at: range (GRID-RNG-1/2), areas (GRID-AREA-1), sight
(GRID-LOS-1), a check's GM-stated range (GRID-RNG-3), [独妙閃光] and [カバーリング] (GRID-SK-3).
"""

from __future__ import annotations

from typing import Literal

from ..combatants import Combatant
from ..tx import Tx
from .geometry import Sq, area, flash_lines, in_range, on_board, sight_clear
from .model import GridState
from .refusals import (
    ASK_GM_RANGE,
    COVER_OUT_OF_RANGE,
    FLASH_LINE,
    FLASH_NOT_ENEMY,
    FLASH_TARGETS,
    NO_LINE_OF_SIGHT,
    OUT_OF_RANGE,
    OWN_SQUARE_ORIGIN,
    TARGET_OFF_MAP,
)
from .rules import cell, combatant, in_scene, name_of, opponents, table

__all__ = ["aim", "check_range", "flash_targets", "in_cover_range"]


def check_range(g: GridState, c: Combatant, check: str | None, stated: int | None,
                gm: bool) -> int | None:
    """GRID-RNG-3 a check's range: as sent by the GM, else as the GM answered when asked."""
    if gm and stated is not None:
        return stated
    for r in g.check_ranges.values():
        if r.combatant == c.id and r.check == check and r.range is not None:
            return r.range
    raise ASK_GM_RANGE.refuse(c=check or "?")


def aim(tx: Tx, g: GridState, user: Sq, target: Sq, reach: int | Literal["sight"] | None,
        non_attack: bool, kind: Literal["single", "area", "scene"], sight: bool = False
        ) -> list[Sq]:
    """Check a target square; returns the squares the action takes in (its area).
    `sight`: a skill whose use needs the target in sight besides its range (SkillUse)."""
    t = table(tx)
    w, h = t.grid.width, t.grid.height
    if not on_board(target, w, h):
        raise TARGET_OFF_MAP.refuse(x=target[0], y=target[1])
    obstacles = [(o.x, o.y) for o in g.obstacles]
    if isinstance(reach, int):
        n = reach + 1 if non_attack else reach  # GRID-RNG-2
        rule = "GRID-RNG-2" if non_attack else "GRID-RNG-1"
        tx.check(in_range(user, target, n), OUT_OF_RANGE.refuse(under=rule, x=target[0],
                                                         y=target[1], r=n))
    if kind != "single":
        tx.check(target != user, OWN_SQUARE_ORIGIN.refuse())
    if sight or reach == "sight":
        tx.check(sight_clear(user, target, obstacles, g.settings.los_corners),
                 NO_LINE_OF_SIGHT.refuse(x=target[0], y=target[1]))
    return [target] if kind == "single" else area(target, kind, w, h)


def flash_targets(tx: Tx, g: GridState, c: Combatant, user: Sq, ids: list[str]
                  ) -> list[Combatant]:
    """GRID-SK-3 [独妙閃光]: one or two enemies on one line of the pattern."""
    t = table(tx)
    targets = [combatant(tx, i) for i in ids]
    tx.check(1 <= len(set(ids)) <= 2, FLASH_TARGETS.refuse())
    for o in targets:
        tx.check(opponents(c, o), FLASH_NOT_ENEMY.refuse(n=name_of(t, o)))
    squares = {cell(t, o) for o in targets if in_scene(t, o)}
    lines = flash_lines(user, t.grid.width, t.grid.height, g.settings.flash_line)
    tx.check(len(squares) == len(targets) and any(squares <= set(line) for line in lines),
             FLASH_LINE.refuse())
    return targets


def in_cover_range(tx: Tx, user: Combatant, target: Combatant) -> None:
    """GRID-SK-3 [カバーリング] reaches range 2 in seamless combat."""
    t = table(tx)
    a, b = cell(t, user), cell(t, target)
    tx.check(a is not None and b is not None and in_range(a, b, 2),
             COVER_OUT_OF_RANGE.refuse(n=name_of(t, target)))
