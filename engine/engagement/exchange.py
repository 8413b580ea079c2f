"""The exchange: one attack resolved step by step — the attack's check, the defence
(evade, guard, cover or none) and its check, then the damage — each check rolled by
komasync or waiting for a reported line.

Results (ENG-ACT-1/2, ENG-GUARD, ENG-COVER): an approach that reaches the target number
engages approacher ↔ target, unless an ally's cover succeeds (coverer ↔ approacher). A
melee or shot hits when the attacker's achievement beats the defence's (ties: setting).
A successful guard takes no damage, a failed guard on oneself takes damage −
〈近接戦闘〉×2; a guard for another that succeeds against melee engages guard ↔ attacker
and the target leaves; a cover that succeeds takes the hit, and against melee engages
coverer ↔ attacker while the target leaves. A failed cover leaves the target to defend.
"""

from __future__ import annotations

from ..combatants import Combatant, adjust_counter
from ..errors import Text
from ..tx import Tx
from .awaiting import awaiting_of
from .checks import PURPOSES, roll_or_read
from .defence import coverers
from .model import Check, Defence, DefenceKind, EngagementState, Exchange, How, pair_key
from .relation import dissolve, form
from .results import Outcome, exchange_step, note_check
from .rules import BODY, MELEE, PATH, WEAPON, eng, name, stat

__all__ = ["close", "declare_defence", "hit", "no_defence", "put", "run_check", "slot"]

WHAT = {"approach": ("接近", "approach"), "melee": ("近接攻撃", "melee"),
        "shot": ("ショット", "shot"), "homing": ("ホーミング", "homing")}
ROLLED = Text("「{n}」の{what}: 達成値{total}", "{n}'s {what_en}: {total}")
GOAL = Text("（目標値{goal}）", " (target number {goal})")
WAIT = Text("「{n}」の{what}（{dice}D{sides}{base}）の結果を待っています",
            "Waiting for {n}'s {what_en} ({dice}D{sides}{base})")
APPROACH_FAILED = Text("接近は届きませんでした", "The approach falls short")
COVER_WAIT = Text("「{t}」の味方はカバーを宣言できます（ENG-COVER）",
                  "{t}'s allies may declare a cover (ENG-COVER)")
DEFEND_WAIT = Text("「{t}」の防御（回避・ガード・カバー）を待っています",
                   "Waiting for {t}'s defence (evade, guard or cover)")
DEFENDED = Text("防御成功（{d} 対 {a}）", "Defence succeeds ({d} against {a})")
BROKE = Text("防御失敗（{d} 対 {a}）", "Defence fails ({d} against {a})")
COVER_FAILED = Text("カバー失敗: 「{t}」が防御します", "The cover fails: {t} defends")
DAMAGE = Text("「{v}」に{d}ダメージ{why}", "{v} takes {d} damage{why_en}")
GUARD_CUT = Text("（ガード失敗で−{r}）", " (−{r} from the failed guard)")
HP = Text("（{c} {old}→{new}）", " ({c} {old}→{new})")
BY_HAND = Text("（{c}を手で減らしてください）", " (lower {c} by hand)")
GRAZES = Text("「{n}」はグレイズを{g}消費", "{n} spends {g} grazes")
NO_DAMAGE = Text("ダメージなし", "No damage")


def slot(s: EngagementState, ex: Exchange) -> str:
    """Where `ex` is kept: the slot already holding it, else the hidden one for an attack
    involving a hidden character (it never takes the scene's turn), else the scene's."""
    for field in ("exchange", "hidden_exchange"):
        held = getattr(s, field)
        if held is not None and held.id == ex.id:
            return field
    return "hidden_exchange" if ex.hidden else "exchange"


def put(tx: Tx, ex: Exchange) -> None:
    """Write the exchange; the sender's ack says its stage and what it now awaits."""
    s = eng(tx)
    where = slot(s, ex)
    tx.set((PATH, where), ex)
    step = exchange_step(tx, ex, where)
    step.stage, step.awaiting = ex.stage, awaiting_of(tx, s, ex)


def close(tx: Tx, ex: Exchange, outcome: Outcome) -> None:
    """The exchange is resolved (or dropped): the ack says how."""
    where = slot(eng(tx), ex)
    step = exchange_step(tx, ex, where)
    step.stage, step.awaiting, step.outcome = "closed", None, outcome
    tx.set((PATH, where), None)
    tx.emit("engagement.exchange.closed", exchange=ex.id)


