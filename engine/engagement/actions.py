"""The declarations: approach (ENG-ACT-1), melee (ENG-ACT-2, ENG-EF-1/2, ENG-BONUS), the
base game's shot and homing, and the defence that answers an attack (evade, ENG-GUARD,
ENG-COVER); a reported dice line for a check that waits for one.

Who: a PC's player (or a bridge naming them in `by`) declares for that PC; the GM for
anyone. Each declaration is checked whole before anything is written. A check is
rolled by komasync unless `result` carries the BCDice line, or `report_check` says the
line will come from the VTT chat (`engagement.roll`); a melee's damage likewise waits for
its line with `report_damage` (independently of how the hit check is rolled).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictInt

from ..actions import ActionBase
from ..bounds import Id, OnlyInt
from ..combatants import Combatant
from ..errors import Refusal, Text
from ..table import TableState
from ..tx import Role, Tx
from .checks import melee_dice, roll_or_read
from .defence import cover_problem, engaged_in_scene, evade_problem, guard_problem
from .exchange import declare_defence, no_defence, proceed, put, run_check, slot
from .model import AttackKind, Check, DefenceKind, EngagementState, Exchange, pair_key
from .refusals import (
    ALREADY_ENGAGED,
    ENGAGED_THIS_TURN,
    EXCHANGE_OPEN,
    FEW_GRAZES,
    LEFT,
    LEFT_BY_COVER,
    LEFT_BY_GUARD,
    NO_CHECK_WAITING,
    NO_MELEE_SKILL,
    NO_WEAPON_TRAINING,
    NOT_AWAITED,
    NOT_ENGAGED,
    NOT_ENGAGED_SETUP,
    NOT_MAIN_PHASE,
    NOT_NOW,
    NOT_THE_TARGET,
    NOTHING_TO_ANSWER,
    ROW,
    SELF,
    SETUP_MELEE_USED,
)
from .results import note_check
from .rules import (
    BODY,
    DANMAKU,
    DODGE,
    MELEE,
    PATH,
    WEAPON,
    combatant,
    eng,
    may_act,
    name,
    need_active,
    profile,
    spend,
    stat,
    used,
)
from .turns import PHASE_NAMES

__all__ = ["ACTORS", "DECLARATIONS", "Approach", "Defend", "Melee", "ReportRoll", "Shot",
           "answering"]

ACTORS = frozenset[Role]({"gm", "player", "bridge"})
LINE = Field(default=None, min_length=1, max_length=500)

ROW_RULES = {"from_front": ("前衛からのみ", "only from the front row"),
             "front_to_front": ("前衛から前衛へのみ", "only front row to front row")}
LEFT_BY = {"handover": LEFT, "guard": LEFT_BY_GUARD, "cover": LEFT_BY_COVER}
DECLARED = Text("「{n}」が「{t}」に{what}（DP{dp}、{dice}D）",
                "{n} declares {what_en} on {t} (DP {dp}, {dice} dice)")
DEFENDS = Text("「{n}」が{what}（DP{dp}）", "{n} declares {what_en} (DP {dp})")
TAKES = Text("「{t}」は防御しません", "{t} does not defend")
WHAT = {"approach": ("接近", "approach"), "melee": ("近接攻撃", "melee"),
        "shot": ("ショット", "a shot"), "homing": ("ホーミング", "homing"),
        "evade": ("回避", "evasion"), "guard": ("ガード", "a guard"), "cover": ("カバー", "a cover")}


def _ready(tx: Tx, attacker: str, target: str) -> EngagementState:
    """The battle is on and the attack's slot is free (one attack at a time, ENG-TURN):
    the scene's, or for the GM's attack involving a hidden character the hidden slot
    beside it — so a hidden attack never makes a player's declaration wait."""
    s = eng(tx)
    need_active(s)
    field = "hidden_exchange" if tx.actor.role == "gm" and _hidden(s, attacker, target) else "exchange"
    held: Exchange | None = getattr(s, field)
    if held is not None:
        raise EXCHANGE_OPEN.refuse(n=name(tx, held.attacker), about=[(PATH, field)])
    return s


def _hidden(s: EngagementState, *ids: str) -> bool:
    return any((c := s.combatants.get(i)) is not None and c.hidden for i in ids)


