"""The collector policy for many rooms (offload.Settle): young generations collected and
the rest frozen each period; a full reclaim after enough departures or time."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, gm, invite, join, start_server
from komasync.server.offload import SETTLE, Settle


class FakeGc:
    """Records what the policy asks the collector to do."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def collect(self, generation: int = 2) -> int:
        self.calls.append(("collect", generation))
        return 0

    def freeze(self) -> None:
        self.calls.append(("freeze", None))

    def unfreeze(self) -> None:
        self.calls.append(("unfreeze", None))


def test_each_settle_collects_the_young_then_freezes() -> None:
    fake = FakeGc()
    policy = Settle(fake)
    policy.settle(0.0)
    policy.settle(policy.PERIOD)
    assert fake.calls == [("collect", 1), ("freeze", None)] * 2
    assert policy.reclaims == 0


def test_enough_departures_make_one_full_reclaim() -> None:
    fake = FakeGc()
    policy = Settle(fake)
    policy.settle(0.0)
    for _ in range(policy.RECLAIM - 1):
        policy.left()
    policy.settle(1.0)
    assert ("unfreeze", None) not in fake.calls  # one short of RECLAIM: no full pause
    policy.left()
    fake.calls.clear()
    policy.settle(2.0)
    assert fake.calls == [("unfreeze", None), ("collect", 2), ("freeze", None)]
    assert policy.reclaims == 1 and policy.departed == 0
    fake.calls.clear()
    policy.settle(3.0)  # counted afresh
    assert fake.calls == [("collect", 1), ("freeze", None)]


def test_a_reclaim_is_due_after_reclaim_every_seconds_even_without_departures() -> None:
    fake = FakeGc()
    policy = Settle(fake)
    policy.settle(100.0)
    policy.settle(100.0 + policy.RECLAIM_EVERY / 2)
    assert policy.reclaims == 0
    policy.settle(100.0 + policy.RECLAIM_EVERY)
    assert policy.reclaims == 1
    policy.settle(100.0 + policy.RECLAIM_EVERY + 1)
    assert policy.reclaims == 1


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_with_the_real_collector_young_cycles_go_and_the_rest_is_frozen() -> None:
    """A cycle already garbage at a settle is collected, not frozen; what is alive is
    frozen; a reclaim unfreezes it and a cycle dropped since is collected."""
    policy = Settle()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        dead = weakref.ref(a)
        del a, b
        kept = [Node() for _ in range(10)]
        policy.settle(0.0)
        assert dead() is None
        assert gc.get_freeze_count() >= len(kept)
        c, d = Node(), Node()  # a cycle frozen alive, then dropped
        c.other, d.other = d, c
        policy.settle(1.0)
        dropped = weakref.ref(c)
        del c, d
        policy.settle(2.0)
        assert dropped() is not None  # frozen: kept until a reclaim (the documented price)
        policy.departed = policy.RECLAIM
        policy.settle(3.0)
        assert dropped() is None and policy.reclaims == 1
    finally:
        gc.unfreeze()


async def test_the_server_settles_and_counts_connections_that_leave(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "s.sqlite3", EXAMPLES / "demo_table.yaml")
    try:
        g = await gm(r)
        assert SETTLE._task is not None and not SETTLE._task.done()
        settles = SETTLE.settles
        player = await join(r, await invite(g, "player", "alice"))
        before = SETTLE.departed
        await player.close()
        for _ in range(200):  # until the server has seen it go (bounded: 200 periods)
            if SETTLE.departed > before and SETTLE.settles > settles:
                break
            await asyncio.sleep(SETTLE.PERIOD / 4)
        assert SETTLE.departed == before + 1
        assert SETTLE.settles > settles
    finally:
        await r.runner.cleanup()
        gc.unfreeze()
    assert SETTLE._task is None  # the server's close stopped it
