"""The seed's default data set (MASS-DATA): its 10 formations and its strategy list.

Each entry names the handler that implements it (`effect`) and keeps the seed's words
(`ja_text`) beside an English gloss. A scenario may replace or add entries by id;
全軍突撃 has no effect in the seed, so by default it is `manual` (the GM applies it).
"""

from __future__ import annotations

from .model import FormationSpec, StrategySpec

__all__ = ["DEFAULT_FORMATIONS", "DEFAULT_STRATEGIES", "default_formations",
           "default_strategies"]

F = FormationSpec
S = StrategySpec

DEFAULT_FORMATIONS: tuple[FormationSpec, ...] = (
    F(id="縦列陣形", en="Column", ja_text="特に効果なし。", en_text="No effect."),
    F(id="防壁の波陣", en="Rampart wave", attack=-1, defence=2,
      ja_text="攻撃力－１　防御力＋２", en_text="Attack −1, defence +2."),
    F(id="攻撃の波陣", en="Attack wave", attack=2, defence=-1,
      ja_text="攻撃力＋２　防御力－１", en_text="Attack +2, defence −1."),
    F(id="疾風陣", en="Gale", effect="first",
      ja_text="ターンの一番最初に行動できる。", en_text="Acts first in the turn."),
    F(id="強撃陣", en="Heavy strike", attack=4, defence=-2,
      ja_text="攻撃力＋４　防御力－２", en_text="Attack +4, defence −2."),
    F(id="波状盾の陣", en="Wave shield", attack=-2, defence=4,
      ja_text="攻撃力－２　防御力＋４", en_text="Attack −2, defence +4."),
    F(id="片翼突撃の陣", en="One-wing charge", effect="reroll_front",
      ja_text="前列の攻撃力ダイスを一回だけ振り直せる。",
      en_text="May reroll the front-row attack die once (a turn)."),
    F(id="中央突破の陣", en="Central breakthrough", defence=-1, effect="fixed_die", value=3,
      ja_text="防御力－１、攻撃判定のダイスが３で固定になる。",
      en_text="Defence −1; the attack die is fixed at 3."),
    F(id="三波状陣", en="Triple wave", effect="surge", value=3,
      ja_text="１ターンに３回まで攻撃力か防御力を一時的に＋１できる。",
      en_text="Up to 3 times a turn, +1 attack or defence for one attack."),
    F(id="背水の陣", en="Back to the river", effect="backwater",
      ja_text="防御力０、攻撃力が「最大戦力－現在戦力」となる。",
      en_text="Defence 0; attack = max strength − current strength."),
)

