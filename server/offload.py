"""Work that grows with a room's size, kept off the event loop.

A room's task owns its state; when a join, a snapshot or a platform redraw must walk the
whole of a large room, the task hands that walk to one worker thread and waits for it.
The state cannot change meanwhile (the room's task is its only writer and is waiting),
so the worker reads a stable room, while the event loop goes on serving every other room
and connection. While the worker runs, the interpreter's switch interval is 1 ms (not
5), so the loop thread waits at most about that long for the GIL.

Large JSON is serialised in pieces (`dumps_sliced`), so no single call holds the GIL for
long; the result is byte for byte what `orjson.dumps` makes of the whole tree.

Garbage collection: a full collection walks every object the collector tracks (on a
small VM ~90 ms for the imported modules alone, more with large rooms), holding the
GIL, whatever thread runs it. What a large room builds to keep (its state, its views, a
platform's drawn table) is moved out of the collector's way with `gc.freeze()` (`keep`):
those objects are freed by reference counting as usual, but no longer walked. The
price: a reference cycle that was alive at that moment and becomes garbage later is not
reclaimed. Freezes happen at start and after a large room's load or new view, not per
action, so that is bounded.

Many small rooms grow the heap the same way, a little at a time: every room loaded and
every connection joined (a socket's aiohttp objects, its room's views) is long-lived, and
a full collection walks all of it (~220 ms of CPU for 1,000 rooms with 5,000 connections
on a small VM, longer than any action waits), and actions that replace long-lived
objects make the young collections long too. `SETTLE` (started with the first room)
collects the young generations and freezes the rest five times a second (`Settle`).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import orjson

__all__ = ["BIG", "FAST_SWITCH", "SETTLE", "Settle", "dumps_sliced", "keep", "offload", "units"]

T = TypeVar("T")

BIG = 200
"""A room with more units (pieces, forts, counters…) than this has its whole-room work
done by the worker; below it the work takes well under a millisecond on the loop."""
SWITCH = 0.001
_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="komasync-cpu")


async def offload(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on the worker thread; the caller's room waits, the loop does not."""
    return await asyncio.get_running_loop().run_in_executor(_POOL, _run, fn, args)


class FastSwitch:
    """The interpreter's switch interval is `SWITCH` while any worker (this module's, or
    the storage thread with a commit to do) has work: a thread waiting for the GIL gets
    it within about that long, even while the event loop is busy. Counted, so workers
    that overlap never restore each other's setting early."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._before = sys.getswitchinterval()

    def enter(self) -> None:
        with self._lock:
            if self._users == 0:
                self._before = sys.getswitchinterval()
                sys.setswitchinterval(min(self._before, SWITCH))
            self._users += 1

    def exit(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users == 0:
                sys.setswitchinterval(self._before)


FAST_SWITCH = FastSwitch()


def _run(fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    FAST_SWITCH.enter()
    try:
        return fn(*args)
    finally:
        FAST_SWITCH.exit()


def keep() -> None:
    """What is alive now is long-lived (a loaded room, a large room's new view): keep the
    collector from walking it again."""
    gc.freeze()


class Settle:
    """Keeps the collector's walks short in a process with many rooms.

    CPython counts allocations minus deallocations of any age, so an action that replaces
    long-lived objects (a piece's state, a room's presence) lets young objects pile up
    without ever reaching the young threshold; the collection that finally runs walks
    tens of thousands of them (20-40 ms measured with 1,000 rooms), and every survivor
    that reaches the old generation is walked again by each full collection (70-220 ms).
    So every `PERIOD` s, on the loop: the young generations are collected (their
    short-lived cycles go first) and whatever is left is frozen, never walked again.

    The price, and its bound: a cycle frozen alive and dropped later stays in memory
    until the next reclaim, which unfreezes everything and makes one full collection: after
    `RECLAIM` connections left (each drops about a dozen objects in cycles: aiohttp's
    request, protocol and task; measured) or `RECLAIM_EVERY` s, whichever first. That
    reclaim is the one full pause left: about what CPython's own full collection costs,
    but at most once per `RECLAIM_EVERY` s instead of every few seconds."""

    PERIOD = 0.2
    RECLAIM = 2000
    RECLAIM_EVERY = 600.0

    def __init__(self, gc_module: Any = gc) -> None:
        self.gc = gc_module
        self.departed = 0
        self.settles = 0
        self.reclaims = 0
        self._last_reclaim: float | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Settle every `PERIOD` s on the running loop, from now on (idempotent)."""
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._task.get_loop() is not loop:
            self._task = loop.create_task(self._run())

    def stop(self) -> None:
        """No more settling (the server closes; the next room loaded starts it again)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.PERIOD)
            self.settle(loop.time())

    def left(self) -> None:
        """A connection left: its cycles may be frozen (reclaimed after `RECLAIM`)."""
        self.departed += 1

    def settle(self, now: float) -> None:
        """Collect the young, freeze the rest; unfreeze and collect all when it is due."""
        self.settles += 1
        if self._last_reclaim is None:
            self._last_reclaim = now
        if self.departed >= self.RECLAIM or now - self._last_reclaim >= self.RECLAIM_EVERY:
            self.departed, self._last_reclaim = 0, now
            self.reclaims += 1
            self.gc.unfreeze()
            self.gc.collect()
        else:
            self.gc.collect(1)
        self.gc.freeze()


SETTLE = Settle()


def units(tree: dict[str, Any]) -> int:
    """Roughly how many units a projected state holds: the entries of every dict in its
    first two levels (a subsystem's collections)."""
    n = 0
    for part in tree.values():
        if isinstance(part, dict):
            n += len(part) + sum(len(v) for v in part.values() if isinstance(v, dict))
    return n


def dumps_sliced(value: Any, head: bytes = b"", tail: bytes = b"") -> bytes:
    """`head + orjson.dumps(value) + tail`, made of many short calls: in the first three
    levels a large dict or list is written `CHUNK` entries at a time, a small dict key by
    key. (`head` and `tail` wrap it in a frame without copying a large room's JSON again.)"""
    out: list[bytes] = [head]
    _write(value, out, 0)
    out.append(tail)
    return b"".join(out)


CHUNK = 64


def _write(value: Any, out: list[bytes], depth: int) -> None:
    if depth >= 3 or not value or not isinstance(value, dict | list):
        out.append(orjson.dumps(value))
    elif isinstance(value, list) or len(value) > CHUNK:
        # A collection: its entries in chunks, each chunk one call ('{…}'/'[…]' stripped).
        items: list[Any] = value if isinstance(value, list) else list(value.items())
        shape: Any = list if isinstance(value, list) else dict
        out.append(b"[" if shape is list else b"{")
        for i in range(0, len(items), CHUNK):
            if i:
                out.append(b",")
            out.append(orjson.dumps(shape(items[i:i + CHUNK]))[1:-1])
        out.append(b"]" if shape is list else b"}")
    else:  # a few fields: one of them may be a large collection
        sep = b"{"
        for key, item in value.items():
            out.append(sep)
            out.append(orjson.dumps(key))
            out.append(b":")
            _write(item, out, depth + 1)
            sep = b","
        out.append(b"}")
