"""A move on the VTT nobody can be credited with only moves (issue 26, finding 2).

A bridge naming no player (`by`) is the table: it moves a piece no player owns, judged
like the GM's drag, but makes no decision — no strategy, declaration, process started,
force move or answer — unless the GM widens it (`room.uncredited`, for a VTT that
credits every move). Twin rooms over real sockets: in one the bridge tries decisions
for the GM's side, in the other it does not; every non-GM frame is the same in both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_mass_war import PICKS
from twins import Twin, assert_same_non_gm_frames, close, twins

from conftest import EXAMPLES

OWNERS = {"alice": "p1", "boris": "p2", "kana": "p3", "dean": "p4"}


async def _join_all(t: Twin, players: list[str]) -> None:
    for p in players:
        await t.connect(p, "player", p)
    await t.connect("observer", "observer")
    await t.connect("bridge", "bridge", platform="ccfolia")


async def _ok(t: Twin, who: str, **action: Any) -> None:
    reply = await t.reply(who, action)
    assert reply["type"] == "ack", reply


async def test_the_table_decides_nothing_for_the_gms_units(tmp_path: Path) -> None:  # MASS-*
    a, b = await twins(tmp_path, EXAMPLES / "mass_combat.yaml")
    try:
        for t in (a, b):
            await _join_all(t, ["p1", "p2", "p3", "p4"])
            for unit, picks in PICKS.items():
                await _ok(t, OWNERS[unit], kind="mass.strength", unit=unit, ability="魅力")
                await _ok(t, OWNERS[unit], kind="mass.pick", unit=unit, **picks)
            await _ok(t, "gm", kind="mass.next_step", expect="preparation")
        # in twin a only, the bridge (no `by`) tries the GM's decisions: each is refused
        for probe in ({"kind": "mass.strategy", "unit": "demon_lord", "strategy": "全軍退却"},
                      {"kind": "mass.deploy", "unit": "orcs", "row": "front", "odd": "attack"}):
            reply = await a.reply("bridge", probe, own=True)
            assert reply["type"] == "reject" and reply["code"] == "uncredited", reply
            assert reply["reason"]["ja"] and reply["reason"]["en"]
        room = a.r.server.rooms[a.r.room]
        assert room.engine.state.mass is not None and room.engine.state.mass.outcome == "none"
        # in both, the table's drag of a GM unit into a row is a move: accepted
        for t in (a, b):
            await _ok(t, "bridge", kind="mass.deploy", unit="orcs", row="back")
            for unit, owner in OWNERS.items():
                await _ok(t, owner, kind="mass.deploy", unit=unit, row="back")
            await t.drain()
        assert assert_same_non_gm_frames(a, b) > 20
    finally:
        await close(a, b)


async def test_the_table_starts_no_enemy_process_but_drags_like_the_gm(tmp_path: Path
                                                                        ) -> None:  # GRID-MV-1
    a, b = await twins(tmp_path, EXAMPLES / "seamless_combat.yaml")
    try:
        for t in (a, b):
            await _join_all(t, ["alice", "bob"])
            await _ok(t, "gm", kind="grid.start")
            for pc, owner in (("fighter", "alice"), ("mage", "alice"), ("archer", "bob"),
                              ("priest", "bob")):
                await _ok(t, owner, kind="grid.process.start", combatant=pc)
                await _ok(t, owner, kind="grid.process.end", combatant=pc)
            grid = t.r.server.rooms[t.r.room].engine.state.grid
            assert grid is not None and grid.side == "enemy"
        # in twin a only, the bridge tries to run an enemy: start its process, act, end it
        for probe in ({"kind": "grid.process.start", "combatant": "ghoul1"},
                      {"kind": "grid.check.ask", "combatant": "ghoul1", "check": "命中"},
                      {"kind": "grid.force_move", "user": "ghoul1", "target": "fighter",
                       "to": {"x": 2, "y": 4}}):
            reply = await a.reply("bridge", probe, own=True)
            assert reply["type"] == "reject" and reply["code"] == "uncredited", reply
        assert a.r.server.rooms[a.r.room].engine.state.grid.process is None  # type: ignore[union-attr]
        # in both: the GM opens the ghoul's process; the table's drag is judged as its move
        for t in (a, b):
            await _ok(t, "gm", kind="grid.process.start", combatant="ghoul1")
            await _ok(t, "bridge", kind="table.move", piece="ghoul1", to={"x": 8, "y": 3})
            process = t.r.server.rooms[t.r.room].engine.state.grid.process  # type: ignore[union-attr]
            assert process is not None and process.spent.get("move") == "move"
            await t.drain()
        assert assert_same_non_gm_frames(a, b) > 20
    finally:
        await close(a, b)


async def test_a_room_that_credits_every_move_lets_the_table_decide(tmp_path: Path) -> None:
    a, b = await twins(tmp_path, EXAMPLES / "seamless_combat.yaml")
    try:
        await close(b)
        await _join_all(a, ["alice", "bob"])
        await _ok(a, "gm", kind="room.uncredited", mode="gm_side")
        observer = a.clients["observer"]
        await observer.settle(a.g.version)
        assert observer.state["meta"]["uncredited"] == "gm_side"  # every audience sees it
        await _ok(a, "gm", kind="grid.start")
        # the table may now decide for what no player owns, never for a player's PC
        reply = await a.reply("bridge", {"kind": "grid.process.start", "combatant": "fighter"})
        assert reply["code"] == "not_your_character", reply
        await _ok(a, "bridge", kind="grid.check.ask", combatant="ghoul1", check="命中")
        # and the GM's word is final: back to moves only
        await _ok(a, "gm", kind="room.uncredited", mode="moves")
        reply = await a.reply("bridge", {"kind": "grid.check.ask", "combatant": "ghoul1",
                                         "check": "回避"})
        assert reply["code"] == "uncredited", reply
    finally:
        await close(a)