def _label(tx: Tx, ex: Exchange) -> str:
    return f"{name(tx, ex.attacker)}→{name(tx, ex.target)}"


def run_check(tx: Tx, ex: Exchange, check: Check, line: str | None, wait: bool) -> None:
    """Roll or read the check (or wait for its report), then go on."""
    check = roll_or_read(tx, check, line, wait, _label(tx, ex))
    ex = ex.model_copy(update={"check": check})
    put(tx, ex)
    note_check(tx, ex, slot(eng(tx), ex), check)
    ja, en = PURPOSES[check.purpose]
    if check.total is None:
        tx.say(WAIT.format(n=name(tx, check.who), what=ja, what_en=en, dice=check.dice,
                           sides=check.sides, base=f"{check.base:+d}"), chat=not ex.hidden)
        return
    proceed(tx, ex)


def proceed(tx: Tx, ex: Exchange) -> None:
    """A check's total is known: the next step of the exchange."""
    assert ex.check is not None and ex.check.total is not None
    purpose = ex.check.purpose
    if purpose in WHAT:
        _attack_known(tx, ex, ex.check.total)
    elif purpose == "damage":
        _apply_damage(tx, ex, ex.check.total)
    else:
        _defence_known(tx, ex, ex.check.total)


def _attack_known(tx: Tx, ex: Exchange, total: int) -> None:
    s = eng(tx)
    ex = ex.model_copy(update={"attack_total": total})
    ja, en = WHAT[ex.attack]
    line = ROLLED.format(n=name(tx, ex.attacker), what=ja, what_en=en, total=total)
    target = s.combatants[ex.target]
    if ex.attack == "approach" and ex.goal is not None and target.published:
        goal = GOAL.format(goal=ex.goal)
        line = Text(line.ja + goal.ja, line.en + goal.en)
    tx.say(line, chat=not ex.hidden)
    if ex.attack == "approach":
        if ex.goal is not None and total < ex.goal:
            tx.say(APPROACH_FAILED, chat=not ex.hidden)
            tx.emit("engagement.approach.failed", exchange=ex.id)
            close(tx, ex, "approach_failed")
            return
        if not coverers(tx, s, ex):
            _engage(tx, ex, s.combatants[ex.attacker], target, "approach")
            return
        put(tx, ex.model_copy(update={"stage": "cover", "check": None}))
        tx.say(COVER_WAIT.format(t=name(tx, target)), chat=not ex.hidden)
        return
    put(tx, ex.model_copy(update={"stage": "defence", "check": None}))
    tx.say(DEFEND_WAIT.format(t=name(tx, target)), chat=not ex.hidden)


def _engage(tx: Tx, ex: Exchange, a: Combatant, b: Combatant, how: How) -> None:
    form(tx, a, b, how)
    close(tx, ex, "engaged")


def declare_defence(tx: Tx, ex: Exchange, defender: Combatant, kind: DefenceKind, base: int,
                    dp: int, line: str | None, wait: bool) -> None:
    """Evade, guard or cover declared: its check (DP = dice) rolled, read or awaited."""
    s = eng(tx)
    ex = ex.model_copy(update={"defence": Defence(kind=kind, by=defender.id)})
    purpose = "evade" if kind == "none" else kind
    check = Check(who=defender.id, purpose=purpose, base=base, dice=dp, sides=s.settings.check_die)
    run_check(tx, ex, check, line, wait)


def no_defence(tx: Tx, ex: Exchange) -> None:
    """The attacked side lets it come: an approach engages, an attack hits the target."""
    s = eng(tx)
    if ex.attack == "approach":
        _engage(tx, ex, s.combatants[ex.attacker], s.combatants[ex.target], "approach")
        return
    hit(tx, ex, ex.target, 0)


