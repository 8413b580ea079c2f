"""The seed's strategies (MASS-DATA, MASS-STRAT-1), one test each, named after it.

Setting: a1 (p1, 総大将, 12 → 6/6, LP 5, weapon base 14), a2 (p2, 10 → 5/5, LP 4),
b1 (GM 総大将, 12 → 6/6), b2 (GM, 10 → 5/5); all front unless a test says otherwise;
order a1, b1, a2, b2. Dice are reported lines unless the test checks komasync's roll.
"""

from __future__ import annotations

from typing import Any

from mass_kit import GM, War, player, scenario, two_by_two

from komasync.engine.mass.rules import attack_of, defence_of, row_of

P1, P2 = player("p1"), player("p2")
FRONT = {"a1": "front", "a2": "front", "b1": "front", "b2": "front"}
SPLIT = {"a1": "front", "a2": "back", "b1": "front", "b2": "back"}


def d6(n: int) -> str:
    return f"(1D6) ＞ {n}"


def war(rows: dict[str, str] | None = None, data: dict[str, Any] | None = None,
        **units: dict[str, Any]) -> War:
    w = War(scenario(two_by_two(**units), **(data or {})))
    w.to_battle(rows=rows or FRONT)
    return w


def use(w: War, uid: str, strategy: str, *dice: int, **kw: Any) -> None:
    who = player(w.u(uid).player) if w.u(uid).player else GM  # type: ignore[arg-type]
    w.do(who, kind="mass.strategy", unit=uid, strategy=strategy,
         results=[d6(n) for n in dice] or None, **kw)


def values(w: War, uid: str) -> tuple[int, int]:
    return attack_of(w.u(uid)), defence_of(w.u(uid))


# -- 攻撃系 -----------------------------------------------------------------------------------


def test_strategy_全軍突撃() -> None:
    """No effect in the seed: counted, then the GM's; a scenario may define it."""
    w = war(a1={"strategies": ["全軍突撃"]})
    use(w, "a1", "全軍突撃")
    assert w.u("a1").uses["全軍突撃"] == 0 and values(w, "a1") == (6, 6)
    w2 = war(data={"strategies": [{"id": "全軍突撃", "uses": 1, "effect": "modifier",
                                   "modifier": {"scope": "self", "attack": "1D6"}}]},
             a1={"strategies": ["全軍突撃"]})
    use(w2, "a1", "全軍突撃", 5)
    assert values(w2, "a1") == (11, 6)


def test_strategy_指揮官突撃() -> None:
    """Once the leader's weapon base (14) is the attack: 14 + 2 − 6 = 10; meanwhile the
    unit's damage goes to LP without asking (6 → LP 5 takes 5, strength takes 1)."""
    w = war(a1={"strategies": ["指揮官突撃"]})
    use(w, "a1", "指揮官突撃")
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(2))
    assert w.u("b1").strength == 2
    assert not any("charge" in m.flags for m in w.u("a1").mods)  # once
    w.do(GM, kind="mass.attack", unit="b1", target="a1", result=d6(6))
    assert w.prompts() == []
    assert (w.u("a1").lp, w.u("a1").strength) == (0, 11)
    w2 = war(a2={"strategies": ["指揮官突撃"]})
    r = w2.refused(P2, kind="mass.strategy", unit="a2", strategy="指揮官突撃")
    assert r.code == "no_weapon_base"


def test_strategy_後列前進() -> None:
    """Front: defence +1. Back: attack +1. Unlimited uses."""
    w = war(SPLIT, a1={"strategies": ["後列前進"]}, a2={"strategies": ["後列前進"]})
    use(w, "a1", "後列前進")
    use(w, "a2", "後列前進")
    assert values(w, "a1") == (6, 7) and values(w, "a2") == (6, 5)
    assert w.u("a1").uses["後列前進"] is None


def test_strategy_前列前進() -> None:
    """Front: attack +1. Back: defence +1."""
    w = war(SPLIT, a1={"strategies": ["前列前進"]}, a2={"strategies": ["前列前進"]})
    use(w, "a1", "前列前進")
    use(w, "a2", "前列前進")
    assert values(w, "a1") == (7, 6) and values(w, "a2") == (5, 6)


