"""Redrawing only what a change touched (adapters/patch.py) gives the very operations a
whole redraw gives: two Ccfolia adapters follow the same room, one patching, one drawing
the whole table every time, over a seeded run of table changes (moves onto shared
squares, pieces placed, renamed, hidden, removed, counters, markers, calibration)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from adapter_support import GM, Room

from komasync.adapters.ccfolia import CcfoliaAdapter
from komasync.adapters.patch import Patch
from komasync.adapters.render import render
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action


class Whole(CcfoliaAdapter):
    """The reference: always draws the whole table."""

    patches = False


def _actions(rng: random.Random, room: Room) -> dict[str, Any]:
    table = room.engine.state.table
    pieces = sorted(table.pieces) if table else []
    cell = {"x": rng.randrange(3), "y": rng.randrange(2)}  # few squares: stacking
    taken = [o["cell"] for o in render(room.tree).values() if o.get("cell")]
    if taken and rng.random() < 0.5:  # onto another subsystem's thing (a fort, a group)
        cell = dict(rng.choice(taken))
    roll = rng.random()
    if pieces and roll < 0.55:
        return {"kind": "table.move", "piece": rng.choice(pieces), "to": cell}
    if roll < 0.62:
        pid = rng.choice([*pieces, "newcomer", "wisp"]) if pieces else "newcomer"
        where = None if rng.random() < 0.2 else cell
        return {"kind": "table.piece.place", "piece": {
            "id": pid, "name": f"{pid} {rng.randrange(9)}", "cell": where,
            "labels": {"hp": str(rng.randrange(20))}, "owner": rng.choice([None, "alice"])}}
    if pieces and roll < 0.67:
        return {"kind": "table.piece.reveal", "piece": rng.choice(pieces),
                "hidden": rng.random() < 0.5}
    if pieces and roll < 0.70:
        return {"kind": "table.piece.remove", "piece": rng.choice(pieces)}
    if roll < 0.82:
        return {"kind": "table.counter.add", "counter": "clock", "delta": rng.choice([-1, 1])}
    if roll < 0.92:
        mid = rng.choice(["gate", "gate", "flag"])
        return {"kind": "table.marker.place", "marker": {
            "id": mid, "text": f"{mid} {rng.randrange(5)}", "cell": cell}}
    if roll < 0.95:
        return {"kind": "table.marker.remove", "marker": rng.choice(["gate", "flag"])}
    size = rng.choice([24, 48])
    return {"kind": "override", "path": ["meta", "platforms"], "reason": "calibrate",
            "value": {"ccfolia": {"units": rng.choice(["cell", "px"]), "cell_size": size}}}


@pytest.mark.parametrize("scenario", ["demo_table.yaml", "tower_defense.yaml",
                                      "engagement.yaml", "seamless_combat.yaml"])
@pytest.mark.parametrize("platforms", [None, {"ccfolia": {"units": "px", "cell_size": 48}}])
@pytest.mark.parametrize("split", [False, True])
def test_patched_updates_equal_whole_redraws(scenario: str, platforms: Any, split: bool,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`split`: driven as the server drives a large room's adapter, `patch` and, when it
    answers None, `redraw` (the whole draw, on the worker there)."""
    room = Room.build(scenario, platforms=platforms)
    patched, whole = CcfoliaAdapter.from_tree(room.tree), Whole.from_tree(room.tree)
    assert patched.reset(room.tree) == whole.reset(room.tree)
    used: list[bool] = []
    of = Patch.of

    def spy(*args: Any) -> Patch | None:
        found = of(*args)
        used.append(found is not None and bool(found.redraw))
        return found

    monkeypatch.setattr(Patch, "of", spy)
    rng = random.Random(f"patch-{scenario}-{platforms}")
    for _ in range(300):
        try:
            outcome = room.engine.apply(parse_action(_actions(rng, room)), GM)
        except Refusal:
            continue
        ops = room.view.update(room.engine.state, outcome.units)
        log = [{"ja": x.ja, "en": x.en} for x in outcome.log if x.chat]
        expected = whole.update(room.tree, ops, log)
        if split:
            got = patched.patch(room.tree, ops, log)
            got = patched.redraw(room.tree, log) if got is None else got
        else:
            got = patched.update(room.tree, ops, log)
        assert got == expected
        assert patched.shown == whole.shown
        assert patched._rendered is not None
        assert all(patched._rendered.squares.values())  # no empty squares kept
    if scenario in ("demo_table.yaml", "tower_defense.yaml"):
        assert sum(used) > 100  # most changes were patched, not drawn whole
    else:  # engagement and grid combat read the pieces: always drawn whole
        assert not any(used)
