"""Every refusal tower defense gives, declared once with its rule and both reasons.

Raised as `NAME.refuse(field=..., about=[...])`; `about` names the state a reason is
built from (everything but `waves` is public, so in practice every audience reads them).
"""

from __future__ import annotations

from ..errors import Codes, Refusal, Text
from ..table import FOR_NOBODY

__all__ = ["CODES", "unknown"]

CODES = Codes("tower_defense")

NO_TOWER_DEFENSE = CODES("no_tower_defense", "この部屋にタワーディフェンスはありません。",
                         "This room has no tower defense.")

# -- ids that name nothing (echoed cut to 64 characters) ----------------------------------
UNKNOWN = {
    "pc": CODES("unknown_pc", "PC「{id}」はいません。", "There is no PC '{id}'."),
    "fort": CODES("unknown_fort", "砦「{id}」はありません。", "There is no fort '{id}'.",
                  rule="TD-MAP-1"),
    "group": CODES("unknown_group", "集団「{id}」はいません。", "There is no group '{id}'."),
    "weapon": CODES("unknown_weapon", "攻撃手段「{id}」はありません（そのPCの武器ではありません）。",
                    "There is no weapon '{id}' (not one of this PC's).", rule="TD-SET-1"),
    "direction": CODES("unknown_direction", "方向「{id}」はありません。",
                       "There is no direction '{id}'.", rule="TD-MAP-1"),
    "individual": CODES("unknown_individual", "特異個体「{id}」はいません。",
                        "There is no special individual '{id}'."),
    "passage": CODES("unknown_passage", "通路「{id}」はありません。", "There is no passage '{id}'.",
                     rule="TD-MAP-1"),
}
NO_SPECIAL_AMMO = CODES("no_special_ammo", "{weapon}に特殊弾はありません。",
                        "{weapon} has no special rounds.", rule="TD-DATA")

# -- the round (TD-RND, TD-PRE-1, TD-REIN-1) --------------------------------------------
STALE_PHASE = CODES("stale_phase", "フェイズはすでに{now}です。", "The phase is already {now}.",
                    rule="TD-RND")
TD_OVER = CODES("td_over", "タワーディフェンスは決着済みです（{outcome}）。",
                "The tower defense is over ({outcome}).", rule="TD-RND")
WRONG_PHASE = CODES("wrong_phase", "今は{now}です。この操作は{need}にだけできます。",
                    "It is the {now_en} phase; this is allowed only in the {need_en} phase.",
                    rule="TD-ATK-1")
NOT_SETUP = CODES("not_setup", "今は{now}です。この操作は{need}（第1ラウンドの前）にだけできます。",
                  "It is the {now_en} phase; this is allowed only in {need_en} (before round 1).",
                  rule="TD-PRE-1")
PC_WITHOUT_FORT = CODES("pc_without_fort", "「{name}」の初期位置の砦が決まっていません。",
                        "'{name}' has no starting fort yet.", rule="TD-PRE-1")
SAN_PENDING = CODES("san_pending", "SANチェックの確認が済んでいません。",
                    "The SAN checks are not confirmed yet.", rule="TD-REIN-1")

# -- setup: traps (TD-PRE-1, TD-OPT-1) ---------------------------------------------------
TRAP_LIMIT = CODES("trap_limit", "罠はあと{left}個しか仕掛けられません。",
                   "Only {left} more trap(s) allowed.", rule="TD-PRE-1")
TRAP_SKILL = CODES("trap_skill", "罠は{skills}で仕掛けます。", "Traps are set with {skills}.",
                   rule="TD-PRE-1")
GM_ONLY = CODES("gm_only", "判定なしの配置はGMだけができます。",
                "Only the GM may place without a check.", rule="TD-PRE-1")

# -- the PC attack phase (TD-ATK-1..4, TD-DATA) -------------------------------------------
NOT_YOUR_PC = CODES("not_your_pc", "「{name}」はあなたの探索者ではありません。",
                    "'{name}' is not your character.", rule="TD-ATK-1", nobody=FOR_NOBODY)
