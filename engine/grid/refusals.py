"""Every refusal code grid combat gives, declared once with its rule and both reasons
(docs/grid.md's code table and docs/protocol.md's are generated from these)."""

from __future__ import annotations

from ..codes import UNKNOWN_CHARACTER
from ..errors import Codes, Text
from ..table.refusals import UNKNOWN_PIECE

#: Grid's part of the registry; `UNKNOWN_CHARACTER` (the core's) and `UNKNOWN_PIECE` (the
#: table's) are shared declarations, named here so grid raises every code from one module.
__all__ = ["CODES", "UNKNOWN_CHARACTER", "UNKNOWN_PIECE"]

CODES = Codes("grid")

# -- the room, the fight, who acts -------------------------------------------------------
NO_GRID = CODES("no_grid", "このルームにはシームレス戦闘がありません。",
                "This room has no seamless combat.")
NOT_ACTIVE = CODES("not_active", "シームレス戦闘は始まっていません（GRID-RND-1）。",
                   "Seamless combat has not started (GRID-RND-1).", rule="GRID-RND-1")
ALREADY_ACTIVE = CODES("already_active", "シームレス戦闘はもう始まっています。",
                       "Seamless combat is already on.", rule="GRID-RND-1")
NO_SURPRISE = CODES(
    "no_surprise", "このシナリオでは[不意打ち]（エネミーラウンドから開始）は使いません（GRID-X-1）。",
    "This scenario does not use [surprise] (starting with the enemy round, GRID-X-1).",
    rule="GRID-X-1")
NO_PIECE = CODES("no_piece", "「{id}」の駒が卓にありません。",
                 "Character '{id}' has no piece on the table.", rule="GRID-RND-1")
NOT_YOUR_CHARACTER = CODES(
    "not_your_character",
    "「{name}」はあなたのキャラクターではありません。各PLは自分のPCのコマだけを動かします。",
    "'{name}' is not your character; each player moves only their own PC.", rule="GRID-MV-1",
    uncredited=Text("VTT上の誰の操作か分からないため、プレイヤーのキャラクター「{name}」は動かせません。",
                    "Nobody on the VTT is credited with this, so the player's character {name} "
                    "cannot be moved by it."))
NOT_ON_MAP = CODES("not_on_map", "「{name}」はマップ上にいません。", "'{name}' is not on the map.",
                   rule="GRID-ST-6")
NEED_USER = CODES("need_user", "誰のスキルかを user で指定してください。",
                  "Name whose skill it is in `user`.")
BAD_QUERY = CODES("bad_query", "from か combatant を指定してください。",
                  "Give `from` or `combatant`.")

# -- rounds and the main process ---------------------------------------------------------
PROCESS_OPEN = CODES("process_open",
                     "「{n}」のメインプロセスが進行中です。終わってから宣言してください（GRID-RND-2）。",
                     "{n}'s main process is still open; declare after it ends (GRID-RND-2).",
                     rule="GRID-RND-2")
NOT_YOUR_ROUND = CODES("not_your_round", "今は{side}です。「{n}」は行動できません（GRID-RND-2）。",
                       "It is the {side_en}; {n} cannot act now (GRID-RND-2).", rule="GRID-RND-2")
ALREADY_ACTED = CODES("already_acted", "「{n}」はこのラウンドのメインプロセスを終えています（GRID-RND-2）。",
                      "{n} has already had its main process this round (GRID-RND-2).",
                      rule="GRID-RND-2")
INCAPACITATED = CODES("incapacitated", "「{n}」は戦闘不能状態なので行動できません（GRID-ST-5）。",
                      "{n} is incapacitated and can take no action (GRID-ST-5).", rule="GRID-ST-5")
NOT_IN_PROCESS = CODES(
    "not_in_process",
    "「{n}」はメインプロセス中ではありません。戦闘中のコマはメイン"
    "プロセスでアクションを消費して動かします（GRID-MV-1）。",
    "{n} is not in its main process; during combat a piece moves only by spending its main "
    "process's actions (GRID-MV-1).", rule="GRID-MV-1")
OTHERS_PROCESS = CODES("others_process", "今は「{n}」のメインプロセス中です（GRID-RND-2）。",
                       "It is {n}'s main process now (GRID-RND-2).", rule="GRID-RND-2")
NO_FLYING_STEP = CODES(
    "no_flying_step",
    "「{n}」のメインプロセスは終わりました。メジャーで移動したので"
    "[飛行状態]のメジャー後の移動はありません（GRID-ST-4）。",
    "{n}'s main process is over: it moved in its major, so flying gives no move after the "
    "major (GRID-ST-4).", rule="GRID-ST-4")