def test_strategy_前進攻撃() -> None:
    """Front: one back-row ally recovers 1. Back: one front-row ally attack +1."""
    w = war(SPLIT, a1={"strategies": ["前進攻撃"]},
            a2={"strategies": ["前進攻撃"], "strength": 8})
    bad = w.refused(P1, kind="mass.strategy", unit="a1", strategy="前進攻撃", target="b2")
    assert (bad.code, bad.rule) == ("bad_target", "MASS-DATA")
    use(w, "a1", "前進攻撃", target="a2")
    assert w.u("a2").strength == 9
    use(w, "a2", "前進攻撃", target="a1")
    assert values(w, "a1") == (7, 6)


def test_strategy_後退攻撃() -> None:
    """Front: a front-row attacker gets no bonus on it. Back: attack +1. 4 uses."""
    w = war(SPLIT, a1={"strategies": ["後退攻撃"]}, a2={"strategies": ["後退攻撃"]})
    use(w, "a1", "後退攻撃")
    use(w, "a2", "後退攻撃")
    assert values(w, "a2") == (6, 5) and w.u("a1").uses["後退攻撃"] == 3
    w.do(P1, kind="mass.delay", unit="a1")
    out = w.do(GM, kind="mass.attack", unit="b1", target="a1")
    assert out.rolls == []  # no bonus die: 6 − 6 → 1
    w.answer(w.prompts("mass.lp")[0], "0")
    assert w.u("a1").strength == 11


def test_strategy_強撃前進() -> None:
    """Front: attack +1D6. Back: recover 1 strength."""
    w = war(SPLIT, a1={"strategies": ["強撃前進"]},
            a2={"strategies": ["強撃前進"], "strength": 7})
    use(w, "a1", "強撃前進", 4)
    use(w, "a2", "強撃前進")
    assert values(w, "a1") == (10, 6) and w.u("a2").strength == 8


def test_strategy_爆裂部隊() -> None:
    """Lose 1D6 (3); the target loses that + 1D6 (3 + 2 = 5)."""
    w = war(a1={"strategies": ["爆裂部隊"]})
    use(w, "a1", "爆裂部隊", 3, 2, target="b2")
    assert (w.u("a1").strength, w.u("b2").strength) == (9, 5)


def test_strategy_爆裂部隊_target_may_take_it_on_lp() -> None:
    """MASS-DMG-2 also for an enemy's strategy damage: b1's blast on a2 asks p2."""
    w = war(b1={"strategies": ["爆裂部隊"]})
    use(w, "b1", "爆裂部隊", 1, 1, target="a2")
    ask = w.prompts("mass.lp")
    assert [p.to for p in ask] == ["player:p2"]
    w.answer(ask[0], "2")
    assert (w.u("a2").strength, w.u("a2").lp, w.u("b1").strength) == (10, 2, 11)


# -- 回復系 -----------------------------------------------------------------------------------


def test_strategy_全軍後退() -> None:
    """Recover 1D6; defence falls by the amount recovered (capped at max: 12 − 10 = 2)."""
    w = war(a1={"strategies": ["全軍後退"], "strength": 10})
    use(w, "a1", "全軍後退", 5)
    assert w.u("a1").strength == 12 and values(w, "a1") == (5, 3)


def test_strategy_全軍防御() -> None:
    """Spend 1 strength; defence +1D6."""
    w = war(a1={"strategies": ["全軍防御"]})
    use(w, "a1", "全軍防御", 4)
    assert w.u("a1").strength == 11 and values(w, "a1") == (6, 10)


def test_strategy_全軍防御_強() -> None:
    """全軍防御・強: every allied unit defence +1D6 (one die), no strength spent."""
    w = war(a1={"strategies": ["全軍防御・強"]})
    use(w, "a1", "全軍防御・強", 4)
    assert values(w, "a1") == (6, 10) and values(w, "a2") == (5, 9)
    assert (w.u("a1").strength, values(w, "b1")) == (12, (6, 6))


def test_strategy_統率回復() -> None:
    """Recover 1D6 strength; 3 uses."""
    w = war(a1={"strategies": ["統率回復"], "strength": 4})
    use(w, "a1", "統率回復", 6)
    assert w.u("a1").strength == 10 and w.u("a1").uses["統率回復"] == 2


def test_strategy_統率回復_強() -> None:
    """統率回復・強: every allied unit recovers 1D6 (one die)."""
    w = war(a1={"strategies": ["統率回復・強"], "strength": 4}, a2={"strength": 9})
    use(w, "a1", "統率回復・強", 3)
    assert (w.u("a1").strength, w.u("a2").strength) == (7, 10)


