"""`komasync.client`: a small asyncio client for GM scripts and bots (see docs/client.md)."""

from .client import Client, Rejected, ServerClosed, apply_ops

__all__ = ["Client", "Rejected", "ServerClosed", "apply_ops"]
