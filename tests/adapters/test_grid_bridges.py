"""Over real sockets: seamless combat with the GM, two players and both platform bridges
(their table ops applied to the fake Foundry scene and Ccfolia room of adapter_support).
A full player round and enemy round; legal squares are pushed to Foundry after every
change; a legal drag round-trips; an illegal drag is refused and snapped back with the
reason whispered to the mover; statuses tick at the right moments (GRID-MV-1, GRID-RND-2,
GRID-ST-1, GRID-DUR-2). The Foundry module's own veto runs in adapters/test/grid.test.js."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapter_support import FakeCcfolia, FakeFoundry

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server

USERS = {"uidAlice": "alice", "uidBob": "bob"}


class Bridge:
    """A platform bridge's socket with its fake platform applying every `table.ops`."""

    def __init__(self, c: Client, platform: str) -> None:
        self.c, self.platform = c, platform
        self.fake: FakeFoundry | FakeCcfolia = FakeFoundry() if platform == "foundry" else FakeCcfolia()
        self.version = 0

    @classmethod
    async def join(cls, r: Running, token: str, platform: str) -> Bridge:
        b = cls(await Client.connect(r.url), platform)
        await b.c.send({"type": "auth", "room": r.room, "token": token, "platform": platform})
        await b.follow(lambda f: f.get("reset") is True)
        return b

    def apply(self, frame: dict[str, Any]) -> None:
        self.fake.apply(frame["ops"], reset=frame["reset"])
        self.version = max(self.version, frame["version"])

    async def follow(self, done: Any) -> dict[str, Any]:
        """Apply table.ops frames until one satisfies `done`."""
        while True:
            frame = await self.c.expect("table.ops")
            self.apply(frame)
            if done(frame):
                return frame

    async def upto(self, version: int) -> None:
        if self.version < version:
            await self.follow(lambda f: f["version"] >= version)

    def legal(self, piece: str) -> Any:
        assert isinstance(self.fake, FakeFoundry)
        return self.fake.by_ks()[f"ks-piece-{piece}"]["data"]["flags"]["komasync"].get("legal")

    async def drop(self, eid: str, piece: str, x: float, y: float, uid: str, name: str,
                   is_gm: bool = False) -> dict[str, Any]:
        event = {"kind": "move", "id": f"ks-piece-{piece}", "x": x, "y": y,
                 "user": {"id": uid, "name": name, "gm": is_gm}}
        await self.c.send({"type": "table.event", "id": eid, "event": event})
        reply: dict[str, Any] = await self.c.reply_to(eid)
        return reply


class Table:
    def __init__(self, r: Running, g: Client, players: dict[str, Client], foundry: Bridge,
                 ccfolia: Bridge) -> None:
        self.r, self.g, self.players, self.foundry, self.ccfolia = r, g, players, foundry, ccfolia

    async def act(self, who: Client, **action: Any) -> int:
        reply = await who.reply_to(await who.act(action))
        assert reply["type"] == "ack", reply
        await self.g.settle(reply["version"])
        await self.foundry.upto(reply["version"])
        await self.ccfolia.upto(reply["version"])
        return int(reply["version"])

    def cell(self, piece: str) -> tuple[int, int]:
        c = self.g.state["table"]["pieces"][piece]["cell"]
        return c["x"], c["y"]

    def statuses(self, cid: str) -> list[str]:
        return [s["name"] or s["kind"] for s in self.g.state["grid"]["combatants"][cid]["statuses"].values()]


async def setup(r: Running) -> Table:
    g = await gm(r)
    for path, value in ((["meta", "platforms", "ccfolia"], {"users": USERS}),
                        (["meta", "platforms", "foundry"], {"cell_size": 100, "origin_x": 0, "origin_y": 0})):
        reply = await g.reply_to(await g.act({"kind": "override", "path": path, "value": value,
                                              "reason": "table setup"}))
        assert reply["type"] == "ack"
    players = {p: await join(r, await invite(g, "player", p)) for p in ("alice", "bob")}
    foundry = await Bridge.join(r, await invite(g, "bridge"), "foundry")
    ccfolia = await Bridge.join(r, await invite(g, "bridge"), "ccfolia")
    return Table(r, g, players, foundry, ccfolia)


