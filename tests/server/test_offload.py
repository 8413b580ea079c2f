"""Whole-room work of large rooms is done off the event loop and gives the same bytes;
what grows only with a change (a bridge's patch) stays on the loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from conftest import EXAMPLES, Client, gm, invite, join, start_server
from komasync.engine.core import Engine
from komasync.engine.scenario import build_room, load_scenario_file
from komasync.engine.table.model import Cell, Piece
from komasync.engine.views import GM, Audience, View
from komasync.server import audiences, tables
from komasync.server.connection import LARGE, Limits
from komasync.server.offload import BIG, dumps_sliced, offload, units


@pytest.mark.parametrize("scenario", ["demo_table.yaml", "tower_defense.yaml",
                                      "base_battle.yaml"])
def test_sliced_serialisation_is_byte_for_byte_orjson(scenario: str) -> None:
    state = build_room(load_scenario_file(EXAMPLES / scenario), seed="s")
    for audience in (GM, Audience("table"), Audience("player", "p1")):
        tree = View(audience, state).tree
        assert dumps_sliced(tree) == orjson.dumps(tree)
    odd = {"a": {}, "b": {"c": {"d": {"e": [1, {"f": "日本"}]}}}, "g": "\"\\", "h": None}
    assert dumps_sliced(odd) == orjson.dumps(odd)
    big = {"t": {"pieces": {f"p{i}": {"x": i, "n": "駒"} for i in range(300)},
                 "ops": [{"op": "set", "i": i} for i in range(200)], "few": {"a": 1}}}
    assert dumps_sliced(big) == orjson.dumps(big)
    assert dumps_sliced(big, b"<", b">") == b"<" + orjson.dumps(big) + b">"
    assert units({"table": {"pieces": {str(i): {} for i in range(7)}, "grid": {"w": 1}}}) == 10


@pytest.mark.parametrize("pieces", [2, BIG + 100])
async def test_snapshot_frames_and_stored_snapshots_are_whole_json_objects(
        pieces: int) -> None:
    """The frame a join gets and the state a storage snapshot keeps are one JSON object
    each, written in one pass (the room's JSON is not copied again to wrap it)."""
    state = build_room(load_scenario_file(EXAMPLES / "demo_table.yaml"), seed="s")
    for i in range(pieces):
        state.table.pieces[f"x{i}"] = Piece(id=f"x{i}", name="駒", cell=Cell(x=i % 9, y=0))
    aud = audiences.Audiences("r", Engine(state, version=7), Limits())
    assert aud.big == (pieces > BIG)
    view = await aud.view(Audience("player", "alice"))
    assert await aud.snapshot(view) == orjson.dumps(
        {"type": "snapshot", "version": 7, "state": view.tree})
    rng = state.rng.model_dump(mode="json")
    assert await aud.state_json(rng) == orjson.dumps({"rng": rng, **View(GM, state).tree})


async def test_a_large_room_joins_snapshots_and_restarts_the_same(tmp_path: Path) -> None:
    """More units than BIG: new views, snapshot frames, the bridge's table and storage
    snapshots are made by the worker; what clients get and what is stored is unchanged
    (the snapshot frames are LARGE: written after their header, not copied behind it)."""
    pieces = [{"id": f"pc{i}", "name": f"P{i}", "owner": "alice", "cell": {"x": i % 50,
                                                                          "y": i // 50}}
              for i in range(BIG + 600)]
    scenario = tmp_path / "big.yaml"
    scenario.write_text(yaml.safe_dump({
        "room": {"name": "big"}, "players": [{"id": "alice", "name": "Alice"}],
        "table": {"grid": {"width": 50, "height": 50}, "pieces": pieces}}))
    db = tmp_path / "big.sqlite3"
    # A snapshot every 5 versions whatever its size (the ceiling; by size this room's
    # second one would wait ~200 versions): the restart replays from the one at 10.
    r = await start_server(db, scenario, Limits(snapshot_every=5, snapshot_ceiling=5))
    try:
        g = await gm(r)
        assert r.server.rooms[r.room].audiences.big
        alice = await join(r, await invite(g, "player", "alice"))
        bridge = await Client.connect(r.url)
        await bridge.auth(r.room, token=await invite(g, "bridge"), platform="ccfolia")
        reset = await bridge.expect("table.ops")
        assert reset["reset"] is True and len(reset["ops"]) > 0
        version = 0
        for i in range(12):
            reply = await alice.reply_to(await alice.act({"kind": "table.move", "piece": f"pc{i}",
                                                          "to": {"x": 49, "y": 49 - i}}))
            version = reply["version"]
        assert (await bridge.expect("table.ops"))["reset"] is False
        await alice.settle(version)
        state = r.server.rooms[r.room].engine.state
        fresh = await join(r, await invite(g, "observer"))
        assert fresh.state == View(Audience("table"), state).tree
        assert len(orjson.dumps(fresh.state)) > LARGE
        assert alice.state == View(Audience("player", "alice"), state).tree
        stored = r.server.storage.storage.latest_snapshot(r.room)
        assert stored is not None and stored[0] == 10
        for c in (g, alice, bridge, fresh):
            await c.close()
    finally:
        await r.runner.cleanup()
    r = await start_server(db, scenario)  # rebuilt from the stored snapshot and the log
    try:
        back = await gm(r)
        assert back.version == version
        assert back.state["table"]["pieces"]["pc11"]["cell"] == {"x": 49, "y": 38}
        assert back.state == orjson.loads(dumps_sliced(View(GM, state).tree))
    finally:
        await r.runner.cleanup()


async def test_a_large_rooms_bridge_is_patched_on_the_loop_and_redrawn_by_the_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move in a large room touches one piece: the bridge's ops are patched in place, with
    no trip to the worker; a new piece needs the whole table drawn, which the worker does."""
    pieces = [{"id": f"pc{i}", "name": f"P{i}", "cell": {"x": i % 50, "y": i // 50}}
              for i in range(BIG + 100)]
    scenario = tmp_path / "big.yaml"
    scenario.write_text(yaml.safe_dump({
        "room": {"name": "big"}, "table": {"grid": {"width": 50, "height": 50},
                                           "pieces": pieces}}))
    drawn_by_worker: list[str] = []

    async def spy(fn: Any, *args: Any) -> Any:
        if getattr(fn, "__name__", "") == "_whole":
            drawn_by_worker.append(args[1].__name__)
        return await offload(fn, *args)

    monkeypatch.setattr(tables, "offload", spy)
    r = await start_server(tmp_path / "big.sqlite3", scenario,
                           Limits(snapshot_every=10_000, snapshot_ceiling=10_000))
    try:
        g = await gm(r)
        bridge = await Client.connect(r.url)
        await bridge.auth(r.room, token=await invite(g, "bridge"), platform="ccfolia")
        await bridge.expect("table.ops", reset=True)
        await g.reply_to(await g.act({"kind": "table.move", "piece": "pc7",
                                      "to": {"x": 40, "y": 40}}))
        moved = await bridge.expect("table.ops", reset=False)
        assert [(op["op"], op["id"]) for op in moved["ops"]] == [("character.update", "ks-piece-pc7")]
        assert drawn_by_worker == []
        await g.reply_to(await g.act({"kind": "table.piece.place", "piece": {
            "id": "newcomer", "name": "新顔", "cell": {"x": 41, "y": 41}}}))
        placed = await bridge.expect("table.ops", reset=False)
        assert ("character.create", "ks-piece-newcomer") in [(op["op"], op.get("id"))
                                                    for op in placed["ops"]]
        assert drawn_by_worker == ["redraw"]
        for c in (g, bridge):
            await c.close()
    finally:
        await r.runner.cleanup()
