"""The generic table's refusal codes (TABLE-*: komasync's own rule IDs, docs/table.md)."""

from __future__ import annotations

from ..errors import Codes, Text

__all__ = ["CODES", "FOR_NOBODY", "NOT_YOUR_COUNTER", "NOT_YOUR_PIECE", "OFF_GRID",
           "OUT_OF_RANGE", "UNKNOWN_COUNTER", "UNKNOWN_MARKER", "UNKNOWN_PIECE"]

CODES = Codes("table")

#: The reason given to the table (a bridge naming no player) for acting on a player's
#: thing: declare it as the `nobody` alt of any `not_your_*` code (`not_yours`).
FOR_NOBODY = Text(
    "「{name}」はプレイヤーのものです。ブリッジからは、VTTがその持ち主と特定した操作でだけ"
    "動かせます（GMはGMコンソールから操作できます）。",
    "'{name}' belongs to a player: through a bridge it is moved only for its owner as the "
    "VTT identified them (the GM can act in the GM console).",
)

UNKNOWN_PIECE = CODES.unknown("piece", "駒")
UNKNOWN_COUNTER = CODES.unknown("counter", "カウンター")
UNKNOWN_MARKER = CODES.unknown("marker", "マーカー")
NOT_YOUR_PIECE = CODES("not_your_piece",
                       "駒「{name}」はあなたの駒ではありません。自分の駒だけ動かせます。",
                       "Piece '{name}' is not yours; you may move only your own pieces.",
                       rule="TABLE-MV-1", nobody=FOR_NOBODY)
OFF_GRID = CODES("off_grid", "マス({x}, {y})は盤面（{w}×{h}）の外です。",
                 "Square ({x}, {y}) is outside the {w}×{h} board.", rule="TABLE-MV-2")
NOT_YOUR_COUNTER = CODES("not_your_counter", "カウンター「{name}」はGMだけが変更できます。",
                         "Only the GM may change counter '{name}'.", rule="TABLE-CT-1")
OUT_OF_RANGE = CODES("out_of_range", "カウンター「{name}」の値は±{limit}を超えられません。",
                     "Counter '{name}' cannot go beyond ±{limit}.", rule="TABLE-CT-2")
