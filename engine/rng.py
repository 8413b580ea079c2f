"""Seeded, counter-based dice: draw N of a room is a pure function of (seed, N).

The state keeps only the seed and how many draws were made, so a replay of the log
draws exactly the same numbers, and every draw is recorded as a `Roll` with its source.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel, Field, StrictInt

from .bounds import Name, Serial

__all__ = ["RngState", "Roll", "draw"]


class RngState(BaseModel):
    """Seed and draw counter of a room's dice."""

    seed: Name = "komasync"
    draws: Serial = 0


class Roll(BaseModel):
    """One roll with its provenance: the engine's RNG or an external roller (BCDice)."""

    dice: str
    results: list[StrictInt] = Field(default_factory=list)
    total: StrictInt | None = None
    purpose: str = ""
    source: Literal["engine", "external", "gm"] = "engine"
    raw: str | None = None
    reporter: str | None = None
    level: str | None = None
    target: StrictInt | None = None


def draw(rng: RngState, sides: int) -> int:
    """Next face in 1..sides; advances the counter (rejection sampling keeps it unbiased)."""
    if sides < 1:
        raise ValueError("sides must be positive")
    limit = (1 << 64) - ((1 << 64) % sides)
    while True:
        digest = hashlib.blake2b(f"{rng.seed}:{rng.draws}".encode(), digest_size=8).digest()
        rng.draws += 1
        value = int.from_bytes(digest, "big")
        if value < limit:
            return value % sides + 1
