"""Ranges, areas, sight lines and [独妙閃光]: the seed's diagrams square by square.

The diagrams below are the seed's own (001, ●射程の扱い, ●対象[範囲・シーン], ▼[独妙閃光]),
one character per square: □ a square in range, ■ the user, ※ the area's origin,
a full-width space a square outside.
"""

from __future__ import annotations

import pytest
from grid_kit import GM, P1, do, engine, refused, start

from komasync.engine.grid.geometry import (
    area,
    flash_lines,
    flash_squares,
    in_range,
    range_squares,
    sight_clear,
)

RANGE = {
    0: "\u3000□\n□■□\n\u3000□",
    1: "□□□\n□■□\n□□□",
    2: "\u3000\u3000□\n\u3000□□□\n□□■□□\n\u3000□□□\n\u3000\u3000□",
    3: "\u3000\u3000\u3000□\u3000\n\u3000\u3000□□□\n\u3000□□□□□\n□□□■□□□\n"
       "\u3000□□□□□\n\u3000\u3000□□□\n\u3000\u3000\u3000□",
}
AREA = "□□□\n□※□\n□□□"
SCENE = "□□□□□\n□□□□□\n□□※□□\n□□□□□\n□□□□□"
FLASH = ("□\u3000\u3000\u3000□\u3000\u3000\u3000□\n\u3000□\u3000\u3000□\u3000\u3000□\n"
         "\u3000\u3000□\u3000□\u3000□\n\u3000\u3000\u3000□□□\n□□□□■□□□□\n"
         "\u3000\u3000\u3000□□□\n\u3000\u3000□\u3000□\u3000□\n\u3000□\u3000\u3000□\u3000\u3000□\n"
         "□\u3000\u3000\u3000□\u3000\u3000\u3000□")


def diagram(text: str, centre: str) -> tuple[set[tuple[int, int]], tuple[int, int]]:
    """The diagram's marked squares relative to its centre (■ or ※), and the centre."""
    squares, origin = set(), (0, 0)
    for y, row in enumerate(text.split("\n")):
        for x, ch in enumerate(row):
            if ch in ("□", centre):
                squares.add((x, y))
            if ch == centre:
                origin = (x, y)
    return {(x - origin[0], y - origin[1]) for x, y in squares}, origin


def relative(squares: list[tuple[int, int]], centre: tuple[int, int]) -> set[tuple[int, int]]:
    return {(x - centre[0], y - centre[1]) for x, y in squares}


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_grid_rng_1_range_diagrams_square_by_square(n: int) -> None:  # GRID-RNG-1
    want, _ = diagram(RANGE[n], "■")
    got = relative(range_squares((10, 10), n, 21, 21), (10, 10))
    assert got == want
    for dx in range(-5, 6):
        for dy in range(-5, 6):
            assert in_range((10, 10), (10 + dx, 10 + dy), n) == ((dx, dy) in want)


def test_grid_rng_1_larger_ranges_continue_the_diamond() -> None:  # GRID-RNG-1
    got = relative(range_squares((10, 10), 5, 21, 21), (10, 10))
    assert got == {(dx, dy) for dx in range(-5, 6) for dy in range(-5, 6) if abs(dx) + abs(dy) <= 5}


def test_grid_rng_1_range_stops_at_the_edge_of_the_map() -> None:  # GRID-RNG-1
    assert set(range_squares((0, 0), 1, 5, 5)) == {(0, 0), (1, 0), (0, 1), (1, 1)}


@pytest.mark.parametrize("n", [0, 1, 2])
def test_grid_rng_2_non_attack_skills_reach_one_farther(n: int) -> None:  # GRID-RNG-2
    want, _ = diagram(RANGE[n + 1], "■")
    got = relative(range_squares((10, 10), n, 21, 21, non_attack=True), (10, 10))
    assert got == want


def test_grid_rng_2_a_non_attack_target_one_beyond_the_range_is_accepted() -> None:  # GRID-RNG-2
    e = engine("""
A..*.
.....
....e
""", start=True)
    start(e, P1, "pa")
    far = {"x": 3, "y": 0}
    r = refused(e, P1, kind="grid.act", combatant="pa", timing="major", range=2, target=far)
    assert (r.code, r.rule) == ("out_of_range", "GRID-RNG-1")
    do(e, P1, kind="grid.act", combatant="pa", timing="major", range=2, target=far,
       skill="non_attack", name="[ヒール]")


def test_grid_area_1_area_and_scene_diagrams_square_by_square() -> None:  # GRID-AREA-1
    for text, kind in ((AREA, "area"), (SCENE, "scene")):
        want, _ = diagram(text, "※")
        assert relative(area((10, 10), kind, 21, 21), (10, 10)) == want  # type: ignore[arg-type]


