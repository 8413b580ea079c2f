"""Twin rooms over real sockets: the same game played in two rooms of one server that
differ in one thing (a secret the GM holds, or actions only one room is sent), with the
same peers in each (a player, a Ccfolia bridge, a bridge that drives no VTT, an observer)
and every frame each non-GM peer receives compared byte for byte between the twins,
grouped by frame type (a bridge's table ops come on their own clock); only the room's id
is written the same. The first twin's durable log must rebuild its room exactly.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from test_hidden_leaks import Peer, Table

from conftest import EXAMPLES, Running, start_server
from komasync.engine.scenario import Scenario
from komasync.engine.views import Audience
from komasync.server.replay import rebuild

ROOMS = ("twin-secret", "twin-plain")
#: Ids of the actions only one twin sends: their answers are left out of the comparison.
OWN = "own-"

Play = Callable[[Table, bool], Awaitable[None]]


async def seat(r: Running, room: str, player: str = "p1") -> Table:
    """GM, one player (the `p1` seat: `player` of the room), a Ccfolia bridge, a plain
    bridge and an observer, named alike in both twins (their message ids are the same)."""
    g = await Peer.join(r, "gm", None, room, secret=r.secret)

    async def token(role: str, **player: str) -> str:
        return str((await g.ask({"type": "invite.create", "role": role, **player}))["token"])

    table = Audience("table")
    return Table(room, g,
                 await Peer.join(r, "p1", Audience("player", player), room,
                                 token=await token("player", player=player)),
                 await Peer.join(r, "bridge", table, room, token=await token("bridge"),
                                 platform="ccfolia"),
                 await Peer.join(r, "plain", table, room, token=await token("bridge")),
                 await Peer.join(r, "observer", table, room, token=await token("observer")))


async def synced(t: Table, version: int = 0) -> None:
    """Every connection of the room has `version` (or the GM's)."""
    version = max(version, t.gm.client.version)
    for peer in (t.gm, *t.others):
        await peer.settle(version)


async def act(t: Table, peer: Peer, action: dict[str, Any]) -> dict[str, Any]:
    """Send an action (its answer is part of what is compared) and let everyone catch up."""
    reply = await peer.act(action)
    await synced(t, int(reply.get("version", 0)))
    return reply


def frames(peer: Peer, room: str) -> dict[str, list[str]]:
    """The raw frames the peer received, by type, the room's id written as ROOM. A
    bridge's table ops are batched by time (one frame may carry several changes), so
    they are compared op by op, each as it was sent."""
    out: dict[str, list[str]] = {}
    for text in peer.client.raw:
        msg = json.loads(text)
        if str(msg.get("id", "")).startswith(OWN) and msg["type"] in ("ack", "reject", "error"):
            continue  # the answer to an action only this twin sent (`probe`)
        if msg["type"] == "table.ops":
            ops = [json.dumps(op, ensure_ascii=False, separators=(",", ":")) for op in msg["ops"]]
            out.setdefault("table.ops", []).extend(op.replace(room, "ROOM") for op in ops)
            continue
        out.setdefault(msg["type"], []).append(text.replace(room, "ROOM"))
    return out


async def caught_up(a: Peer, b: Peer) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The two twins' frames of one peer, once the bridge's table ops (sent on their own
    clock, after the changes) have all arrived in both."""
    for _ in range(500):
        mine, theirs = frames(a, ROOMS[0]), frames(b, ROOMS[1])
        if len(mine.get("table.ops", [])) == len(theirs.get("table.ops", [])):
            break
        await asyncio.sleep(0.01)
    return mine, theirs


async def twins(tmp_path: Path, secret: Scenario, plain: Scenario, play: Play,
                player: str = "p1") -> list[Table]:
    """Play `play` in both twins (`play(table, True)` in the first); every non-GM peer got
    the very same frames."""
    r = await start_server(tmp_path / "twins.sqlite3", EXAMPLES / "demo_table.yaml",
                           room_id="unused")
    tables: list[Table] = []
    try:
        for room, scenario in zip(ROOMS, (secret, plain), strict=True):
            await r.server.create_room(scenario, secret=r.secret, room_id=room, seed="twins")
            tables.append(await seat(r, room, player))
        for table, hidden in zip(tables, (True, False), strict=True):
            await play(table, hidden)
            await synced(table)
        for a, b in zip(tables[0].others, tables[1].others, strict=True):
            mine, theirs = await caught_up(a, b)
            assert mine.keys() == theirs.keys(), (a.name, mine.keys(), theirs.keys())
            for kind in mine:
                for n, (x, y) in enumerate(zip(mine[kind], theirs[kind], strict=False)):
                    assert x == y, f"{a.name}'s {kind} frame {n} differs:\n{x}\n{y}"
                assert len(mine[kind]) == len(theirs[kind]), (a.name, kind)
        await tables[0].check_nothing_leaked(r)  # (asks for the history: after comparing)
        # the durable log rebuilds the secret room exactly (the GM's hidden moves included)
        store = r.server.storage
        rebuilt = await store.call(rebuild, store.storage, ROOMS[0])
        state = r.server.rooms[ROOMS[0]].engine.state
        assert rebuilt.state.model_dump() == state.model_dump()
        return tables
    finally:
        for table in tables:
            await table.close()
        await r.runner.cleanup()


async def probe(peer: Peer, action: dict[str, Any]) -> dict[str, Any]:
    """Send an action only this twin sends (its answer is not compared, and the peer's
    own message ids stay the same as its twin's)."""
    msg = {"type": "action", "id": f"{OWN}{len(peer.sent)}", "action": action}
    fut = asyncio.get_running_loop().create_future()
    peer.waiting[msg["id"]] = fut
    peer.sent[msg["id"]] = msg
    await peer.client.send(msg)
    return await asyncio.wait_for(fut, 5)