async def test_grid_rounds_over_sockets_with_both_bridges(tmp_path: Path) -> None:  # GRID-MV-1, GRID-RND-2
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    try:
        t = await setup(r)
        alice, bob, g = t.players["alice"], t.players["bob"], t.g
        assert t.foundry.legal("fighter") is None  # before combat: no veto
        await t.act(g, kind="grid.start")
        await t.act(g, kind="grid.status.add", combatant="archer", status="poison", value=3)
        await t.act(g, kind="grid.status.add", combatant="fighter", status="effect", name="[ブレス]",
                    duration="round")
        assert t.foundry.legal("fighter")["positions"] == []

        # 剣士レオ: the legal squares reach Foundry; a legal Foundry drop round-trips
        await t.act(alice, kind="grid.process.start", combatant="fighter")
        legal = t.foundry.legal("fighter")
        assert {"x": 300, "y": 400} in legal["positions"] and {"x": 900, "y": 400} not in legal["positions"]
        assert "GRID-MV-1/2/3" in legal["reason"]["en"]
        ack = await t.foundry.drop("f1", "fighter", 300, 400, "fa", "アリス")
        assert ack["type"] == "ack"
        await t.g.settle(ack["version"])
        await t.ccfolia.upto(ack["version"])
        assert t.cell("fighter") == (3, 4)
        ccpos = t.ccfolia.fake.objects["ks-piece-fighter"]["data"]  # type: ignore[union-attr]
        assert (ccpos["x"], ccpos["y"]) == (3 - 8, 4 - 6)  # the other table follows, in squares

        # an illegal drop on Ccfolia: refused, snapped back, the reason whispered to the mover
        reject = await t.ccfolia.drop("c1", "fighter", 9 - 8, 4 - 6, "uidAlice", "")
        assert (reject["type"], reject["code"], reject["rule"]) == ("reject", "too_far", "GRID-MV-1")
        snap = await t.ccfolia.c.expect("table.ops", event="c1")
        assert snap["ops"][0]["op"] == "character.update"
        assert snap["ops"][0]["data"] == {"x": 3 - 8, "y": 4 - 6}
        assert snap["ops"][-1]["to"] == "uidAlice" and "6マス必要" in snap["ops"][-1]["ja"]
        assert t.cell("fighter") == (3, 4)

        # the rest of the player round; poison strikes as the archer's process starts
        await t.act(alice, kind="grid.process.end", combatant="fighter")
        for who, cid in ((alice, "mage"), (bob, "archer"), (bob, "priest")):
            hp = t.g.state["table"]["counters"]["archer_hp"]["value"]
            await t.act(who, kind="grid.process.start", combatant=cid)
            after = t.g.state["table"]["counters"]["archer_hp"]["value"]
            assert after == (hp - 3 if cid == "archer" else hp)  # GRID-ST-1
            await t.act(who, kind="grid.process.end", combatant=cid)
        assert t.g.state["grid"]["side"] == "enemy"
        assert t.statuses("fighter") == ["[ブレス]"]  # GRID-DUR-2: through the enemy round

        # the enemy round: the GM's drop of an enemy in its process is judged too
        await t.act(g, kind="grid.process.start", combatant="ghoul1")
        assert {"x": 700, "y": 300} in t.foundry.legal("ghoul1")["positions"]
        assert t.foundry.legal("ghoul2")["positions"] == []
        far = await t.foundry.drop("f2", "ghoul1", 200, 300, "gmu", "GM", is_gm=True)
        assert (far["type"], far["rule"]) == ("reject", "GRID-MV-1")  # the GM's drop is judged
        ack = await t.foundry.drop("f3", "ghoul1", 700, 300, "gmu", "GM", is_gm=True)
        assert ack["type"] == "ack"
        await t.g.settle(ack["version"])
        assert t.cell("ghoul1") == (7, 3)
        await t.act(g, kind="grid.process.end", combatant="ghoul1")
        for cid in ("ghoul2", "wraith", "knight"):
            await t.act(g, kind="grid.process.start", combatant=cid)
            await t.act(g, kind="grid.process.end", combatant=cid)
        assert (t.g.state["grid"]["round"], t.g.state["grid"]["side"]) == (2, "pc")
        assert t.statuses("fighter") == []  # GRID-DUR-2: gone as round 2 begins
        assert t.statuses("archer") == ["poison"]
        board = t.foundry.fake.by_ks()["ks-board"]["data"]["text"]  # type: ignore[union-attr]
        assert "第2ラウンド プレイヤーラウンド" in board
        for c in (alice, bob, g, t.foundry.c, t.ccfolia.c):
            await c.close()
    finally:
        await r.runner.cleanup()