def test_grid_area_1_origin_in_range_not_on_the_user() -> None:  # GRID-AREA-1
    e = engine("""
A....
.....
....e
""", start=True)
    start(e, P1, "pa")
    own = refused(e, P1, kind="grid.act", combatant="pa", range=2, area="area",
                  target={"x": 0, "y": 0})
    assert (own.code, own.rule) == ("own_square_origin", "GRID-AREA-1")
    far = refused(e, P1, kind="grid.act", combatant="pa", range=2, area="scene",
                  target={"x": 3, "y": 0})
    assert far.rule == "GRID-RNG-1"
    out = do(e, P1, kind="grid.act", combatant="pa", range=2, area="area", target={"x": 1, "y": 1},
             name="[ファイアボール]")
    acted = next(h for h in out.happenings if h.kind == "grid.acted")
    assert sorted((c.x, c.y) for c in acted.data["squares"]) == sorted(area((1, 1), "area", 5, 3))


def test_grid_sk_3_flash_diagram_square_by_square() -> None:  # GRID-SK-3
    want, _ = diagram(FLASH, "■")
    want.discard((0, 0))
    assert relative(flash_squares((10, 10), 21, 21), (10, 10)) == want
    rays = flash_lines((10, 10), 21, 21)
    assert len(rays) == 8 and all(len(r) == 4 for r in rays)
    assert {sq for r in rays for sq in r} == set(flash_squares((10, 10), 21, 21))
    lines = flash_lines((10, 10), 21, 21, "line")
    assert len(lines) == 4 and all(len(line) == 8 for line in lines)


def test_grid_sk_3_flash_targets_up_to_two_enemies_on_one_line() -> None:  # GRID-SK-3
    e = engine("""
A.e.h
....f
..g..
.....
.....
""", start=True)
    start(e, P1, "pa")
    act = {"kind": "grid.act", "combatant": "pa", "what": "flash", "name": "[独妙閃光]"}
    assert refused(e, P1, **act, targets=["ee", "eg"]).rule == "GRID-SK-3"  # two rays
    assert refused(e, P1, **act, targets=["ee", "eh", "eg"]).rule == "GRID-SK-3"  # three
    assert refused(e, P1, **act, targets=["ef"]).rule == "GRID-SK-3"  # (4,1): on no ray
    out = do(e, P1, **act, targets=["ee", "eh"])  # (2,0) and (4,0): one ray, 4 squares
    assert next(h for h in out.happenings if h.kind == "grid.acted").data["targets"] == ["ee", "eh"]


def test_grid_sk_3_flash_targets_must_be_enemies() -> None:  # GRID-SK-3
    e = engine("""
AB..
....
...e
""", start=True)
    start(e, P1, "pa")
    r = refused(e, P1, kind="grid.act", combatant="pa", what="flash", targets=["pb"])
    assert (r.code, r.rule) == ("flash_not_enemy", "GRID-SK-3")


def test_grid_los_1_obstacles_block_sight_pieces_do_not() -> None:  # GRID-LOS-1
    walls = [(2, 1)]
    assert not sight_clear((0, 1), (4, 1), walls)
    assert sight_clear((0, 0), (4, 0), walls)
    assert sight_clear((0, 1), (2, 1), walls)  # the obstacle itself is the target
    # the segment only touches corners between two diagonal obstacles
    corner = [(1, 0), (0, 1)]
    assert sight_clear((0, 0), (1, 1), corner, "open")
    assert not sight_clear((0, 0), (1, 1), corner, "blocked")
    # a shallow line grazing an obstacle's inside
    assert not sight_clear((0, 0), (4, 1), [(2, 0)])
    assert not sight_clear((0, 0), (4, 1), [(2, 1)])


def test_grid_los_1_a_sight_action_behind_an_obstacle_is_refused() -> None:  # GRID-LOS-1
    e = engine("""
A.#.*
..B..
....e
""", start=True)
    start(e, P1, "pa")
    hidden = {"x": 4, "y": 0}
    r = refused(e, P1, kind="grid.act", combatant="pa", range="sight", target=hidden)
    assert (r.code, r.rule) == ("no_line_of_sight", "GRID-LOS-1")
    # an ally between does not block (pieces are not obstacles)
    do(e, P1, kind="grid.act", combatant="pa", range="sight", target={"x": 4, "y": 2},
       name="[ショット]")


def test_grid_los_1_corner_reading_is_a_setting() -> None:  # GRID-LOS-1
    text = """
A#..
#*..
...e
"""
    for corners, ok in (("open", True), ("blocked", False)):
        e = engine(text, {"los_corners": corners}, start=True)
        start(e, P1, "pa")
        act = {"kind": "grid.act", "combatant": "pa", "range": "sight",
               "target": {"x": 1, "y": 1}}
        if ok:
            do(e, P1, **act)
        else:
            assert refused(e, P1, **act).rule == "GRID-LOS-1"


def test_grid_rng_3_the_gm_states_any_range_but_a_player_must_ask() -> None:  # GRID-RNG-3
    e = engine("""
A...*
.....
....e
""", start=True)
    start(e, P1, "pa")
    check = {"kind": "grid.act", "combatant": "pa", "what": "check", "name": "罠探知",
             "target": {"x": 4, "y": 0}}
    r = refused(e, P1, **check)
    assert (r.code, r.rule) == ("ask_gm_range", "GRID-RNG-3")
    do(e, GM, **check, range=4)
