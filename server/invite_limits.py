"""Limits per invite token, shared by every socket opened with it (issue 26, finding 3).

A player could open as many sockets on one invite as its address allowed (64), each with
its own message bucket: 32 sockets made 32 × 40 messages/s. Here an invite has one count
of open sockets (`invite_connections`, more for a bridge) and one message bucket that all
of them draw from, so more sockets never buy more messages. The GM (the room's secret)
is not an invite and is not limited here: its sockets keep their own buckets, as before,
and its queries still go through the room's query budget (query_budget.py).

An invite's bucket outlives its sockets (a reconnect does not refill it): it is
forgotten only once it is full again, when forgetting it changes nothing.
"""

from __future__ import annotations

import math

from .connection import Connection, Limits, TokenBucket

__all__ = ["InviteLimits", "retry_seconds"]


# Past this many remembered invites, those with no socket and a full bucket are forgotten.
SWEEP_AT = 4096


def retry_seconds(wait: float) -> float:
    """A wait as sent in `retry_after`: seconds, rounded up to the millisecond."""
    return math.ceil(wait * 1000) / 1000


class _Invite:
    __slots__ = ("bucket", "open")

    def __init__(self, bucket: TokenBucket) -> None:
        self.open = 0
        self.bucket = bucket


class InviteLimits:
    """Open sockets and one shared message bucket per (room, invite)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.invites: dict[tuple[str, str], _Invite] = {}

    def cap(self, conn: Connection) -> int:
        """How many sockets `conn`'s invite may have open (0: no cap)."""
        return self.limits.bridge_connections if conn.role == "bridge" \
            else self.limits.invite_connections

    def admit(self, room: str, conn: Connection) -> bool:
        """Count `conn` against its invite and give it the shared bucket; False (nothing
        counted) when the invite has its most sockets open already. The GM always is."""
        if conn.role == "gm":
            return True
        inv = self._invite(room, conn)
        cap = self.cap(conn)
        if cap and inv.open >= cap:
            return False
        inv.open += 1
        conn.shared = inv.bucket
        return True

    def release(self, room: str, conn: Connection) -> None:
        """`conn` (admitted) has closed; its invite's bucket is kept until it is full."""
        if conn.shared is None:
            return
        conn.shared = None
        key = (room, conn.principal)
        inv = self.invites.get(key)
        if inv is None:
            return
        inv.open -= 1
        if inv.open <= 0 and inv.bucket.full():
            del self.invites[key]

    def _invite(self, room: str, conn: Connection) -> _Invite:
        key = (room, conn.principal)
        inv = self.invites.get(key)
        if inv is None:
            if len(self.invites) >= SWEEP_AT:
                self._sweep()
            bridge = conn.role == "bridge"
            inv = self.invites[key] = _Invite(TokenBucket(
                self.limits.bridge_rate if bridge else self.limits.invite_rate,
                self.limits.bridge_burst if bridge else self.limits.invite_burst))
        return inv

    def _sweep(self) -> None:
        """Forget invites no socket uses whose bucket is full (as a new one would be)."""
        self.invites = {k: v for k, v in self.invites.items()
                        if v.open > 0 or not v.bucket.full()}
