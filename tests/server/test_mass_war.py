"""A whole war of examples/mass_combat.yaml over real sockets (MASS-*), fixed dice seed.

The GM runs the four enemy units and the step button from one connection; each of the
four players acts for their own unit from their own connection and answers the prompts
addressed to them — the front ≥ back rebalance and the odd point (MASS-T-1), the attack
reactions, and LP (MASS-DMG-2) — which must reach that player alone. Every change the GM
receives is checked against the invariants: strength within 0..max, uses never
negative, front ≥ back whenever deployment closes, strength 0 = routed.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
from komasync.engine.mass.attack import target_refusal
from komasync.engine.mass.model import MassState, Unit
from komasync.engine.views import Audience, project
from komasync.server.replay import rebuild

PICKS: dict[str, dict[str, Any]] = {
    "alice": {"skill": "知力", "formations": ["攻撃の波陣"], "strategies": ["統率回復", "偽りの白旗"]},
    "boris": {"skill": "本能", "formations": ["強撃陣", "片翼突撃の陣"], "strategies": ["囮作戦"]},
    "kana": {"skill": "知力", "formations": ["三波状陣", "防壁の波陣"],
             "strategies": ["情報操作", "前進攻撃"], "initiative_from": "intellect"},
    "dean": {"skill": "知力", "formations": ["中央突破の陣"], "strategies": ["強撃前進"]},
}
FORMATION = {"alice": "攻撃の波陣", "boris": "片翼突撃の陣", "kana": "三波状陣", "dean": "中央突破の陣",
             "orcs": "強撃陣", "wolves": "疾風陣", "goblins": "波状盾の陣", "demon_lord": "防壁の波陣"}


class War:
    """The GM's and the players' connections, the invariant checks, and who was asked what."""

    def __init__(self, r: Running, g: Client, players: dict[str, Client]) -> None:
        self.r, self.g, self.players = r, g, players
        self.asked: Counter[tuple[str, str]] = Counter()
        self.step = "preparation"
        self.n = 0

    @property
    def m(self) -> MassState:
        return MassState.model_validate(self.g.state["mass"])

    def client_for(self, unit: Unit) -> Client:
        return self.players[unit.player] if unit.player else self.g

    async def act(self, client: Client, kind: str, **fields: Any) -> dict[str, Any]:
        reply = await client.reply_to(await client.act({"kind": kind, **fields}))
        if reply["type"] == "ack":
            await self.follow(reply["version"])
        return reply

    async def ok(self, client: Client, kind: str, **fields: Any) -> None:
        reply = await self.act(client, kind, **fields)
        assert reply["type"] == "ack", reply
        await self.answer_prompts()

    async def follow(self, version: int) -> None:
        while self.g.version < version:
            msg = await self.g.recv()
            if msg["type"] == "change":
                self.check()

    def check(self) -> None:
        m = self.m
        for u in m.units.values():
            assert 0 <= u.strength <= (u.max_strength or 0), u
            assert all(v is None or v >= 0 for v in u.uses.values()), u.uses
            assert u.lp is None or u.lp >= 0
            if u.strength == 0 and m.step != "preparation":
                assert u.routed
        if self.step == "deployment" and m.step == "tactics":  # MASS-T-1 just closed
            for side in m.sides:
                live = [u for u in m.units.values() if u.side == side and not u.routed]
                assert sum(u.row == "front" for u in live) >= sum(u.row == "back" for u in live)
        self.step = m.step

    async def answer_prompts(self) -> None:
        """Each open prompt is answered by its addressee, from their own connection."""
        while self.g.state["prompts"]:
            pid, prompt = sorted(self.g.state["prompts"].items())[0]
            to = prompt["to"]
            client = self.g if to == "gm" else self.players[to.split(":", 1)[1]]
            await client.settle(self.g.version)
            assert pid in client.state["prompts"]
            for other, c in self.players.items():
                if f"player:{other}" != to:
                    await c.settle(self.g.version)
                    assert pid not in c.state["prompts"]
            kind = _kind(prompt)
            self.asked[(kind, to)] += 1
            choice = self.choose(kind, prompt)
            await client.send({"type": "answer", "id": f"ans-{pid}", "prompt": pid,
                               "choice": choice})
            ack = await client.reply_to(f"ans-{pid}")
            assert ack["type"] == "ack", ack
            await self.follow(ack["version"])

    def choose(self, kind: str, prompt: dict[str, Any]) -> str:
        ids = [c["id"] for c in prompt["choices"]]
        self.n += 1
        if kind == "rebalance":
            return ids[0] if self.n % 2 or "stay" not in ids else "stay"
        if kind == "odd":
            return ("attack", "defence")[self.n % 2]
        if kind == "lp":
            return ids[min(len(ids) - 1, 1 + self.n % 2)]
        useful = [i for i in ids if i != "pass"]
        return useful[0] if useful and self.n % 3 else "pass"

    # -- a turn ------------------------------------------------------------------------------
    async def prepare(self) -> None:  # MASS-PREP-1, MASS-PREP-3
        for uid, picks in PICKS.items():
            unit = self.m.units[uid]
            client = self.client_for(unit)
            await self.ok(client, "mass.strength", unit=uid, ability="魅力")
            await self.ok(client, "mass.pick", unit=uid, **picks)
        await self.ok(self.g, "mass.next_step", expect="preparation")

    async def deployment(self, turn: int) -> None:  # MASS-T-1
        for u in self.m.units.values():
            if u.player and not u.routed:
                row = "back" if turn == 1 or u.commander else "front"
                await self.ok(self.client_for(u), "mass.deploy", unit=u.id, row=row)
        await self.ok(self.g, "mass.next_step", expect="deployment")

    async def tactics(self) -> None:  # MASS-T-2
        for u in self.m.units.values():
            if not u.routed and FORMATION[u.id] in u.formations:
                await self.ok(self.client_for(u), "mass.formation", unit=u.id,
                              formation=FORMATION[u.id])
        await self.ok(self.g, "mass.next_step", expect="tactics")

    async def battle(self) -> None:  # MASS-T-3, MASS-DMG-*
        turn = self.m.turn
        while self.m.outcome == "none" and self.m.turn == turn and self.m.step == "battle":
            m = self.m
            unit = m.units[m.current or ""]
            client = self.client_for(unit)
            if (unit.player and unit.strength * 3 < (unit.max_strength or 0)
                    and unit.uses.get("統率回復")):
                await self.ok(client, "mass.strategy", unit=unit.id, strategy="統率回復")
                if self.m.outcome != "none":
                    return
            targets = sorted((t for t in self.m.units.values() if t.side != unit.side and
                              not t.routed and target_refusal(unit, t) is None),
                             key=lambda t: (not t.commander, t.strength))
            if targets:
                await self.ok(client, "mass.attack", unit=unit.id, target=targets[0].id)
            else:
                await self.ok(client, "mass.defend", unit=unit.id)


def _kind(prompt: dict[str, Any]) -> str:
    """rebalance / odd / react / lp — from the prompt's public `kind` (MASS-T-1, MASS-DMG-1/2)."""
    kinds = {"mass.rebalance": "rebalance", "mass.odd_point": "odd", "mass.reaction": "react",
             "mass.lp": "lp"}
    return kinds[prompt["kind"]]


