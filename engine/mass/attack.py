"""An attack from declaration to damage (MASS-DMG-1..3), with the reactions it allows.

How this works: `mass.attack` stores a `PendingAttack` (stage `declared`). The flow
(flow.advance) then walks it, asking whoever may react at each window and moving on when
everyone asked has passed:

- `declared` — the target's side may answer 囮作戦 (a unit of theirs becomes the target).
- the attack die is rolled: +1D6 front vs front (MASS-DMG-1), front vs back only under
  分断作戦, none if the target's front row used 後退攻撃 against a front-row attacker;
  中央突破の陣 fixes it at 3; a reported BCDice line may stand for it.
- `rolled` — the attacker may reroll once a turn under 片翼突撃の陣 (front row) and use
  三波状陣's +1 attack; the target's side may make it reroll with 情報操作 (once an
  attack); the target may raise 偽りの白旗 (the die counts for its defence instead) and
  use 三波状陣's +1 defence. After any reaction everyone is asked again.
- The GM is asked at a window whenever a GM-run unit could react by what the table sees
  (its picks are the GM's), with just "pass" when it holds nothing — so whether an
  attack waits never tells the players what the GM holds (`gm_reactions: never`: GM-run
  units make no strategy reaction at all).
- damage = attack − defence, at least 1 (MASS-DMG-1); the leader may take part on LP
  (MASS-DMG-2, damage.deal). Attack and defence themselves do not move (MASS-DMG-3).
"""

from __future__ import annotations

from ..errors import Refusal, Text
from ..prompts import Prompt
from ..tx import Tx
from . import refusals as R
from .damage import deal, mass_prompts, withdraw
from .dice import Dice
from .model import MassState, Mod, PendingAttack, Unit
from .results import MassAttackResolved
from .rules import (
    PATH,
    attack_of,
    defence_of,
    has_flag,
    mass_of,
    owner_key,
    row_of,
    set_unit,
)
from .uses import activate, owns_usable, spend

__all__ = ["REACT_RESUME", "bonus_applies", "proceed_attack", "resume_react", "start_attack",
           "target_refusal"]

REACT_RESUME = "mass.react"

ASK_DECLARED = Text("「{attacker}」が「{target}」に攻撃を宣言しました。割り込みますか？",
                    "'{attacker}' declares an attack on '{target}'. React?")
ASK_ROLLED = Text("「{attacker}」→「{target}」: 攻撃力{attack}{die}、防御力{defence}。使うものは？",
                  "'{attacker}' → '{target}': attack {attack}{die_en}, defence {defence}. "
                  "Anything to use?")
PASS = Text("何もしない", "Pass")


def target_refusal(attacker: Unit, target: Unit) -> Refusal | None:
    """MASS-DMG-1 back vs back is no normal attack; 煙攻め hides a back row this turn."""
    a_row, t_row = row_of(attacker), row_of(target)
    if a_row == "back" and t_row == "back":
        return R.BACK_TO_BACK.refuse()
    if t_row == "back" and has_flag(target, "smoke"):
        return R.SMOKE_SCREEN.refuse(name=target.name)
    return None


def bonus_applies(attacker: Unit, target: Unit) -> bool:
    """MASS-DMG-1: +1D6 front vs front; front vs back only under 分断作戦."""
    a_row, t_row = row_of(attacker), row_of(target)
    if a_row != "front":
        return False
    if t_row == "front":
        return not has_flag(target, "no_front_bonus")  # 後退攻撃 (front row)
    return has_flag(attacker, "divide")


def start_attack(tx: Tx, attacker: Unit, target: Unit, reported: str | None,
                 reporter: str | None = None) -> PendingAttack:
    aid = tx.next_id("atk")
    pending = PendingAttack(id=aid, attacker=attacker.id, target=target.id, reported=reported,
                            reporter=reporter if reported else None,
                            charge=has_flag(attacker, "charge"))
    tx.set((PATH, "attack"), pending)
    tx.emit("mass.attack.declared", attack=aid, attacker=attacker.id, target=target.id)
    tx.say(Text(f"「{attacker.name}」が「{target.name}」に攻撃",
                f"'{attacker.name}' attacks '{target.name}'"))
    return pending


