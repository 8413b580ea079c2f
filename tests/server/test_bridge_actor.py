"""A bridge acts for the player the platform identified (`by`), with that player's rights
only, or — without `by` — as the table, with no player's rights (issue 13, finding 4).

Over real sockets: a bridge's direct `action` frames, on the generic table (TABLE-MV-1)
and in tower defense setup (TD-PRE-1, TD-ATK-1); `bridge.status` from other roles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
from komasync.engine.core import Engine
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action
from komasync.engine.scenario import build_room, load_scenario_file
from komasync.engine.table import MovePiece
from komasync.engine.tx import Actor
from komasync.server.replay import rebuild
from komasync.server.storage import ActionRecord, Storage, encode


def _move(piece: str, x: int, y: int, **by: str) -> dict[str, Any]:
    return {"kind": "table.move", "piece": piece, "to": {"x": x, "y": y}, **by}


async def test_bridge_without_by_cannot_move_a_players_piece(running: Running) -> None:
    g = await gm(running)
    bridge = await join(running, await invite(g, "bridge"))
    reply = await bridge.reply(_move("knight", 3, 3))
    assert reply["type"] == "reject" and reply["code"] == "not_your_piece"
    assert reply["rule"] == "TABLE-MV-1" and reply["reason"]["ja"] and reply["reason"]["en"]
    room = running.server.rooms[running.room]
    assert room.version == 0
    knight = room.engine.state.table.pieces["knight"]
    assert knight.cell is not None and (knight.cell.x, knight.cell.y) == (1, 1)
    # As the table it still moves what no player owns (the GM's ghoul).
    assert (await bridge.reply(_move("ghoul", 8, 5)))["type"] == "ack"


async def test_bridge_with_by_has_that_players_rights_only(running: Running) -> None:
    g = await gm(running)
    bridge = await join(running, await invite(g, "bridge"))
    ok = await bridge.reply(_move("knight", 3, 3, by="alice"))
    assert ok["type"] == "ack"
    # Bob may not move Alice's knight, nor the unowned ghoul (a player's rights, not the table's).
    for piece in ("knight", "ghoul"):
        refused = await bridge.reply(_move(piece, 4, 4, by="bob"))
        assert refused["code"] == "not_your_piece", refused
    notice = await g.expect("notice", kind="refusal")
    assert notice["data"]["role"] == "bridge" and notice["data"]["code"] == "not_your_piece"
    history = await _gm_history(g)
    assert history[0]["actor"]["role"] == "bridge" and history[0]["actor"]["player"] == "alice"


async def test_bridge_with_an_unknown_by_is_refused(running: Running) -> None:
    g = await gm(running)
    bridge = await join(running, await invite(g, "bridge"))
    for who in ("mallory", "gm", ""):
        reply = await bridge.reply(_move("ghoul", 8, 5, by=who))
        assert reply["type"] == "reject" and reply["code"] == "unknown_player", reply
    assert running.server.rooms[running.room].version == 0


async def test_a_players_by_does_not_change_who_acts(running: Running) -> None:
    g = await gm(running)
    bob = await join(running, await invite(g, "player", "bob"))
    reply = await bob.reply(_move("knight", 3, 3, by="alice"))
    assert reply["code"] == "not_your_piece"
    assert (await bob.reply(_move("archer", 3, 2, by="alice")))["type"] == "ack"


async def test_bridge_acts_for_a_pc_only_with_its_players_by(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "tower_defense.yaml")
    try:
        g = await gm(r)
        bridge = await join(r, await invite(g, "bridge"))
        place = {"kind": "td.pc.place", "fort": "f_left"}
        refused = await bridge.reply({**place, "pc": "pc1"})
        assert refused["code"] == "not_your_pc" and refused["rule"] == "TD-ATK-1"
        assert (await bridge.reply({**place, "pc": "pc1", "by": "p2"}))["code"] == "not_your_pc"
        assert (await bridge.reply({**place, "pc": "pc1", "by": "p9"}))["code"] == "unknown_player"
        assert r.server.rooms[r.room].engine.state.tower_defense.pcs["pc1"].fort is None
        assert (await bridge.reply({**place, "pc": "pc1", "by": "p1"}))["type"] == "ack"
        # The NPC belongs to no player: the table may place it.
        assert (await bridge.reply({**place, "pc": "npc1"}))["type"] == "ack"
    finally:
        await r.runner.cleanup()


async def test_bridge_status_is_accepted_from_bridges_only(running: Running) -> None:
    g = await gm(running)
    alice = await join(running, await invite(g, "player", "alice"))
    status = {"type": "bridge.status", "platform": "other", "version": 0, "detail": "fake"}
    for c in (alice, g):
        await c.send(status)
        err = await c.expect("error")
        assert err["code"] == "bridge_only" and err["reason"]["ja"] and err["reason"]["en"]
    bridge = await join(running, await invite(g, "bridge"))
    await bridge.send({**status, "detail": "real"})
    notice = await g.expect("notice", kind="bridge")
    assert notice["data"]["detail"] == "real" and notice["data"]["role"] == "bridge"


def test_a_bridge_move_logged_before_the_rule_still_replays(tmp_path: Path) -> None:
    """Logs written before bridges were bound hold moves a bridge made without `by`;
    they replay as they were accepted (a room must never stop loading)."""
    store = Storage(tmp_path / "k.sqlite3")
    scenario = load_scenario_file(EXAMPLES / "demo_table.yaml")
    state = build_room(scenario, seed="s").model_dump(mode="json")
    store.create_room("old", "old", "x" * 20, state)
    action = MovePiece(piece="knight", to={"x": 5, "y": 5})  # type: ignore[arg-type]
    store.append("old", [encode(ActionRecord(
        version=1, client_key="inv:i1:e1", actor={"role": "bridge", "player": None,
                                                  "label": "Foundry"},
        action=action.model_dump(mode="json"), ops=[], rolls=[], log=[], warnings=[], at=0.0))],
        None)
    engine = rebuild(store, "old")
    assert engine.version == 1
    knight = engine.state.table.pieces["knight"]
    assert knight.cell is not None and (knight.cell.x, knight.cell.y) == (5, 5)
    store.close()


def test_a_bridge_decision_logged_before_the_uncredited_rule_still_replays(tmp_path: Path
                                                                             ) -> None:
    """A room's log from before the table lost its decisions (issue 26 finding 2): a
    bridge, bound but naming no player, decided for a GM unit (全軍退却); the room still
    replays it as it was accepted, while a live bridge is refused the same decision."""
    store = Storage(tmp_path / "k.sqlite3")
    state = build_room(load_scenario_file(EXAMPLES / "mass_combat.yaml"), seed="s")
    store.create_room("old", "old", "x" * 20, state.model_dump(mode="json"))
    gm_actor = {"role": "gm", "player": None, "label": "GM", "legacy": False}
    table = {"role": "bridge", "player": None, "label": "Ccfolia", "legacy": False}
    picks = {"alice": {"skill": "知力", "formations": ["攻撃の波陣"], "strategies": ["統率回復"]},
             "boris": {"skill": "本能", "formations": ["強撃陣"], "strategies": ["囮作戦"]},
             "kana": {"skill": "知力", "formations": ["三波状陣"], "strategies": ["情報操作"]},
             "dean": {"skill": "知力", "formations": ["中央突破の陣"], "strategies": ["強撃前進"]}}
    actions: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for unit, pick in picks.items():
        actions += [(gm_actor, {"kind": "mass.strength", "unit": unit, "ability": "魅力"}),
                    (gm_actor, {"kind": "mass.pick", "unit": unit, **pick})]
    actions += [(gm_actor, {"kind": "mass.next_step", "expect": "preparation"}),
                (table, {"kind": "mass.strategy", "unit": "demon_lord", "strategy": "全軍退却"})]
    for version, (actor, action) in enumerate(actions, start=1):
        full = parse_action(action).model_dump(mode="json")
        store.append("old", [encode(ActionRecord(
            version=version, client_key=f"k{version}", actor=actor, action=full, ops=[],
            rolls=[], log=[], warnings=[], at=0.0))], None)
    engine = rebuild(store, "old")
    assert engine.version == len(actions)
    assert engine.state.mass is not None and engine.state.mass.outcome == "won"
    store.close()
    # the same decision from a live bridge today is refused (the rule it runs under)
    live = Engine(build_room(load_scenario_file(EXAMPLES / "mass_combat.yaml"), seed="s"))
    for actor, action in actions[:-1]:
        live.apply(parse_action(action), Actor.from_log(actor))
    with pytest.raises(Refusal) as refused:
        live.apply(parse_action(actions[-1][1]), Actor(role="bridge", label="Ccfolia"))
    assert refused.value.code == "uncredited"


async def _gm_history(g: Client) -> list[dict[str, Any]]:
    await g.send({"type": "history", "id": "h"})
    return list((await g.expect("history"))["entries"])
