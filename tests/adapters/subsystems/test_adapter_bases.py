"""Base battles on a VTT (adapters/subsystems/bases.py): GP as bars, state as text
(BASE-GP-1, BASE-ST-1), read defensively (a hidden GP, BASE-OPT-2, shows `?`)."""

from __future__ import annotations

from typing import Any

from adapter_support import FakeCcfolia, Room

from komasync.adapters.board import board as render_board
from komasync.adapters.ccfolia.adapter import CcfoliaAdapter
from komasync.adapters.render import render


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
