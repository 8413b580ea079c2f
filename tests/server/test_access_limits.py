"""Who may stay connected and how hard anyone may knock (issue 13, findings 3 and 6).

Over real sockets on loopback: revoking an invite closes its open sockets at once; failed
authentications are throttled per address, and guessing on a room never refuses a right
secret or token (issue 26, finding 7); connections per address are capped; a slow reader
is dropped by the bytes waiting for it and its socket is closed promptly. Other source
addresses are other loopback addresses (127.0.0.x).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, Client, Running, gm, invite, join, stalled_reader, start_server, until
from komasync.server.app import CHECKS
from komasync.server.connection import Limits
from komasync.server.room import Call


async def _from(r: Running, address: str) -> Client:
    return await Client.connect(r.url, local_addr=(address, 0))



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
        frames = await tab.closed()
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
    await until(lambda: room.inbox.qsize() == 1, "the join is queued")
    await g.send({"type": "invite.revoke", "id": "rv",
                  "invite": await _invite_id(g, "late-tab")})
    await g.expect("invites", id="rv")
    busy.set()
    frames = await late.closed()
    assert [f["type"] for f in frames] == ["bye"] and frames[0]["code"] == "invite_revoked"
    assert not any(c.player == "alice" for c in room.audiences.conns)


# -- finding 6: failed authentications are throttled -------------------------------------
@pytest.mark.parametrize("limited", [dict(auth_failures_per_address=3,
                                            auth_failures_per_room=100)], indirect=True)
async def test_failed_auths_from_one_address_are_throttled(limited: Running) -> None:
    r = limited
    g = await gm(r)  # connected before: never affected
    guesser = await _from(r, "127.0.0.2")
    for i in range(3):
        await guesser.send({"type": "auth", "room": r.room, "secret": f"guess-{i}"})
        assert (await guesser.expect("error"))["code"] == "auth_failed"
    calls = _count_storage_calls(r)
    # Even the right secret is not checked from that address now: the answer is cheap.
    await guesser.send({"type": "auth", "room": r.room, "secret": r.secret})
    err = await guesser.expect("error")
    assert err["code"] == "auth_throttled" and err["reason"]["ja"] and err["reason"]["en"]
    assert 0 < err["details"]["retry_after"] <= r.server.limits.auth_window
    assert calls() == 0
    # Another address still gets in, and the GM connected before keeps acting.
    other = await _from(r, "127.0.0.3")
    await other.auth(r.room, secret=r.secret)
    reply = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                          "delta": 1}))
    assert reply["type"] == "ack"


async def _first_answer(c: Client, msg: dict[str, Any]) -> dict[str, Any]:
    """The first frame the server answers `msg` with."""
    await c.send(msg)
    return await c.recv(10)


@pytest.mark.parametrize("limited", [dict(auth_failures_per_address=100,
                                            auth_failures_per_room=4)], indirect=True)
async def test_guessing_on_a_room_never_refuses_a_right_secret_or_token_from_a_new_address(
        limited: Running) -> None:
    """Issue 26, finding 7: eight other addresses guess well past the room's limit; an
    address that never signed in to the room (a new device, or any address after a
    restart) gets in at once with the GM secret, and another with an invite token."""
    r = limited
    g = await gm(r)
    token = await invite(g, "player", "alice")
    await g.close()
    guessers = [await _from(r, f"127.0.0.{n}") for n in range(2, 10)]
    answers = await asyncio.gather(*(
        _first_answer(c, {"type": "auth", "room": r.room, "token": f"guess-{i}"})
        for i, c in enumerate(guessers)))
    newcomer_gm = await _from(r, "127.0.0.20")
    first = await _first_answer(newcomer_gm, {"type": "auth", "room": r.room, "secret": r.secret})
    assert first["type"] == "welcome" and first["role"] == "gm", first
    newcomer = await _from(r, "127.0.0.21")
    first = await _first_answer(newcomer, {"type": "auth", "room": r.room, "token": token})
    assert first["type"] == "welcome" and first["role"] == "player", first
    # The guesses were checked and failed (no one was refused without being checked)…
    assert [a["code"] for a in answers] == ["auth_failed"] * len(guessers), answers
    # …and the room is still under attack: a guess from yet another address still fails.
    late = await _from(r, "127.0.0.22")
    assert (await _first_answer(late, {"type": "auth", "room": r.room,
                                        "secret": "wrong"}))["code"] == "auth_failed"


async def test_guesses_from_many_addresses_keep_only_a_few_lookups_on_the_storage_thread(
        running: Running) -> None:
    """Issue 26, finding 7: with no room-wide lock, a distributed guess is still bounded:
    however many sockets guess at once (the disk slow here), at most `CHECKS` credential
    lookups wait on the storage thread, so the room's commits never queue behind them."""
    r = running
    g = await gm(r)
    storage, original = r.server.storage, r.server.storage.call
    store = storage.storage
    lookups = {store.room, store.invite_for_token}
    busy, most = 0, 0

    def slow(fn: Any, *args: Any) -> Any:
        time.sleep(0.01)  # a slow disk: the lookups pile up if nothing bounds them
        return fn(*args)

    async def counting(fn: Any, *args: Any) -> Any:
        nonlocal busy, most
        if fn not in lookups:
            return await original(fn, *args)
        busy += 1
        most = max(most, busy)
        try:
            return await original(slow, fn, *args)
        finally:
            busy -= 1

    storage.call = counting  # type: ignore[method-assign]
    guessers = [await _from(r, f"127.0.1.{n}") for n in range(1, 31)]
    guesses = asyncio.gather(*(_first_answer(c, {"type": "auth", "room": r.room,
                                                  "token": f"guess-{n}"})
                               for n, c in enumerate(guessers)))
    reply = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                          "delta": 1}))
    assert reply["type"] == "ack"
    assert {a["code"] for a in await guesses} == {"auth_failed"}
    assert 0 < most <= CHECKS, most


