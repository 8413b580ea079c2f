"""Checking what an action aims at: range (GRID-RNG-1/2), areas (GRID-AREA-1), sight
(GRID-LOS-1), a check's GM-stated range (GRID-RNG-3), [独妙閃光] and [カバーリング] (GRID-SK-3).
"""

from __future__ import annotations

from typing import Literal

from ..combatants import Combatant
from ..errors import Refusal, Text
from ..tx import Tx
from .geometry import Sq, area, flash_lines, in_range, on_board, sight_clear
from .model import GridState
from .rules import cell, combatant, in_scene, name_of, opponents, table

__all__ = ["aim", "check_range", "flash_targets", "in_cover_range"]

OUT_OF_RANGE = Text("({x}, {y})は射程{r}の外です（GRID-RNG-1{plus}）。",
                    "({x}, {y}) is outside range {r} (GRID-RNG-1{plus}).")
OWN_SQUARE = Text("自分のマスを範囲の起点にはできません（GRID-AREA-1）。",
                  "An area cannot be centred on the user's own square (GRID-AREA-1).")
NO_SIGHT = Text("({x}, {y})との間に遮蔽物があります。射程視界の行動はできません（GRID-LOS-1）。",
                "An obstacle stands between them and ({x}, {y}); no line-of-sight action "
                "(GRID-LOS-1).")
ASK_RANGE = Text("判定「{c}」の射程はGMが決めます。先に射程をGMに聞いてください（GRID-RNG-3）。",
                 "The GM sets the range of the check '{c}'; ask the GM for it first "
                 "(GRID-RNG-3).")
FLASH_COUNT = Text("[独妙閃光]の対象はエネミー1～2体です（GRID-SK-3）。",
                   "[独妙閃光] targets one or two enemies (GRID-SK-3).")
FLASH_LINE = Text("[独妙閃光]の対象は同じ列（8方向のいずれか、4マス以内）にいるエネミーです（GRID-SK-3）。",
                  "[独妙閃光] targets enemies on one line of the 8 directions, within 4 squares "
                  "(GRID-SK-3).")
FLASH_ENEMY = Text("「{n}」はエネミーではありません（GRID-SK-3）。", "{n} is not an enemy (GRID-SK-3).")
COVER = Text("[カバーリング]の射程は2です。「{n}」は届きません（GRID-SK-3）。",
             "[カバーリング] has range 2; {n} is out of reach (GRID-SK-3).")


def check_range(g: GridState, c: Combatant, check: str | None, stated: int | None,
                gm: bool) -> int | None:
    """GRID-RNG-3 a check's range: as sent by the GM, else as the GM answered when asked."""
    if gm and stated is not None:
        return stated
    for r in g.check_ranges.values():
        if r.combatant == c.id and r.check == check and r.range is not None:
            return r.range
    raise Refusal("ask_gm_range", ASK_RANGE.format(c=check or "?"), rule="GRID-RNG-3")


def aim(tx: Tx, g: GridState, user: Sq, target: Sq, reach: int | Literal["sight"] | None,
        non_attack: bool, kind: Literal["single", "area", "scene"], sight: bool
        ) -> list[Sq]:
    """Check a target square; returns the squares the action takes in (its area)."""
    t = table(tx)
    w, h = t.grid.width, t.grid.height
    if not on_board(target, w, h):
        raise Refusal("off_map", OUT_OF_RANGE.format(x=target[0], y=target[1], r="?", plus=""),
                      rule="GRID-RNG-1")
    obstacles = [(o.x, o.y) for o in g.obstacles]
    if isinstance(reach, int):
        n = reach + 1 if non_attack else reach  # GRID-RNG-2
        tx.check(in_range(user, target, n), Refusal("out_of_range", OUT_OF_RANGE.format(
            x=target[0], y=target[1], r=n, plus="/GRID-RNG-2" if non_attack else ""),
            rule="GRID-RNG-2" if non_attack else "GRID-RNG-1"))
    if kind != "single":
        tx.check(target != user, Refusal("own_square_origin", OWN_SQUARE, rule="GRID-AREA-1"))
    if sight or reach == "sight":
        tx.check(sight_clear(user, target, obstacles, g.settings.los_corners), Refusal(
            "no_line_of_sight", NO_SIGHT.format(x=target[0], y=target[1]), rule="GRID-LOS-1"))
    return [target] if kind == "single" else area(target, kind, w, h)


def flash_targets(tx: Tx, g: GridState, c: Combatant, user: Sq, ids: list[str]
                  ) -> list[Combatant]:
    """GRID-SK-3 [独妙閃光]: one or two enemies on one line of the pattern."""
    t = table(tx)
    targets = [combatant(tx, i) for i in ids]
    tx.check(1 <= len(set(ids)) <= 2, Refusal("flash_targets", FLASH_COUNT, rule="GRID-SK-3"))
    for o in targets:
        tx.check(opponents(c, o), Refusal("flash_not_enemy", FLASH_ENEMY.format(
            n=name_of(t, o)), rule="GRID-SK-3"))
    squares = {cell(t, o) for o in targets if in_scene(t, o)}
    lines = flash_lines(user, t.grid.width, t.grid.height, g.settings.flash_line)
    tx.check(len(squares) == len(targets) and any(squares <= set(line) for line in lines),
             Refusal("flash_line", FLASH_LINE, rule="GRID-SK-3"))
    return targets


def in_cover_range(tx: Tx, user: Combatant, target: Combatant) -> None:
    """GRID-SK-3 [カバーリング] reaches range 2 in seamless combat."""
    t = table(tx)
    a, b = cell(t, user), cell(t, target)
    tx.check(a is not None and b is not None and in_range(a, b, 2), Refusal(
        "cover_out_of_range", COVER.format(n=name_of(t, target)), rule="GRID-SK-3"))
