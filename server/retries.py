"""Exactly-once for retries, in bounded memory: each client identity's last action ids.

A client that did not hear back about an action sends it again with the same `id`; the
room must answer `duplicate` instead of applying it twice. The room remembers, per
identity (the GM, each invite, the server itself), the ids of its last `size` actions
(default 512) and the version each produced. The guarantee, written in
docs/protocol.md: a retry of any of an identity's last 512 actions is applied once; an
identity that keeps fewer than 512 actions unanswered (every client does: the console
and the bridges keep a handful) never has a retry applied twice. An id older than that
window is a new action. On restart the window is rebuilt from the durable log.

Compact, as every active room keeps one per identity: an id is kept as its 64-bit hash
(8 bytes in one buffer, the version in one array), not as objects of its own — 16 bytes
an id, 8 KiB for a full window. A new id is taken for one of the 512 kept with odds of
512 / 2⁶⁴ (2⁻⁵⁵) per action; the hash is the process's keyed string hash, and a window
holds one identity's ids only, so a client can collide with nobody's ids but its own.
The Redis log (size 0) keeps exact ids.
"""

from __future__ import annotations

from array import array
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


def _key(msg_id: str) -> bytes:
    return hash(msg_id).to_bytes(8, "little", signed=True)


class _Ring:
    """One identity's last `size` ids (as hashes) and versions, oldest overwritten first."""

    __slots__ = ("at", "keys", "size", "versions")

    def __init__(self, size: int) -> None:
        self.size = size
        self.keys = bytearray()  # 8 bytes per id
        self.versions = array("q")
        self.at = 0  # the slot the next id overwrites once the ring is full

    def get(self, msg_id: str) -> int | None:
        key, keys = _key(msg_id), self.keys
        i = keys.find(key)
        while i >= 0 and i % 8:  # a match must start on an id's boundary
            i = keys.find(key, i + 1)
        return None if i < 0 else self.versions[i // 8]

    def add(self, msg_id: str, version: int) -> None:
        if len(self.versions) < self.size:
            self.keys += _key(msg_id)
            self.versions.append(version)
            return
        self.keys[self.at * 8:self.at * 8 + 8] = _key(msg_id)
        self.versions[self.at] = version
        self.at = (self.at + 1) % self.size

    def __len__(self) -> int:
        return len(self.versions)


class _All(dict[str, int]):
    """Every id of an identity (size 0: a log that refuses ids it has logged)."""

    def add(self, msg_id: str, version: int) -> None:
        self[msg_id] = version


class RetryWindow:
    """The last `size` action ids of each identity, with the version each one made
    (size 0: every id, for a log that refuses an id it has logged, as the Redis one does)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.ids: dict[str, _Ring | _All] = {}

    @classmethod
    def from_log(cls, size: int, newest_first: Iterable[tuple[str, int]]) -> RetryWindow:
        """Rebuilt from logged (client key, version) pairs, newest first."""
        kept: dict[str, dict[str, int]] = {}
        for key, version in newest_first:
            principal, msg_id = principal_of(key)
            ids = kept.setdefault(principal, {})
            if (not size or len(ids) < size) and msg_id not in ids:
                ids[msg_id] = version
        window = cls(size)
        for principal, ids in kept.items():
            for msg_id, version in reversed(ids.items()):  # oldest first, as they came
                window.add(principal, msg_id, version)
        return window

    def version(self, principal: str, msg_id: str) -> int | None:
        """The version a remembered action made, or None for a new one."""
        ids = self.ids.get(principal)
        return None if ids is None else ids.get(msg_id)

    def add(self, principal: str, msg_id: str, version: int) -> None:
        ids = self.ids.get(principal)
        if ids is None:
            ids = self.ids[principal] = _Ring(self.size) if self.size else _All()
        ids.add(msg_id, version)

    def __len__(self) -> int:
        return sum(len(ids) for ids in self.ids.values())
