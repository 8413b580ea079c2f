"""Over real sockets: a three-turn engagement fight with the GM, two players and both
platform bridges (their table ops applied to the fake Foundry scene and Ccfolia room of
adapter_support). Approach, a cover that takes an approach over, melee with the damage
rolled in the VTT chat, a handover prompt answered by its player, setup melee, a guard
for another that takes a melee over; the engagement lines appear and vanish on both
tables (ENG-IN-1, ENG-EF-1/2/3, ENG-HAND-1, ENG-GUARD, ENG-COVER, ENG-SETUP)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapter_support import FakeCcfolia, FakeFoundry

from conftest import EXAMPLES, Client, Running, gm, invite, join, start_server
from komasync.adapters.render import stable_id

USERS = {"uidAlice": "alice", "uidBob": "bob"}


def dice(*faces: int) -> str:
    """A BCDice sum line as the VTT chat shows it."""
    if len(faces) == 1:
        return f"(1D6) ＞ {faces[0]}"
    return f"({len(faces)}D6) ＞ {sum(faces)}[{','.join(map(str, faces))}] ＞ {sum(faces)}"


class Bridge:
    """A platform bridge's socket, its fake platform applying every `table.ops` frame."""

    def __init__(self, c: Client, fake: FakeFoundry | FakeCcfolia) -> None:
        self.c, self.fake, self.version = c, fake, 0

    @classmethod
    async def join(cls, r: Running, token: str, platform: str) -> Bridge:
        fake = FakeFoundry() if platform == "foundry" else FakeCcfolia()
        b = cls(await Client.connect(r.url), fake)
        await b.c.send({"type": "auth", "room": r.room, "token": token, "platform": platform})
        await b.upto(0, reset=True)
        return b

    async def upto(self, version: int, reset: bool = False) -> None:
        while reset or self.version < version:
            frame = await self.c.expect("table.ops")
            self.fake.apply(frame["ops"], reset=frame["reset"])
            self.version = max(self.version, frame["version"])
            reset = False

    def links(self) -> set[str]:
        if isinstance(self.fake, FakeFoundry):
            return {k for k, d in self.fake.by_ks().items()
                    if d["data"]["flags"]["komasync"]["kind"] == "link"}
        return {k for k in self.fake.objects if k.startswith("ks-eng-")}


class Fight:
    def __init__(self, g: Client, alice: Client, bob: Client, bridges: list[Bridge]) -> None:
        self.g, self.alice, self.bob, self.bridges = g, alice, bob, bridges

    async def act(self, who: Client, **action: Any) -> dict[str, Any]:
        reply = await who.reply_to(await who.act(action))
        assert reply["type"] == "ack", reply
        await self.sync(int(reply["version"]))
        return reply

    async def refused(self, who: Client, **action: Any) -> dict[str, Any]:
        reply = await who.reply_to(await who.act(action))
        assert reply["type"] == "reject", reply
        return reply

    async def sync(self, version: int) -> None:
        for c in (self.g, self.alice, self.bob):
            await c.settle(version)
        for b in self.bridges:
            await b.upto(version)

    def lines(self, *pairs: str) -> None:
        """Both tables show exactly these engaged pairs."""
        want = {stable_id("link", p) for p in pairs}
        for b in self.bridges:
            assert b.links() == want, (type(b.fake).__name__, b.links(), want)

    def eng(self, *path: str) -> Any:
        node: Any = self.g.state["engagement"]
        for p in path:
            node = node[p]
        return node

    def hp(self, cid: str) -> int:
        return int(self.g.state["table"]["counters"][f"{cid}_hp"]["value"])

    async def phase(self, n: int = 1) -> None:
        for _ in range(n):
            await self.act(self.g, kind="engagement.phase")


async def _fight(r: Running) -> Fight:
    g = await gm(r)
    reply = await g.reply_to(await g.act({"kind": "override", "path": ["meta", "platforms", "ccfolia"],
                                          "value": {"users": USERS}, "reason": "who is who"}))
    assert reply["type"] == "ack"
    alice = await join(r, await invite(g, "player", "alice"))
    bob = await join(r, await invite(g, "player", "bob"))
    bridges = [await Bridge.join(r, await invite(g, "bridge"), p) for p in ("foundry", "ccfolia")]
    return Fight(g, alice, bob, bridges)


