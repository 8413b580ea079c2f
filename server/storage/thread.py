"""The storage thread: every backend call runs off the event loop, and the rooms' batches
are committed together (group commit), one transaction and one fsync per group."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from ..offload import FAST_SWITCH
from .base import ActionRow, Backend, Batch
from .gathering import GATHER, Gathering

__all__ = ["AsyncStorage"]

T = TypeVar("T")


def _quiet(loop: asyncio.AbstractEventLoop) -> bool:
    """Nothing else for the loop to do now: no callback ready, no socket readable (a peek:
    epoll is level-triggered, the loop still sees every event). False on loops without
    these internals (e.g. uvloop): they always use the storage thread."""
    ready = getattr(loop, "_ready", None)
    selector = getattr(loop, "_selector", None)
    if ready is None or selector is None or ready:
        return False
    return not selector.select(0)


def _wake(done: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for fut, error in done:
        if fut.done():
            continue
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(error)


class AsyncStorage:
    """Runs a `Backend`'s calls on one thread, so the event loop does not block on disk.

    `commit` is the group commit: a room's batch joins whatever the other rooms have
    waiting; the thread writes them all in one transaction and wakes every waiting room
    with one call back into the loop. While it commits, new batches gather for the next
    group, so a busy process pays one fsync per group, not per room or per action.

    A quiet process commits on the loop thread instead: the same transaction and fsync,
    without the two thread hops (~100 µs on a 2-core VM) that nothing else could have
    used. Never with a snapshot (a large room's is megabytes to write). Quiet: a local
    log (`Backend.local`: SQLite), the storage thread idle, nothing else ready on the
    loop (no callback due, no socket readable), and no commit for at least as long as a
    commit usually takes (so at most about half of the loop's time goes to commits made
    on it, and a steady stream of actions from many rooms still shares one fsync per
    group on the thread instead of paying one each on the loop).

    While many rooms commit at a steady rate, the loop thread never commits, and a group
    waits up to 1 ms for more of them (gathering.py): one fsync then carries several rooms'
    batches. It stops waiting once each room seen lately has a batch in (or 16 have)."""

    def __init__(self, storage: Backend, gather: float = GATHER) -> None:
        self.storage = storage
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="komasync-db")
        self._lock = threading.Lock()
        self._gathered = threading.Condition(self._lock)
        self.gathering = Gathering(gather)
        self._wanted = 0  # batches the storage thread is gathering for (0: not waiting)
        self._waiting: list[tuple[Batch, asyncio.Future[None]]] = []
        self._scheduled = False
        self._calls = 0  # `call`s handed to the thread and not finished
        self.inline = storage.local
        self._took: deque[float] = deque(maxlen=16)  # the last commits' durations (s)
        self._last = 0.0  # when the last commit ended (time.monotonic)
        self.groups = 0  # transactions the thread committed, and their batches
        self.batches = 0

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        with self._lock:
            self._calls += 1
        return await loop.run_in_executor(self._pool, self._counted, fn, args)

    def _counted(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        try:
            return fn(*args)
        finally:
            with self._lock:
                self._calls -= 1

    async def commit(self, room_id: str, rows: list[ActionRow],
                     snapshot: tuple[int, bytes] | None = None) -> None:
        """Durably log one room's batch (with the next group); raises if it failed."""
        await self.submit(room_id, rows, snapshot)

    def submit(self, room_id: str, rows: list[ActionRow],
               snapshot: tuple[int, bytes] | None = None) -> asyncio.Future[None]:
        """Hand one room's batch to the next group now; the future is done once it is
        durable (at once when committed on the loop thread) or failed."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        batch = (room_id, rows, snapshot)
        now = time.monotonic()
        with self._lock:
            self.gathering.arrived(room_id, now)
        if (self.inline and snapshot is None and not self._scheduled and not self._calls
                and now - self._last >= self._typical()
                and not self.gathering.busy() and _quiet(loop)):
            try:
                error = self._append([batch])[0]
            except Exception as e:
                error = e
            _wake([(done, error)])
            return done
        with self._lock:
            self._waiting.append((batch, done))
            start, self._scheduled = not self._scheduled, True
            if self._wanted and len(self._waiting) >= self._wanted:
                self._gathered.notify()
        if start:
            FAST_SWITCH.enter()  # the thread takes the GIL back often (every sqlite3 call)
            self._pool.submit(self._group, loop)
        return done

    def _append(self, batches: list[Batch]) -> list[BaseException | None]:
        """The group's transaction, timed (either thread)."""
        start = time.monotonic()
        try:
            return self.storage.append_group(batches)
        finally:
            self._last = time.monotonic()
            self._took.append(self._last - start)

    def _typical(self) -> float:
        """How long a commit usually takes: the median of the last few (a rare slow
        fsync, e.g. a checkpoint, does not make every following commit look slow)."""
        took = sorted(self._took)
        return took[len(took) // 2] if took else 0.0

    def _group(self, loop: asyncio.AbstractEventLoop) -> None:
        """On the storage thread: commit everything waiting as one group (gathered for a
        moment first while many rooms are committing)."""
        with self._lock:
            self._wanted = self.gathering.wanted()
            if self._wanted:
                self._gathered.wait_for(lambda: len(self._waiting) >= self._wanted,
                                        self.gathering.wait)
                self._wanted = 0
            group, self._waiting = self._waiting, []
        self.groups += 1
        self.batches += len(group)
        try:
            results = self._append([batch for batch, _ in group])
        except BaseException as e:  # the commit itself failed: nothing of the group is in
            results = [e] * len(group)
        with self._lock:
            if self._waiting:  # gathered meanwhile: the next group, after other queued calls
                self._pool.submit(self._group, loop)
            else:
                self._scheduled = False
                FAST_SWITCH.exit()
        loop.call_soon_threadsafe(_wake, [(done, r) for (_, done), r in zip(group, results,
                                                                             strict=True)])

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self.storage.close()