def answering(tx: Tx, s: EngagementState, cid: str, named: str | None,
              fits: Callable[[Exchange], bool]) -> Exchange | None:
    """The open attack a defence or a reported line is for: among those the sender may
    see (a non-GM: the scene's alone) that `fits`, the one `named`; with the scene's and
    the hidden one both fitting (the GM), the hidden one when the character is hidden or
    takes part in it and not in the scene's, else the scene's."""
    gm = tx.actor.role == "gm"
    found = [ex for ex in s.open_exchanges()
             if (gm or not ex.hidden) and fits(ex) and named in (None, ex.id)]
    if len(found) < 2:
        return found[0] if found else None
    scene, lurking = found
    if _hidden(s, cid) or (_takes_part(lurking, cid) and not _takes_part(scene, cid)):
        return lurking
    return scene


def _takes_part(ex: Exchange, cid: str) -> bool:
    return (cid in (ex.attacker, ex.target) or (ex.check is not None and ex.check.who == cid)
            or (ex.defence is not None and ex.defence.by == cid))


def _pair_up(tx: Tx, attacker: str, target: str) -> tuple[Combatant, Combatant]:
    c, t = combatant(tx, attacker), combatant(tx, target)
    may_act(tx, c)
    if c.id == t.id:  # never applies, whatever the enforcement (ENG-1: two characters)
        raise SELF.refuse()
    return c, t


def _main_only(tx: Tx, s: EngagementState, what: str) -> None:
    ja, en = PHASE_NAMES[s.phase]
    tx.check(s.phase == "main", NOT_MAIN_PHASE.refuse(
        what=WHAT[what][0], what_en=WHAT[what][1].capitalize(), phase=ja, phase_en=en))


def _open(tx: Tx, s: EngagementState, c: Combatant, t: Combatant, attack: AttackKind, dp: int,
          report_damage: bool = False, goal: int | None = None, grazes: int = 0,
          power: int = 0) -> Exchange:
    """The exchange this declaration opens (one at a time, ENG-TURN)."""
    hidden = c.hidden or t.hidden
    xid = _hidden_id(tx, s) if hidden else tx.next_id("x")
    ex = Exchange(id=xid, attack=attack, attacker=c.id, target=t.id, turn=s.turn,
                  phase=s.phase, dp=dp, report_damage=report_damage, goal=goal, grazes=grazes,
                  power=power,
                  hidden=hidden)
    put(tx, ex)
    tx.emit("engagement.declared", exchange=ex.id, attack=ex.attack, attacker=c.id, target=t.id)
    return ex


def _hidden_id(tx: Tx, s: EngagementState) -> str:
    """A hidden attack's id, numbered apart: the room's sequence is seen by everyone."""
    n = s.hidden_seq + 1
    tx.set((PATH, "hidden_seq"), n)
    return f"hx{n}"


class _Declaration(ActionBase):
    roles = ACTORS
    combatant: Id
    by: Id | None = None
    #: The check's BCDice result line, when rolled at the table.
    result: str | None = LINE
    #: Wait for the check's line from the VTT chat (`engagement.roll`) instead of
    #: rolling it (ignored when `result` is given).
    report_check: StrictBool = False


class Approach(_Declaration):
    """ENG-ACT-1 approach `target`: DP = dice; needs 〈近接戦闘〉; not while engaged; rows by
    setting. {身体}+〈回避〉 + dice against {身体}+max(〈回避〉,〈弾幕〉)+15."""

    kind: Literal["engagement.approach"] = "engagement.approach"
    target: Id
    dp: StrictInt = Field(ge=0, le=100)

    def apply(self, tx: Tx) -> None:
        s = _ready(tx, self.combatant, self.target)
        c, t = _pair_up(tx, self.combatant, self.target)
        _main_only(tx, s, "approach")
        tx.check(stat(c, MELEE) > 0, NO_MELEE_SKILL.refuse(n=name(tx, c), about=profile(c)))
        partners = engaged_in_scene(s, c.id)
        tx.check(not partners, ALREADY_ENGAGED.refuse(
            n=name(tx, c), p=name(tx, partners[0]) if partners else ""))
        mode = s.settings.approach_rows
        ok = (mode == "any" or (c.row == "front" and (mode == "from_front" or t.row == "front")))
        if mode != "any":
            ja, en = ROW_RULES[mode]
            tx.check(ok, ROW.refuse(n=name(tx, c), rows=ja, rows_en=en))
        spend(tx, s, c, self.dp, "ENG-ACT-1")
        goal = stat(t, BODY) + max(stat(t, DODGE), stat(t, DANMAKU)) + 15
        ex = _open(tx, s, c, t, attack="approach", dp=self.dp, goal=goal)
        tx.say(DECLARED.format(n=name(tx, c), t=name(tx, t), what="接近", what_en="approach",
                               dp=self.dp, dice=self.dp), chat=not ex.hidden)
        check = Check(who=c.id, purpose="approach", base=stat(c, BODY) + stat(c, DODGE), dice=self.dp,
                      sides=s.settings.check_die)
        run_check(tx, ex, check, self.result, self.report_check)