WAITING_HINDRANCE = CODES("waiting_hindrance", "[移動妨害]の宣言を待っています（GRID-X-3）。",
                          "Waiting for the answer on [movement hindrance] (GRID-X-3).",
                          rule="GRID-X-3")
STEP_PASSED = CODES("step_passed", "{step}はもう終わっています（ムーブ→マイナー→メジャーの順、GRID-MV-1）。",
                    "The {step_en} is over (move → minor → major, GRID-MV-1).", rule="GRID-MV-1")
STEP_SPENT = CODES(
    "step_spent",
    "{step}はもう{how}に使いました。1つのタイミングは移動かアクションのどちらかです（GRID-MV-1）。",
    "The {step_en} was already spent on {how_en}; a timing is either a move or an action "
    "(GRID-MV-1).", rule="GRID-MV-1")
BOUND = CODES("bound", "「{n}」は[束縛]でマイナーアクションを行えません（移動はできます、GRID-ST-3）。",
              "{n} is bound: no minor action (moving is still allowed; GRID-ST-3).",
              rule="GRID-ST-3")
SHARING_ALLY = CODES("sharing_ally",
    "味方とコマが重なっているので、メジャーは移動にしか使えません（GRID-MV-4）。",
                     "Sharing a square with an ally, the major can only be used to move (GRID-MV-4).",
                     rule="GRID-MV-4")

# -- moving ------------------------------------------------------------------------------
SAME_SQUARE = CODES("same_square", "同じマスです。", "That is the square it already stands on.",
                    rule="GRID-MV-1")
OFF_MAP = CODES("off_map", "マス({x}, {y})はマップの外です。", "Square ({x}, {y}) is off the map.",
                rule="GRID-MV-3")
BLOCKED_SQUARE = CODES("blocked_square", "マス({x}, {y})は障害物か移動不能エリアです（GRID-MV-3）。",
                       "Square ({x}, {y}) is an obstacle or the off-map area (GRID-MV-3).",
                       rule="GRID-MV-3")
OCCUPIED = CODES("occupied", "マス({x}, {y})には敵のコマがいます。敵のコマには重なれません（GRID-MV-3）。",
                 "An enemy stands on ({x}, {y}); a piece cannot share an enemy's square (GRID-MV-3).",
                 rule="GRID-MV-3")
CANNOT_LAND = CODES("cannot_land", "({x}, {y})には置けません（障害物・マップ外・敵のいるマス、GRID-MV-3）。",
                    "Nothing can be put on ({x}, {y}) (obstacle, off the map, or an enemy's "
                    "square; GRID-MV-3).", rule="GRID-MV-3")
PATH_BLOCKED = CODES(
    "path_blocked",
    "敵のコマか障害物が道をふさいでいます。味方と戦闘不能のコマ"
    "は通過できますが、敵は通過できません（GRID-MV-3）。",
    "Enemies or obstacles block the way; allies and incapacitated pieces can be passed, "
    "enemies cannot (GRID-MV-3).", rule="GRID-MV-3")
PARALYSED = CODES("paralysed",
    "「{n}」は[麻痺]で移動できません。ムーブアクションで解除できます（GRID-ST-2）。",
                  "{n} is paralysed and cannot move; a move action removes it (GRID-ST-2).",
                  rule="GRID-ST-2")
NO_MAJOR_MOVE = CODES("no_major_move",
    "「{n}」はこのメインプロセスではメジャーで移動できません（GRID-SK-2）。",
                      "{n} may not move in the major this main process (GRID-SK-2).",
                      rule="GRID-SK-2")
MAGIC_ATTACK_MOVED = CODES(
    "magic_attack_moved",
    "魔法攻撃をするメインプロセスでは移動は合計1マスまでです（既に{m}マス、GRID-X-2）。",
    "A main process with a magic attack moves at most 1 square in all (already {m}; GRID-X-2).",
    rule="GRID-X-2",
    after=Text("魔法攻撃をしたのでこれ以上移動できません（GRID-X-2）。",
               "After a magic attack it may move no farther (GRID-X-2)."),
    over=Text("「{n}」のメインプロセスは終わりました。魔法攻撃をしたメインプロセスで既に移動したので、"
              "[飛行状態]のメジャー後の移動はありません（GRID-X-2）。",
              "{n}'s main process is over: it made a magic attack after moving, so flying "
              "gives no move after the major (GRID-X-2)."))