def test_strategy_陣形変更() -> None:
    """To an owned formation at once, recover 1; defence −1 this turn."""
    w = war(a1={"strategies": ["陣形変更"], "formations": ["強撃陣"], "strength": 10})
    r = w.refused(P1, kind="mass.strategy", unit="a1", strategy="陣形変更", formation="疾風陣")
    assert (r.code, r.rule) == ("not_owned", "MASS-PREP-3")
    use(w, "a1", "陣形変更", formation="強撃陣")
    assert w.u("a1").formation == "強撃陣" and w.u("a1").strength == 11
    assert values(w, "a1") == (9, 2)


def test_strategy_陣形変更_速() -> None:
    """陣形変更・速: the same without the defence loss."""
    w = war(a1={"strategies": ["陣形変更・速"], "formations": ["強撃陣"], "strength": 10})
    use(w, "a1", "陣形変更・速", formation="強撃陣")
    assert values(w, "a1") == (9, 3) and w.u("a1").strength == 11


def test_strategy_速攻前進() -> None:
    """This turn every ally counts as front row: a2 (back) → b1 gets the bonus die."""
    w = war(SPLIT, a1={"strategies": ["速攻前進"]})
    use(w, "a1", "速攻前進")
    assert row_of(w.u("a2")) == "front" and w.u("a2").row == "back"
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))
    w.do(GM, kind="mass.defend", unit="b1", result=d6(1))
    w.do(P2, kind="mass.attack", unit="a2", target="b1", result=d6(6))
    assert w.u("b1").strength == 8  # 5 + 6 − 7


def test_strategy_速攻後退() -> None:
    """This turn every ally counts as back row: b2 (back) can no longer attack a1."""
    w = war(SPLIT, a1={"strategies": ["速攻後退"]})
    use(w, "a1", "速攻後退")
    assert row_of(w.u("a1")) == "back"
    for uid, who in (("a1", P1), ("b1", GM), ("a2", P2)):
        w.do(who, kind="mass.defend", unit=uid, result=d6(1))
    r = w.refused(GM, kind="mass.attack", unit="b2", target="a1")
    assert (r.code, r.rule) == ("back_to_back", "MASS-DMG-1")


def test_strategy_分断作戦() -> None:
    """This turn the user's side's front-to-back attacks get the bonus: 6 + 4 − 5 = 5."""
    w = war(SPLIT, a1={"strategies": ["分断作戦"]})
    use(w, "a1", "分断作戦")
    w.do(P1, kind="mass.attack", unit="a1", target="b2", result=d6(4))
    assert w.u("b2").strength == 5


def test_strategy_全軍退却() -> None:
    """Leave the field: routed (a2); the 総大将 doing it loses the war."""
    w = war()
    use(w, "a2", "全軍退却")
    assert (w.u("a2").routed, w.u("a2").retreated, w.m.outcome) == (True, True, "none")
    use(w, "b1", "全軍退却")
    assert (w.m.outcome, w.m.winner, w.m.outcome_reason) == ("won", "a", "commander_routed")


# -- 奇策系 -----------------------------------------------------------------------------------


def test_strategy_情報操作() -> None:
    """The attacker's die is rerolled (once an attack), asked of the target's side."""
    w = war(a2={"strategies": ["情報操作"]})
    w.do(P1, kind="mass.delay", unit="a1")
    w.do(GM, kind="mass.attack", unit="b1", target="a1", result=d6(6))
    ask = w.prompts("mass.react")
    assert [p.to for p in ask] == ["player:p2"]
    assert [c.id for c in ask[0].choices] == ["information:a2", "pass"]
    out = w.answer(ask[0], "information:a2")
    die = next(r for r in out.rolls if r.purpose.startswith("mass.reroll")).total or 0
    assert w.u("a2").uses["情報操作"] == 2
    assert w.prompts("mass.react") == []  # once per attack
    w.answer(w.prompts("mass.lp")[0], "0")
    assert w.u("a1").strength == 12 - max(die, 1)
    direct = w.refused(P2, kind="mass.strategy", unit="a2", strategy="情報操作")
    assert (direct.code, direct.rule) == ("reaction_only", "MASS-DATA")


def test_strategy_煙攻め() -> None:
    """This turn the user's side's back row cannot be attacked."""
    w = war(SPLIT, a2={"strategies": ["煙攻め"]})
    use(w, "a2", "煙攻め")
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))
    r = w.refused(GM, kind="mass.attack", unit="b1", target="a2")
    assert (r.code, r.rule) == ("smoke_screen", "MASS-DATA")


