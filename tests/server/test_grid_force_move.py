"""[強制転移] is a skill of its user's own main process (GRID-SK-3; issue 26, finding 1).

Over real sockets on the seamless-combat example: a player naming their own character
as `user` could move another player's PC at any time and distance. Now the skill passes
the guards of every act (the user's process, its step, range and sight, the user able
to act), and a bridge naming no player never moves a player's character with it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from conftest import EXAMPLES, Running, gm, invite, join, start_server


@pytest.fixture
async def chapel(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    yield r
    await r.runner.cleanup()



def _cell(r: Running, piece: str) -> tuple[int, int]:
    cell = r.server.rooms[r.room].engine.state.table.pieces[piece].cell
    assert cell is not None
    return cell.x, cell.y


FORCE = {"kind": "grid.force_move", "user": "mage", "target": "archer", "to": {"x": 3, "y": 5}}


async def test_a_player_cannot_force_move_another_pc_outside_their_process(chapel: Running) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    assert (await g.reply({"kind": "grid.start"}))["type"] == "ack"
    version = chapel.server.rooms[chapel.room].version
    # three tries, as in the report: none is acked, nothing moves, no version is spent
    for _ in range(3):
        reply = await alice.reply(FORCE)
        assert reply["type"] == "reject" and reply["code"] == "not_in_process", reply
        assert reply["reason"]["ja"] and reply["reason"]["en"]
    assert _cell(chapel, "archer") == (2, 5)
    assert chapel.server.rooms[chapel.room].version == version
    # in bob's own process (his archer's), alice's mage still may not use it
    bob = await join(chapel, await invite(g, "player", "bob"))
    assert (await bob.reply({"kind": "grid.process.start", "combatant": "archer"}))["type"] == "ack"
    assert (await alice.reply(FORCE))["code"] == "others_process"
    assert _cell(chapel, "archer") == (2, 5)


async def test_in_the_users_process_it_spends_the_major_once(chapel: Running) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    await g.reply({"kind": "grid.start"})
    assert (await alice.reply({"kind": "grid.process.start", "combatant": "mage"}))["type"] == "ack"
    assert (await alice.reply(FORCE))["type"] == "ack"
    assert _cell(chapel, "archer") == (3, 5)
    grid = chapel.server.rooms[chapel.room].engine.state.grid
    assert grid is not None and grid.process is None and "mage" in grid.acted
    # the major is gone with the process: a second use is refused
    again = {**FORCE, "to": {"x": 2, "y": 5}}
    assert (await alice.reply(again))["code"] == "already_acted"
    assert _cell(chapel, "archer") == (3, 5)


async def test_a_far_target_and_a_hidden_line_are_refused(chapel: Running) -> None:
    g = await gm(chapel)
    alice = await join(chapel, await invite(g, "player", "alice"))
    await g.reply({"kind": "grid.start"})
    await alice.reply({"kind": "grid.process.start", "combatant": "fighter"})
    # the pillar at (8,5) stands on the line from the fighter (1,4) to the knight (13,6)
    reply = await alice.reply({"kind": "grid.force_move", "user": "fighter", "target": "knight",
                                 "to": {"x": 14, "y": 6}})
    assert reply["type"] == "reject" and reply["rule"] == "GRID-LOS-1", reply
    assert _cell(chapel, "knight") == (13, 6)


async def test_a_bridge_naming_no_player_never_force_moves_a_pc(chapel: Running) -> None:
    g = await gm(chapel)
    bridge = await join(chapel, await invite(g, "bridge"))
    await g.reply({"kind": "grid.start"})
    await g.reply({"kind": "grid.process.start", "combatant": "mage"})
    reply = await bridge.reply(FORCE)
    assert reply["type"] == "reject" and reply["code"] == "uncredited", reply
    # even where the room lets the table decide for the GM's side, a PC is not its to move
    assert (await g.reply({"kind": "room.uncredited", "mode": "gm_side"}))["type"] == "ack"
    reply = await bridge.reply(FORCE)
    assert reply["type"] == "reject" and reply["code"] == "not_your_character", reply
    assert _cell(chapel, "archer") == (2, 5)
