"""Every refusal the base battle gives, declared once with its rule and both reasons.

Raised as `NAME.refuse(field=..., about=[...])`: a reason naming a hidden part lists it in
`about`, so a player or the table gets `not_available` instead (BASE-OPT-2).
"""

from __future__ import annotations

from ..errors import Codes

__all__ = ["CODES"]

CODES = Codes("bases")

NO_BASE_BATTLE = CODES("no_base_battle", "この部屋に拠点戦闘はありません。",
                       "This room has no base battle.")
# A hidden base or element is unknown to a non-GM sender exactly as a missing one.
UNKNOWN_BASE = CODES("unknown_base", "拠点「{id}」はありません。", "There is no base '{id}'.",
                     rule="BASE-OPT-2")
UNKNOWN_ELEMENT = CODES("unknown_element", "要素「{id}」はありません。",
                        "There is no element '{id}'.", rule="BASE-OPT-2")

# -- the battle's course -------------------------------------------------------------------
BATTLE_OVER = CODES("battle_over", "拠点戦闘は終了しています。", "The base battle is over.",
                    rule="BASE-TYPE-1")
BATTLE_NOT_RUNNING = CODES("battle_not_running",
                           "拠点戦闘は進行中ではありません（第1ラウンド前か終了後）。",
                           "The base battle is not running (before round 1 or over).",
                           rule="BASE-COND-2")
NOTHING_TO_REVEAL = CODES("nothing_to_reveal", "公開する拠点か要素を指定してください。",
                          "Name a base or an element to reveal.", rule="BASE-OPT-2")

# -- firing an element (BASE-ST-2, BASE-EL-1, BASE-COND-3/4/5) ---------------------------
BASE_STOPPED = CODES("base_stopped",
                     "拠点「{name}」は停止状態です（「停止状態でも発動する」要素ではありません）。",
                     "Base '{name}' is stopped and this element does not fire while stopped.",
                     rule="BASE-ST-2")
EVENT_EXHAUSTED = CODES("event_exhausted", "イベント「{name}」は発動回数（{n}回）を使い切りました。",
                        "Event '{name}' has used all {n} activations.", rule="BASE-EL-1")
CONDITION_NOT_MET = CODES("condition_not_met", "「{name}」の条件を満たしていません: {text}",
                          "The condition of '{name}' is not met: {text}", rule="BASE-COND-4")
NOT_ACTIVE_TRIGGER = CODES("not_active_trigger", "イベント「{name}」に【能動誘発】の条件はありません。",
                           "Event '{name}' has no 【能動誘発】 condition.", rule="BASE-COND-3")
WRONG_TRIGGER = CODES("wrong_trigger", "「{name}」の【能動誘発】は {want} が行う必要があります。",
                      "The 【能動誘発】 of '{name}' needs {want} to do it.", rule="BASE-COND-3")
NEEDS_GM = CODES("needs_gm", "「{name}」の条件には判断が必要な文があります。GMが発動させてください。",
                 "The condition of '{name}' needs the GM's judgement; the GM fires it.",
                 rule="BASE-COND-5")
CASCADE_TOO_DEEP = CODES("cascade_too_deep", "拠点の要素が発動し続けています。",
                         "Base elements keep firing.", rule="BASE-COND-2")

# -- who speaks for a character (bases_players; every enforcement mode) ------------------
UNKNOWN_SIDE = CODES("unknown_side", "キャラクター「{name}」の陣営（pc / enemy）を指定してください。",
                     "Say which side (pc / enemy) character '{name}' is on.", rule="BASE-COND-5")
CHARACTER_REQUIRED = CODES("character_required",
                           "どのキャラクターのことか（character）を指定してください。",
                           "Name the character (character) this is about.", rule="BASE-COND-5")
NOT_YOUR_CHARACTER = CODES(
    "not_your_character",
    "「{name}」はあなたのキャラクターではありません。自分のキャラクターのことだけ報告できます。",
    "'{name}' is not your character; you may report only for your own.", rule="BASE-COND-5")
WRONG_SIDE = CODES("wrong_side", "「{name}」は{side}陣営のキャラクターです。",
                   "'{name}' is a character of the {side} side.", rule="BASE-COND-5")