DEFAULT_STRATEGIES: tuple[StrategySpec, ...] = (
    # -- 攻撃系
    S(id="全軍突撃", en="All-out charge", uses=1, effect="manual",
      ja_text="（効果の記載なし：シナリオで定めるかGMが調整）",
      en_text="(No effect in the seed: the scenario sets one or the GM adjusts by hand.)"),
    S(id="指揮官突撃", en="Commander's charge", uses=1, effect="commander_charge",
      ja_text="１回だけＰＣの武器や術法技能の基準値を攻撃力にする。ただしその際に部隊が受ける"
              "ダメージは必ずＰＣのＬＰに受ける。",
      en_text="Once, the PC's weapon/magic base value is the attack; damage the unit takes "
              "meanwhile (this turn) goes to the PC's LP."),
    S(id="後列前進", en="Rear advance", uses=None, effect="rear_advance",
      ja_text="前列の部隊が使うと防御力＋１、後列の部隊が使うと攻撃力＋１。",
      en_text="Front: defence +1. Back: attack +1."),
    S(id="前列前進", en="Front advance", uses=None, effect="front_advance",
      ja_text="前列の部隊が使うと攻撃力＋１、後列の部隊が使うと防御力＋１",
      en_text="Front: attack +1. Back: defence +1."),
    S(id="前進攻撃", en="Advancing attack", uses=None, effect="advance_attack",
      ja_text="前列の部隊が使うと、後列１部隊の戦力を１点回復。後列の部隊が使うと、前列の１部隊の"
              "攻撃力＋１。",
      en_text="Front: one back-row unit recovers 1 strength. Back: one front-row unit attack +1."),
    S(id="後退攻撃", en="Retreating attack", uses=4, effect="retreat_attack",
      ja_text="前列が使用すると、前列に攻撃された際の攻撃力ボーナスを打ち消す。後列が使用すると"
              "攻撃力＋１。",
      en_text="Front: cancels the bonus of front-row attacks on it. Back: attack +1."),
    S(id="強撃前進", en="Heavy advance", uses=4, effect="strong_advance",
      ja_text="前列で使用すると攻撃力＋１Ｄ６。後列が使用すると戦力１点回復。",
      en_text="Front: attack +1D6. Back: recovers 1 strength."),
    S(id="爆裂部隊", en="Blast squad", uses=1, effect="blast",
      ja_text="戦力を１Ｄ６点減らし、対象１部隊の戦力を「減らした戦力＋１Ｄ６」点減少させる。",
      en_text="Lose 1D6 strength; one target unit loses (that much + 1D6)."),
    # -- 回復系
    S(id="全軍後退", en="General withdrawal", category="recovery", uses=None,
      effect="full_retreat",
      ja_text="部隊の戦力を１Ｄ６点回復。ただし回復した分だけ防御力がターン終了時まで低下する。",
      en_text="Recover 1D6 strength; defence falls by the amount recovered until turn end."),
    S(id="全軍防御", en="General defence", category="recovery", uses=None,
      effect="full_defence",
      ja_text="戦力を１点消費して、防御力を１Ｄ６点増加させる。",
      en_text="Spend 1 strength; defence +1D6."),
    S(id="全軍防御・強", en="General defence+", category="recovery", uses=1,
      effect="full_defence_strong",
      ja_text="味方部隊全体の防御力を１Ｄ６点増加、戦力消費はしない。",
      en_text="Every allied unit: defence +1D6, no strength spent."),
    S(id="統率回復", en="Rally", category="recovery", uses=3, effect="rally",
      ja_text="部隊の戦力１Ｄ６点回復", en_text="Recover 1D6 strength."),
    S(id="統率回復・強", en="Rally+", category="recovery", uses=1, effect="rally_strong",
      ja_text="味方部隊全体の戦力を１Ｄ６点回復。", en_text="Every allied unit recovers 1D6."),
    S(id="陣形変更", en="Change formation", category="recovery", uses=3,
      effect="formation_change",
      ja_text="陣形をその場で任意のものに変更して戦力が１点回復。ただし防御力がターン中１点低下。",
      en_text="Change formation at once and recover 1 strength; defence −1 this turn."),
    S(id="陣形変更・速", en="Quick formation change", category="recovery", uses=2,
      effect="formation_change_fast",
      ja_text="陣系をその場で任意のものに変更して戦力が１点回復。防御力は低下しない。",
      en_text="Change formation at once and recover 1 strength; no defence loss."),
    S(id="速攻前進", en="Rush forward", category="recovery", uses=4, effect="rapid_front",
      ja_text="このターン中、味方全体が前列扱いとなる。",
      en_text="This turn every allied unit counts as front row."),
    S(id="速攻後退", en="Rush back", category="recovery", uses=4, effect="rapid_back",
      ja_text="このターン中、味方全体が後列扱いとなる。",
      en_text="This turn every allied unit counts as back row."),
    S(id="分断作戦", en="Divide", category="recovery", uses=1, effect="divide",
      ja_text="作戦を使用したターン中、前列から後列への攻撃にも攻撃力ボーナスが発生する。",
      en_text="This turn, front-to-back attacks (by your side) get the attack bonus too."),
    S(id="全軍退却", en="Full retreat", category="recovery", uses=1, effect="retreat",
      ja_text="戦場から離脱する。いわゆる敗走。", en_text="Leave the field: the unit is routed."),
    # -- 奇策系
    S(id="情報操作", en="Disinformation", category="trick", uses=3, effect="information",
      ja_text="対象部隊の攻撃力ダイスを振りなおさせる。１回の判定につき１回のみ使用可能。",
      en_text="Make the attacker reroll its attack die; once per attack."),
    S(id="煙攻め", en="Smoke", category="trick", uses=1, effect="smoke",
      ja_text="作戦を使用したターン中、後列は攻撃の対象とならなくなる。",
      en_text="This turn your side's back row cannot be attacked."),
    S(id="雨乞い", en="Rain dance", category="trick", uses=1, effect="rain",
      ja_text="敵味方全部隊の戦力を雨で１Ｄ６点減少させる。",
      en_text="Every unit on both sides loses 1D6 strength."),
    S(id="囮作戦", en="Decoy", category="trick", uses=1, effect="decoy",
      ja_text="敵部隊の攻撃宣言に割り込み、対象を自分の部隊に書き換える。",
      en_text="On an enemy attack declaration, make your unit its target."),
    S(id="偽りの白旗", en="False white flag", category="trick", uses=1, effect="white_flag",
      ja_text="相手の攻撃力ダイスの修正を攻撃された瞬間だけ自部隊が受ける。",
      en_text="When attacked, your unit takes the attacker's die bonus (as defence)."),
    S(id="投石部隊", en="Stone throwers", category="trick", uses=1, effect="stones",
      ja_text="使用と対象部隊を予め宣言し、そのターンの最後に宣言した部隊の戦力に「１Ｄ６」点の"
              "ダメージを与える。",
      en_text="Declared with a target in the tactics step; at turn end the target takes 1D6."),
)


def default_formations() -> dict[str, FormationSpec]:
    return {f.id: f.model_copy() for f in DEFAULT_FORMATIONS}


def default_strategies() -> dict[str, StrategySpec]:
    return {s.id: s.model_copy() for s in DEFAULT_STRATEGIES}
