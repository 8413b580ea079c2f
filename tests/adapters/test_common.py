"""The neutral render (adapters/render.py, board.py, geometry.py): what the table shows,
settings, geometry, bases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from adapter_support import FakeCcfolia, FakeFoundry, Room

from komasync.adapters import exports
from komasync.adapters.base import Calibration
from komasync.adapters.board import board as render_board
from komasync.adapters.ccfolia.adapter import (
    CcfoliaAdapter,
    CcfoliaSettings,
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


def test_generic_table_objects() -> None:
    objs = render(Room.build("demo_table.yaml").tree)
    assert objs["ks-piece-knight"]["cell"] == {"x": 1, "y": 1}
    assert objs["ks-piece-knight"]["owner"] == "alice"
    assert objs["ks-counter-clock"]["max"] == 6
    assert objs["ks-marker-gate"]["width"] == 2


def test_counters_are_bars_on_the_board_and_drawing_text() -> None:
    room = Room.build("demo_table.yaml")
    resets = room.attach()
    board = next(op for op in resets["ccfolia"] if op.get("id") == "ks-board")
    assert {"label": "時計 / Clock", "value": 0, "max": 6} in board["data"]["status"]
    drawing = next(d for op in resets["foundry"] if op["op"] == "create" and op["type"] == "Drawing"
                   for d in op["data"] if d["flags"]["komasync"]["id"] == "ks-board")
    assert "時計 / Clock: 0/6" in drawing["text"]
    _o, out = room.act({"kind": "table.counter.add", "counter": "clock", "delta": 2})
    assert [op["op"] for op in out["ccfolia"]] == ["character.update"]
    assert out["ccfolia"][0]["status_commands"] == [":時計 / Clock=2"]
    assert [(op["op"], op["type"]) for op in out["foundry"]] == [("update", "Drawing")]


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


def test_unplaced_pcs_wait_beside_the_board() -> None:
    objs = render(Room.build().tree)  # TD-PRE-1: nobody has picked a fort yet
    width = Room.build().tree["table"]["grid"]["width"]
    assert objs["ks-pc-pc1"]["cell"] == {"x": width + 1, "y": 2}
    assert objs["ks-pc-pc2"]["cell"] == {"x": width + 1, "y": 3}


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
    assert adapter.settings == CcfoliaSettings()
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


# -- bases: GP as counters, state as text -----------------------------------------------------


def test_base_battle_shows_each_bases_gp_and_state() -> None:
    room = Room.build("base_battle.yaml")
    resets = room.attach()
    board = next(op for op in resets["ccfolia"] if op.get("id") == "ks-board")["data"]
    names = {b["name"] for b in room.tree["bases"]["bases"].values()}
    for base in room.tree["bases"]["bases"].values():
        bar = next(s for s in board["status"] if s["label"] == f"{base['name']} GP")
        assert (bar["value"], bar["max"]) == (base["gp"], base["base_gp"])
    assert {p["label"] for p in board["params"]} >= names
    drawing = next(d for op in resets["foundry"] if op["op"] == "create" and op["type"] == "Drawing"
                   for d in op["data"] if d["flags"]["komasync"]["id"] == "ks-board")
    assert "活動 / active" in drawing["text"]


def test_bases_are_read_defensively() -> None:
    # a hidden GP (BASE-OPT-2) has no `gp`; unknown keys and states pass through
    tree: dict[str, Any] = {"meta": {}, "table": {"grid": {"width": 5, "height": 5}}, "bases": {
        "round": 2, "battle": {"name": "戦闘"}, "extra": [1, 2],
        "bases": {"a": {"name": "A", "state": "stopped", "gp": 3, "base_gp": 5},
                  "b": {"name": "B", "state": "mystery"}, "c": "not a dict"}}}
    objs = render(tree)
    assert objs["ks-base-b"]["gp"] is None and objs["ks-base-b"]["state_ja"] == "mystery"
    b = render_board(objs)
    assert {"label": "A GP", "value": 3, "max": 5} in b.bars
    assert {"label": "B", "value": "mystery GP ?"} in b.params
    fake = FakeCcfolia()
    fake.apply(CcfoliaAdapter.from_tree(tree).reset(tree), reset=True)
    assert fake.objects["ks-board"]["data"]["params"][0]["value"] == "戦闘 第2ラウンド"


def test_render_survives_a_sparse_projection() -> None:
    for tree in ({}, {"table": None}, {"tower_defense": {"forts": {"x": {}}, "pcs": {"p": {}}}},
                 {"tower_defense": {"groups": {"g": {"cell": {"x": "a"}}}}}):
        render(tree)
        CcfoliaAdapter.from_tree(tree).reset(tree)
        FoundryAdapter.from_tree(tree).reset(tree)
