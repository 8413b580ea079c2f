"""The generic table's rules (docs/table.md): TABLE-MV-1/2 moves, TABLE-CT-1/2 counters."""

from __future__ import annotations

import pytest
from engine_kit import GM, do, engine_of, refused

from komasync.engine.tx import Actor

SCENARIO = """
players: [{id: alice, name: Alice}, {id: bob, name: Bob}]
table:
  grid: {width: 10, height: 10}
  pieces:
    - {id: knight, name: Knight, owner: alice, cell: {x: 1, y: 1}}
    - {id: archer, name: Archer, owner: bob, cell: {x: 2, y: 1}}
    - {id: ogre, name: Ogre, cell: {x: 5, y: 5}, size: 2}
  counters:
    - {id: clock, name: Clock, value: 0, min: 0, max: 6}
    - {id: alice_hp, name: Alice HP, value: 5, min: 0, max: 20, visibility: owner, owner: alice}
"""
ALICE = Actor(role="player", player="alice")


def test_table_mv_1_a_player_moves_only_their_pieces_unless_allowed() -> None:  # TABLE-MV-1
    e = engine_of(SCENARIO)
    do(e, ALICE, kind="table.move", piece="knight", to={"x": 3, "y": 3})
    r = refused(e, ALICE, kind="table.move", piece="archer", to={"x": 0, "y": 0})
    assert (r.code, r.rule) == ("not_your_piece", "TABLE-MV-1")
    do(e, GM, kind="table.piece.allow", piece="archer", player="alice")
    do(e, ALICE, kind="table.move", piece="archer", to={"x": 0, "y": 0})
    archer = e.state.table.pieces["archer"]
    assert archer.cell is not None and (archer.cell.x, archer.cell.y) == (0, 0)


@pytest.mark.parametrize("to", [{"x": 9, "y": 9}, {"x": -1, "y": 0}, {"x": 0, "y": 10}])
def test_table_mv_2_every_square_a_piece_covers_is_on_the_grid(to: dict[str, int]
                                                               ) -> None:  # TABLE-MV-2
    e = engine_of(SCENARIO)
    r = refused(e, GM, kind="table.move", piece="ogre", to=to)  # 2×2: (9,9) hangs off
    assert r.rule == "TABLE-MV-2"
    do(e, GM, kind="table.move", piece="ogre", to={"x": 8, "y": 8})


def test_table_ct_1_counters_clamp_and_only_their_owner_changes_them() -> None:  # TABLE-CT-1
    e = engine_of(SCENARIO)
    do(e, GM, kind="table.counter.add", counter="clock", delta=10)
    assert e.state.table.counters["clock"].value == 6
    do(e, GM, kind="table.counter.set", counter="clock", value=-3)
    assert e.state.table.counters["clock"].value == 0
    do(e, ALICE, kind="table.counter.add", counter="alice_hp", delta=-2)
    assert e.state.table.counters["alice_hp"].value == 3
    r = refused(e, ALICE, kind="table.counter.set", counter="clock", value=2)
    assert (r.code, r.rule) == ("not_your_counter", "TABLE-CT-1")


def test_table_ct_2_repeated_deltas_never_leave_the_bound() -> None:  # TABLE-CT-2
    e = engine_of(SCENARIO.replace("min: 0, max: 6", "min: null, max: null"))
    do(e, GM, kind="table.counter.add", counter="clock", delta=1_000_000_000)
    r = refused(e, GM, kind="table.counter.add", counter="clock", delta=1)
    assert (r.code, r.rule) == ("out_of_range", "TABLE-CT-2")
    assert e.state.table.counters["clock"].value == 1_000_000_000