SAME_DIRECTION = CODES(
    "same_direction", "ムーブ移動スキルを使ったので、同じ方向（{d}）にしか移動できません（GRID-SK-1）。",
    "After a move skill it may move only in the same direction ({d}) (GRID-SK-1).",
    rule="GRID-SK-1")
DIAGONAL_COSTS_TWO = CODES("diagonal_costs_two",
    "斜めの移動は2マス分です。{step}の残りは{left}マスです（GRID-MV-2）。",
                           "A diagonal step costs 2 squares; {step_en} has {left} left (GRID-MV-2).",
                           rule="GRID-MV-2")
TOO_FAR = CODES(
    "too_far",
    "{cost}マス必要ですが、移動できるのは{left}マスまでです（{"
    "step}: ムーブ1・マイナー2・メジャー2、GRID-MV-1）。",
    "That takes {cost} squares; only {left} can be moved now ({step_en}: move 1, minor 2, "
    "major 2; GRID-MV-1).", rule="GRID-MV-1")
NO_STEP_LEFT = CODES("no_step_left",
    "このメインプロセスではもう移動に使えるステップがありません（GRID-MV-1）。",
                     "No step of this main process is left for moving (GRID-MV-1).",
                     rule="GRID-MV-1")
#: drop_spans_steps: false — one drop moves within one step; the later steps are there,
#: but the client must end the current one first (grid.step.end).
NOT_THIS_STEP = CODES(
    "not_this_step",
    "この移動は{step}の残り{left}マスに収まりません。このシナリオでは1回の移動は1つのステップ内です。"
    "先に grid.step.end で{step}を終えてから、次のステップで移動してください（GRID-MV-1）。",
    "This move does not fit the {left} square(s) left of the {step_en}; in this scenario one "
    "move stays within one step. End the {step_en} first (grid.step.end), then move in the "
    "next step (GRID-MV-1).", rule="GRID-MV-1",
    used=Text("{step}の移動は使い切りました。先に grid.step.end で{step}を終えてから、"
              "次のステップで移動してください（GRID-MV-1）。",
              "The {step_en}'s movement is used up; end the {step_en} first (grid.step.end), "
              "then move in the next step (GRID-MV-1)."))

# -- acting ------------------------------------------------------------------------------
WRONG_TIMING = CODES("wrong_timing", "この行動は{step}で行います（{rule}）。",
                     "This is done in the {step_en} ({rule}).", rule="GRID-MV-1")
NO_STATUS = CODES("no_status", "「{n}」は{s}ではありません。", "{n} is not {s_en}.",
                  by_id=Text("「{n}」に状態「{s}」はありません。", "{n} has no status '{s_en}'."))
STATUS_STUCK = CODES("status_stuck", "この{s}は通常の方法では解除できません（{rule}）。",
                     "This {s_en} cannot be removed the usual way ({rule}).", rule="GRID-ST-2")
MOVE_SKILL_STEP = CODES("move_skill_step", "ムーブ移動スキルは縦横に1マス移動します（GRID-SK-1）。",
                        "A move skill moves 1 square orthogonally (GRID-SK-1).", rule="GRID-SK-1")
SETUP_NEEDS_MOVE = CODES("setup_needs_move",
    "セットアップスキルはムーブとマイナーの両方を使います（GRID-X-4）。",
                         "A setup skill takes both the move and the minor (GRID-X-4).",
                         rule="GRID-X-4")
RULE_OFF = CODES("rule_off", "このシナリオでは{what}を使いません（{rule}）。",
                 "This scenario does not use {what} ({rule}).")
TELEPORT_SQUARE = CODES("teleport_square", "[瞬間移動]は障害物を無視して2マスまでです（GRID-X-4）。",
                        "[瞬間移動] moves up to 2 squares, ignoring obstacles (GRID-X-4).",
                        rule="GRID-X-4")

# -- aiming ------------------------------------------------------------------------------
OUT_OF_RANGE = CODES("out_of_range", "({x}, {y})は射程{r}の外です（{rule}）。",
                     "({x}, {y}) is outside range {r} ({rule}).", rule="GRID-RNG-1")
TARGET_OFF_MAP = CODES("target_off_map", "({x}, {y})はマップの外です（GRID-RNG-1）。",
                       "({x}, {y}) is off the map (GRID-RNG-1).", rule="GRID-RNG-1")
