"""Failed authentications, counted per address and per room over a sliding window.

Past its limit an address is refused before anything is looked up (no room load, no
storage call, no hashing), so one address's guessing costs the server a dict lookup.
A room's count never refuses anyone: secrets and tokens are ≥ 192 bits, so a room-wide
lock would add no safety and would let anyone's guessing lock its GM and players out.
Past the room's limit only *failed* answers on that room wait (`pause`), so each
guessing socket gets about one answer a second; a right credential is answered at once.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

__all__ = ["AuthThrottle"]

# Past this many tracked keys, stale ones are forgotten (memory stays bounded).
MAX_KEYS = 10_000


@dataclass
class AuthThrottle:
    per_address: int
    per_room: int
    window: float
    failures: dict[str, deque[float]] = field(default_factory=dict)

    def wait(self, address: str) -> float:
        """Seconds before `address` may try to authenticate again (0: now)."""
        return self._wait("a:" + address, self.per_address, time.monotonic())

    def under_attack(self, room: str) -> bool:
        """Whether `room` had its limit of failures within the window: its next failed
        answers wait (a success never does)."""
        return self._wait("r:" + room, self.per_room, time.monotonic()) > 0

    def failed(self, address: str, room: str) -> None:
        now = time.monotonic()
        self._add("a:" + address, self.per_address, now)
        self._add("r:" + room, self.per_room, now)

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
