"""The komasync board: the bars and lines each subsystem reports, on one object beside
the table (a Ccfolia character's status bars and params, a Foundry drawing's text)."""

from __future__ import annotations

from .geometry import beside
from .objects import Board, Objects
from .subsystems import SUBSYSTEMS

__all__ = ["BOARD_ID", "Board", "board", "board_cell"]

BOARD_ID = "ks-board"


def board_cell(grid: tuple[int, int]) -> dict[str, int]:
    """Where the board stands: right of the table, in the top row."""
    return beside(grid, 0)


def board(objs: Objects) -> Board:
    """The board's contents: each subsystem's lines, in registry order."""
    b = Board()
    for subsystem in SUBSYSTEMS:
        if subsystem.board is not None:
            subsystem.board(objs, b)
    return b
