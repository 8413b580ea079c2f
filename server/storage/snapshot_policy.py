"""When a room's storage snapshot is due: often enough that replay stays short, seldom
enough that its cost per action does not grow with the room.

A snapshot costs about its size (serialising the GM's view, writing it); the log costs
about the bytes of its rows. So a snapshot is due once the log rows written since the
last one add up to that snapshot's size — the snapshots then write at most about as
many bytes as the log, whatever the number of pieces — but never sooner than
`every` versions after the last one (small rooms: the old fixed interval) and always by
`ceiling` versions (a very large room: replay after a crash, or to an undo's target,
re-applies at most that many actions after a snapshot).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .base import ActionRow

__all__ = ["SnapshotPolicy", "row_bytes"]


def row_bytes(row: ActionRow) -> int:
    """The bytes an action row writes to the log: its client key and serialised parts
    (`ActionRow`: version, client key, six JSON blobs, time)."""
    return len(row[1] or "") + sum(map(len, row[2:8]))


@dataclass
class SnapshotPolicy:
    """The last snapshot (version, size) and the log bytes written since."""

    every: int  # fewest versions between snapshots
    ceiling: int  # most versions between snapshots (raised to `every` if below it)
    version: int  # the last snapshot's version (on load: the version the room came back at)
    size: int = 0  # its bytes; 0 when not known (until this process has taken one)
    logged: int = 0  # bytes of log rows since it

    def log(self, rows: Iterable[ActionRow]) -> None:
        self.logged += sum(row_bytes(row) for row in rows)

    def due(self, version: int) -> bool:
        since = version - self.version
        if since < self.every:
            return False
        return self.logged >= self.size or since >= max(self.every, self.ceiling)

    def taken(self, version: int, size: int) -> None:
        self.version, self.size, self.logged = version, size, 0