def _defence_known(tx: Tx, ex: Exchange, total: int) -> None:
    s = eng(tx)
    d = ex.defence
    assert d is not None and ex.attack_total is not None
    ok = total >= ex.attack_total if s.settings.ties == "defender" else total > ex.attack_total
    ja, en = PURPOSES[d.kind]
    tx.say(ROLLED.format(n=name(tx, d.by), what=ja, what_en=en, total=total), chat=not ex.hidden)
    tx.say((DEFENDED if ok else BROKE).format(d=total, a=ex.attack_total), chat=not ex.hidden)
    attacker, target, defender = (s.combatants[ex.attacker], s.combatants[ex.target],
                                  s.combatants[d.by])
    if d.kind == "cover":
        _cover_known(tx, s, ex, ok, attacker, target, defender)
    elif d.kind == "guard" and d.by != ex.target:
        if not ok:
            hit(tx, ex, ex.target, 0)  # ENG-GUARD no reduction when guarding for another
            return
        if ex.attack == "melee":  # ENG-GUARD guard ↔ attacker, the target leaves
            dissolve(tx, s, pair_key(target.id, attacker.id), "guard", leaver=target.id)
            _engage(tx, ex, defender, attacker, "guard")
            return
        _missed(tx, ex)
    elif ok:
        _missed(tx, ex)
    else:
        cut = stat(defender, MELEE) * 2 if d.kind == "guard" else 0  # ENG-GUARD
        hit(tx, ex, ex.target, cut)


def _cover_known(tx: Tx, s: EngagementState, ex: Exchange, ok: bool, attacker: Combatant,
                 target: Combatant, coverer: Combatant) -> None:
    """ENG-COVER: success → the coverer takes it (and against approach or melee becomes
    engaged with the attacker, the target leaving); failure → the target defends."""
    if not ok:
        if ex.attack == "approach":
            _engage(tx, ex, attacker, target, "approach")
            return
        put(tx, ex.model_copy(update={"stage": "defence", "check": None, "defence": None,
                                      "cover_failed": True}))
        tx.say(COVER_FAILED.format(t=name(tx, target)), chat=not ex.hidden)
        return
    if ex.attack == "approach":
        _engage(tx, ex, coverer, attacker, "cover")
        return
    if ex.attack == "melee":
        dissolve(tx, s, pair_key(target.id, attacker.id), "cover", leaver=target.id)
        form(tx, coverer, attacker, "cover")
    hit(tx, ex, coverer.id, 0)


def _missed(tx: Tx, ex: Exchange) -> None:
    tx.say(NO_DAMAGE, chat=not ex.hidden)
    close(tx, ex, "missed")


def hit(tx: Tx, ex: Exchange, victim: str, reduction: int) -> None:
    """The attack hits `victim`: shots deal their declared power; melee rolls damage
    (ENG-ACT-2: {身体} + ([近接武器鍛錬]LV)D + 〈近接戦闘〉LV + grazes, or 1D−3 + {身体} +
    〈近接戦闘〉LV without 鍛錬)."""
    s = eng(tx)
    ex = ex.model_copy(update={"victim": victim, "reduction": reduction, "stage": "damage"})
    if ex.attack != "melee":
        put(tx, ex)
        _apply_damage(tx, ex, ex.power)
        return
    c = s.combatants[ex.attacker]
    weapon = stat(c, WEAPON)
    base = stat(c, BODY) + stat(c, MELEE)
    if weapon > 0:
        base += ex.grazes * s.settings.graze_damage
    else:
        base -= 3
    check = Check(who=c.id, purpose="damage", base=base, dice=weapon if weapon > 0 else 1,
                  sides=s.settings.damage_die)
    run_check(tx, ex, check, None, ex.report_damage)


def _apply_damage(tx: Tx, ex: Exchange, amount: int) -> None:
    s = eng(tx)
    assert ex.victim is not None
    victim = s.combatants[ex.victim]
    final = max(0, amount - ex.reduction)
    counter = s.settings.hp_counter
    why = GUARD_CUT.format(r=ex.reduction) if ex.reduction else Text("", "")
    changed = adjust_counter(tx, victim, counter, -final) if final else None
    if changed is not None:
        why = Text(why.ja + HP.ja.format(c=counter, old=changed[0], new=changed[1]),
                   why.en + HP.en.format(c=counter, old=changed[0], new=changed[1]))
    elif final:
        why = Text(why.ja + BY_HAND.ja.format(c=counter), why.en + BY_HAND.en.format(c=counter))
    tx.say(DAMAGE.format(v=name(tx, victim), d=final, why=why.ja, why_en=why.en),
           chat=not ex.hidden)
    tx.emit("engagement.damage", exchange=ex.id, victim=victim.id, damage=final)
    if ex.attack == "melee" and ex.grazes:
        attacker = s.combatants[ex.attacker]
        adjust_counter(tx, attacker, s.settings.graze_counter, -ex.grazes)
        tx.say(GRAZES.format(n=name(tx, attacker), g=ex.grazes), chat=not ex.hidden)
    step = exchange_step(tx, ex, slot(s, ex))
    step.victim, step.damage = victim.id, final
    close(tx, ex, "hit")
