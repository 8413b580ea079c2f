"""The seed's section V example played for six rounds over real sockets (TD-RND, TD-DATA).

The GM drives the phases from one connection; each player acts for their own PC from
their own connection; the NPC is the GM's. Every change the GM receives is checked
against the invariants: durability only falls (unless overridden), counts never go
below 1 on the board, groups only move inward, a broken fort is never hit again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
from komasync.engine.tower_defense.map import adjacent, reaches
from komasync.engine.tower_defense.model import TowerDefenseState
from komasync.engine.views import Audience, project
from komasync.server.replay import rebuild

START = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "m_left",
         "pc5": "final", "pc6": "m_right", "npc1": "f_right"}


class Table:
    """The GM's connection, the six players' connections, and the invariant checks."""

    def __init__(self, r: Running, g: Client, players: dict[str, Client]) -> None:
        self.r, self.g, self.players = r, g, players
        self.durability: dict[str, int] = {}
        self.at: dict[str, int] = {}
        self.overridden: set[str] = set()

    @property
    def td(self) -> TowerDefenseState:
        return TowerDefenseState.model_validate(self.g.state["tower_defense"])

    def client_for(self, pc_id: str) -> Client:
        player = self.td.pcs[pc_id].player
        return self.players[player] if player else self.g

    async def act(self, client: Client, kind: str, **fields: Any) -> dict[str, Any]:
        reply = await client.reply_to(await client.act({"kind": kind, **fields}))
        if reply["type"] == "ack":
            await self.follow(reply["version"])
        return reply

    async def follow(self, version: int) -> None:
        """Read the GM's frames up to `version`, checking each change."""
        while self.g.version < version:
            msg = await self.g.recv()
            if msg["type"] == "change":
                self.check(msg)

    def check(self, change: dict[str, Any]) -> None:
        info = change["info"]
        if info["action"]["kind"] == "override":
            self.overridden.add("/".join(map(str, info["action"]["path"])))
        for h in info["happenings"]:
            if h["kind"] == "fort.damaged":
                assert self.durability[h["data"]["fort"]] >= 1  # TD-EATK-2
        td = self.td
        for fort in td.forts.values():
            before = self.durability.get(fort.id, fort.durability)
            if not any(p.startswith(f"tower_defense/forts/{fort.id}") for p in self.overridden):
                assert fort.durability <= before  # durability only falls
            assert fort.durability >= 0
            self.durability[fort.id] = fort.durability
        for group in td.groups.values():
            assert group.count >= 1  # TD-REIN-1
            assert group.at >= self.at.get(group.id, 0)  # TD-ADV-1: only inward
            self.at[group.id] = group.at

    async def next_phase(self) -> None:
        reply = await self.act(self.g, "td.next_phase", expect=self.td.phase)
        assert reply["type"] == "ack", reply
        for prompt_id, prompt in list(self.g.state["prompts"].items()):
            assert prompt["to"] == "gm"
            await self.g.send({"type": "answer", "id": f"ans-{prompt_id}", "prompt": prompt_id,
                               "choice": "done"})
            ack = await self.g.reply_to(f"ans-{prompt_id}")
            assert ack["type"] == "ack"
            await self.follow(ack["version"])

    async def setup(self) -> None:  # TD-PRE-1
        for pc, fort in START.items():
            assert (await self.act(self.client_for(pc), "td.pc.place", pc=pc,
                                   fort=fort))["type"] == "ack"
        await self.act(self.players["p1"], "td.trap.set", pc="pc1", passage="in_center_left",
                       trap="explosive")
        await self.act(self.players["p2"], "td.trap.set", pc="pc2", passage="in_right",
                       trap="snare", skill="科学")

    async def pc_phase(self) -> None:  # TD-ATK-1..4
        for pc_id in sorted(self.td.pcs, key=lambda p: p != "pc6"):
            await self.act_for(pc_id)

    async def act_for(self, pc_id: str) -> None:
        td, client = self.td, self.client_for(pc_id)
        pc = td.pcs[pc_id]
        for wid, held in pc.weapons.items():
            weapon = td.weapons[wid]
            targets = sorted((g for g in td.groups.values() if reaches(td, weapon, pc.fort, g)),
                             key=lambda g: (-g.count, g.id))
            if weapon.kind == "firearm" and held.loaded == 0:
                await self.act(client, "td.reload", pc=pc_id, weapon=wid)
            elif not targets:
                crowded = sorted({g.fort for g in td.groups.values() if g.fort} - {pc.fort})
                step = next((f for f in crowded if pc.fort and adjacent(td, pc.fort, f)), None)
                if step is not None and not pc.acted:
                    await self.act(client, "td.move", pc=pc_id, to=step)
            elif weapon.kind == "eye":
                await self.act(client, "td.special", pc=pc_id, group=targets[0].id)
            elif weapon.kind == "melee":
                await self.act(client, "td.melee", pc=pc_id, weapon=wid, group=targets[0].id)
            else:
                special = held.special_left > 0 and targets[0].count >= 5
                left = held.special_left if special else held.loaded
                shots = min(weapon.attacks_per_round, left if left is not None else 99)
                await self.act(client, "td.attack", pc=pc_id, weapon=wid, group=targets[0].id,
                               shots=shots, ammo="special" if special else "normal")
            td, pc = self.td, self.td.pcs[pc_id]


async def test_six_rounds_over_sockets(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "td.sqlite3", EXAMPLES / "tower_defense.yaml",
                           seed="section-v")
    try:
        g = await gm(r)
        players = {f"p{i}": await join(r, await invite(g, "player", f"p{i}")) for i in range(1, 7)}
        table = Table(r, g, players)
        # A refused move: p1 may not act for p2's PC (TD-ATK-1), and the state is untouched.
        reject = await table.act(players["p1"], "td.pc.place", pc="pc2", fort="f_left")
        assert (reject["type"], reject["rule"]) == ("reject", "TD-ATK-1")
        await table.setup()
        while table.td.outcome == "none":
            await table.next_phase()
            if table.td.phase == "pc_attack":
                await table.pc_phase()
        td = table.td
        assert (td.round, td.outcome, td.outcome_reason) == (6, "victory", "survived")
        assert td.forts["final"].durability >= 1
        assert any(f.durability == 0 for f in td.forts.values())  # TD-EATK-2 was exercised
        # Every player's own copy, built only from the frames it received, is exactly its
        # projection of the authoritative state — and never held the future waves.
        state = r.server.rooms[r.room].engine.state
        for pid, client in players.items():
            await client.settle(g.version)
            assert client.state == json.loads(json.dumps(_projection(state, pid)))
            assert "waves" not in "".join(client.raw)
        # Invariant 1: replaying the durable log rebuilds the same state and version.
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