ALREADY_ACTED = CODES("already_acted", "このフェイズには{what}済みです。",
                      "Already {what_en} this phase.", rule="TD-ATK-3")
NOT_ADJACENT = CODES("not_adjacent", "{a}から{b}へは通路がつながっていません。",
                     "No passage joins {a} and {b}.", rule="TD-ATK-1")
WRONG_WEAPON = CODES("wrong_weapon", "{weapon}は{want}には使えません。",
                     "{weapon} cannot be used for {want_en}.", rule="TD-ATK-3")
NOT_AN_EYE = CODES("not_an_eye", "{weapon}は魔眼ではありません。", "{weapon} is not an evil eye.",
                   rule="TD-DATA")
SHOTS_MISMATCH = CODES("shots_mismatch", "shots と results の数が合いません（{shots}回に{lines}行）。",
                       "shots and results disagree ({shots} shots, {lines} lines).",
                       rule="TD-ATK-3")
OUT_OF_RANGE = CODES("out_of_range", "「{group}」は{weapon}の射程外です。",
                     "'{group}' is out of range of {weapon}.", rule="TD-ATK-4")
TOO_MANY_ATTACKS = CODES("too_many_attacks", "{weapon}はこのラウンドあと{left}回しか攻撃できません。",
                         "{weapon} may attack only {left} more time(s) this round.",
                         rule="TD-ATK-3")
OUT_OF_AMMO = CODES("out_of_ammo", "{weapon}の残弾は{left}発です。リロードが必要です。",
                    "{weapon} has {left} round(s) left; reload first.", rule="TD-ATK-3")
OUT_OF_SPECIAL = CODES("out_of_special", "{ammo}の残りは{left}発です。", "Only {left} {ammo} left.",
                       rule="TD-DATA")
NO_RELOAD = CODES("no_reload", "{weapon}はリロードできません。", "{weapon} does not reload.",
                  rule="TD-ATK-3")

# -- checks: rolled, or read from a reported BCDice line (TD-ATK-2, TD-OPT-2) -------------
NO_SKILL = CODES("no_skill", "「{name}」に技能「{skill}」の値がありません。",
                 "'{name}' has no value for '{skill}'.", rule="TD-SET-1")
NO_REPORTED_RESULTS = CODES("no_reported_results",
                            "この部屋では役割「{role}」はダイス結果を報告できません。",
                            "In this room the role '{role}' may not report dice results.")
BAD_RESULT = CODES("bad_result", "ダイス結果「{line}」を読めません（{reason_ja}）。",
                   "Cannot read the dice result '{line}' ({reason}).",
                   difficulty=Text("「{line}」は難易度つきのCC判定（CC<=50H など）です。成功/失敗しか出ず、"
                                   "目標値も技能値ではないため、タワーディフェンスでは使えません。"
                                   "難易度なしで振ってください。",
                                   "'{line}' is a CC check with a difficulty (CC<=50H etc.): it "
                                   "shows only 成功/失敗 against a target that is not the skill, so "
                                   "tower defense cannot use it. Roll it without a difficulty."),
                   not_a_degree=Text("「{line}」は成功度のわかるCC判定の結果ではありません。",
                                     "'{line}' is not a CC check result with a success level."))
RESULT_TARGET_MISMATCH = CODES("result_target_mismatch",
                               "結果の目標値{got}が技能値{want}（{skill}）と違います。",
                               "The result's target {got} differs from the skill value {want} "
                               "({skill}).", rule="TD-ATK-2")
RESULT_INCONSISTENT = CODES("result_inconsistent", "結果「{line}」の成功度が出目と目標値に合いません。",
                            "The level in '{line}' does not match its value and target.",
                            rule="TD-ATK-2")
PENALTY_DIE_MISSING = CODES("penalty_die_missing",
                            "凍てつく者によりペナルティダイス{n}個が必要です（結果は[{bonus}]）。",
                            "凍てつく者 imposes {n} penalty die (the result shows [{bonus}]).",
                            rule="TD-OPT-2")


def unknown(what: str, ident: str) -> Refusal:
    """`unknown_<what>`: there is no such thing; the id is echoed cut to 64 characters."""
    return UNKNOWN[what].missing(ident)
