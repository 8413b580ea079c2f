"""The levels a check's result reaches, as BCDice's systems name them (bcdice.py reads
them from BCDice's words). Apart from the reader, so a model that stores a level does not
import the parser (`komasync scenario check`)."""

from __future__ import annotations

from typing import Literal

__all__ = ["Level"]

Level = Literal["critical", "extreme", "hard", "regular", "special", "superb", "success",
                "partial", "failure", "malfunction", "fumble"]
