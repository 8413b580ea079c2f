"""Who may stay connected (issue 13, findings 3 and 6).

Over real sockets on loopback: revoking an invite closes its open sockets at once; a slow
reader is dropped by the bytes waiting for it and its socket is closed promptly.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
from komasync.server.connection import Limits
from komasync.server.room import Call


async def _from(r: Running, address: str) -> Client:
    return await Client.connect(r.url, local_addr=(address, 0))


async def _closed(c: Client) -> list[dict[str, Any]]:
    """Every frame until the server closes the socket."""
    frames = []
    with pytest.raises(websockets.ConnectionClosed):
        while True:
            frames.append(await c.recv())
    return frames


async def _invite_id(g: Client, label: str) -> str:
    await g.send({"type": "invite.list", "id": f"list-{label}"})
    invites = (await g.expect("invites", id=f"list-{label}"))["invites"]
    return str(next(i["invite"] for i in invites if i["label"] == label))


async def _labelled_invite(g: Client, label: str, player: str) -> str:
    await g.send({"type": "invite.create", "id": f"inv-{label}", "role": "player",
                  "player": player, "label": label})
    return str((await g.expect("invite", id=f"inv-{label}"))["token"])


@pytest.fixture
async def limited(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(**request.param))
    yield r
    await r.runner.cleanup()


# -- finding 3: revoke -----------------------------------------------------------------
async def test_revoking_an_invite_closes_its_open_sockets_with_a_bye(running: Running) -> None:
    g = await gm(running)
    token = await _labelled_invite(g, "alice-tab", "alice")
    other = await join(running, await _labelled_invite(g, "bob-tab", "bob"))
    tabs = [await join(running, token), await join(running, token)]
    await g.send({"type": "invite.revoke", "id": "rv",
                  "invite": await _invite_id(g, "alice-tab")})
    assert (await g.expect("invites", id="rv"))["invites"]
    for tab in tabs:
        frames = await _closed(tab)
        bye = [f for f in frames if f["type"] == "bye"]
        assert bye and bye[-1]["code"] == "invite_revoked", frames
        assert bye[-1]["reason"]["ja"] and bye[-1]["reason"]["en"]
    room = running.server.rooms[running.room]
    assert not any(c.player == "alice" for c in room.audiences.conns)
    # Everyone else is untouched, and the token opens nothing any more.
    await other.send({"type": "ping", "t": "still"})
    assert (await other.expect("pong"))["t"] == "still"
    again = await Client.connect(running.url)
    await again.send({"type": "auth", "room": running.room, "token": token})
    assert (await again.expect("error"))["code"] == "invite_revoked"


async def test_an_invite_revoked_while_its_socket_authenticates_never_joins(
        running: Running) -> None:
    g = await gm(running)
    token = await _labelled_invite(g, "late-tab", "alice")
    room = running.server.rooms[running.room]
    busy = asyncio.Event()

    async def hold() -> None:  # the room is busy: the join waits in its inbox
        await busy.wait()

    await room.inbox.put(Call(hold))
    late = await Client.connect(running.url)
    await late.send({"type": "auth", "room": running.room, "token": token})
    await _until(lambda: room.inbox.qsize() == 1, "the join is queued")
    await g.send({"type": "invite.revoke", "id": "rv",
                  "invite": await _invite_id(g, "late-tab")})
    await g.expect("invites", id="rv")
    busy.set()
    frames = await _closed(late)
    assert [f["type"] for f in frames] == ["bye"] and frames[0]["code"] == "invite_revoked"
    assert not any(c.player == "alice" for c in room.audiences.conns)


# -- finding 6: slow consumers, by bytes --------------------------------------------------
async def _until(cond: Any, what: str, timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not cond():
            await asyncio.sleep(0.02)
    try:
        await asyncio.wait_for(poll(), timeout)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for: {what}") from None


async def _stalled_reader(r: Running, token: str) -> Client:
    """A client that authenticates, reads its snapshot, then stops reading its socket.
    Small kernel buffers on both ends (as on a slow link) and no compression, so the
    bytes the room sends pile up on the server after a few hundred KiB, not megabytes."""
    host, port = r.url.split("//")[1].split("/")[0].split(":")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    c = await Client.connect(r.url, sock=sock, compression=None)
    await c.auth(r.room, token=token)
    await c.expect("snapshot")
    conn = next(x for x in r.server.rooms[r.room].audiences.conns if x.principal.startswith("inv:"))
    assert conn.transport is not None
    conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF,
                                                         16 * 1024)
    c.ws.transport.pause_reading()
    return c


@pytest.mark.parametrize("limited", [dict(outbox_bytes=32 * 1024, rate=10_000,
                                          burst=10_000)], indirect=True)
async def test_a_slow_reader_is_dropped_by_bytes_and_its_socket_closed(limited: Running) -> None:
    r = limited
    g = await gm(r)
    slow = await _stalled_reader(r, await invite(g, "observer"))
    room = r.server.rooms[r.room]
    conn = next(c for c in room.audiences.conns if c.role == "observer")
    healthy = await join(r, await invite(g, "player", "alice"))
    note = "メモ / note " * 150  # ~2 KB a frame: few frames, many bytes
    for i in range(250):
        reply = await g.reply_to(await g.act({"kind": "table.marker.place", "marker": {
            "id": f"m{i}", "text": note, "cell": {"x": i % 12, "y": 7}}}))
        assert reply["type"] == "ack"
    assert conn.closed and conn.close_reason == "slow_consumer"
    await _until(lambda: conn not in room.audiences.conns and conn.ws not in r.server.sockets,
                 "the dropped reader's socket is closed")
    # The room went on for everyone else.
    assert room.version == 250
    await healthy.settle(250)
    assert len(healthy.state["table"]["markers"]) == 250 + 1  # and the scenario's gate
    slow.ws.transport.abort()  # it never reads: no closing handshake to wait for


@pytest.mark.parametrize("limited", [dict(outbox_bytes=1024)], indirect=True)
async def test_frames_larger_than_the_outbox_reach_a_reader_that_takes_them(
        limited: Running) -> None:
    r = limited
    g = await gm(r)
    note = "x" * 4000
    reply = await g.reply_to(await g.act({"kind": "table.marker.place", "marker": {
        "id": "big", "text": note, "cell": {"x": 1, "y": 1}}}))
    assert reply["type"] == "ack"
    observer = await join(r, await invite(g, "observer"))  # a snapshot > 1 KiB
    assert observer.state["table"]["markers"]["big"]["text"] == note
