"""Every refusal engagement gives, declared once with its rule and ja/en reason (docs/
engagement.md has the table by rule). A code means one thing under one rule: where the
same limit exists under two rules (a guard and a cover for another) each has its own code.

The dice-line codes cite komasync's ENG-ROLL and name the rule the dice come from in their
reason; `no_dp` cites ENG-DP and names the rule of the cost.
"""

from __future__ import annotations

from ..codes import UNKNOWN_CHARACTER
from ..errors import Code, Codes, Text
from ..table.refusals import UNKNOWN_PIECE

#: `UNKNOWN_CHARACTER` (the core's) and `UNKNOWN_PIECE` (the table's) are shared
#: declarations, named here so engagement raises every code from one module.
__all__ = ["CODES", "UNKNOWN_CHARACTER", "UNKNOWN_PIECE"]

CODES = Codes("engagement")
C = CODES

# -- the room, the battle, the characters --------------------------------------------
NO_ENGAGEMENT = C("no_engagement", "このルームには接近状態のルールがありません。",
                  "This room has no engagement rules.")
NOT_ACTIVE = C("not_active", "戦闘が始まっていません（ENG-TURN）。",
               "The battle has not started (ENG-TURN).", rule="ENG-TURN")
NOT_YOUR_CHARACTER = C("not_your_character", "「{n}」はあなたのキャラクターではありません。",
                       "'{n}' is not your character.")
NO_DP = C("no_dp", "「{n}」のDPが足りません（残り{have}、必要{need}、{rule}、ENG-DP）。",
          "{n} has too little DP ({have} left, {need} needed, {rule}, ENG-DP).", rule="ENG-DP")

# -- the turn (ENG-TURN) ------------------------------------------------------------
ALREADY_ACTIVE = C("already_active", "戦闘はもう始まっています。", "The battle is already on.",
                   rule="ENG-TURN")
WRONG_PHASE = C("wrong_phase", "{phase}の次は{next}です（ENG-TURN）。",
                "After the {phase_en} comes the {next_en} (ENG-TURN).", rule="ENG-TURN")
EXCHANGE_OPEN = C(
    "exchange_open", "「{n}」の攻撃の処理中です。終わってから宣言してください（ENG-TURN）。",
    "{n}'s attack is still being resolved; declare after it (ENG-TURN).", rule="ENG-TURN",
    phase=Text("攻撃の処理が終わっていません（{n}）。解決するか取り消してから進めてください（ENG-TURN）。",
    "An attack is still being resolved ({n}); finish or cancel it first (ENG-TURN)."))
NOT_MAIN_PHASE = C("not_main_phase", "{what}はメインフェイズの攻撃行動です（今は{phase}、ENG-TURN）。",
                   "{what_en} is an attack action of the main phase (now: {phase_en}, ENG-TURN).",
                   rule="ENG-TURN")
NOTHING_TO_ANSWER = C("nothing_to_answer", "いま防御する攻撃はありません（ENG-TURN）。",
                      "There is no attack to answer now (ENG-TURN).", rule="ENG-TURN")
NO_CHECK_WAITING = C("no_check_waiting", "いま結果を待っている判定はありません（ENG-TURN）。",
                     "No check is waiting for a result now (ENG-TURN).", rule="ENG-TURN")
NOT_AWAITED = C("not_awaited", "待っているのは「{n}」の判定です（ENG-TURN）。",
                "The check waiting is {n}'s (ENG-TURN).", rule="ENG-TURN")
NOT_THE_TARGET = C("not_the_target", "攻撃を受けるかどうかは「{t}」が決めます（ENG-TURN）。",
                   "Whether to take the attack is for {t} to say (ENG-TURN).", rule="ENG-TURN")
NOTHING_OPEN = C("nothing_open", "処理中の攻撃はありません（ENG-TURN）。",
                 "No attack is being resolved (ENG-TURN).", rule="ENG-TURN")

# -- the relation (ENG-1, ENG-IN-1, ENG-EF-*, ENG-HAND-1, ENG-SETUP) --------------------
SELF = C("self", "接近状態は二人のキャラクターの間のものです（ENG-1）。",
         "Engagement is between two characters (ENG-1).", rule="ENG-1")
NOT_YOUR_ABILITY = C("not_your_ability", "能力を使うのは自分のキャラクターです（ENG-IN-1）。",
                     "An ability is used by your own character (ENG-IN-1).", rule="ENG-IN-1")
NOT_LINKED = C("not_linked", "「{a}」と「{b}」は接近状態ではありません（ENG-EF-3）。",
               "{a} and {b} are not engaged (ENG-EF-3).", rule="ENG-EF-3")
NOT_ENGAGED = C("not_engaged", "「{n}」は「{t}」と接近状態ではないので近接攻撃できません（ENG-EF-1）。",
                "{n} is not engaged with {t} and cannot melee it (ENG-EF-1).", rule="ENG-EF-1")
