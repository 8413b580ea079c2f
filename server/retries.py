"""Exactly-once for retries, in bounded memory: each client identity's last action ids.

A client that did not hear back about an action sends it again with the same `id`; the
room must answer `duplicate` instead of applying it twice. The room remembers, per
identity (the GM, each invite, the server itself), the ids of its last `size` actions
(default 512) and the version each produced. The guarantee, written in
docs/protocol.md: a retry of any of an identity's last 512 actions is applied once; an
identity that keeps fewer than 512 actions unanswered (every client does: the console
and the bridges keep a handful) never has a retry applied twice. An id older than that
window is a new action. On restart the window is rebuilt from the durable log.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

__all__ = ["RetryWindow", "principal_of"]


def principal_of(client_key: str) -> tuple[str, str]:
    """(identity, action id) of a logged client key `<identity>:<id>`; an invite's
    identity is `inv:<invite id>`, the GM's `gm`, the server's `server`."""
    head, _, rest = client_key.partition(":")
    if head == "inv":
        invite, _, msg_id = rest.partition(":")
        return f"inv:{invite}", msg_id
    return head, rest


class RetryWindow:
    """The last `size` action ids of each identity, with the version each one made
    (size 0: every id, for a log that refuses an id it has logged, as the Redis one does)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.ids: dict[str, dict[str, int]] = {}
        self.order: dict[str, deque[str]] = {}

    @classmethod
    def from_log(cls, size: int, newest_first: Iterable[tuple[str, int]]) -> RetryWindow:
        """Rebuilt from logged (client key, version) pairs, newest first."""
        window = cls(size)
        for key, version in newest_first:
            principal, msg_id = principal_of(key)
            ids = window.ids.setdefault(principal, {})
            if (not size or len(ids) < size) and msg_id not in ids:
                ids[msg_id] = version
                window.order.setdefault(principal, deque()).appendleft(msg_id)
        return window

    def version(self, principal: str, msg_id: str) -> int | None:
        """The version a remembered action made, or None for a new one."""
        ids = self.ids.get(principal)
        return None if ids is None else ids.get(msg_id)

    def add(self, principal: str, msg_id: str, version: int) -> None:
        ids = self.ids.setdefault(principal, {})
        order = self.order.setdefault(principal, deque())
        ids[msg_id] = version
        order.append(msg_id)
        while self.size and len(order) > self.size:
            ids.pop(order.popleft(), None)

    def __len__(self) -> int:
        return sum(len(ids) for ids in self.ids.values())
