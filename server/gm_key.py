"""The server's GM key and its recorded public address, both kept in the store.

The GM key opens every room on the server as GM (one sign-in for all of a GM's rooms);
each room's own GM secret stays valid beside it. It is checked exactly as a room secret
is: same `secret` field, same throttle, a constant-time compare of SHA-256 digests. It
is kept in the store in plain text (so `serve` and `komasync gm-key` can show it again):
whoever can read the store can already rewrite every room's log, so it protects nothing
the store does not. Every call here blocks (the server makes them on its storage thread).
"""

from __future__ import annotations

import hmac
from typing import Any

from .storage import Backend, hash_secret, new_secret

__all__ = [
    "GM_KEY",
    "GM_KEY_LINE",
    "PUBLIC_ADDRESS",
    "all_rooms",
    "ensure_gm_key",
    "gm_key_ok",
    "record_address",
    "recorded_address",
    "rotate_gm_key",
]

GM_KEY = "gm_key"
PUBLIC_ADDRESS = "public_url"  # where the running server said players reach it
# What `serve` and `komasync gm-key` print before the key.
GM_KEY_LINE = "GM key, every room / GMキー（全ルーム共通）"


def ensure_gm_key(store: Backend) -> str:
    """The server's GM key, made the first time it is asked for (then stable)."""
    return store.first_setting(GM_KEY, new_secret())


def rotate_gm_key(store: Backend) -> str:
    """A new GM key; the old one opens nothing from now on (sockets already open stay)."""
    key = new_secret()
    store.put_setting(GM_KEY, key)
    return key


def gm_key_ok(store: Backend, secret: str) -> bool:
    """Whether `secret` is the server's GM key (compared in constant time)."""
    key = store.setting(GM_KEY)
    return key is not None and hmac.compare_digest(hash_secret(key), hash_secret(secret))


def all_rooms(store: Backend) -> list[dict[str, Any]]:
    """Every room, as `/api/rooms` lists them (the GM key opens them all)."""
    return [{"id": r.id, "name": r.name, "created_at": r.created_at}
            for r in store.room_summaries()]


def record_address(store: Backend, base_url: str) -> None:
    """The running server's public address, for `komasync invite`'s links."""
    store.put_setting(PUBLIC_ADDRESS, base_url.rstrip("/"))


def recorded_address(store: Backend) -> str | None:
    return store.setting(PUBLIC_ADDRESS)
