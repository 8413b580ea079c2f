"""Platform adapters by name; the server makes one per (room, platform)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import PlatformAdapter

__all__ = ["PLATFORMS", "make_adapter"]


def _ccfolia(tree: dict[str, Any]) -> PlatformAdapter:
    from .ccfolia import CcfoliaAdapter

    return CcfoliaAdapter.from_tree(tree)


def _foundry(tree: dict[str, Any]) -> PlatformAdapter:
    from .foundry import FoundryAdapter

    return FoundryAdapter.from_tree(tree)


PLATFORMS: dict[str, Callable[[dict[str, Any]], PlatformAdapter]] = {
    "ccfolia": _ccfolia,
    "foundry": _foundry,
}


def make_adapter(platform: str, tree: dict[str, Any]) -> PlatformAdapter:
    """A fresh adapter for `platform`, configured from the room's table projection."""
    return PLATFORMS[platform](tree)
