"""Property tests on random maps with random pieces (GRID-MV-1/2/3, GRID-ST-2, GRID-SK-1/2):
every accepted move's path fits the allowance and crosses no enemy or obstacle, every
refused move names a rule, and the legal-destination query agrees with `apply`."""

from __future__ import annotations

from typing import Any

from grid_kit import GM, P1, do, scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from komasync.engine.core import Engine
from komasync.engine.errors import Refusal
from komasync.engine.grid.geometry import step_cost
from komasync.engine.grid.process import bins
from komasync.engine.grid.queries import legal_destinations
from komasync.engine.grid.rules import board_for
from komasync.engine.registry import parse_action
from komasync.engine.scenario import Scenario, build_room


@st.composite
def rooms(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A random map (A is the mover), random settings, and random steps taken first."""
    w, h = draw(st.integers(3, 7)), draw(st.integers(3, 7))
    cells = [(x, y) for y in range(h) for x in range(w)]
    order = draw(st.permutations(cells))
    letters = ["A", "e", *draw(st.lists(st.sampled_from("BCfghxi#n"), max_size=min(10, w * h - 2),
                                        unique_by=lambda c: c if c != "#" else object()))]
    walls = draw(st.integers(0, max(0, w * h - len(letters) - 1) // 3))
    letters += ["#"] * walls
    grid = [["."] * w for _ in range(h)]
    for ch, (x, y) in zip(letters, order, strict=False):
        grid[y][x] = ch
    text = "\n".join("".join(row) for row in grid)
    opts = {"drop_spans_steps": draw(st.booleans()),
            "diagonal_past_corners": draw(st.booleans()),
            "neutral_blocks": draw(st.booleans())}
    before = draw(st.lists(st.sampled_from(["step", "paralysis", "flying", "no_major_move",
                                            "act_minor"]), max_size=3))
    return text, opts, before


def _engine(text: str, opts: dict[str, Any], before: list[str]) -> Engine | None:
    e = Engine(build_room(Scenario.model_validate(scenario(text, opts)), "seed"))
    do(e, GM, kind="grid.start")
    for b in before:
        if b in ("paralysis", "flying", "no_major_move"):
            do(e, GM, kind="grid.status.add", combatant="pa", status=b)
    if not e.state.grid or not e.state.grid.active:
        return None
    do(e, P1, kind="grid.process.start", combatant="pa")
    for b in before:
        try:
            if b == "step":
                do(e, P1, kind="grid.step.end", combatant="pa")
            elif b == "act_minor":
                do(e, P1, kind="grid.act", combatant="pa", timing="minor")
        except Refusal:
            pass
    g = e.state.grid
    return e if g is not None and g.process is not None else None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_grid_mv_moves_on_random_maps_agree_with_the_legal_query(
        room: tuple[str, dict[str, Any], list[str]]) -> None:  # GRID-MV-1, GRID-MV-2, GRID-MV-3
    e = _engine(*room)
    if e is None:
        return
    g, t = e.state.grid, e.state.table
    assert g is not None and g.process is not None
    mover = g.combatants["pa"]
    board = board_for(g, t, mover)
    allowance = sum(cap for _s, cap in bins(g, mover, g.process))
    legal = legal_destinations(g, t, "pa")
    start = (t.pieces["pa"].cell.x, t.pieces["pa"].cell.y)  # type: ignore[union-attr]
    accepted = {}
    for y in range(t.grid.height):
        for x in range(t.grid.width):
            trial = Engine(e.state.model_copy(deep=True))
            action = parse_action({"kind": "grid.move", "combatant": "pa", "to": {"x": x, "y": y}})
            try:
                out = trial.apply(action, P1)
            except Refusal as r:
                if (x, y) != start:
                    assert r.rule is not None and r.rule.startswith("GRID-"), (r.code, r.en)
                continue
            moved = next(h for h in out.happenings if h.kind == "grid.moved")
            path = [(p.x, p.y) for p in moved.data["path"]]
            assert path[-1] == (x, y) and moved.data["cost"] <= allowance
            steps = list(zip([start, *path[:-1]], path, strict=True))
            assert sum(step_cost((b[0] - a[0], b[1] - a[1])) for a, b in steps) == moved.data["cost"]
            assert all(max(abs(b[0] - a[0]), abs(b[1] - a[1])) == 1 for a, b in steps)
            assert not any(sq in board.walls or sq in board.blockers for sq in path)
            accepted[(x, y)] = moved.data["cost"]
    assert accepted == {sq: m.cost for sq, m in legal.items()}