def test_strategy_雨乞い() -> None:
    """Every unit on both sides loses 1D6 (one die)."""
    w = war(a2={"strategies": ["雨乞い"]})
    use(w, "a2", "雨乞い", 2)
    assert [u.strength for u in w.m.units.values()] == [10, 8, 10, 8]


def test_strategy_囮作戦() -> None:
    """On b1's declaration against a1, p2 makes a2 the target (5 + 6 − 5 = 6 to a2)."""
    w = war(a2={"strategies": ["囮作戦"]})
    w.do(P1, kind="mass.delay", unit="a1")
    w.do(GM, kind="mass.attack", unit="b1", target="a1", result=d6(5))
    ask = w.prompts("mass.react")
    assert [p.to for p in ask] == ["player:p2"]
    out = w.answer(ask[0], "decoy:a2")
    assert w.m.attack is None
    die = next(r for r in out.rolls if r.purpose.startswith("mass.bonus"))
    assert (die.total, die.source, die.reporter) == (5, "external", "GM")  # not p2
    w.answer(w.prompts("mass.lp")[0], "0")
    assert (w.u("a1").strength, w.u("a2").strength) == (12, 4)


def test_strategy_偽りの白旗() -> None:
    """The attacker's die (5) counts for the target's defence: 6 − (6 + 5) → 1."""
    w = war(a1={"strategies": ["偽りの白旗"]})
    w.do(P1, kind="mass.delay", unit="a1")
    w.do(GM, kind="mass.attack", unit="b1", target="a1", result=d6(5))
    ask = w.prompts("mass.react")
    assert [c.id for c in ask[0].choices] == ["white_flag", "pass"]
    w.answer(ask[0], "white_flag")
    w.answer(w.prompts("mass.lp")[0], "0")
    assert w.u("a1").strength == 11 and w.u("a1").uses["偽りの白旗"] == 0


def test_strategy_投石部隊() -> None:
    """Declared with a target in tactics; at the turn's end the target takes 1D6."""
    w = War(scenario(two_by_two(a1={"strategies": ["投石部隊"]})))
    w.next()
    for uid in ("a1", "a2", "b1", "b2"):
        w.do(kind="mass.deploy", unit=uid, row="front")
    w.next()
    w.do(P1, kind="mass.strategy", unit="a1", strategy="投石部隊", target="b2")
    assert [(s.user, s.target) for s in w.m.stones] == [("a1", "b2")]
    w.next()
    for uid, who in (("a1", P1), ("b1", GM), ("a2", P2)):
        w.do(who, kind="mass.defend", unit=uid, result=d6(1))
    out = w.do(GM, kind="mass.defend", unit="b2", result=d6(1))
    stone = next(r for r in out.rolls if r.purpose.startswith("mass.stones"))
    assert w.u("b2").strength == 10 - (stone.total or 0)
    assert w.m.stones == [] and w.m.turn == 2


# -- a GM-run unit's reactions (issue 26 finding 4) ------------------------------------------


def _windows(gm_holds: list[str], settings: dict[str, Any] | None = None) -> list[list[str]]:
    """p1's a1 attacks b1 (front vs front); the GM's reaction prompts, one per window, as
    the choices offered (each answered "pass")."""
    w = War(scenario(two_by_two(b2={"strategies": gm_holds}),
                     **({"settings": settings} if settings else {})), gm_passes=False)
    w.to_battle(rows=FRONT)
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(4))
    asked = []
    while (open_ := w.prompts("mass.react")):
        assert [p.to for p in open_] == ["gm"]
        asked.append([c.id for c in open_[0].choices])
        w.answer(open_[0], "pass")
    assert w.m.attack is None and w.u("b1").strength == 8  # 6 + 4 − 6
    return asked


def test_strategy_囮作戦_and_情報操作_windows_open_for_the_gm_whatever_it_holds() -> None:
    """Whether p1's attack waits tells p1 nothing: the GM is asked at both windows with
    or without a reaction to use (the prompt offers just "pass" when it holds none)."""
    assert _windows(["囮作戦", "情報操作"]) == [["decoy:b2", "pass"], ["information:b2", "pass"]]
    assert _windows([]) == [["pass"], ["pass"]]


def test_strategy_gm_reactions_never_no_gm_unit_reacts_and_nothing_waits() -> None:
    """`gm_reactions: never` (public): GM-run units make no strategy reaction, so the GM
    is never asked and the attack resolves at once."""
    assert _windows(["囮作戦", "情報操作"], {"gm_reactions": "never"}) == []
