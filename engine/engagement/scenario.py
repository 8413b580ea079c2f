"""The `engagement:` part of a scenario: settings and the characters (table pieces with a
side, a row, counters for DP/HP/grazes and their data: 身体, 回避, 弾幕, 近接戦闘, 近接武器鍛錬)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..combatants import CombatantSpec, repeated_ids, table_problems
from ..table import TableScenario
from ..table.scenario import surroundings
from ..titles import shown
from .model import EngagementSettings, EngagementState

__all__ = ["EngagementScenario"]


class EngagementScenario(BaseModel):
    """`engagement:` in a scenario file (docs/engagement.md). A PC's data is public
    (`published`) unless its spec says otherwise; an enemy's is the GM's."""

    model_config = ConfigDict(extra="forbid")

    settings: EngagementSettings = Field(default_factory=EngagementSettings, json_schema_extra=shown(
        "設定", "settings"))
    combatants: list[CombatantSpec] = Field(default_factory=list, json_schema_extra=shown(
        "キャラクター", "characters"))

    @model_validator(mode="after")
    def _unique(self) -> EngagementScenario:
        problem = repeated_ids(self.combatants)
        if problem:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _on_the_table(self) -> EngagementScenario:
        """Every piece and counter a character names is on the file's table (its DP, HP
        and grazes are those counters: one misspelt would silently go unpaid)."""
        table = surroundings().table
        problems = table_problems(self.combatants, table) if table is not None else []
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def build(self, table: TableScenario | None = None) -> EngagementState:
        pieces: dict[str, Any] = {p.id: p for p in table.pieces} if table is not None else {}
        return EngagementState(
            settings=self.settings,
            combatants={c.id: c.build(pieces, published=c.side == "pc") for c in self.combatants})
