"""Subsystem `bases` (seed 000, rules.md BASE-*). Placeholder until issue 6 lands."""

from __future__ import annotations

from pydantic import BaseModel

from .registry_types import Subsystem
from .views import Entity

__all__ = ["SUBSYSTEM", "BasesScenario", "BasesState"]


class BasesState(Entity):
    round: int = 0


class BasesScenario(BaseModel):
    def build(self) -> BasesState:
        return BasesState()


SUBSYSTEM = Subsystem(name="bases")
