"""Helpers for the mass combat tests: a small war built from dicts, driven through Engine.apply."""

from __future__ import annotations

import copy
import random
from typing import Any

from engine_kit import GM, do, engine_of, part, refusal_of

from komasync.engine.core import Outcome
from komasync.engine.errors import Refusal
from komasync.engine.mass.model import MassState, Unit
from komasync.engine.mass.rules import attack_of, defence_of
from komasync.engine.prompts import Prompt
from komasync.engine.tx import Actor

__all__ = ["GM", "War", "check_invariants", "player", "scenario", "two_by_two", "unit"]


def player(pid: str) -> Actor:
    return Actor(role="player", player=pid, label=pid)


def unit(uid: str, side: str, **kw: Any) -> dict[str, Any]:
    """A unit spec; GM units get a strength and picks unless told otherwise."""
    base: dict[str, Any] = {"id": uid, "name": uid.upper(), "side": side, "initiative": 5}
    base.update(kw)
    return base


def scenario(units: list[dict[str, Any]], **mass: Any) -> dict[str, Any]:
    players = sorted({u["player"] for u in units if u.get("player")})
    return {
        # The players here paste BCDice lines: the GM allows it (room.player_rolls).
        "room": {"name": "mass", "seed": "mass-tests", "player_rolls": "allow"},
        "players": [{"id": p, "name": p.upper()} for p in players],
        "mass": {"sides": [{"id": "a", "name": "甲軍", "en": "A"},
                           {"id": "b", "name": "乙軍", "en": "B"}],
                 "units": units, **mass},
    }


def two_by_two(**extra: dict[str, Any]) -> list[dict[str, Any]]:
    """Side a: a1 (p1, 総大将), a2 (p2); side b: b1 (総大将), b2 — all with strength set.
    `a1={...}` etc. change or add fields of one unit."""
    units = [
        unit("a1", "a", player="p1", commander=True, max_strength=12, lp=5, leader="アリス",
             mental=4, skills={"知力": 2, "本能": 1}, initiative=9, intellect_base=7,
             weapon_base=14, abilities={"魅力": 3, "愛": 2, "ボディ": 4, "テクニック": 1}),
        unit("a2", "a", player="p2", max_strength=10, lp=4, leader="ボブ", initiative=6),
        unit("b1", "b", commander=True, max_strength=12, initiative=8),
        unit("b2", "b", max_strength=10, initiative=4),
    ]
    for u in units:
        u.update(extra.get(u["id"], {}))
    return units


class War:
    """One room with a mass combat; `do` applies an action as an actor."""

    def __init__(self, data: dict[str, Any], enforcement: str | None = None,
                 gm_passes: bool = True) -> None:
        if enforcement:
            data = copy.deepcopy(data)
            data["room"]["enforcement"] = enforcement
        self.engine = engine_of(data, "mass-tests")
        #: Answer "pass" to a reaction window the GM is asked with nothing to use (the
        #: window opens whatever a GM-run unit holds): the GM's one click.
        self.gm_passes = gm_passes

    @property
    def m(self) -> MassState:
        return part(self.engine, "mass", MassState)

    def u(self, uid: str) -> Unit:
        return self.m.units[uid]

    def do(self, actor: Actor = GM, **action: Any) -> Outcome:
        """Apply; with `gm_passes`, also the GM's passes it led to, whose happenings,
        rolls and log are added to the returned outcome (the attack's whole story)."""
        out = do(self.engine, actor, **action)
        while self.gm_passes and (empty := [p for p in self.prompts("mass.react")
                                            if p.to == "gm" and len(p.choices) == 1]):
            more = do(self.engine, GM, kind="answer", prompt=empty[0].id, choice="pass")
            out.tx.happenings.extend(more.happenings)
            out.tx.rolls.extend(more.rolls)
            out.tx.log.extend(more.log)
        return out

    def refused(self, actor: Actor = GM, **action: Any) -> Refusal:
        """`do`, expecting a refusal; the state must be untouched."""
        return refusal_of(self.engine, lambda: self.do(actor, **action), action)

    def prompts(self, resume: str | None = None) -> list[Prompt]:
        return [p for p in self.engine.state.prompts.values()
                if resume is None or p.resume == resume]

    def answer(self, prompt: Prompt, choice: str, actor: Actor | None = None) -> Outcome:
        who = actor or (player(prompt.to.split(":", 1)[1]) if prompt.to.startswith("player:")
                        else GM)
        return self.do(who, kind="answer", prompt=prompt.id, choice=choice)

    def answer_all(self, resume: str, choice: str) -> None:
        while (open_ := self.prompts(resume)):
            p = open_[0]
            self.answer(p, choice if choice in {c.id for c in p.choices} else p.choices[0].id)

    def next(self) -> Outcome:
        return self.do(kind="mass.next_step", expect=self.m.step)

    def to_battle(self, rows: dict[str, str] | None = None,
                  formations: dict[str, str] | None = None, odd: str = "attack") -> None:
        """From preparation (or a deployment) to the battle step, answering every prompt."""
        if self.m.step == "preparation":
            self.next()
        for uid, row in (rows or {}).items():
            self.do(kind="mass.deploy", unit=uid, row=row, odd=odd)
        for u in self.m.units.values():
            if u.row is None and not u.routed:
                self.do(kind="mass.deploy", unit=u.id, row="front", odd=odd)
        self.next()
        self.answer_all("mass.rebalance", "stay")
        self.answer_all("mass.odd", odd)
        for uid, fid in (formations or {}).items():
            self.do(kind="mass.formation", unit=uid, formation=fid)
        self.next()

    def settle_prompts(self, rng: random.Random | None = None) -> None:
        """Answer whatever is open: pass on reactions, 0 LP, stay, attack (or at random)."""
        defaults = {"mass.react": "pass", "mass.lp": "0", "mass.rebalance": "stay",
                    "mass.odd": "attack"}
        while self.prompts():
            p = self.prompts()[0]
            ids = [c.id for c in p.choices]
            choice = rng.choice(ids) if rng else defaults.get(p.resume, ids[0])
            self.answer(p, choice if choice in ids else ids[0])


def check_invariants(m: MassState, before: str | None = None) -> None:
    """Strength within 0..max, uses never negative; front ≥ back when deployment has just
    closed (`before` = the step before the last action)."""
    for u in m.units.values():
        assert 0 <= u.strength <= (u.max_strength or 0), (u.id, u.strength, u.max_strength)
        assert all(v is None or v >= 0 for v in u.uses.values()), u.uses
        assert attack_of(u) >= 0 and defence_of(u) >= 0
        assert u.lp is None or u.lp >= 0
        assert u.surges_left >= 0
        if u.strength == 0 and m.step != "preparation":
            assert u.routed
    if before == "deployment" and m.step == "tactics":
        for side in m.sides:
            live = [u for u in m.units.values() if u.side == side and not u.routed]
            front = sum(u.row == "front" for u in live)
            back = sum(u.row == "back" for u in live)
            assert front >= back or not live, (side, front, back)