def proceed_attack(tx: Tx) -> None:
    """One step of the pending attack: ask a window, roll the die, or resolve."""
    m = mass_of(tx)
    a = m.attack
    assert a is not None
    if _ask_window(tx, m, a):
        return
    if a.stage == "declared":
        _roll_die(tx, m, a)
        _set(tx, stage="rolled", passed=[])
        return
    _resolve(tx, m, a)


# -- windows ---------------------------------------------------------------------------


def _options(m: MassState, a: PendingAttack) -> dict[str, list[tuple[str, Text]]]:
    """Who may react now, and with what: {prompt audience: [(choice, label)]}."""
    attacker, target = m.units[a.attacker], m.units[a.target]
    out: dict[str, list[tuple[str, Text]]] = {}

    def offer(unit: Unit, choice: str, text: Text) -> None:
        out.setdefault(owner_key(unit), []).append((choice, text))

    defenders = [u for u in m.units.values() if u.side == target.side and not u.routed]
    if m.settings.gm_reactions == "never":  # GM-run units' strategies make no reactions
        defenders = [u for u in defenders if u.player is not None]
    if _gm_may_react(m, a, attacker, target, defenders):
        out["gm"] = []  # first, so the prompts are made in one order whatever the GM holds
    if a.stage == "declared":
        if a.decoy is None:
            for u in defenders:
                if (u.id != target.id and owns_usable(u, "囮作戦")
                        and target_refusal(attacker, u) is None):
                    offer(u, f"decoy:{u.id}", Text(f"囮作戦: 「{u.name}」が攻撃を引き受ける",
                                                   f"Decoy: '{u.name}' takes the attack"))
        return out
    front = row_of(attacker) == "front"
    if (a.die is not None and not a.fixed and front and not attacker.reroll_used
            and _formation_effect(m, attacker) == "reroll_front"):
        offer(attacker, "reroll", Text(f"片翼突撃の陣: ダイス（{a.die}）を振り直す",
                                       f"One-wing charge: reroll the die ({a.die})"))
    if _formation_effect(m, attacker) == "surge" and attacker.surges_left > 0:
        offer(attacker, "surge_attack", Text(f"三波状陣: 攻撃力+1（残り{attacker.surges_left}回）",
                                             f"Triple wave: attack +1 ({attacker.surges_left} left)"))
    if _formation_effect(m, target) == "surge" and target.surges_left > 0:
        offer(target, "surge_defence", Text(f"三波状陣: 防御力+1（残り{target.surges_left}回）",
                                            f"Triple wave: defence +1 ({target.surges_left} left)"))
    if (a.die is not None and not a.white_flag and target.id in {u.id for u in defenders}
            and owns_usable(target, "偽りの白旗")):
        offer(target, "white_flag", Text(f"偽りの白旗: ダイス（{a.die}）を防御力に",
                                         f"False white flag: the die ({a.die}) to defence"))
    if a.die is not None and not a.fixed and not a.information:
        for u in defenders:
            if owns_usable(u, "情報操作"):
                offer(u, f"information:{u.id}", Text(f"情報操作（{u.name}）: ダイスを振り直させる",
                                                     f"Disinformation ({u.name}): reroll the die"))
    return out


def _gm_may_react(m: MassState, a: PendingAttack, attacker: Unit, target: Unit,
                  defenders: list[Unit]) -> bool:
    """Whether, by what the table sees, a GM-run unit could react here with a strategy
    (囮作戦, 情報操作, 偽りの白旗). A GM-run unit's picks and uses are the GM's, so the
    GM is asked whenever one could — with just "pass" when it holds nothing — and
    whether the attack waits never tells the players what the GM holds."""
    theirs = [u for u in defenders if u.player is None]
    if a.stage == "declared":
        return a.decoy is None and any(
            u.id != target.id and target_refusal(attacker, u) is None for u in theirs)
    if a.die is None:
        return False
    return (bool(theirs) and not a.fixed and not a.information) or (
        target.id in {u.id for u in theirs} and not a.white_flag)


