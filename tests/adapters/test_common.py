"""The neutral render (adapters/render.py, board.py, geometry.py): what the table shows,
settings, geometry. Each subsystem's objects: tests/adapters/subsystems/."""

from __future__ import annotations

import json

import pytest
from adapter_support import FakeFoundry, Room

from komasync.adapters import exports
from komasync.adapters.base import Calibration
from komasync.adapters.ccfolia.adapter import (
    SETTINGS,
    CcfoliaAdapter,
    calibration,
    ccfolia_settings,
)
from komasync.adapters.foundry import FoundryAdapter
from komasync.adapters.geometry import Geometry
from komasync.adapters.render import render

SECRETS = ("assassin", "暗殺者", "pit", "落とし穴", "doom", "破滅")


def test_hidden_things_never_appear() -> None:
    # demo_table: a hidden piece, a hidden marker, a GM counter, an owner counter
    room = Room.build("demo_table.yaml")
    resets = room.attach()
    text = json.dumps([render(room.tree), resets, exports.clipboard(room.tree)],
                      ensure_ascii=False)
    for secret in (*SECRETS, "alice_hp"):
        assert secret not in text
    # revealed, it appears at once, on both platforms
    _o, out = room.act({"kind": "table.piece.reveal", "piece": "assassin"})
    assert any(op.get("id") == "ks-piece-assassin" for op in out["ccfolia"])
    assert any(d["flags"]["komasync"]["id"] == "ks-piece-assassin"
               for op in out["foundry"] if op["op"] == "create" for d in op["data"])


def test_things_on_one_square_are_stacked() -> None:
    room = Room.build()
    room.attach()
    for pc in ("pc1", "pc2"):
        room.act({"kind": "td.pc.place", "pc": pc, "fort": "f_left"})
    objs = render(room.tree)
    slots = {oid: objs[oid]["slot"] for oid in ("ks-fort-f_left", "ks-pc-pc1", "ks-pc-pc2")}
    assert slots == {"ks-fort-f_left": 0, "ks-pc-pc1": 1, "ks-pc-pc2": 2}
    foundry = room.adapters["foundry"]
    assert foundry.shown["ks-pc-pc2"].data["x"] == 2 * 100 + 2 * 25


# -- calibration -------------------------------------------------------------------------------


def test_ccfolia_defaults_count_squares_with_the_centre_square_at_zero() -> None:
    # issue 14: Ccfolia's room data measures in squares (tests/data/ccfolia, the deck)
    tree = Room.build().tree  # grid 21 × 15
    settings, geo, problems = ccfolia_settings(tree)
    assert problems == [] and isinstance(settings, Calibration)
    assert (settings.cell_size, settings.units, settings.forts_as) == (24, "cell", "both")
    assert geo.pos({"x": 10, "y": 7}) == (0, 0)  # the centre square
    assert geo.pos({"x": 0, "y": 0}) == (-10, -7)
    assert geo.cell_at(-10, -7) == {"x": 0, "y": 0}  # a whole-square drop is never a tie
    assert calibration(tree)["calibrated"] is False


def test_ccfolia_units_px_and_explicit_origin() -> None:
    tree = Room.build(platforms={"ccfolia": {"units": "px"}}).tree
    _s, geo, _p = ccfolia_settings(tree)
    assert geo.pos({"x": 0, "y": 0}) == (-10 * 24, -7 * 24)
    assert calibration(tree)["calibrated"] is True
    tree = Room.build(platforms={"ccfolia": {"origin_x": 0, "origin_y": 0, "cell_size": 50,
                                             "units": "px"}}).tree
    _s, geo, _p = ccfolia_settings(tree)
    assert geo.pos({"x": 2, "y": 3}) == (100, 150)
    assert geo.cell_at(112, 160) == {"x": 2, "y": 3}


def test_foundry_grid_size_and_padding() -> None:
    room = Room.build(platforms={"foundry": {"cell_size": 140, "origin_x": 350, "origin_y": 210}})
    adapter = FoundryAdapter.from_tree(room.tree)
    assert adapter.geometry.pos({"x": 2, "y": 4}) == (350 + 280, 210 + 560)
    assert FoundryAdapter.from_tree(Room.build().tree).geometry.pos({"x": 2, "y": 4}) == (200, 400)


@pytest.mark.parametrize("x,y", [(0.0, 0.0), (3.0, 7.0), (20.0, 14.0)])
def test_cell_at_inverts_pos(x: float, y: float) -> None:
    for geo in (Geometry(-252, -180, 24), Geometry(-10.5, -7.5, 24, "cell"), Geometry(350, 0, 140)):
        cell = {"x": int(x), "y": int(y)}
        assert geo.cell_at(*geo.pos(cell)) == cell
        assert geo.cell_at(*geo.pos(cell, 1)) == cell  # one stacking step stays on the square


def test_invalid_settings_fall_back_and_say_so() -> None:
    room = Room.build(platforms={"ccfolia": {"forts_as": "banners", "cell_size": -1}})
    adapter = CcfoliaAdapter.from_tree(room.tree)
    assert adapter.settings == SETTINGS()  # Ccfolia's keys and the tower defense's forts_as
    assert adapter.problems
    ops = adapter.reset(room.tree)
    assert ops[-1]["op"] == "chat" and "forts_as" in ops[-1]["text"]


@pytest.mark.parametrize("forts_as,dice,bar", [("dice", True, False), ("status", False, True),
                                               ("both", True, True)])
def test_forts_as_setting(forts_as: str, dice: bool, bar: bool) -> None:
    # TD-MAP-2 fort durability as dice symbols and/or a 耐久力 status bar
    room = Room.build(platforms={"ccfolia": {"forts_as": forts_as, "fort_die_faces": 20}})
    ops = room.attach()["ccfolia"]
    ids = {op.get("id") for op in ops}
    assert ("ks-fort-final-die1" in ids) is dice
    assert ("ks-fort-final" in ids) is bar
    if dice:  # final fort 60 with d20s: three dice 20, 20, 20
        values = [op["data"]["value"] for op in ops if op["op"] == "dice.create"
                  and op["ref"]["id"] == "final"]
        assert values == [20, 20, 20]


def test_settings_change_at_runtime_moves_everything() -> None:
    room = Room.build()
    room.attach()
    _o, out = room.act({"kind": "override", "path": ["meta", "platforms"],
                        "value": {"foundry": {"cell_size": 50}}, "reason": "calibrate"})
    updates = [u for op in out["foundry"] if op["op"] == "update" for u in op["updates"]]
    assert updates and all({"x", "y"} & set(u["data"]) or "shape" in u["data"] for u in updates)
    fake = FakeFoundry()
    fake.apply(room.adapters["foundry"].reset(room.tree), reset=True)
    assert fake.by_ks()["ks-fort-f_left"]["data"]["x"] == 2 * 50


def test_render_survives_a_sparse_projection() -> None:
    for tree in ({}, {"table": None}, {"tower_defense": {"forts": {"x": {}}, "pcs": {"p": {}}}},
                 {"tower_defense": {"groups": {"g": {"cell": {"x": "a"}}}}}):
        render(tree)
        CcfoliaAdapter.from_tree(tree).reset(tree)
        FoundryAdapter.from_tree(tree).reset(tree)
