"""Every refusal code mass combat gives (the `mass` group of the registry), with its rule
and both reasons; docs/protocol.md's code table is generated from these.

A code whose reason depends on which rule refused it (a step-bound action, ownership)
declares its most common rule; `CODE.refuse(under=…)` names the rule of the check that refused.
"""

from __future__ import annotations

from ..errors import Codes, Text

__all__ = ["CODES"]

CODES = Codes("mass")
C = CODES

# -- lookups (rules.py) ---------------------------------------------------------------------
NO_MASS = C("no_mass", "この部屋にマスコンバットはありません。", "This room has no mass combat.")
UNKNOWN_UNIT = C("unknown_unit", "部隊「{id}」はありません。", "There is no unit '{id}'.")
UNKNOWN_FORMATION = C("unknown_formation", "陣形「{id}」はありません。",
                      "There is no formation '{id}'.", rule="MASS-DATA")
UNKNOWN_STRATEGY = C("unknown_strategy", "作戦「{id}」はありません。",
                     "There is no strategy '{id}'.", rule="MASS-DATA")
UNKNOWN_SIDE = C("unknown_side", "陣営「{id}」はありません。", "There is no side '{id}'.",
                 rule="MASS-END")

# -- the turn (rules.py, flow.py) -----------------------------------------------------------
MASS_OVER = C("mass_over", "戦争は決着済みです。", "The war is over.", rule="MASS-END")
WRONG_STEP = C("wrong_step", "今は{now}です。この操作は{need}にだけできます。",
               "It is the {now_en} step; this is allowed only in the {need_en} step.",
               rule="MASS-T-3",
               stones=Text("投石部隊は戦術決定のときに宣言します。",
                           "Stone throwers are declared in the tactics step."))
STALE_STEP = C("stale_step", "ステップはすでに{now}です。", "The step is already {now_en}.",
               rule="MASS-T-3")
STRENGTH_MISSING = C("strength_missing", "「{name}」の最大戦力が決まっていません。",
                     "'{name}' has no max strength yet.", rule="MASS-PREP-1")
UNIT_UNPLACED = C("unit_unplaced", "「{name}」の配置（前列・後列）が決まっていません。",
                  "'{name}' has no row (front or back) yet.", rule="MASS-T-1")
UNITS_TO_ACT = C("units_to_act", "まだ行動していない部隊があります: {names}",
                 "Some units have not acted yet: {names}", rule="MASS-T-3")
NOT_YOUR_UNIT = C("not_your_unit", "「{name}」はあなたの部隊ではありません。",
                  "'{name}' is not your unit.", rule="MASS-T-3",
                  for_nobody=Text("「{name}」はプレイヤーの部隊です。ブリッジからは、VTTがその持ち主と"
                                  "特定した操作でだけ動かせます。",
                                  "'{name}' is a player's unit: through a bridge it acts only for "
                                  "its owner as the VTT identified them."))
UNIT_ROUTED = C("unit_routed", "「{name}」は敗走しています。", "'{name}' has been routed.",
                rule="MASS-PREP-2")
ALREADY_ACTED = C("already_acted", "「{name}」はこのターンすでに行動しました。",
                  "'{name}' has already acted this turn.", rule="MASS-T-3")
NOT_YOUR_TURN = C("not_your_turn", "今は「{current}」の行動です。",
                  "It is '{current}''s turn to act.", rule="MASS-T-3")
ALREADY_DELAYED = C("already_delayed", "「{name}」はすでに行動を遅らせています。",
                    "'{name}' has already delayed.", rule="MASS-T-3")

# -- what the war waits for (rules.no_prompt_open): the reason is the prompt's rule; a sender
#    not shown the prompt gets the `elsewhere` reason, naming nothing -------------------------
REBALANCE_PENDING = C(
    "rebalance_pending",
    "{side}の前列が後列より少ないため（前列≧後列）、後列から前列へ移る部隊が決まるのを待っています。",
    "{side_en}'s front row has fewer units than its back row (front ≥ back): waiting for who "
    "moves forward.", rule="MASS-T-1",
    elsewhere=Text("前列が後列より少ないため（前列≧後列）、ほかの参加者が前列へ移る部隊を決めるのを"
                   "待っています。",
                   "A front row has fewer units than its back row (front ≥ back): waiting for "
                   "someone else to choose who moves forward."))
ODD_POINT_PENDING = C(
    "odd_point_pending",
    "「{name}」の戦力は奇数です。余りの1点を攻撃力と防御力のどちらに振るかの答えを待っています。",
    "'{name}' has an odd strength: waiting for where its extra point goes (attack or "
    "defence).", rule="MASS-T-1",
    elsewhere=Text("戦力が奇数の部隊の余り1点の振り分けを、ほかの参加者が決めるのを待っています。",
                   "Waiting for someone else to say where an odd strength's extra point goes."))
LP_PENDING = C("lp_pending", "「{name}」へのダメージのうち指揮官のLPで受ける点数の答えを待っています。",
               "Waiting for how much of the damage to '{name}' its leader takes on LP.",
               rule="MASS-DMG-2",
               elsewhere=Text("ほかの参加者が、ダメージのうちLPで受ける点数を決めるのを待っています。",
                              "Waiting for someone else to say how much damage goes to LP."))
REACTION_PENDING = C("reaction_pending", "「{attacker}」の攻撃への割り込み（作戦・陣形）の答えを"
                     "待っています。",
                     "Waiting for reactions (strategies, formations) to '{attacker}''s attack.",
                     rule="MASS-DMG-1",
                     elsewhere=Text("ほかの参加者が、攻撃への割り込み（作戦・陣形）を決めるのを"
                                    "待っています。",
                                    "Waiting for someone else to react to the attack "
                                    "(strategies, formations)."))

