"""The core's refusal codes: what any action may be refused for before (or beside) its
subsystem's own rules — the engine's guards, the transaction's bounds, the room-level
actions (override, undo, answer) and the characters every subsystem shares. Subsystems
declare theirs in their package (`Subsystem.refusals`)."""

from __future__ import annotations

from .errors import Codes

__all__ = [
    "BAD_CHOICE",
    "BAD_PATH",
    "BAD_VALUE",
    "CASCADE_TOO_DEEP",
    "CORE",
    "FORBIDDEN_ROLE",
    "NOT_AVAILABLE",
    "NOT_YOUR_PROMPT",
    "OUT_OF_RANGE",
    "PLAYER_ROLLS_REFUSED",
    "UNCREDITED",
    "UNDO_NOT_EXPANDED",
    "UNKNOWN_CHARACTER",
    "UNKNOWN_PLAYER",
    "UNKNOWN_PROMPT",
]

CORE = Codes("core")

# -- Engine.apply's guards ------------------------------------------------------------
FORBIDDEN_ROLE = CORE("forbidden_role", "{who}にはこの操作はできません。",
                      "{who_en} may not do this.")
#: A role in words, for FORBIDDEN_ROLE (its code name is never shown to a person).
ROLE_WORDS = {"gm": ("GM", "The GM"), "player": ("プレイヤー", "A player"),
              "bridge": ("ブリッジ", "A bridge"), "observer": ("観戦者", "An observer"),
              "table": ("卓", "The table")}
UNCREDITED = CORE(
    "uncredited",
    "VTT上の誰の操作か分からないため、この操作はできません。VTTで誰の操作か分からない"
    "ときは、誰の持ち物でもないコマを動かすことだけができます。GMコンソールで行うか、VTTのユーザーを"
    "プレイヤーに対応づけてください。",
    "Nobody on the VTT can be credited with this, so it is not done: a move nobody "
    "is credited with may only move a piece no player owns. Do it in the GM console, or map "
    "the VTT's users to players.")
CASCADE_TOO_DEEP = CORE("cascade_too_deep",
                        "誘発が連鎖しすぎました（{n}段）。操作は取り消されました。",
                        "Triggers cascaded too deep ({n} levels); the action was rolled back.")

# -- the transaction ------------------------------------------------------------------
UNKNOWN_PLAYER = CORE("unknown_player", "プレイヤー「{id}」はこのルームにいません。",
                      "There is no player '{id}' in this room.")
OUT_OF_RANGE = CORE("out_of_range", "この操作の結果は許される範囲を超えます（{what}）。",
                    "The result of this action would leave its allowed range ({what}).")
PLAYER_ROLLS_REFUSED = CORE(
    "player_rolls_refused",
    "この部屋では、プレイヤー画面で入力したダイス結果は使えません（GMが許可していません）。"
    "VTTでダイスを振るか、komasyncに振らせてください。",
    "Dice results typed on the player page are not accepted in this room (the GM has not "
    "allowed them). Roll on the VTT, or let komasync roll.")

# -- what a non-GM is told instead of a reason built from hidden state (views.refusal_for)
NOT_AVAILABLE = CORE("not_available",
                     "今はこの操作はできません（公開されていない情報によるものです）。",
                     "This cannot be done now (for a reason that has not been revealed).")

# -- room-level actions (control.py) --------------------------------------------------
BAD_PATH = CORE("bad_path", "パス {path} は状態にありません。",
                "Path {path} does not exist in the state.")
# the rule is the overridden field's own (paths.field_rule), given when refused
BAD_VALUE = CORE("bad_value", "{path} に {value} は設定できません: {error}",
                 "Cannot set {path} to {value}: {error}")
UNDO_NOT_EXPANDED = CORE("undo_not_expanded", "取り消しはサーバーが展開します。",
                         "Undo must be expanded by the server.")
UNKNOWN_PROMPT = CORE("unknown_prompt", "問い「{id}」は待っていません。",
                      "No prompt '{id}' is waiting.")
NOT_YOUR_PROMPT = CORE("not_your_prompt", "この問いに答えるのはあなたではありません。",
                       "This prompt is not yours to answer.")
BAD_CHOICE = CORE("bad_choice", "「{choice}」は選べません。",
                  "'{choice}' is not one of the choices.")

# -- characters, shared by every subsystem that keeps them ----------------------
UNKNOWN_CHARACTER = CORE.unknown("character", "キャラクター", animate=True)
