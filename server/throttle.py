"""Failed authentications, counted per address and per room over a sliding window.

Past the limit, further attempts are refused before anything is looked up (no room
load, no storage call, no hashing), so guessing costs the server a dict lookup and the
rooms' writers never wait behind it. An address that has authenticated on a room keeps
getting in while that room is under attack from elsewhere: its players and GM are not
locked out by someone else's guessing.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

__all__ = ["AuthThrottle"]

# How long a successful address stays exempt from its room's limit.
KNOWN_FOR = 24 * 3600.0
# Past this many tracked keys, stale ones are forgotten (memory stays bounded).
MAX_KEYS = 10_000


@dataclass
class AuthThrottle:
    per_address: int
    per_room: int
    window: float
    failures: dict[str, deque[float]] = field(default_factory=dict)
    known: dict[tuple[str, str], float] = field(default_factory=dict)

    def wait(self, address: str, room: str) -> float:
        """Seconds before `address` may try to authenticate on `room` again (0: now)."""
        now = time.monotonic()
        wait = self._wait("a:" + address, self.per_address, now)
        since = self.known.get((room, address))
        if since is None or now - since >= KNOWN_FOR:
            wait = max(wait, self._wait("r:" + room, self.per_room, now))
        return wait

    def failed(self, address: str, room: str) -> None:
        now = time.monotonic()
        self._add("a:" + address, self.per_address, now)
        self._add("r:" + room, self.per_room, now)

    def succeeded(self, address: str, room: str) -> None:
        now = time.monotonic()
        if len(self.known) >= MAX_KEYS:
            self.known = {k: t for k, t in self.known.items() if now - t < KNOWN_FOR}
            while len(self.known) >= MAX_KEYS:
                del self.known[next(iter(self.known))]
        self.known[(room, address)] = now

    def _wait(self, key: str, limit: int, now: float) -> float:
        stamps = self.failures.get(key)
        if limit <= 0 or stamps is None or len(stamps) < limit:  # 0: no limit
            return 0.0
        return max(0.0, self.window - (now - stamps[0]))

    def _add(self, key: str, limit: int, now: float) -> None:
        stamps = self.failures.get(key)
        if stamps is None:
            if len(self.failures) >= MAX_KEYS:
                self._forget(now)
            stamps = self.failures[key] = deque(maxlen=max(limit, 1))
        stamps.append(now)

    def _forget(self, now: float) -> None:
        """Drop keys whose last failure left the window; if none did, the oldest keys."""
        self.failures = {k: d for k, d in self.failures.items() if now - d[-1] < self.window}
        while len(self.failures) >= MAX_KEYS:
            del self.failures[next(iter(self.failures))]