def _formation_effect(m: MassState, unit: Unit) -> str:
    spec = m.formations.get(unit.formation or "")
    return spec.effect if spec is not None else "none"


def _ask_window(tx: Tx, m: MassState, a: PendingAttack) -> bool:
    """Ask everyone who may react and has not passed; True if anyone was asked."""
    attacker, target = m.units[a.attacker], m.units[a.target]
    asked = False
    for to, options in _options(m, a).items():
        if to in a.passed:
            continue
        if a.stage == "declared":
            text = ASK_DECLARED.format(attacker=attacker.name, target=target.name)
        else:
            att, dfn = _totals(m, a)
            die = "" if a.die is None else f"（ダイス{a.die}込み）"
            die_en = "" if a.die is None else f" (die {a.die} included)"
            text = ASK_ROLLED.format(attacker=attacker.name, target=target.name, attack=att,
                                     defence=dfn, die=die, die_en=die_en)
        tx.ask(to, text, REACT_RESUME, [*options, ("pass", PASS)], kind="mass.reaction",
               about={"attack": a.id, "attacker": a.attacker, "target": a.target},
               attack=a.id, owner=to)
        asked = True
    return asked


def resume_react(tx: Tx, prompt: Prompt, choice: str) -> None:
    """A reaction (or a pass); after a reaction the window is asked again from scratch."""
    m = mass_of(tx)
    a = m.attack
    owner = str(prompt.context["owner"])
    if a is None or a.id != prompt.context["attack"]:
        return
    offered = {c for c, _ in _options(m, a).get(owner, [])}
    if choice == "pass" or choice not in offered:  # (a choice overtaken counts as a pass)
        _set(tx, passed=[*a.passed, owner])
        return
    _react(tx, m, a, choice)
    withdraw(tx, mass_prompts(tx, REACT_RESUME, attack=a.id))
    _set(tx, passed=[])


def _react(tx: Tx, m: MassState, a: PendingAttack, choice: str) -> None:
    kind, _, uid = choice.partition(":")
    attacker, target = m.units[a.attacker], m.units[a.target]
    if kind == "decoy":
        user = m.units[uid]
        _use(tx, m, user, "囮作戦")
        _set(tx, target=user.id, decoy=user.id)
        _said(tx, "mass.reaction", Text(f"囮作戦: 「{user.name}」が攻撃を引き受けた",
                                        f"Decoy: '{user.name}' draws the attack"),
              a, reaction="decoy", unit=user.id)
    elif kind in ("reroll", "information"):
        user = attacker if kind == "reroll" else m.units[uid]
        if kind == "reroll":
            set_unit(tx, attacker, reroll_used=True)
        else:
            _use(tx, m, user, "情報操作")
        old = a.die
        die = tx.roll(m.settings.bonus_dice, f"mass.reroll {a.id}").total or 0
        _set(tx, die=die, rerolled=True, information=a.information or kind == "information")
        word = ("片翼突撃の陣", "One-wing charge") if kind == "reroll" else ("情報操作",
                                                                           "Disinformation")
        _said(tx, "mass.reaction", Text(f"{word[0]}: ダイス {old} → {die}",
                                        f"{word[1]}: die {old} → {die}"),
              a, reaction=kind, unit=user.id, die=die)
    elif kind == "white_flag":
        _use(tx, m, target, "偽りの白旗")
        _set(tx, white_flag=True)
        _said(tx, "mass.reaction", Text(f"偽りの白旗: ダイス{a.die}は「{target.name}」の防御力に",
                                        f"False white flag: die {a.die} goes to '{target.name}'"),
              a, reaction="white_flag", unit=target.id)
    elif kind in ("surge_attack", "surge_defence"):
        user = attacker if kind == "surge_attack" else target
        set_unit(tx, user, surges_left=user.surges_left - 1)
        if kind == "surge_attack":
            _set(tx, surge_attack=a.surge_attack + 1)
        else:
            _set(tx, surge_defence=a.surge_defence + 1)
        word = ("攻撃力", "attack") if kind == "surge_attack" else ("防御力", "defence")
        _said(tx, "mass.reaction", Text(f"三波状陣: 「{user.name}」の{word[0]}+1",
                                        f"Triple wave: '{user.name}' {word[1]} +1"),
              a, reaction=kind, unit=user.id)