@pytest.mark.parametrize("limited", [dict(auth_failures_per_address=2, auth_window=0.5)],
                         indirect=True)
async def test_a_throttled_address_gets_in_again_once_its_failures_age_out(
        limited: Running) -> None:
    r = limited
    c = await Client.connect(r.url)
    for _ in range(2):
        await c.send({"type": "auth", "room": r.room, "secret": "wrong"})
        assert (await c.expect("error"))["code"] == "auth_failed"
    await c.send({"type": "auth", "room": r.room, "secret": r.secret})
    err = await c.expect("error")
    assert err["code"] == "auth_throttled"
    await asyncio.sleep(err["details"]["retry_after"])
    await c.auth(r.room, secret=r.secret)


def _count_storage_calls(r: Running) -> Any:
    """How many storage calls were made since this was called."""
    storage = r.server.storage
    original = storage.call
    made: list[Any] = []

    async def counting(fn: Any, *args: Any) -> Any:
        made.append(fn)
        return await original(fn, *args)

    storage.call = counting  # type: ignore[method-assign]
    return lambda: len(made)


# -- finding 6: connections per address -------------------------------------------------
@pytest.mark.parametrize("limited", [dict(connections_per_address=3)], indirect=True)
async def test_connections_per_address_are_capped(limited: Running) -> None:
    r = limited
    open_ = [await gm(r), await Client.connect(r.url), await Client.connect(r.url)]
    extra = await Client.connect(r.url)
    frames = await extra.closed()
    assert frames and frames[0]["type"] == "error", frames
    assert frames[0]["code"] == "too_many_connections"
    assert frames[0]["details"]["limit"] == 3 and frames[0]["reason"]["ja"]
    # Another address is not affected; a freed slot can be used again.
    await (await _from(r, "127.0.0.2")).auth(r.room, secret=r.secret)
    await open_[1].close()
    await until(lambda: len(r.server.sockets) == 3, "the closed socket is gone")
    await gm(r)


# -- finding 6: slow consumers, by bytes --------------------------------------------------
@pytest.mark.parametrize("limited", [dict(outbox_bytes=32 * 1024, rate=10_000,
                                          burst=10_000)], indirect=True)
async def test_a_slow_reader_is_dropped_by_bytes_and_its_socket_closed(limited: Running) -> None:
    r = limited
    g = await gm(r)
    slow = await stalled_reader(r, await invite(g, "observer"))
    room = r.server.rooms[r.room]
    conn = next(c for c in room.audiences.conns if c.role == "observer")
    healthy = await join(r, await invite(g, "player", "alice"))
    note = "メモ / note " * 150  # ~2 KB a frame: few frames, many bytes
    for i in range(250):
        reply = await g.reply_to(await g.act({"kind": "table.marker.place", "marker": {
            "id": f"m{i}", "text": note, "cell": {"x": i % 12, "y": 7}}}))
        assert reply["type"] == "ack"
    assert conn.closed and conn.close_reason == "slow_consumer"
    await until(lambda: conn not in room.audiences.conns and conn.ws not in r.server.sockets,
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
    note = "x" * 2000  # the longest marker text (Sentence), twice the outbox
    reply = await g.reply_to(await g.act({"kind": "table.marker.place", "marker": {
        "id": "big", "text": note, "cell": {"x": 1, "y": 1}}}))
    assert reply["type"] == "ack"
    observer = await join(r, await invite(g, "observer"))  # a snapshot > 1 KiB
    assert observer.state["table"]["markers"]["big"]["text"] == note
