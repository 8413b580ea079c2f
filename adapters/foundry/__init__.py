"""Foundry VTT: the Python adapter (`adapter.py`) and the Foundry module (`module/`, JS)."""

from .adapter import FoundryAdapter

__all__ = ["FoundryAdapter"]
