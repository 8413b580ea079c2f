"""The read-only queries: answers per audience, nothing written (GRID-RNG-1/2,
GRID-AREA-1, GRID-LOS-1, GRID-SK-3, legal destinations)."""

from __future__ import annotations

from typing import Any

import pytest
from grid_kit import GM, P1, do, engine, start

from komasync.engine.errors import Refusal
from komasync.engine.registry import QUERIES
from komasync.engine.views import Audience

MAP = """
A..#...
.......
.....e.
"""


def ask(e: Any, audience: str, **query: Any) -> dict[str, Any]:
    q = QUERIES[query["kind"]].model_validate(query)
    before = e.state.model_dump(mode="json")
    answer = q.answer(e.state, Audience.parse(audience))
    assert e.state.model_dump(mode="json") == before  # a query writes nothing
    return answer


def test_grid_rng_1_range_query_from_a_character() -> None:  # GRID-RNG-1, GRID-RNG-2
    e = engine(MAP)
    a = ask(e, "player:p1", kind="grid.range", combatant="pa", range=1)
    assert a["squares"] == [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}, {"x": 1, "y": 1}]
    b = ask(e, "table", kind="grid.range", **{"from": {"x": 3, "y": 1}}, range=0, non_attack=True)
    assert b["range"] == 1 and len(b["squares"]) == 9


def test_grid_area_1_and_los_1_queries() -> None:  # GRID-AREA-1, GRID-LOS-1
    e = engine(MAP)
    assert len(ask(e, "gm", kind="grid.area", origin={"x": 3, "y": 1}, area="scene")["squares"]) == 15
    assert ask(e, "table", kind="grid.sight", combatant="pa", to={"x": 6, "y": 0})["clear"] is False
    assert ask(e, "table", kind="grid.sight", combatant="pa", to={"x": 6, "y": 2})["clear"] is True


def test_grid_sk_3_flash_query() -> None:  # GRID-SK-3
    e = engine(MAP)
    a = ask(e, "player:p1", kind="grid.flash", combatant="pa")
    assert len(a["lines"]) == 8 and {"x": 1, "y": 1} in a["squares"] and {"x": 4, "y": 0} in a["squares"]


def test_grid_mv_1_legal_query_with_costs_and_the_reason_when_none() -> None:  # GRID-MV-1
    e = engine(MAP)
    a = ask(e, "player:p1", kind="grid.legal", combatant="pa")
    assert a["squares"] == [] and "GRID-RND-1" in a["reason"]["en"]
    do(e, GM, kind="grid.start")
    start(e, P1, "pa")
    a = ask(e, "player:p1", kind="grid.legal", combatant="pa")
    squares = {(s["cell"]["x"], s["cell"]["y"]): (s["cost"], s["steps"]) for s in a["squares"]}
    assert squares[(1, 0)] == (1, ["move"])
    assert squares[(2, 0)] == (2, ["move", "minor"])
    assert squares[(1, 1)] == (2, ["move", "minor"])  # the L beats the diagonal in steps
    assert (3, 0) not in squares  # the obstacle
    assert a["process"]["step"] == "move"
    other = ask(e, "player:p1", kind="grid.legal", combatant="ee")
    assert other["squares"] == [] and "GRID-MV-1" in other["reason"]["en"]


def test_grid_hidden_characters_are_unknown_to_queries_of_players() -> None:  # GRID-MV-3
    e = engine(MAP)
    do(e, GM, kind="table.piece.reveal", piece="ee", hidden=True)
    for audience in ("player:p1", "table"):
        with pytest.raises(Refusal) as info:
            ask(e, audience, kind="grid.range", combatant="ee", range=1)
        assert info.value.code == "unknown_character"
    assert ask(e, "gm", kind="grid.range", combatant="ee", range=0)["from"] == {"x": 5, "y": 2}


def test_grid_queries_refuse_in_a_room_without_grid() -> None:
    from komasync.engine.state import RoomState

    q = QUERIES["grid.range"].model_validate({"kind": "grid.range", "from": {"x": 0, "y": 0},
                                             "range": 1})
    with pytest.raises(Refusal) as info:
        q.answer(RoomState(), Audience("gm"))
    assert info.value.code == "no_grid"
