"""The komasync board: round/phase, counters and bases' GP on one object beside the table
(a Ccfolia character's status bars and params, a Foundry drawing's text)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .geometry import beside
from .render import OUTCOMES, Objects, bi, each

__all__ = ["BOARD_ID", "Board", "board", "board_cell"]

BOARD_ID = "ks-board"


@dataclass
class Board:
    """What the 'komasync' board shows: bars (label, value, max) and text params."""

    bars: list[dict[str, Any]] = field(default_factory=list)
    params: list[dict[str, str]] = field(default_factory=list)
    memo: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The board as text: params, then bars as `value/max`."""
        out = [f"{p['label']}: {p['value']}" for p in self.params]
        out += [f"{b['label']}: {b['value']}" + (f"/{b['max']}" if b.get("max") is not None else "")
                for b in self.bars]
        return out

    def __bool__(self) -> bool:
        return bool(self.bars or self.params)


def board_cell(grid: tuple[int, int]) -> dict[str, int]:
    """Where the board stands: right of the table, in the top row."""
    return beside(grid, 0)


def board(objs: Objects) -> Board:
    """The board's contents: TD round/phase/outcome, generic counters, each base's GP/state."""
    b = Board()
    _td(objs, b)
    for _oid, o in each(objs, "counter"):
        value = o["value"] or 0
        b.bars.append({"label": o["name"], "value": value,
                       "max": o["max"] if o["max"] is not None else value})
    _bases(objs, b)
    return b


def _td(objs: Objects, b: Board) -> None:
    for _oid, o in each(objs, "td"):
        b.params.append({"label": "ラウンド", "value": f"{o['round']}"})
        b.params.append({"label": "フェイズ", "value": bi(o["phase_ja"], o["phase_en"])})
        if o["outcome"] in OUTCOMES:
            ja, en = OUTCOMES[o["outcome"]]
            b.params.append({"label": "結果", "value": bi(ja, en)})
        if o["victory_ja"] or o["victory_en"]:
            b.memo.append(bi(o["victory_ja"], o["victory_en"]))


def _bases(objs: Objects, b: Board) -> None:
    for _oid, o in each(objs, "bases"):
        b.params.append({"label": "拠点戦闘", "value": f"{o['name']} 第{o['round']}ラウンド"})
        if o["outcome_ja"] or o["outcome_en"]:
            b.params.append({"label": "結果", "value": bi(o["outcome_ja"], o["outcome_en"])})
    for _oid, o in each(objs, "base"):
        if o["gp"] is not None:
            most = o["base_gp"] if o["base_gp"] is not None else o["gp"]
            b.bars.append({"label": f"{o['name']} GP", "value": o["gp"],
                           "max": max(most, o["gp"])})
        gp = "" if o["gp"] is not None else " GP ?"
        b.params.append({"label": o["name"], "value": bi(o["state_ja"], o["state_en"]) + gp})