def melee_problem(tx: Tx, s: EngagementState, c: Combatant, t: Combatant) -> Refusal | None:
    """ENG-EF-1/2/3, ENG-HAND-1, ENG-SETUP: may `c` melee `t` now?"""
    if s.phase == "cleanup":
        return NOT_NOW.refuse()
    pair = s.pair(c.id, t.id)
    if pair is None or t.hidden:
        gone = s.left.get(pair_key(c.id, t.id))
        if gone is not None and gone.leaver == t.id and not gone.hidden:
            return LEFT_BY[gone.by].refuse(t=name(tx, t), n=name(tx, c))
        code = NOT_ENGAGED if s.phase == "main" else NOT_ENGAGED_SETUP
        return code.refuse(n=name(tx, c), t=name(tx, t))
    if s.phase == "setup":
        if pair.turn >= s.turn and s.settings.setup_targets == "earlier":
            return ENGAGED_THIS_TURN.refuse(n=name(tx, c), t=name(tx, t))
        if used(s, c.id).setup_melee == s.turn:
            return SETUP_MELEE_USED.refuse(n=name(tx, c))
    return None


class Melee(_Declaration):
    """ENG-ACT-2 melee an engaged `target`: DP 1 → 1 die, 3 or 6 → that many + ENG-BONUS;
    {身体}+〈近接戦闘〉. In the main phase while engaged (ENG-EF-1); at a setup once, against
    an engagement from the turn before (ENG-EF-2, ENG-SETUP). `grazes` raise the damage
    on a hit (needs [近接武器鍛錬])."""

    kind: Literal["engagement.melee"] = "engagement.melee"
    target: Id
    dp: Annotated[Literal[1, 3, 6], OnlyInt]
    grazes: StrictInt = Field(default=0, ge=0, le=100)
    #: Wait for the damage roll's line from the VTT chat on a hit instead of rolling it.
    report_damage: StrictBool = False

    def apply(self, tx: Tx) -> None:
        s = _ready(tx, self.combatant, self.target)
        c, t = _pair_up(tx, self.combatant, self.target)
        problem = melee_problem(tx, s, c, t)
        if problem is not None:
            tx.check(False, problem)
        if self.grazes:
            self._check_grazes(tx, s, c)
        spend(tx, s, c, self.dp, "ENG-ACT-2")
        if s.phase == "setup":
            tx.set((PATH, "used", c.id), used(s, c.id).model_copy(update={"setup_melee": s.turn}))
        level = stat(c, MELEE)
        dice = melee_dice(level, self.dp)
        ex = _open(tx, s, c, t, attack="melee", dp=self.dp, grazes=self.grazes,
                   report_damage=self.report_damage)
        tx.say(DECLARED.format(n=name(tx, c), t=name(tx, t), what="近接攻撃", what_en="melee",
                               dp=self.dp, dice=dice), chat=not ex.hidden)
        check = Check(who=c.id, purpose="melee", base=stat(c, BODY) + level, dice=dice,
                      sides=s.settings.check_die)
        run_check(tx, ex, check, self.result, self.report_check)

    def _check_grazes(self, tx: Tx, s: EngagementState, c: Combatant) -> None:
        tx.check(stat(c, WEAPON) > 0, NO_WEAPON_TRAINING.refuse())
        t = tx.part("table", TableState)
        counter = t.counters.get(c.counters.get(s.settings.graze_counter, "")) if t else None
        if counter is not None:
            tx.check(counter.value >= self.grazes, FEW_GRAZES.refuse(
                n=name(tx, c), have=counter.value, about=[("table", "counters", counter.id)]))


class Shot(_Declaration):
    """The base game's shot or homing, so that guard and cover can answer it: the check
    value, dice and DP as the base game gives them, and `power` the damage on a hit."""

    kind: Literal["engagement.shot"] = "engagement.shot"
    target: Id
    attack: Literal["shot", "homing"] = "shot"
    check: StrictInt = Field(ge=-100, le=1000)
    dice: StrictInt = Field(ge=0, le=100)
    dp: StrictInt = Field(default=0, ge=0, le=100)
    power: StrictInt = Field(ge=0, le=10_000)

    def apply(self, tx: Tx) -> None:
        s = _ready(tx, self.combatant, self.target)
        c, t = _pair_up(tx, self.combatant, self.target)
        _main_only(tx, s, self.attack)
        spend(tx, s, c, self.dp, "ENG-DP")
        ex = _open(tx, s, c, t, attack=self.attack, dp=self.dp, power=self.power)
        ja, en = WHAT[self.attack]
        tx.say(DECLARED.format(n=name(tx, c), t=name(tx, t), what=ja, what_en=en, dp=self.dp,
                               dice=self.dice), chat=not ex.hidden)
        check = Check(who=c.id, purpose=self.attack, base=self.check, dice=self.dice,
                      sides=s.settings.check_die)
        run_check(tx, ex, check, self.result, self.report_check)


