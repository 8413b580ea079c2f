"""Gathering a group commit (issue 16, goal 3): while many rooms commit at a steady rate,
a group waits a moment so one fsync carries several rooms' batches; one room alone, or a
slow trickle, never waits. Nothing is acknowledged before its group is durable."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from conftest import ROOT, Client, gm, logged_versions, start_server, unthrottled
from komasync.engine.scenario import load_scenario_file
from komasync.server.storage.gathering import ENOUGH, ROOMS, SEEN, Gathering

COUNTERS = ROOT / "tests/data/counters.yaml"
ADD = {"kind": "table.counter.add", "counter": "tally", "delta": 1}


def seen(policy: Gathering, rooms: int | list[str], every: float, count: int = SEEN,
         start: float = 100.0) -> Gathering:
    """`count` submissions, `every` seconds apart from `start`, from `rooms` rooms in turn."""
    names = rooms if isinstance(rooms, list) else [f"room{i}" for i in range(rooms)]
    for i in range(count):
        policy.arrived(names[i % len(names)], start + i * every)
    return policy


def test_many_rooms_at_a_steady_rate_gather() -> None:
    assert seen(Gathering(0.002), rooms=8, every=0.001).busy()
    assert seen(Gathering(0.002), rooms=ROOMS, every=0.0019).busy()  # just over 1 per wait


def test_a_busy_group_waits_for_one_batch_per_room_seen_at_most() -> None:
    """A room has one batch in flight at most: once each recent room's is in, nobody else
    is coming, so the group does not sit out the rest of the wait."""
    assert seen(Gathering(0.002), rooms=8, every=0.001).wanted() == 8
    assert seen(Gathering(0.002), rooms=SEEN, every=0.001).wanted() == ENOUGH
    assert seen(Gathering(0.002), rooms=1, every=0.001).wanted() == 0


def test_one_room_never_waits_however_fast() -> None:
    """Its next batch cannot come before this one is durable: waiting could only delay it."""
    assert not seen(Gathering(0.002), rooms=1, every=0.0001).busy()
    assert not seen(Gathering(0.002), rooms=ROOMS - 1, every=0.0001).busy()


def test_a_trickle_or_too_few_submissions_never_wait() -> None:
    assert not seen(Gathering(0.002), rooms=8, every=0.0021).busy()  # under 1 per wait
    assert not seen(Gathering(0.002), rooms=8, every=0.001, count=SEEN - 1).busy()
    assert not seen(Gathering(0.0), rooms=8, every=0.0001).busy()  # gathering switched off


def test_a_burst_after_a_quiet_spell_is_read_from_the_latest_submissions() -> None:
    policy = seen(Gathering(0.002), rooms=8, every=1.0)
    assert not policy.busy()
    for i in range(SEEN):  # the old, slow ones are forgotten as new ones come
        policy.arrived(f"room{i % 8}", 1000.0 + i * 0.0005)
    assert policy.busy()


async def test_a_busy_server_acks_every_room_after_one_gathered_commit(tmp_path: Path) -> None:
    """Eight rooms' GMs act at once on a server that counts as busy with those eight rooms:
    one group carries all eight batches (the loop thread commits none of them) and is
    committed as soon as the eighth is in, not after the wait (a minute here); every
    action is acked, at the version the room's log holds, and each room's clients see
    their own change."""
    db = tmp_path / "g.sqlite3"
    r = await start_server(db, COUNTERS, unthrottled())
    clients: list[Client] = []
    try:
        rooms = [r.room, *[f"room{i}" for i in range(2, 9)]]
        for room in rooms[1:]:
            await r.server.create_room(load_scenario_file(COUNTERS), secret=r.secret,
                                       room_id=room)
        for room in rooms:
            c = await Client.connect(r.url)
            await c.auth(room, secret=r.secret)
            await c.expect("snapshot")
            clients.append(c)
        storage = r.server.storage
        # busy (as if these 8 rooms had just committed); a group may wait up to a minute
        storage.gathering = seen(Gathering(60.0), rooms, every=0.001, start=time.monotonic())
        groups, batches = storage.groups, storage.batches
        ids = await asyncio.gather(*(c.act(ADD) for c in clients))
        replies = await asyncio.gather(*(c.reply_to(i) for c, i in zip(clients, ids, strict=True)))
        assert [(m["type"], m["version"]) for m in replies] == [("ack", 1)] * 8
        assert (storage.groups - groups, storage.batches - batches) == (1, 8)
        for c, room in zip(clients, rooms, strict=True):
            await c.settle(1)
            assert c.state["table"]["counters"]["tally"]["value"] == 1
            assert logged_versions(db, room) == [1]
        storage.gathering = Gathering()  # quiet again: one room's next action is not held
        again = await gm(r)
        reply = await again.reply_to(await again.act(ADD, id="after"))
        assert reply["type"] == "ack" and reply["version"] == 2
        await again.close()
    finally:
        for c in clients:
            await c.close()
        await r.runner.cleanup()