async def test_a_whole_war_over_sockets(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "mass.sqlite3", EXAMPLES / "mass_combat.yaml",
                           seed="mass-war-1")
    try:
        g = await gm(r)
        players = {f"p{i}": await join(r, await invite(g, "player", f"p{i}")) for i in range(1, 5)}
        war = War(r, g, players)
        # A player may act only for their own unit, and the state is untouched.
        reject = await war.act(players["p1"], "mass.strength", unit="boris", ability="魅力")
        assert (reject["type"], reject["rule"]) == ("reject", "MASS-PREP-1")
        await war.prepare()
        assert all(war.m.units[u].max_strength for u in PICKS)
        for turn in range(1, 30):
            if war.m.outcome != "none":
                break
            assert (war.m.turn, war.m.step) == (turn, "deployment")
            await war.deployment(turn)
            await war.tactics()
            await war.battle()
        m = war.m
        assert m.outcome == "won" and m.winner in m.sides
        loser = next(s for s in m.sides if s != m.winner)
        assert m.units[m.sides[loser].commander or ""].routed or all(
            u.routed for u in m.units.values() if u.side == loser)
        # The prompts went to the right people, each at least once.
        players_asked = {to for (_, to) in war.asked if to != "gm"}
        assert players_asked == {"player:p1", "player:p2", "player:p3", "player:p4"}
        kinds = {kind for (kind, _) in war.asked}
        assert {"rebalance", "odd", "lp", "react"} <= kinds, war.asked
        assert all(to.startswith("player:") for (kind, to) in war.asked if kind == "lp"), war.asked
        for kind in ("rebalance", "odd", "lp", "react"):  # MASS-T-1, MASS-DMG-2: players asked
            assert any(k == kind and to.startswith("player:") for (k, to) in war.asked), kind
        # Every player's copy is exactly their projection; no GM-run unit's picks leaked.
        state = r.server.rooms[r.room].engine.state
        for pid, client in players.items():
            await client.settle(g.version)
            assert client.state == json.loads(json.dumps(_projection(state, pid)))
            assert "uses" not in client.state["mass"]["units"]["demon_lord"]
        # Replaying the durable log rebuilds the same state and version.
        store = r.server.storage
        rebuilt = await store.call(rebuild, store.storage, r.room)
        assert rebuilt.version == g.version
        assert rebuilt.state.model_dump() == state.model_dump()
    finally:
        await r.runner.cleanup()


def _projection(state: Any, player: str) -> dict[str, Any]:
    tree: dict[str, Any] = project(state, Audience("player", player))
    tree.pop("rng", None)
    return tree
