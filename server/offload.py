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

__all__ = ["BIG", "FAST_SWITCH", "dumps_sliced", "keep", "offload", "units"]

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


def units(tree: dict[str, Any]) -> int:
    """Roughly how many units a projected state holds: the entries of every dict in its
    first two levels (a subsystem's collections)."""
    n = 0
    for part in tree.values():
        if isinstance(part, dict):
            n += len(part) + sum(len(v) for v in part.values() if isinstance(v, dict))
    return n


def dumps_sliced(value: Any) -> bytes:
    """`orjson.dumps(value)`, made of many short calls: in the first three levels a large
    dict or list is written `CHUNK` entries at a time, a small dict key by key."""
    out: list[bytes] = []
    _write(value, out, 0)
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