# -- preparation (prep.py) ------------------------------------------------------------------
STRENGTH_SET = C("strength_set", "「{name}」の最大戦力はすでに{value}です。",
                 "'{name}' already has max strength {value}.", rule="MASS-PREP-1")
GM_ONLY = C("gm_only", "戦力の値を直接決められるのはGMだけです。",
            "Only the GM may set a strength directly.", rule="MASS-PREP-1")
BAD_ABILITY = C("bad_ability", "戦力は{abilities}の判定で決めます（{lp_abilities}はLP1点）。",
                "Strength is a check of {abilities} ({lp_abilities} for 1 LP).",
                rule="MASS-PREP-1")
NO_ABILITY = C("no_ability", "「{name}」に能力値「{ability}」がありません（判定結果を報告してください）。",
               "'{name}' has no value for '{ability}' (report the check result instead).",
               rule="MASS-PREP-1")
NO_LP = C("no_lp", "「{name}」にはLPが1点もありません。", "'{name}' has no LP to pay.",
          rule="MASS-PREP-1")
BAD_SKILL = C("bad_skill", "取得数は（メンタル＋{skills}技能LV）÷2で決まります。",
              "The number of picks is (メンタル + {skills} skill LV) ÷ 2.", rule="MASS-PREP-3")
TOO_MANY_PICKS = C("too_many_picks", "取得できるのは{limit}個までです（選んだのは{n}個）。",
                   "Only {limit} pick(s) allowed ({n} chosen).", rule="MASS-PREP-3")
DUPLICATE_PICK = C("duplicate_pick", "「{id}」が二度選ばれています。", "'{id}' is chosen twice.",
                   rule="MASS-PREP-3")
NOT_OWNED = C("not_owned", "「{name}」は陣形「{formation}」を取得していません。",
              "'{name}' does not own the formation '{formation}'.", rule="MASS-T-2",
              strategy=Text("「{name}」は作戦「{strategy}」を取得していません。",
                            "'{name}' does not own the strategy '{strategy}'."))

# -- attacks (actions.py, attack.py) --------------------------------------------------------
BAD_TARGET = C("bad_target", "「{name}」は味方です。", "'{name}' is on your side.",
               rule="MASS-DMG-1",
               strategy=Text("「{target}」は「{strategy}」の対象にできません（{what}）。",
                             "'{target}' is not a valid target of '{strategy}' ({what_en})."))
BACK_TO_BACK = C("back_to_back", "後列から後列の部隊は通常攻撃の対象にできません。",
                 "A back-row unit cannot attack a back-row unit.", rule="MASS-DMG-1")
SMOKE_SCREEN = C("smoke_screen", "煙攻めのため、このターン「{name}」（後列）は攻撃の対象になりません。",
                 "Smoke: '{name}' (back row) cannot be attacked this turn.", rule="MASS-DATA")

# -- strategies (strategies.py, uses.py) ----------------------------------------------------
NO_USES_LEFT = C("no_uses_left", "作戦「{strategy}」の使用回数が残っていません。",
                 "The strategy '{strategy}' has no uses left.", rule="MASS-DATA")
NO_STACKING = C("no_stacking",
                "「{target}」にはこのターンすでに「{strategy}」がかかっています（重ねがけは無効）。",
                "'{target}' already has '{strategy}' on it this turn (no stacking).",
                rule="MASS-STRAT-1",
                nobody=Text("「{strategy}」を新たにかけられる味方がいません（重ねがけは無効）。",
                            "No ally can take '{strategy}' now (no stacking)."))
REACTION_ONLY = C("reaction_only", "「{strategy}」は攻撃への割り込みで使います（問いに答えてください）。",
                  "'{strategy}' is used as a reaction to an attack (answer its prompt).",
                  rule="MASS-DATA")
NEED_TARGET = C("need_target", "「{strategy}」には対象（{what}）が必要です。",
                "'{strategy}' needs a target ({what_en}).", rule="MASS-DATA")
NO_WEAPON_BASE = C("no_weapon_base", "「{name}」の指揮官に武器・術法技能の基準値がありません。",
                   "'{name}' has no weapon/magic base value for its leader.", rule="MASS-DATA")
NEED_FORMATION = C("need_formation", "変更先の陣形（取得済みのもの）を指定してください。",
                   "Name the formation to change to (one the unit owns).", rule="MASS-DATA")

# -- dice (dice.py) -------------------------------------------------------------------------
UNUSED_RESULT = C("unused_result",
                  "報告されたダイス結果が{n}件余りました（この操作で振るダイスは{used}個です）。",
                  "{n} reported dice result(s) were not used (this action rolls {used}).",
                  no_bonus=Text("この攻撃には攻撃力ボーナスのダイスがありません（結果は使われません）。",
                                "This attack has no bonus die (the reported result would not "
                                "be used)."))
NO_REPORTED_RESULTS = C("no_reported_results", "この部屋では役割「{role}」はダイス結果を報告できません。",
                        "In this room the role '{role}' may not report dice results.")
BAD_RESULT = C("bad_result", "ダイス結果「{line}」を読めません（{reason_ja}）。",
               "Cannot read the dice result '{line}' ({reason}).",
               not_sum=Text("「{line}」は足し算のダイスの結果ではありません。",
                            "'{line}' is not a sum of dice."))
RESULT_MISMATCH = C("result_mismatch", "「{line}」は{want}の結果ではありません。",
                    "'{line}' is not a {want} roll.", rule="MASS-DATA")
