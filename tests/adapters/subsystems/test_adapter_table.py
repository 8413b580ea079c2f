"""The generic table on a VTT (adapters/subsystems/table.py): pieces, counters, markers.

A generic piece dropped on a square → `table.move` (TABLE-MV-1/2); someone else's piece
snaps back (TABLE-MV-1); counters are bars on the komasync board.
"""

from __future__ import annotations

from typing import Any

import pytest
from adapter_support import Room, at, demo, position, submit

from komasync.adapters.render import render
from komasync.engine.core import Outcome
from komasync.engine.errors import Refusal


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


@pytest.mark.parametrize("platforms", [
    None,
    {"ccfolia": {"units": "cell"}},
    {"ccfolia": {"units": "px", "cell_size": 48, "origin_x": 10, "origin_y": -20},
     "foundry": {"cell_size": 140, "origin_x": 280, "origin_y": 140}},
])
@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_piece_dropped_on_a_square_is_table_move(platform: str, platforms: Any) -> None:
    # TABLE-MV-1/2: the owner moves the knight to (4, 3)
    room = demo(platforms)
    adapter = room.adapters[platform]
    event = {"kind": "move", "id": "ks-piece-knight", "user": {"id": "a", "name": "Alice"},
             **at(adapter, {"x": 4, "y": 3}, jitter=0.3 * adapter.geometry.unit)}
    result, outcome = submit(room, platform, event)
    assert result.action == {"kind": "table.move", "piece": "knight", "to": {"x": 4, "y": 3},
                             "by": "alice"}
    assert isinstance(outcome, Outcome)


def test_moving_someone_elses_piece_snaps_back() -> None:
    # TABLE-MV-1
    room = demo()
    adapter = room.adapters["ccfolia"]
    event = {"kind": "move", "id": "ks-piece-archer", "user": {"id": "a", "name": "Alice"},
             **at(adapter, {"x": 5, "y": 5})}
    _result, refusal = submit(room, "ccfolia", event)
    assert isinstance(refusal, Refusal) and refusal.rule == "TABLE-MV-1"
    ops = adapter.snap_back(event, room.tree, {"ja": refusal.ja, "en": refusal.en})
    assert position(ops, "ccfolia", "ks-piece-archer") == adapter.geometry.pos({"x": 2, "y": 1})
    assert "弓兵" in ops[-1]["text"]


def test_a_table_action_is_said_from_the_audiences_trees_only() -> None:
    """Issue 34: a replay says a logged action with no sentence as the console's timeline
    does (panels/table.js `table.do.*`), naming only what the audience's trees hold."""
    from komasync.adapters.render import describe
    from komasync.engine.views import Audience, View

    room = Room.build("demo_table.yaml")
    gm = View(Audience("gm"), room.engine.state).tree
    table = room.tree
    move = {"kind": "table.move", "piece": "assassin", "to": {"x": 3, "y": 3}}
    said = describe(move, gm, gm)
    assert said is not None and (said.ja, said.en) == ("暗殺者 / Assassinを(3, 3)へ移動",
                                                       "moved 暗殺者 / Assassin to (3, 3)")
    assert describe(move, table, table) is None  # hidden from the table: not a word
    add = describe({"kind": "table.counter.add", "counter": "clock", "delta": 2}, table, table)
    assert add is not None and add.ja == "時計 / Clockを+2"
    gone = describe({"kind": "table.marker.remove", "marker": "gate"}, table, {})
    assert gone is not None and gone.en == "removed marker “門 / Gate”"  # named from before
    assert describe({"kind": "td.next_phase"}, gm, gm) is None  # not the table's action
