"""Subsystem `tower_defense` (seed 003, rules.md TD-*). Placeholder until issue 3 lands."""

from __future__ import annotations

from pydantic import BaseModel

from .registry_types import Subsystem
from .views import Entity

__all__ = ["SUBSYSTEM", "TowerDefenseScenario", "TowerDefenseState"]


class TowerDefenseState(Entity):
    round: int = 0


class TowerDefenseScenario(BaseModel):
    def build(self) -> TowerDefenseState:
        return TowerDefenseState()


SUBSYSTEM = Subsystem(name="tower_defense")
