"""A move on the VTT nobody can be credited with only moves (issue 26, finding 2).

A bridge naming no player (`by`) is the table: it moves a piece no player owns, judged
like the GM's drag, but makes no decision — no strategy, declaration, process started,
force move or answer — unless the GM widens it (`room.uncredited`, for a VTT that
credits every move). Twin rooms over real sockets (twins.py): in one the bridge tries
decisions for the GM's side, in the other it does not; every non-GM frame is the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_hidden_leaks import Table
from test_mass_war import PICKS
from twins import act, probe, twins

from conftest import EXAMPLES, Running, gm, invite, join, start_server
from komasync.engine.scenario import load_scenario_file

MASS = load_scenario_file(EXAMPLES / "mass_combat.yaml")
GRID = load_scenario_file(EXAMPLES / "seamless_combat.yaml")


async def _ok(t: Table, peer: Any, action: dict[str, Any]) -> None:
    reply = await act(t, peer, action)
    assert reply["type"] == "ack", reply


async def _refused_uncredited(t: Table, actions: list[dict[str, Any]]) -> None:
    for action in actions:
        reply = await probe(t.bridge, action)
        assert reply["type"] == "reject" and reply["code"] == "uncredited", reply
        assert reply["reason"]["ja"] and reply["reason"]["en"]


async def play_mass(t: Table, probing: bool) -> None:
    """The GM prepares the kingdom's units (it may act for anyone); in the first twin the
    bridge then tries the GM's decisions; in both it drags a GM unit into a row."""
    for unit, picks in PICKS.items():
        await _ok(t, t.gm, {"kind": "mass.strength", "unit": unit, "ability": "魅力"})
        await _ok(t, t.gm, {"kind": "mass.pick", "unit": unit, **picks})
    await _ok(t, t.gm, {"kind": "mass.next_step", "expect": "preparation"})
    if probing:
        await _refused_uncredited(t, [
            {"kind": "mass.strategy", "unit": "demon_lord", "strategy": "全軍退却"},
            {"kind": "mass.deploy", "unit": "orcs", "row": "front", "odd": "attack"}])
        assert t.gm.client.state["mass"]["outcome"] == "none"
    await _ok(t, t.bridge, {"kind": "mass.deploy", "unit": "orcs", "row": "back"})
    for unit in PICKS:
        await _ok(t, t.gm, {"kind": "mass.deploy", "unit": unit, "row": "back"})


async def test_the_table_decides_nothing_for_the_gms_units(tmp_path: Path) -> None:  # MASS-*
    await twins(tmp_path, MASS, MASS, play_mass)


async def play_grid(t: Table, probing: bool) -> None:
    """The PCs' round passes; in the first twin the bridge tries to run an enemy; in both
    the GM opens the ghoul's process and the bridge's drag is judged as its move."""
    await _ok(t, t.gm, {"kind": "grid.start"})
    for pc in ("fighter", "mage", "archer", "priest"):
        await _ok(t, t.gm, {"kind": "grid.process.start", "combatant": pc})
        await _ok(t, t.gm, {"kind": "grid.process.end", "combatant": pc})
    assert t.gm.client.state["grid"]["side"] == "enemy"
    if probing:
        await _refused_uncredited(t, [
            {"kind": "grid.process.start", "combatant": "ghoul1"},
            {"kind": "grid.check.ask", "combatant": "ghoul1", "check": "命中"},
            {"kind": "grid.force_move", "user": "ghoul1", "target": "fighter",
             "to": {"x": 2, "y": 4}}])
        assert t.gm.client.state["grid"]["process"] is None
    await _ok(t, t.gm, {"kind": "grid.process.start", "combatant": "ghoul1"})
    await _ok(t, t.bridge, {"kind": "table.move", "piece": "ghoul1", "to": {"x": 8, "y": 3}})
    assert t.gm.client.state["grid"]["process"]["spent"].get("move") == "move"


async def test_the_table_starts_no_enemy_process_but_drags_like_the_gm(tmp_path: Path
                                                                        ) -> None:  # GRID-MV-1
    await twins(tmp_path, GRID, GRID, play_grid, player="alice")


async def test_a_room_that_credits_every_move_lets_the_table_decide(tmp_path: Path) -> None:
    r: Running = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    try:
        g = await gm(r)
        bridge = await join(r, await invite(g, "bridge"))
        observer = await join(r, await invite(g, "observer"))
        widened = await g.reply({"kind": "room.uncredited", "mode": "gm_side"})
        assert widened["type"] == "ack", widened
        await observer.settle(widened["version"])
        assert observer.state["meta"]["uncredited"] == "gm_side"  # every audience sees it
        assert (await g.reply({"kind": "grid.start"}))["type"] == "ack"
        # the table may now decide for what no player owns, never for a player's PC
        reply = await bridge.reply({"kind": "grid.process.start", "combatant": "fighter"})
        assert reply["code"] == "not_your_character", reply
        ask = {"kind": "grid.check.ask", "combatant": "ghoul1", "check": "命中"}
        assert (await bridge.reply(ask))["type"] == "ack"
        # and the GM's word is final: back to moves only
        assert (await g.reply({"kind": "room.uncredited", "mode": "moves"}))["type"] == "ack"
        reply = await bridge.reply({**ask, "check": "回避"})
        assert reply["code"] == "uncredited", reply
    finally:
        await r.runner.cleanup()
