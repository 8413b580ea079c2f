"""When the storage thread waits a moment for more rooms' batches before it commits.

A commit's fsync costs about the same CPU whatever the group carries (measured on the
2-core bench host at `durability=full`: ~150 µs of CPU for 1 row, ~200 µs for 16), and
with 1,000 rooms acting once a second each the groups held only 1-2 rooms' batches: the
fsyncs alone took a tenth of a core. So, like a database's commit delay, a group waits
up to `GATHER` for others to join it, but only while many rooms are committing at a
steady rate (one room, however fast, never waits: it cannot send its next batch before
this one is durable). It stops waiting as soon as `ENOUGH` batches are in, or one from
each room seen lately (a room has one batch in flight at most: nobody else is coming).
"""

from __future__ import annotations

from collections import deque

__all__ = ["ENOUGH", "GATHER", "Gathering"]

GATHER = 0.001
"""The longest a group waits for other rooms' batches (s)."""
ENOUGH = 16
"""A group this large commits at once: its fsync's cost is already spread thin."""
SEEN = 32
"""How many of the latest submissions the rate is read from."""
ROOMS = 4
"""Distinct rooms among them for the process to count as busy."""


class Gathering:
    """Whether the latest submissions come from many rooms, fast enough that at least one
    more is expected within `wait`."""

    def __init__(self, wait: float = GATHER) -> None:
        self.wait = wait
        self._seen: deque[tuple[float, str]] = deque(maxlen=SEEN)

    def arrived(self, room_id: str, now: float) -> None:
        self._seen.append((now, room_id))

    def wanted(self) -> int:
        """How many batches a group should wait for: 0 (commit at once) unless busy."""
        seen = self._seen
        if len(seen) < SEEN or self.wait <= 0:
            return 0
        if seen[-1][0] - seen[0][0] > (SEEN - 1) * self.wait:  # under 1 per `wait`
            return 0
        rooms = len({room for _, room in seen})
        return min(rooms, ENOUGH) if rooms >= ROOMS else 0

    def busy(self) -> bool:
        return self.wanted() > 0