def _use(tx: Tx, m: MassState, unit: Unit, sid: str) -> None:
    activate(tx, m, unit, sid)
    spend(tx, m, unit, sid)
    tx.emit("mass.strategy", unit=unit.id, strategy=sid, target=None)


def _said(tx: Tx, kind: str, text: Text, a: PendingAttack, **data: object) -> None:
    tx.emit(kind, attack=a.id, **data)
    tx.say(text)


def _set(tx: Tx, **values: object) -> None:
    for key, value in values.items():
        tx.set((PATH, "attack", key), value)


# -- the die and the damage ---------------------------------------------------------------


def _roll_die(tx: Tx, m: MassState, a: PendingAttack) -> None:
    attacker, target = m.units[a.attacker], m.units[a.target]
    if not bonus_applies(attacker, target):
        if a.reported:
            tx.say(Text("（報告されたダイスは攻撃力ボーナスがないため使われませんでした）",
                        "(The reported die was not used: there is no attack bonus.)"))
        _set(tx, bonus=False)
        return
    spec = m.formations.get(attacker.formation or "")
    if spec is not None and spec.effect == "fixed_die":
        die, fixed = spec.value, True
    else:
        dice = Dice(tx, m.settings, [a.reported] if a.reported else [], reporter=a.reporter)
        die, fixed = dice.roll(m.settings.bonus_dice, f"mass.bonus {a.id}"), False
    _set(tx, bonus=True, die=die, fixed=fixed)
    tx.emit("mass.attack.die", attack=a.id, die=die, fixed=fixed)


def _totals(m: MassState, a: PendingAttack) -> tuple[int, int]:
    """Attack and defence of this attack, with the die where it goes and the +1s."""
    attacker, target = m.units[a.attacker], m.units[a.target]
    base = attacker.weapon_base if a.charge and attacker.weapon_base is not None else None
    attack = (attack_of(attacker) if base is None else base) + a.surge_attack
    defence = defence_of(target) + a.surge_defence
    if a.white_flag:
        defence += a.die or 0
    else:
        attack += a.die or 0
    return attack, defence


def _resolve(tx: Tx, m: MassState, a: PendingAttack) -> None:
    """MASS-DMG-1: attack − defence, at least 1; then LP (MASS-DMG-2) and the next actor."""
    attacker, target = m.units[a.attacker], m.units[a.target]
    attack, defence = _totals(m, a)
    damage = max(attack - defence, 1)
    if a.charge:  # 指揮官突撃 is once: the attack value goes back to the unit's own
        mods = [Mod(strategy=d.strategy, source=d.source, attack=d.attack, defence=d.defence,
                    flags=[f for f in d.flags if f != "charge"]) for d in attacker.mods]
        set_unit(tx, attacker, mods=mods)
    tx.set((PATH, "attack"), None)
    set_unit(tx, attacker, acted=True)
    # 指揮官突撃's attack is the leader's weapon base value: told only to whom it is shown
    about = [(PATH, "units", attacker.id, "weapon_base")] if a.charge else []
    tx.report(MassAttackResolved(attack=a.id, attacker=attacker.id, target=target.id,
                                 bonus=a.bonus, die=a.die, fixed=a.fixed,
                                 white_flag=a.white_flag, attack_value=attack,
                                 defence_value=defence, damage=damage), about=about)
    tx.emit("mass.attack", attack=a.id, attacker=attacker.id, target=target.id,
            attack_value=attack, defence_value=defence, die=a.die, damage=damage,
            charge=a.charge, white_flag=a.white_flag)
    tx.say(Text(f"「{attacker.name}」→「{target.name}」: 攻撃力{attack} − 防御力{defence} → "
                f"{damage}ダメージ",
                f"'{attacker.name}' → '{target.name}': attack {attack} − defence {defence} → "
                f"{damage} damage"))
    deal(tx, target, damage, f"attack:{attacker.id}")
