"""Ccfolia: the Python adapter (`adapter.py`) and, beside it, the bridge userscript (JS)."""

from .adapter import CcfoliaAdapter

__all__ = ["CcfoliaAdapter"]