OWN_SQUARE_ORIGIN = CODES("own_square_origin", "自分のマスを範囲の起点にはできません（GRID-AREA-1）。",
                          "An area cannot be centred on the user's own square (GRID-AREA-1).",
                          rule="GRID-AREA-1")
NO_LINE_OF_SIGHT = CODES(
    "no_line_of_sight", "({x}, {y})との間に遮蔽物があります。射程視界の行動はできません（GRID-LOS-1）。",
    "An obstacle stands between them and ({x}, {y}); no line-of-sight action (GRID-LOS-1).",
    rule="GRID-LOS-1")
ASK_GM_RANGE = CODES("ask_gm_range",
    "判定「{c}」の射程はGMが決めます。先に射程をGMに聞いてください（GRID-RNG-3）。",
                     "The GM sets the range of the check '{c}'; ask the GM for it first "
                     "(GRID-RNG-3).", rule="GRID-RNG-3")
NOT_A_RANGE = CODES("not_a_range", "射程は0以上の整数で答えてください（GRID-RNG-3）。",
                    "Answer the range with a whole number, 0 or more (GRID-RNG-3).",
                    rule="GRID-RNG-3")

# -- skills that move others -------------------------------------------------------------
FLASH_TARGETS = CODES("flash_targets", "[独妙閃光]の対象はエネミー1～2体です（GRID-SK-3）。",
                      "[独妙閃光] targets one or two enemies (GRID-SK-3).", rule="GRID-SK-3")
FLASH_LINE = CODES(
    "flash_line", "[独妙閃光]の対象は同じ列（8方向のいずれか、4マス以内）にいるエネミーです（GRID-SK-3）。",
    "[独妙閃光] targets enemies on one line of the 8 directions, within 4 squares (GRID-SK-3).",
    rule="GRID-SK-3")
FLASH_NOT_ENEMY = CODES("flash_not_enemy", "「{n}」はエネミーではありません（GRID-SK-3）。",
                        "{n} is not an enemy (GRID-SK-3).", rule="GRID-SK-3")
COVER_OUT_OF_RANGE = CODES("cover_out_of_range",
    "[カバーリング]の射程は2です。「{n}」は届きません（GRID-SK-3）。",
                           "[カバーリング] has range 2; {n} is out of reach (GRID-SK-3).",
                           rule="GRID-SK-3")
NOT_ADJACENT = CODES("not_adjacent", "[強制転移]の移動先は対象に隣接した1マスです（GRID-SK-3）。",
                     "[強制転移] moves the target to a square adjacent to it (GRID-SK-3).",
                     rule="GRID-SK-3")
CHOOSE_NEAREST = CODES("choose_nearest",
    "もっとも近い対象が複数います（{names}）。nearest で選んでください（GRID-X-5）。",
                       "Several targets are nearest ({names}); pick one in `nearest` (GRID-X-5).",
                       rule="GRID-X-5")
CHOOSE_DIRECTION = CODES(
    "choose_direction", "距離がもっとも縮まる方向が複数あります。direction で選んでください（GRID-X-5）。",
    "Several directions shrink the distance most; pick one in `direction` (GRID-X-5).",
    rule="GRID-X-5")
NO_DIRECTION = CODES("no_direction", "もっとも近い対象を近づけられるマスがありません（GRID-X-5）。",
                     "The nearest target has no free square towards the user (GRID-X-5).",
                     rule="GRID-X-5")
TOW_TOO_FAR = CODES("tow_too_far", "牽引できるのは射程0にあるものだけです（GRID-X-6）。",
                    "Only an object in range 0 can be towed (GRID-X-6).", rule="GRID-X-6")
TOW_SELF_MOVING = CODES(
    "tow_self_moving", "牽引できるのは自力で動けないもの（戦闘不能のキャラクターや物）です（GRID-X-6）。",
    "Only something that cannot move on its own can be towed (GRID-X-6).", rule="GRID-X-6")
TOW_SQUARE = CODES(
    "tow_square", "牽引先は自分の射程0のうち、対象の移動がもっとも短いマスです: {cells}（GRID-X-6）。",
    "The object goes to a square in the user's range 0 where its travel is shortest: {cells} "
    "(GRID-X-6).", rule="GRID-X-6")

# -- the GM's data -----------------------------------------------------------------------
EXISTS = CODES("exists", "「{id}」はもういます。", "'{id}' already exists.")
PIECE_TAKEN = CODES("piece_taken", "駒「{id}」はもう「{c}」です。", "Piece '{id}' already is '{c}'.")
