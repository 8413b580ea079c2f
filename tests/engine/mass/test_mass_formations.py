"""The seed's 10 formations (MASS-DATA, MASS-T-2), one test each, named after it.

Setting: a1 (p1, 12 → 6/6), a2 (p2, 10 → 5/5), b1 (GM, 12 → 6/6), b2 (GM, 10 → 5/5),
all in the front row unless a test says otherwise; order a1, b1, a2, b2.
"""

from __future__ import annotations

from typing import Any

from mass_kit import GM, War, player, scenario, two_by_two

from komasync.engine.mass.rules import attack_of, defence_of

P1, P2 = player("p1"), player("p2")
FRONT = {"a1": "front", "a2": "front", "b1": "front", "b2": "front"}


def d6(n: int) -> str:
    return f"(1D6) ＞ {n}"


def war(formation: str, who: str = "a1", rows: dict[str, str] | None = None,
        **extra: Any) -> War:
    """`who` owns and takes `formation`; everyone else stands in 縦列陣形."""
    units = {who: {"formations": [formation], **extra.pop(who, {})}, **extra}
    w = War(scenario(two_by_two(**units)))
    w.to_battle(rows=rows or FRONT, formations={who: formation})
    return w


def values(w: War, uid: str) -> tuple[int, int]:
    return attack_of(w.u(uid)), defence_of(w.u(uid))


def test_formation_縦列陣形() -> None:
    """No effect: the deployment halves stand."""
    assert values(war("縦列陣形"), "a1") == (6, 6)


def test_formation_防壁の波陣() -> None:
    """Attack −1, defence +2."""
    assert values(war("防壁の波陣"), "a1") == (5, 8)


def test_formation_攻撃の波陣() -> None:
    """Attack +2, defence −1."""
    assert values(war("攻撃の波陣"), "a1") == (8, 5)


def test_formation_疾風陣() -> None:
    """Acts first in the turn: b2 (initiative 4) before a1 (9)."""
    w = war("疾風陣", "b2")
    assert w.m.order == ["b2", "a1", "b1", "a2"] and w.m.current == "b2"


def test_formation_強撃陣() -> None:
    """Attack +4, defence −2."""
    assert values(war("強撃陣"), "a1") == (10, 4)


def test_formation_波状盾の陣() -> None:
    """Attack −2, defence +4."""
    assert values(war("波状盾の陣"), "a1") == (4, 10)


def test_formation_片翼突撃の陣() -> None:
    """The front-row attack die may be rerolled once (a turn): asked of the attacker's
    player after the roll; rerolled by komasync; not offered a second time."""
    w = war("片翼突撃の陣")
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(1))
    ask = w.prompts("mass.react")
    assert [p.to for p in ask] == ["player:p1"]
    assert [c.id for c in ask[0].choices] == ["reroll", "pass"]
    out = w.answer(ask[0], "reroll")
    reroll = next(r for r in out.rolls if r.purpose.startswith("mass.reroll"))
    assert reroll.source == "engine"
    assert w.prompts() == [] and w.u("a1").reroll_used
    assert w.u("b1").strength == 12 - max(6 + (reroll.total or 0) - 6, 1)


def test_formation_片翼突撃の陣_not_from_the_back_row() -> None:
    w = war("片翼突撃の陣", rows={"a1": "front", "a2": "back", "b1": "front", "b2": "back"})
    w.do(P1, kind="mass.defend", unit="a1", result=d6(1))
    w.do(GM, kind="mass.defend", unit="b1", result=d6(1))
    w.do(P2, kind="mass.attack", unit="a2", target="b1")
    assert w.prompts() == []


def test_formation_中央突破の陣() -> None:
    """Defence −1, and the attack die is fixed at 3: 6 + 3 − 6 = 3, nothing rolled."""
    w = war("中央突破の陣")
    assert values(w, "a1") == (6, 5)
    out = w.do(P1, kind="mass.attack", unit="a1", target="b1")
    assert out.rolls == [] and w.u("b1").strength == 9
    done = next(h for h in out.happenings if h.kind == "mass.attack.die").data
    assert (done["die"], done["fixed"]) == (3, True)


def test_formation_三波状陣() -> None:
    """Up to 3 times a turn +1 attack or defence for an attack: a1 spends two on its
    attack (6 + 4 + 2 − 6 = 6), then one on defence when b1 attacks it."""
    w = war("三波状陣")
    assert w.u("a1").surges_left == 3
    w.do(P1, kind="mass.attack", unit="a1", target="b1", result=d6(4))
    w.answer(w.prompts("mass.react")[0], "surge_attack")
    w.answer(w.prompts("mass.react")[0], "surge_attack")
    w.answer(w.prompts("mass.react")[0], "pass")
    assert w.u("b1").strength == 6
    w.do(GM, kind="mass.attack", unit="b1", target="a1", result=d6(2))
    ask = w.prompts("mass.react")[0]
    assert ask.to == "player:p1" and "surge_defence" in {c.id for c in ask.choices}
    w.answer(ask, "surge_defence")
    assert w.prompts("mass.react") == []  # no surges left
    w.answer(w.prompts("mass.lp")[0], "0")
    assert w.u("a1").strength == 11  # 6 + 2 − (6 + 1) → 1


def test_formation_背水の陣() -> None:
    """Defence 0, attack = max strength − current strength (12 − 7 = 5)."""
    w = war("背水の陣", a1={"strength": 7})
    assert values(w, "a1") == (5, 0)