NOT_ENGAGED_SETUP = C(
    "not_engaged_setup", "「{n}」は「{t}」と接近状態ではないので近接攻撃できません（ENG-EF-2）。",
    "{n} is not engaged with {t} and cannot melee it (ENG-EF-2).", rule="ENG-EF-2")
NOT_NOW = C("not_now", "近接攻撃はメインフェイズと、前のターンからの接近状態ならセットアップにだけ行えます"
            "（ENG-EF-1、ENG-EF-2）。",
            "Melee happens in the main phase, and at a setup against an engagement from the "
            "turn before (ENG-EF-1, ENG-EF-2).", rule="ENG-EF-1")
SETUP_MELEE_USED = C(
    "setup_melee_used", "「{n}」はこのセットアップでもう近接攻撃をしました（1回まで、ENG-EF-2）。",
    "{n} has already made its setup melee (once per setup, ENG-EF-2).",
    rule="ENG-EF-2")
ENGAGED_THIS_TURN = C(
    "engaged_this_turn",
    "「{n}」と「{t}」の接近状態はこのターンに成立しました。近接攻撃はメインフェイズと次の"
    "セットアップで行えます（ENG-SETUP）。",
    "{n} and {t} became engaged this turn: they may melee in the main phase and at the next "
    "setup (ENG-SETUP).", rule="ENG-SETUP")
LEFT = C("left", "「{t}」は「{n}」との接近状態から離脱しました。このセットアップで対象にできません"
         "（ENG-HAND-1）。",
         "{t} left its engagement with {n}; it cannot be picked at this setup (ENG-HAND-1).",
         rule="ENG-HAND-1")
LEFT_BY_GUARD = C("left_by_guard", "「{t}」は「{n}」へのガードで接近状態から離脱しました（ENG-GUARD）。",
                  "{t} left its engagement with {n} when a guard took it over (ENG-GUARD).",
                  rule="ENG-GUARD")
LEFT_BY_COVER = C("left_by_cover", "「{t}」は「{n}」へのカバーで接近状態から離脱しました（ENG-COVER）。",
                  "{t} left its engagement with {n} when a cover took it over (ENG-COVER).",
                  rule="ENG-COVER")

# -- approach and melee (ENG-ACT-1/2) --------------------------------------------------
NO_MELEE_SKILL = C("no_melee_skill", "「{n}」は〈近接戦闘〉を習得していないので接近できません（ENG-ACT-1）。",
                   "{n} has no 〈近接戦闘〉 and cannot approach (ENG-ACT-1).", rule="ENG-ACT-1")
ALREADY_ENGAGED = C("already_engaged", "「{n}」は「{p}」と接近状態なので接近できません（ENG-ACT-1）。",
                    "{n} is engaged with {p} and cannot approach (ENG-ACT-1).", rule="ENG-ACT-1")
ROW = C("row", "「{n}」はこの位置関係では接近できません（{rows}、ENG-ACT-1）。",
        "{n} cannot approach from here ({rows_en}, ENG-ACT-1).", rule="ENG-ACT-1")
APPROACH_NO_DEFENCE = C(
    "approach_no_defence", "接近は目標値との判定です。回避やガードではなく、味方のカバーだけが割り込めます"
    "（ENG-ACT-1、ENG-COVER）。",
    "An approach is checked against a target number; no evasion or guard, only an ally's "
    "cover answers it (ENG-ACT-1, ENG-COVER).", rule="ENG-ACT-1")
NO_WEAPON_TRAINING = C(
    "no_weapon_training", "[近接武器鍛錬]がないのでグレイズでダメージを増やせません（ENG-ACT-2）。",
    "Without [近接武器鍛錬] grazes cannot raise the damage (ENG-ACT-2).",
    rule="ENG-ACT-2")
FEW_GRAZES = C("few_grazes", "「{n}」のグレイズが足りません（{have}）（ENG-ACT-2）。",
               "{n} has too few grazes ({have}) (ENG-ACT-2).", rule="ENG-ACT-2")

# -- evasion and guard (ENG-GUARD) -------------------------------------------------------
ONLY_TARGET_EVADES = C("only_target_evades", "回避できるのは攻撃を受ける「{t}」だけです（ENG-GUARD）。",
                       "Only {t}, who is attacked, evades (ENG-GUARD).", rule="ENG-GUARD")
GUARD_NO_SKILL = C(
    "guard_no_skill", "「{n}」は〈近接戦闘〉を習得していないのでガードできません（ENG-GUARD）。",
    "{n} has no 〈近接戦闘〉 and cannot guard (ENG-GUARD).", rule="ENG-GUARD")