async def test_eng_three_turn_fight_over_sockets_with_both_bridges(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "engagement.yaml")
    try:
        f = await _fight(r)
        g, alice, bob = f.g, f.alice, f.bob
        await f.act(g, kind="engagement.start")
        await f.phase()  # turn 1: initiative/main
        f.lines()
        # a result typed on the player page counts only once the GM allows it
        typed = await f.refused(alice, kind="engagement.approach", combatant="aya", target="oni",
                                dp=4, result=dice(6, 6, 6, 6))
        assert typed["code"] == "player_rolls_refused" and f.eng("exchange") is None
        await f.act(g, kind="room.player_rolls", mode="allow")

        # ENG-COVER: the fox covers the oni against アヤ's approach → アヤ↔妖狐
        await f.act(alice, kind="engagement.approach", combatant="aya", target="oni", dp=4,
                    result=dice(6, 6, 6, 6))
        assert f.eng("exchange", "stage") == "cover" and "goal" not in alice.state["engagement"]["exchange"]
        await f.act(g, kind="engagement.defend", combatant="fox", defence="cover", dp=5,
                    result=dice(6, 6, 6, 6, 6))
        assert f.eng("pairs", "aya|fox", "how") == "cover"
        f.lines("aya|fox")

        # ENG-EF-1: melee right away; the damage is rolled in the Ccfolia chat by アリス
        await f.act(alice, kind="engagement.melee", combatant="aya", target="fox", dp=3,
                    result=dice(4, 4, 4, 4), report_damage=True)
        await f.act(g, kind="engagement.defend", combatant="fox", defence="evade", dp=2,
                    result=dice(2, 2))
        event = {"kind": "chat", "text": "2D6 ダメージ", "roll": dice(3, 4),
                 "speaker": {"name": "剣士アヤ"}, "user": {"id": "uidAlice", "name": "アリス"}}
        await f.bridges[1].c.send({"type": "table.event", "id": "roll1", "event": event})
        ack = await f.bridges[1].c.reply_to("roll1")
        assert ack["type"] == "ack"
        await f.sync(int(ack["version"]))
        assert f.hp("fox") == 28 - 14  # 2D6 (7) + {身体}4 + 〈近接戦闘〉3

        # ENG-HAND-1: ゴウ engages the fox; アリス is asked whether アヤ leaves, and she does
        await f.act(bob, kind="engagement.approach", combatant="gou", target="fox", dp=4,
                    result=dice(5, 5, 5, 5))
        await f.act(g, kind="engagement.defend", combatant="fox", defence="none")
        f.lines("aya|fox", "fox|gou")
        asked = list(alice.state["prompts"].values())
        assert len(asked) == 1 and "ENG-HAND-1" in asked[0]["en"] and not bob.state["prompts"]
        await f.act(alice, kind="answer", prompt=asked[0]["id"], choice="leave")
        f.lines("fox|gou")

        # turn 2's setup: one melee each against last turn's partners (ENG-EF-2)
        await f.phase(2)
        assert (f.eng("turn"), f.eng("phase")) == (2, "setup")
        no = await f.refused(g, kind="engagement.melee", combatant="fox", target="aya", dp=1)
        assert no["rule"] == "ENG-HAND-1"
        await f.act(g, kind="engagement.melee", combatant="fox", target="gou", dp=1, result=dice(3))
        await f.act(bob, kind="engagement.defend", combatant="gou", defence="guard", dp=2,
                    result=dice(3, 3))  # ENG-GUARD on oneself against melee: no damage
        assert f.hp("gou") == 36
        fox = f.hp("fox")
        await f.act(bob, kind="engagement.melee", combatant="gou", target="fox", dp=3,
                    result=dice(5, 5, 5))
        await f.act(g, kind="engagement.defend", combatant="fox", defence="none")
        assert 7 + 1 <= fox - f.hp("fox") <= 7 + 6  # 1D6 rolled by komasync + 5 + 2
        again = await f.refused(bob, kind="engagement.melee", combatant="gou", target="fox", dp=1)
        assert again["rule"] == "ENG-EF-2"
        f.lines("fox|gou")
        await f.phase()  # ENG-EF-3: the setup ends and so do turn 1's engagements
        f.lines()

        # turn 2, main: the oni approaches アヤ, then melees; ゴウ guards for her (ENG-GUARD)
        await f.act(g, kind="engagement.approach", combatant="oni", target="aya", dp=4,
                    result=dice(5, 5, 5, 5))
        await f.act(alice, kind="engagement.defend", combatant="aya", defence="none")
        f.lines("aya|oni")
        await f.act(g, kind="engagement.melee", combatant="oni", target="aya", dp=3,
                    result=dice(3, 3, 3, 3))
        await f.act(bob, kind="engagement.defend", combatant="gou", defence="guard", dp=3,
                    result=dice(5, 5, 5))
        assert f.eng("pairs", "gou|oni", "how") == "guard"
        f.lines("gou|oni")

        # turn 3's setup: アヤ left the oni; ゴウ's setup melee; then everything ends
        await f.phase(2)
        no = await f.refused(g, kind="engagement.melee", combatant="oni", target="aya", dp=1)
        assert no["rule"] == "ENG-GUARD"
        await f.act(bob, kind="engagement.melee", combatant="gou", target="oni", dp=1,
                    result=dice(6))
        await f.act(g, kind="engagement.defend", combatant="oni", defence="evade", dp=0)
        f.lines("gou|oni")
        await f.phase()
        f.lines()
        board = f.bridges[0].fake.by_ks()["ks-board"]["data"]["text"]  # type: ignore[union-attr]
        assert "ターン3 イニシアチブ／メインフェイズ（接近0組）" in board
        for c in (alice, bob, g, *(b.c for b in f.bridges)):
            await c.close()
    finally:
        await r.runner.cleanup()
