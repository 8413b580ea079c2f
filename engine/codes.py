"""The core's refusal codes: what any action may be refused for before (or beside) its
subsystem's own rules. Subsystems declare theirs in their package (`Subsystem.refusals`)."""

from __future__ import annotations

from .errors import Codes

__all__ = ["CORE"]

CORE = Codes("core")