GUARD_USED = C(
    "guard_used", "「{n}」はこのターンもうガードしました（1ターンに1回、自分への近接攻撃は別、ENG-GUARD）。",
    "{n} has already guarded this turn (once per turn; melee on oneself aside, "
    "ENG-GUARD).", rule="ENG-GUARD")
COVERED_THIS_TURN = C(
    "covered_this_turn", "「{n}」はこのターンにカバーしたので、他人へのガードはできません（ENG-GUARD）。",
    "{n} covered this turn and cannot guard for another (ENG-GUARD).",
    rule="ENG-GUARD")

# -- cover (ENG-COVER) -----------------------------------------------------------------
COVER_SELF = C("cover_self", "カバーは他人の攻撃を肩代わりする行動です（ENG-COVER）。",
               "A cover takes another's attack (ENG-COVER).", rule="ENG-COVER")
COVER_TRIED = C("cover_tried", "この攻撃へのカバーは失敗済みです。「{t}」が防御します（ENG-COVER）。",
                "A cover against this attack has failed; {t} defends now (ENG-COVER).",
                rule="ENG-COVER")
GUARDED_THIS_TURN = C(
    "guarded_this_turn", "「{n}」はこのターンに他人へのガードをしたので、カバーできません（ENG-COVER）。",
    "{n} guarded for another this turn and cannot cover (ENG-COVER).",
    rule="ENG-COVER")
COVER_USED = C("cover_used", "「{n}」はこのターンもうカバーしました（1ターンに1回、ENG-COVER）。",
               "{n} has already covered this turn (once per turn, ENG-COVER).", rule="ENG-COVER")


def _for_another(act: str, ja: str, en: str, rule: str) -> dict[str, Code]:
    """The limits a guard and a cover for another share, one code each per rule:
    `<act>_attacker`, `_not_an_ally`, `_incapacitated`, `_not_front`, `_engaged`."""
    return {
        "attacker": C(f"{act}_attacker", f"攻撃している「{{n}}」は{ja}できません（{rule}）。",
                      f"{{n}} is the attacker and cannot {en} ({rule}).", rule=rule),
        "not_an_ally": C(f"{act}_not_an_ally",
                         f"「{{n}}」は「{{t}}」の味方ではないので、代わりに{ja}できません（{rule}）。",
                         f"{{n}} is not {{t}}'s ally and cannot {en} for it ({rule}).", rule=rule),
        "incapacitated": C(f"{act}_incapacitated", f"「{{n}}」は戦闘不能です（{rule}）。",
                           f"{{n}} is incapacitated ({rule}).", rule=rule),
        "not_front": C(f"{act}_not_front",
                       f"「{{n}}」は前衛ではないので、他人のために{ja}できません（{rule}）。",
                       f"{{n}} is not in the front row and cannot {en} for another ({rule}).",
                       rule=rule),
        "engaged": C(f"{act}_engaged",
                     f"「{{n}}」は「{{p}}」と接近状態なので、他人のために{ja}できません（{rule}）。",
                     f"{{n}} is engaged with {{p}} and cannot {en} for another ({rule}).",
                     rule=rule),
    }


GUARD_FOR_ANOTHER = _for_another("guard", "ガード", "guard", "ENG-GUARD")
COVER_FOR_ANOTHER = _for_another("cover", "カバー", "cover", "ENG-COVER")

# -- a check's BCDice line (ENG-ROLL) ------------------------------------------------------
BAD_RESULT = C("bad_result", "ダイスの結果として読めません: {line}（{reason_ja}、ENG-ROLL）",
               "Cannot read this as a dice result: {line} ({reason}, ENG-ROLL)", rule="ENG-ROLL",
               not_sum=Text("足し算のダイスの結果ではありません: {line}（ENG-ROLL）",
                            "Not a sum of dice: {line} (ENG-ROLL)"))
DICE_COUNT = C("dice_count", "この{what}のダイスは{want}個です（結果は{got}個、{rule}、ENG-ROLL）。",
               "This {what_en} rolls {want} dice (the result shows {got}, {rule}, ENG-ROLL).",
               rule="ENG-ROLL")
DICE_SIDES = C("dice_sides", "この{what}は{sides}面ダイスです（結果は{got}、ENG-ROLL）。",
               "This {what_en} uses {sides}-sided dice (the result shows {got}, ENG-ROLL).",
               rule="ENG-ROLL")
RESULT_INCONSISTENT = C(
    "result_inconsistent", "合計{total}はダイス{dice}（＋{base}）と合いません（ENG-ROLL）。",
    "The total {total} does not match the dice {dice} (+{base}) (ENG-ROLL).",
    rule="ENG-ROLL")

# -- the GM's hand ---------------------------------------------------------------------
EXISTS = C("exists", "「{id}」はもういます。", "'{id}' already exists.")
