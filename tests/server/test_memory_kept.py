"""What an active room keeps: a snapshot frame cached for a join is dropped at the next
change (it is never sent again), and joins after it still get the current snapshot."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES, Client, gm, invite, join, start_server


async def test_cached_snapshots_are_dropped_by_the_next_change(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "m.sqlite3", EXAMPLES / "demo_table.yaml")
    try:
        g = await gm(r)
        token = await invite(g, "player", "alice")
        alice = await join(r, token)
        audiences = r.server.rooms[r.room].audiences
        assert audiences.snapshots  # the joins' frames, cached for their version
        state = audiences.engine.state
        piece = next(iter(state.table.pieces))
        reply = await g.reply_to(await g.act({"kind": "table.move", "piece": piece,
                                              "to": {"x": 1, "y": 1}}))
        await alice.settle(reply["version"])
        assert audiences.snapshots == {}
        late = await Client.connect(r.url)
        await late.auth(r.room, token=token)
        snap = await late.expect("snapshot")
        assert snap["version"] == reply["version"]
        pieces = snap["state"]["table"]["pieces"]
        assert pieces[piece]["cell"] == {"x": 1, "y": 1}
    finally:
        await r.runner.cleanup()
