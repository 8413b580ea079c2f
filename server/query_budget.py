"""Queries on a budget, so one room's queries never hold up another room's acks (issue 26,
finding 3).

Queries run in their room's task, on the one event loop every room shares: a flood of
them was CPU the other rooms' acks waited behind. Here:

- each room's queries may use `query_share` of the loop (seconds of answering per second,
  a bucket of `query_burst` s) and all rooms' together `queries_share`; past that a query
  is refused `busy` with `retry_after`, before it is queued if it can be, never queued
  without bound (at most `queries_waiting` per room wait);
- after `query_slice` s of answering in one go the room yields to the loop, so the other
  rooms' reads, commits and acks run between its queries;
- answers are kept by (room, version, audience, query), in one LRU bounded by bytes: a
  query is a pure function of the state and of what its audience may see (engine/queries.py),
  so the same question at the same version to the same audience is the same bytes. A GM
  answer is never served to a player: the audience is part of the key.
"""

from __future__ import annotations

import itertools
import time
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from .connection import Limits

if TYPE_CHECKING:
    from .room import Room

__all__ = ["QueryBudget", "TimeBucket", "result_frame"]


# The shortest `retry_after` of a `busy` (a full queue drains in about this long).
MIN_RETRY = 0.01
# One answer larger than this fraction of the cache is not kept (it would evict the rest).
LARGEST = 16
# What one kept answer costs beyond its bytes (key tuple, dict slot): counted in the bound.
OVERHEAD = 200
_SERIALS = itertools.count(1)


@dataclass
class TimeBucket:
    """Seconds of work allowed per second (`rate`), up to `burst` s saved; it may go into
    debt by the cost of the last piece of work, which then has to be earned back."""

    rate: float
    burst: float
    tokens: float | None = None  # None: never used yet (a full bucket)
    stamp: float = field(default_factory=time.monotonic)

    def wait(self) -> float:
        """Seconds until work may start again (0: now)."""
        tokens = self._fill()
        return 0.0 if tokens > 0 else -tokens / self.rate

    def spend(self, seconds: float) -> None:
        self.tokens = self._fill() - seconds

    def _fill(self) -> float:
        now = time.monotonic()
        tokens = self.burst if self.tokens is None else self.tokens
        self.tokens = min(self.burst, tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens


class _RoomQueries:
    __slots__ = ("bucket", "serial", "since_yield", "waiting")

    def __init__(self, bucket: TimeBucket) -> None:
        self.bucket = bucket
        self.waiting = 0
        self.since_yield = 0.0
        self.serial = next(_SERIALS)  # a room re-created under the same id is another room


class QueryBudget:
    """The server's query budget: per room and in all, the answers kept, and counters."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        # All rooms share one bucket over the same window as one room's.
        window = limits.query_burst / limits.query_share
        self.all = TimeBucket(limits.queries_share, limits.queries_share * window)
        self.rooms: weakref.WeakKeyDictionary[Room, _RoomQueries] = weakref.WeakKeyDictionary()
        self.answers: OrderedDict[tuple[int, int, str, str], bytes] = OrderedDict()
        self.kept_bytes = 0
        self.hits = 0
        self.misses = 0
        self.refused = 0

    def _room(self, room: Room) -> _RoomQueries:
        state = self.rooms.get(room)
        if state is None:
            state = self.rooms[room] = _RoomQueries(TimeBucket(self.limits.query_share,
                                                               self.limits.query_burst))
        return state

    def enqueue(self, room: Room) -> float:
        """Before a query is queued: 0 and it counts as waiting, or how long to wait
        (refused: the room's or the server's budget is spent, or its queue is full)."""
        state = self._room(room)
        wait = self._wait(state)
        if not wait and state.waiting >= self.limits.queries_waiting:
            wait = MIN_RETRY
        if wait:
            self.refused += 1
            return wait
        state.waiting += 1
        return 0.0

    def start(self, room: Room) -> float:
        """A queued query's turn: it no longer waits; 0 and it runs, or how long to wait
        (the budget was spent by those before it)."""
        state = self._room(room)
        state.waiting = max(0, state.waiting - 1)
        wait = self._wait(state)
        if wait:
            self.refused += 1
        return wait

    def spent(self, room: Room, seconds: float) -> bool:
        """Charge a query's cost; True when the room should yield to the loop now."""
        state = self._room(room)
        state.bucket.spend(seconds)
        self.all.spend(seconds)
        state.since_yield += seconds
        if state.since_yield >= self.limits.query_slice:
            state.since_yield = 0.0
            return True
        return False

    def waiting(self, room: Room) -> int:
        """How many of the room's queries are queued (not yet answered or refused)."""
        state = self.rooms.get(room)
        return state.waiting if state is not None else 0

    def _wait(self, state: _RoomQueries) -> float:
        wait = max(state.bucket.wait(), self.all.wait())
        return max(wait, MIN_RETRY) if wait else 0.0

    # -- the answers kept ---------------------------------------------------------------
    def key(self, room: Room, version: int, audience: str, query: str
            ) -> tuple[int, int, str, str]:
        return self._room(room).serial, version, audience, query

    def cached(self, key: tuple[int, int, str, str]) -> bytes | None:
        """The result's JSON for this question if it was answered before (counted)."""
        got = self.answers.get(key)
        if got is None:
            self.misses += 1
            return None
        self.answers.move_to_end(key)
        self.hits += 1
        return got

    def keep(self, key: tuple[int, int, str, str], result: bytes) -> None:
        limit = self.limits.query_cache_bytes
        size = len(result) + OVERHEAD
        if size > limit // LARGEST or key in self.answers:
            return
        self.answers[key] = result
        self.kept_bytes += size
        while self.kept_bytes > limit:
            _, old = self.answers.popitem(last=False)
            self.kept_bytes -= len(old) + OVERHEAD


def result_frame(msg_id: str, version: int, result: bytes) -> bytes:
    """A `query.result` frame around a kept result's JSON: the same bytes as
    `dumps({"type": "query.result", "id": …, "version": …, "result": …})`."""
    return b"".join((b'{"type":"query.result","id":', orjson.dumps(msg_id), b',"version":',
                     str(version).encode(), b',"result":', result, b"}"))
