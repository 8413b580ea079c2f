"""The scenario shape of a combatant, shared by every subsystem that lists characters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from ..bounds import MAX_ITEMS, Id, Number
from ..table.scenario import TableScenario
from ..titles import shown
from .model import MAX_ANY_SEVEN, MAX_DATA, ROW_WORDS, SIDE_WORDS, Combatant, Row, Side, Status

__all__ = ["CombatantSpec", "repeated_ids", "table_problems"]


class CombatantSpec(BaseModel):
    """A character in a scenario: the table piece it is (`piece`, default: the same id),
    its side, counters, statuses, row and data. `published` None: the subsystem decides."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64, pattern=r"^[\w\-.]+$",
                    json_schema_extra=shown("ID", "id"))
    piece: Id | None = Field(default=None, json_schema_extra=shown(
        "駒", "piece", ref="table.pieces",
        about=("空欄なら id と同じ駒", "empty: the piece with the same id"), empty_means="id"))
    side: Side = Field(json_schema_extra=shown("陣営", "side", words=SIDE_WORDS))
    counters: dict[Id, Id] = Field(default_factory=dict, max_length=MAX_DATA, json_schema_extra=shown(
        "カウンター", "counters", ref="table.counters", key=("役割（HP・DPなど）", "role (HP, DP, …)"),
        value=("テーブルのカウンター", "the table's counter")))
    statuses: list[Status] = Field(default_factory=list, max_length=MAX_ITEMS, json_schema_extra=shown(
        "状態", "statuses"))
    row: Row | None = Field(default=None, json_schema_extra=shown("配置", "row", words=ROW_WORDS))
    profile: dict[Id, Number] = Field(default_factory=dict, max_length=MAX_DATA, json_schema_extra=shown(
        "データ", "data", key=("項目", "item"), value=("値", "value")))
    any_seven: dict[Id, Number] = Field(default_factory=dict, max_length=MAX_ANY_SEVEN,
                                        json_schema_extra=shown(
        "エニーセブン", "any seven", key=("判定", "check"), value=("修正値", "modifier"),
        about=("GMが振らずに 7＋修正値 を宣言する判定", "checks the GM announces as 7 + modifier")))
    published: StrictBool | None = Field(default=None, json_schema_extra=shown(
        "データ公開", "data published",
        about=("空欄ならサブシステムが決める", "empty: the subsystem decides")))

    def build(self, pieces: Mapping[str, Any], published: bool = False) -> Combatant:
        """The state's combatant: hidden exactly when its piece is; `published` unless
        the spec says otherwise."""
        piece_id = self.piece or self.id
        piece = pieces.get(piece_id)
        return Combatant(
            id=self.id, piece=piece_id, side=self.side, counters=dict(self.counters),
            statuses={s.id: s for s in self.statuses}, row=self.row, profile=dict(self.profile),
            any_seven=dict(self.any_seven), hidden=bool(piece is not None and piece.hidden),
            published=published if self.published is None else self.published)


def repeated_ids(specs: list[CombatantSpec], *more: tuple[str, list[str]]) -> str | None:
    """A scenario error naming combatant ids or pieces used twice, then the first of
    `more` (what, its ids) with an id twice; or None."""
    for what, ids in (("combatants", [c.id for c in specs]),
                      ("pieces", [c.piece or c.id for c in specs]), *more):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            return (f"{what} の id が重複しています: {', '.join(twice)} / {what} used twice: "
                    f"{', '.join(twice)}")
    return None


def table_problems(specs: list[CombatantSpec], table: TableScenario, rule: str = "") -> list[str]:
    """A problem per piece or counter a combatant names that the table lacks (its number
    would silently be missing from play); `rule` cites what needs the piece."""
    pieces, counters = {p.id for p in table.pieces}, {c.id for c in table.counters}
    why = f"（{rule}）" if rule else ""
    why_en = f" ({rule})" if rule else ""
    out = [f"戦闘者 {c.id}: 駒 {c.piece or c.id} が table.pieces にありません{why} / combatant "
           f"{c.id}: piece {c.piece or c.id} is not in table.pieces{why_en}"
           for c in specs if (c.piece or c.id) not in pieces]
    out += [f"戦闘者 {c.id}: {name} のカウンター {ref} が table.counters にありません / combatant "
            f"{c.id}: counter {ref} (for {name}) is not in table.counters"
            for c in specs for name, ref in c.counters.items() if ref not in counters]
    return out