class Defend(_Declaration):
    """Answer the open attack: `evade` (the target), `guard` (the target, or an ally for
    it, ENG-GUARD), `cover` (an ally, ENG-COVER) with `dp` dice, or `none` (the target
    takes it; against an approach: no cover comes)."""

    kind: Literal["engagement.defend"] = "engagement.defend"
    defence: DefenceKind
    dp: StrictInt = Field(default=0, ge=0, le=100)
    #: The attack answered, when the GM has two open (the scene's and a hidden one).
    exchange: Id | None = None

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        need_active(s)
        ex = answering(tx, s, self.combatant, self.exchange,
                       lambda x: x.stage in ("cover", "defence") and x.check is None)
        if ex is None:
            raise NOTHING_TO_ANSWER.refuse()
        c = combatant(tx, self.combatant)
        may_act(tx, c)
        if self.defence == "none":
            tx.check(c.id == ex.target or tx.actor.role == "gm",
                     NOT_THE_TARGET.refuse(t=name(tx, ex.target)))
            tx.say(TAKES.format(t=name(tx, ex.target)), chat=not ex.hidden)
            no_defence(tx, ex)
            return
        problem = {"evade": evade_problem(tx, ex, c), "guard": guard_problem(tx, s, ex, c),
                   "cover": cover_problem(tx, s, ex, c)}[self.defence]
        if problem is not None:
            tx.check(False, problem)
        self._use(tx, s, ex, c)
        base = stat(c, BODY) + (stat(c, MELEE) if self.defence == "guard" else stat(c, DODGE))
        ja, en = WHAT[self.defence]
        tx.say(DEFENDS.format(n=name(tx, c), what=ja, what_en=en, dp=self.dp), chat=not ex.hidden)
        declare_defence(tx, ex, c, self.defence, base, self.dp, self.result, self.report_check)

    def _use(self, tx: Tx, s: EngagementState, ex: Exchange, c: Combatant) -> None:
        """Count the once-per-turn uses (ENG-GUARD, ENG-COVER) and pay the DP."""
        u = used(s, c.id)
        if self.defence == "cover":
            u = u.model_copy(update={"cover": s.turn})
        elif self.defence == "guard" and c.id != ex.target:
            u = u.model_copy(update={"guard": s.turn, "guard_other": s.turn})
        elif self.defence == "guard" and ex.attack != "melee":
            u = u.model_copy(update={"guard": s.turn})
        if u != used(s, c.id):
            tx.set((PATH, "used", c.id), u)
        rule = {"cover": "ENG-COVER", "guard": "ENG-GUARD"}.get(self.defence, "ENG-DP")
        spend(tx, s, c, self.dp, rule)


class ReportRoll(ActionBase):
    """The BCDice line of the check that is waiting for one (from the console, or the
    bridge when the character's player rolls in the VTT chat)."""

    kind: Literal["engagement.roll"] = "engagement.roll"
    roles = ACTORS
    combatant: Id
    result: str = Field(min_length=1, max_length=500)
    by: Id | None = None
    #: The attack whose check this is, when the GM has two open.
    exchange: Id | None = None

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        need_active(s)
        ex = answering(tx, s, self.combatant, self.exchange,
                       lambda x: x.check is not None and x.check.total is None)
        if ex is None or ex.check is None:
            raise NO_CHECK_WAITING.refuse()
        c = combatant(tx, self.combatant)
        if c.id != ex.check.who:
            raise NOT_AWAITED.refuse(n=name(tx, ex.check.who), about=[(PATH, slot(s, ex))])
        may_act(tx, c)
        check = roll_or_read(tx, ex.check, self.result, False,
                             f"{name(tx, ex.attacker)}→{name(tx, ex.target)}")
        ex = ex.model_copy(update={"check": check})
        put(tx, ex)
        note_check(tx, ex, slot(s, ex), check)
        proceed(tx, ex)


DECLARATIONS: tuple[type[ActionBase], ...] = (Approach, Melee, Shot, Defend, ReportRoll)
