"""Engagement test kit: a room of named characters driven through Engine.apply.

PCs a1, a2 (player p1) and a3, a4 (player p2); enemies e1…e4 (the GM's). Everyone
stands in the back row (so nobody can cover or guard for another) with {身体}3 〈回避〉2
〈弾幕〉1 〈近接戦闘〉2 [近接武器鍛錬]1 unless a test says otherwise, and has table counters
DP 20, HP 30 and グレイズ 5. Dice are given as reported BCDice lines (`line(6, 6)`) so
every check is chosen; a melee's damage waits for `damage(...)`.
"""

from __future__ import annotations

from typing import Any

from engine_kit import GM, do, engine_of, part, refused

from komasync.engine.core import Engine, Outcome
from komasync.engine.engagement.model import EngagementState
from komasync.engine.tx import Actor

__all__ = ["ENEMIES", "GM", "P1", "P2", "PCS", "PROFILE", "actor_for", "answer", "approach",
           "counter", "damage", "defend", "do", "eng", "engine", "line", "link", "melee",
           "next_phase", "partners", "prompts_for", "refused", "scenario"]

P1 = Actor(role="player", player="p1", label="P1")
P2 = Actor(role="player", player="p2", label="P2")
PCS = {"a1": "p1", "a2": "p1", "a3": "p2", "a4": "p2"}
ENEMIES = ("e1", "e2", "e3", "e4")
PROFILE = {"身体": 3, "回避": 2, "弾幕": 1, "近接戦闘": 2, "近接武器鍛錬": 1}


def actor_for(cid: str) -> Actor:
    return {"p1": P1, "p2": P2}.get(PCS.get(cid, ""), GM)


def scenario(settings: dict[str, Any] | None = None,
             profiles: dict[str, dict[str, int]] | None = None,
             rows: dict[str, str] | None = None) -> dict[str, Any]:
    pieces, counters, combatants = [], [], []
    for i, cid in enumerate([*PCS, *ENEMIES]):
        owner = PCS.get(cid)
        pieces.append({"id": cid, "name": cid.upper(), "owner": owner,
                       "cell": {"x": i % 4 + (0 if owner else 5), "y": i // 4}})
        names = {"DP": 20, "HP": 30, "グレイズ": 5}
        for n, v in names.items():
            counters.append({"id": f"{cid}_{n}", "name": f"{cid} {n}", "value": v, "min": 0})
        combatants.append({
            "id": cid, "side": "pc" if owner else "enemy",
            "row": (rows or {}).get(cid, "back"),
            "counters": {n: f"{cid}_{n}" for n in names},
            "profile": {**PROFILE, **(profiles or {}).get(cid, {})},
        })
    return {
        # players may type BCDice results here (komasync's default is the VTT's dice only)
        "room": {"name": "engagement test", "seed": "eng", "player_rolls": "allow"},
        "players": [{"id": "p1", "name": "P1"}, {"id": "p2", "name": "P2"}],
        "table": {"grid": {"width": 10, "height": 4}, "pieces": pieces, "counters": counters},
        "engagement": {"settings": settings or {}, "combatants": combatants},
    }


def engine(start: bool = True, phase: str = "main", **kw: Any) -> Engine:
    """A room at turn 1 in `phase` (the battle started unless `start` is false)."""
    e = engine_of(scenario(**kw))
    if start:
        do(e, GM, kind="engagement.start")
        while e.state.engagement is not None and e.state.engagement.phase != phase:
            do(e, GM, kind="engagement.phase")
    return e


def line(*dice: int, sides: int = 6, plus: int | None = None) -> str:
    """A BCDice sum line: `(2D6) ＞ 7[3,4] ＞ 7`, or with `plus` the check value added."""
    faces = ",".join(map(str, dice))
    total = sum(dice)
    if plus is None:
        return f"({len(dice)}D{sides}) ＞ {total}[{faces}] ＞ {total}"
    return f"({len(dice)}D{sides}+{plus}) ＞ {total}[{faces}]+{plus} ＞ {total + plus}"


def eng(e: Engine) -> EngagementState:
    return part(e, "engagement", EngagementState)


def partners(e: Engine, cid: str) -> set[str]:
    return set(eng(e).partners(cid))


def counter(e: Engine, cid: str, name: str) -> int:
    return int(e.state.table.counters[f"{cid}_{name}"].value)


def link(e: Engine, a: str, b: str) -> Outcome:
    return do(e, GM, kind="engagement.link", a=a, b=b)


def approach(e: Engine, who: str, target: str, *dice: int, **kw: Any) -> Outcome:
    """`who` approaches with len(dice) DP; the dice are the reported result."""
    return do(e, actor_for(who), kind="engagement.approach", combatant=who, target=target,
              dp=len(dice), result=line(*dice) if dice else None, **kw)


def melee(e: Engine, who: str, target: str, dp: int, *dice: int, **kw: Any) -> Outcome:
    """`who` melees with `dp`; the dice are the hit check; the damage waits for a report."""
    kw.setdefault("report_damage", True)
    return do(e, actor_for(who), kind="engagement.melee", combatant=who, target=target, dp=dp,
              result=line(*dice), **kw)


def defend(e: Engine, who: str, kind: str, *dice: int, **kw: Any) -> Outcome:
    extra = {"result": line(*dice)} if dice else {}
    return do(e, actor_for(who), kind="engagement.defend", combatant=who, defence=kind,
              dp=len(dice), **extra, **kw)


def damage(e: Engine, who: str, *dice: int) -> Outcome:
    """Report the damage roll the open exchange waits for."""
    return do(e, actor_for(who), kind="engagement.roll", combatant=who, result=line(*dice))


def prompts_for(e: Engine, to: str) -> list[Any]:
    return [p for p in e.state.prompts.values() if p.to == to]


def answer(e: Engine, actor: Actor, prompt: str, choice: str) -> Outcome:
    return do(e, actor, kind="answer", prompt=prompt, choice=choice)


def next_phase(e: Engine, n: int = 1) -> None:
    for _ in range(n):
        do(e, GM, kind="engagement.phase")
