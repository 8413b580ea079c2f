"""Nothing changes for clients: a recorded session (tables, tower defense, base battle;
GM, players, observers, both bridges) replayed against today's server gives every
client exactly the frames recorded before the server's internals were reworked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recording import DATA, record


@pytest.mark.parametrize("compression", ["deflate", None], ids=["deflate", "uncompressed"])
async def test_every_client_gets_the_recorded_frames_byte_for_byte(
        tmp_path: Path, compression: str | None) -> None:
    """Both ways a frame reaches a socket: compressed by aiohttp, or framed by the server
    and written straight to the transport."""
    want = json.loads(DATA.read_text())
    got = await record(tmp_path, compression)
    assert got.keys() == want.keys()
    for room, clients in want.items():
        assert got[room].keys() == clients.keys(), room
        for name, frames in clients.items():
            mine = got[room][name]
            first = next((i for i, (a, b) in enumerate(zip(frames, mine, strict=False))
                          if a != b), min(len(frames), len(mine)))
            assert mine == frames, (
                f"{room}/{name}: frame {first} differs (recorded {len(frames)}, now {len(mine)})"
                f"\n recorded: {frames[first] if first < len(frames) else '-'}"
                f"\n now:      {mine[first] if first < len(mine) else '-'}")


async def test_the_recording_covers_every_audience_and_both_bridges() -> None:
    rec = json.loads(DATA.read_text())
    assert set(rec) == {"table", "tower_defense", "bases"}
    for clients in rec.values():
        kinds = {json.loads(f.lstrip("~"))["type"] for frames in clients.values() for f in frames}
        assert {"welcome", "snapshot", "change", "ack", "notice", "table.ops"} <= kinds
        assert {"gm", "observer", "ccfolia", "foundry"} <= set(clients)
        assert len(clients) == 6  # two players too
