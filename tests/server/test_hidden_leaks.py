"""Refusals never echo hidden data (BASE-OPT-2, issue 13 finding 2), over real sockets.

A refusal sent to a player or a bridge is built only from what that audience may see;
the GM's refusal notice keeps the whole reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, Client, Running, gm, invite, join, start_server
from komasync.engine.codes import CORE
from komasync.engine.registry import SUBSYSTEMS
from komasync.engine.scenario import load_scenario_file
from komasync.engine.views import Audience, project
from komasync.server.errors import REJECTS

HIDDEN_BASES = ROOT / "tests" / "data" / "hidden_bases.yaml"

#: Hidden parts of tests/data/hidden_bases.yaml that a refusal could name.
RITE_SECRETS = ("禁断の儀式", "冥府の門を叩く")


@pytest.fixture
async def bases_room(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "leaks.sqlite3", HIDDEN_BASES, seed="leaks")
    yield r
    await r.runner.cleanup()


async def refused(client: Client, action: dict[str, Any]) -> dict[str, Any]:
    reply = await client.reply_to(await client.act(action))
    assert reply["type"] == "reject", reply
    assert reply["reason"]["ja"] and reply["reason"]["en"]
    return reply


async def test_trigger_refusal_names_no_hidden_part_but_the_gm_sees_it(
        bases_room: Running) -> None:
    g = await gm(bases_room)
    player = await join(bases_room, await invite(g, "player", "p1"))
    bridge = await join(bases_room, await invite(g, "bridge"))
    await g.reply_to(await g.act({"kind": "bases.round"}))
    trigger = {"kind": "bases.trigger", "event": "stake.rite", "character": "アリス",
               "action": "発動タイミングを放棄する"}
    for client in (player, bridge):
        reply = await refused(client, trigger)
        said = str(reply)
        assert not [s for s in RITE_SECRETS if s in said], f"hidden data in {reply}"
    # The GM's notice for the same refusal keeps the hidden detail (the GM may see it).
    notice = await g.expect("notice", kind="refusal")
    assert "冥府の門を叩く" in str(notice["data"]["reason"])
    assert notice["data"]["code"] == "wrong_trigger" and notice["data"]["rule"] == "BASE-COND-3"


# -- every refusal path, from every non-GM role, while secrets exist ---------------------------
#
# Two rooms on one server: a base battle with a table full of secrets (hidden bases, hidden
# element parts, a hidden GP, hidden pieces/markers, GM-only and other players' counters)
# and a tower defense whose future waves are secret. A player, bridges and an observer
# drive every refusal the engine and the server can give a non-GM; the GM's refusal
# notices say which engine code each one hit. Afterwards nothing any non-GM received —
# snapshots, changes, refusals, errors, history, table ops — holds a hidden name, id,
# condition or count (what the client itself sent and gets echoed back aside).

HIDDEN_TD = ROOT / "tests" / "data" / "hidden_td.yaml"
TD_ROOM = "td"
ENG_ROOM = "eng"

#: Hidden words and numbers, besides those derived from the projections.
SECRET_WORDS = (
    "隠し砲台", "battery", "砲撃の号令", "砲台に火を入れる", "砲台は第三夜に目覚める",
    "禁断の儀式", "冥府の門を叩く", "囁きの呪詛", "敵が戦闘空間上に存在しない", "深淵を覗く",
    "血の盟約", "血の契約を結ぶ", "月が紅く染まった", "亡霊の囁き", "亡霊を呼ぶ", "残響の秘術",
    "残響を聴く", "影の刺客", "shade", "破滅の刻印", "ボブの秘めた体力", "奈落の落とし穴",
    "終焉のウェンディゴ群", "虚空の使徒", "SANチェックを行ってください", "td.san",
)
SECRET_NUMBERS = (613, 4471, 3323, 8821, 777)

#: Refusal codes a non-GM connection cannot reach, and why (the meta-assertion below
#: fails if a code is neither driven here nor listed, or listed but driven).
NOT_FROM_NON_GM = {
    "bad_path": "override is GM-only",
    "bad_value": "override is GM-only",
    "undo_not_expanded": "undo is GM-only (and the server expands it)",
    "bad_undo": "undo is GM-only",
    "nothing_to_reveal": "bases.reveal is GM-only",
    "unknown_base": "only GM actions name a base (bases.reveal, bases.effect, bases.summary)",
    "battle_over": "bases.round and bases.end are GM-only",
    "stale_phase": "td.next_phase is GM-only",
    "pc_without_fort": "td.next_phase is GM-only",
    "san_pending": "td.next_phase is GM-only",
    "unknown_direction": "td.group.add is GM-only",
    "unknown_individual": "td.individual.remove is GM-only",
    "unknown_marker": "table.marker.remove is GM-only",
    "not_your_prompt": "a prompt a player is shown is one they may answer; others are unknown",
    "cascade_too_deep": "needs rules that trigger each other past the bound; the reason is a number",
    "internal_error": "a server bug; the reason is fixed text",
    "bad_action": "an adapter making an invalid action from the table's own projection",
    "not_available": "the form a non-GM gets instead of a refusal naming hidden data",
    "already_active": "engagement.start (and grid.start) are GM-only",
    "nothing_open": "engagement.cancel is GM-only",
    "exists": "engagement.combatant.add (and grid.combatant.add) are GM-only",
}


#: The registered subsystems this file drives (engagement through test_engagement_hidden;
#: `room`, engine/control.py, is in the engine core, whose codes every list counts); grid
#: and mass have their own leak test (tests/server/test_hidden_leaks_combat.py) over their
#: own hidden data, which checks that the two lists hold every subsystem of the registry.
DRIVEN_HERE = ("room", "table", "tower_defense", "bases", "engagement")


def subsystem_source(name: str) -> list[Path]:
    """The source of a registered subsystem: the package that declares it, or the core
    module (engine/control.py declares `room`)."""
    declared = {s.name: s for s in SUBSYSTEMS}
    assert name in declared, f"{name} is not a registered subsystem"
    module = next(m for m in list(sys.modules.values())
                  if getattr(m, "SUBSYSTEM", None) is declared[name])
    path = Path(str(module.__file__))
    return sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]


def refusal_codes(subsystems: tuple[str, ...] = DRIVEN_HERE) -> set[str]:
    """Every refusal code an action can be refused with in the given subsystems, read from
    the registry: the core's (the engine's guards, room actions, the shared combatants),
    the subsystems' own (`Subsystem.refusals`) and the server's that a `reject` carries."""
    declared = {s.name: s for s in SUBSYSTEMS}
    assert set(subsystems) <= set(declared), sorted(set(subsystems) - set(declared))
    codes = {c.code for c in CORE} | {c.code for c in REJECTS}
    for name in subsystems:
        group = declared[name].refusals
        codes |= {c.code for c in group or ()}
    return codes


def strings_of(value: Any) -> set[str]:
    """Every string in a JSON value: keys and values."""
    if isinstance(value, dict):
        return set(map(str, value)) | {s for v in value.values() for s in strings_of(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings_of(v)}
    return {value} if isinstance(value, str) else set()


def names_of(value: Any) -> set[str]:
    """The strings of a state projection that are data: values, and keys of entries
    (ids: `battery`, `shade`), not field names (`op`, `gp`)."""
    if isinstance(value, dict):
        ids = {str(k) for k, v in value.items() if isinstance(v, dict) and "id" in v}
        return ids | {s for v in value.values() for s in names_of(v)}
    if isinstance(value, list):
        return {s for v in value for s in names_of(v)}
    return {value} if isinstance(value, str) else set()


def hidden_from(state: Any, audience: Audience) -> set[str]:
    """Data the GM's projection holds and `audience`'s does not."""
    gm_tree, theirs = project(state, Audience("gm")), project(state, audience)
    gm_tree.pop("rng", None)
    return names_of(gm_tree) - strings_of(theirs)


class Peer:
    """A real client reading every frame in the background; requests wait for their reply."""

    def __init__(self, name: str, audience: Audience | None, client: Client) -> None:
        self.name, self.audience, self.client = name, audience, client
        self.frames: list[dict[str, Any]] = []
        self.sent: dict[str, dict[str, Any]] = {}
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._n = 0
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def join(cls, r: Running, name: str, audience: Audience | None, room: str,
                   **auth: Any) -> Peer:
        c = await Client.connect(r.url)
        await c.send({"type": "auth", "room": room, **auth})
        await c.expect("welcome")
        return cls(name, audience, c)

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                msg = await self.client.recv(timeout=3600)
                self.frames.append(msg)
                fut = self.waiting.pop(str(msg.get("id")), None)
                if fut is not None and msg["type"] not in ("table.ops",) and not fut.done():
                    fut.set_result(msg)

    async def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        self._n += 1
        msg = {**msg, "id": f"{self.name}-{self._n}"}
        fut = asyncio.get_running_loop().create_future()
        self.waiting[msg["id"]] = fut
        self.sent[msg["id"]] = msg
        await self.client.send(msg)
        return await asyncio.wait_for(fut, 5)

    async def act(self, action: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return await self.ask({"type": "action", "action": action, **extra})

    async def ok(self, action: dict[str, Any]) -> dict[str, Any]:
        reply = await self.act(action)
        assert reply["type"] == "ack", (self.name, action, reply)
        await self.settle(reply["version"])
        return reply

    async def refused(self, action: dict[str, Any], code: str | None = None,
                      **extra: Any) -> dict[str, Any]:
        reply = await self.act(action, **extra)
        assert reply["type"] == "reject", (self.name, action, reply)
        assert reply["reason"]["ja"] and reply["reason"]["en"]
        if code is not None:
            assert reply["code"] == code, (self.name, action, reply)
        return reply

    async def settle(self, version: int) -> None:
        for _ in range(500):
            if self.client.version >= version:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"{self.name} did not reach v{version}")

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task
        with contextlib.suppress(Exception):
            await self.client.close()

    def leaks(self, hidden: set[str]) -> list[str]:
        """Hidden things in any frame received, the sender's own words echoed back aside."""
        found: list[str] = []
        for msg in self.frames:
            echo = strings_of(self.sent.get(str(msg.get("id")), {}))
            values = strings_of(msg) - echo
            text = json.dumps(msg, ensure_ascii=False)
            for own in sorted(echo, key=len, reverse=True):
                text = text.replace(own, "")
            words = {w for w in hidden if len(w) >= 4 and not w.isascii()} | set(SECRET_WORDS)
            found += [f"{msg['type']}: {w!r}" for w in sorted(values & hidden)]
            found += [f"{msg['type']}: {w!r} in text" for w in sorted(words) if w in text]
            found += [f"{msg['type']}: {n}" for n in SECRET_NUMBERS
                      if re.search(rf"(?<![\d.]){n}(?![\d.])", text)]
        return found


def same_but_for(a: dict[str, Any], b: dict[str, Any], a_id: str, b_id: str) -> bool:
    """Two replies that differ only in the id each sender named (and the message id)."""
    strip = ("id", "version")
    one = json.dumps({k: v for k, v in a.items() if k not in strip}, ensure_ascii=False)
    two = json.dumps({k: v for k, v in b.items() if k not in strip}, ensure_ascii=False)
    return one.replace(a_id, "ID") == two.replace(b_id, "ID")


def cc(target: int, value: int, level: str, bonus: int = 0) -> str:
    return f"(1D100<={target}) ボーナス・ペナルティダイス[{bonus}] ＞ {value} ＞ {value} ＞ {level}"


async def bases_probes(t: Table) -> None:
    """Every refusal of the base battle, the table and the room actions."""
    g, p1, bridge, observer = t.gm, t.p1, t.bridge, t.observer
    trigger = {"kind": "bases.trigger", "character": "アリス", "action": "発動タイミングを放棄する"}
    await p1.refused({**trigger, "event": "stake.open"}, "battle_not_running")
    await p1.refused({"kind": "td.move", "pc": "pc1", "to": "a"}, "no_tower_defense")
    await p1.refused({"kind": "engagement.approach", "combatant": "a", "target": "b", "dp": 1},
                     "no_engagement")
    await g.ok({"kind": "bases.round"})
    await g.ok({"kind": "override", "path": ["bases", "bases", "stake", "events", 4, "fired"],
                "value": 614, "reason": "誓約は使い切った"})
    # The bridge acts for p1, the player its platform identified (a bridge naming nobody
    # is the table and may not trigger for アリス at all).
    for who, by in ((p1, {}), (bridge, {"by": "p1"})):
        # wrong_trigger, not_active_trigger, wrong_trigger, condition_not_met,
        # event_exhausted, needs_gm, base_stopped — each built from a hidden part
        for event, action in (("stake.rite", trigger["action"]), ("stake.murmur", "祈る"),
                              ("stake.seal", "祈る"), ("stake.seal", "深淵を覗く"),
                              ("stake.oath", "誓いを立てる"), ("stake.pact", "血の契約を結ぶ"),
                              ("ruin.echo", "残響を聴く")):
            await who.refused({**trigger, **by, "event": event, "action": action}, "not_available")
        # Hidden elements and elements of hidden bases do not exist for them at all.
        nothing = await who.refused({**trigger, **by, "event": "stake.nothing"}, "unknown_element")
        for event in ("stake.ghost", "battery.fire"):
            reply = await who.refused({**trigger, **by, "event": event}, "unknown_element")
            assert same_but_for(reply, nothing, event, "stake.nothing"), (reply, nothing)
    report = {"kind": "bases.report", "happening": "character.incapacitated"}
    await p1.refused({**report, "character": "ゴブリン"}, "not_your_character")
    await p1.refused({**report, "character": "アリス", "side": "enemy"}, "wrong_side")
    await p1.refused(report, "character_required")
    await bridge.refused({**report, "character": "謎の影"}, "unknown_side")
    # By default the table decides nothing: the refusal names the action's kind only.
    await g.ok({"kind": "room.uncredited", "mode": "moves"})
    await bridge.refused({**report, "character": "謎の影"}, "uncredited")
    await g.ok({"kind": "room.uncredited", "mode": "gm_side"})
    await observer.refused({**trigger, "event": "stake.open"}, "forbidden_role")
    await p1.refused({"kind": "bases.fire", "element": "battery.fire"}, "forbidden_role")
    # The table: hidden pieces and counters do not exist; the rules name only visible ones.
    move = {"kind": "table.move", "to": {"x": 2, "y": 2}}
    missing = await p1.refused({**move, "piece": "nobody"}, "unknown_piece")
    assert same_but_for(await p1.refused({**move, "piece": "shade"}, "unknown_piece"),
                        missing, "shade", "nobody")
    await p1.refused({**move, "piece": "ghoul"}, "not_your_piece")
    await bridge.refused({**move, "piece": "knight", "by": "nobody"}, "unknown_player")
    await p1.refused({"kind": "table.move", "piece": "knight", "to": {"x": 40, "y": 1}}, "off_grid")
    add = {"kind": "table.counter.add", "delta": 1}
    missing = await p1.refused({**add, "counter": "nothing"}, "unknown_counter")
    for counter in ("doom", "bob_hp"):
        assert same_but_for(await p1.refused({**add, "counter": counter}, "unknown_counter"),
                            missing, counter, "nothing")
    await p1.refused({**add, "counter": "clock"}, "not_your_counter")
    await p1.refused({"kind": "table.marker.remove", "marker": "pit"}, "forbidden_role")
    await p1.refused({**move, "piece": "knight"}, "stale_version", base_version=0)
    # The players' choice (BASE-CHOICE): a hidden base is not a choice, unknown prompts are.
    ack = await p1.ok({**trigger, "event": "stake.open"})
    await p1.settle(ack["version"])
    prompt = next(iter(p1.client.state["prompts"]))
    assert (await p1.ask({"type": "answer", "prompt": prompt, "choice": "battery"}))["code"] \
        == "bad_choice"
    assert (await p1.ask({"type": "answer", "prompt": "q999", "choice": "x"}))["code"] \
        == "unknown_prompt"
    # A bridge's table event: refused, snapped back, the mover told why in the VTT's chat.
    event = {"kind": "move", "id": "ks-piece-ghoul", "x": 300, "y": 300,
             "user": {"id": "u1", "name": "アリス"}}
    reply = await bridge.ask({"type": "table.event", "event": event})
    assert (reply["type"], reply["code"]) == ("reject", "not_your_piece"), reply
    reply = await bridge.ask({"type": "table.event", "event": {"kind": "dance"}})
    assert reply.get("code") == "event_ignored", reply


async def td_probes(t: Table) -> None:
    """Every refusal of a PC's tower-defense action, and the bridge's table events."""
    g, p1, bridge, plain, observer = t.gm, t.p1, t.bridge, t.plain, t.observer
    await p1.refused({"kind": "td.move", "pc": "pc1", "to": "b"}, "wrong_phase")
    await p1.refused({"kind": "td.pc.place", "pc": "pc2", "fort": "a"}, "not_your_pc")
    await p1.refused({"kind": "td.pc.place", "pc": "pc9", "fort": "a"}, "unknown_pc")
    await p1.refused({"kind": "td.pc.place", "pc": "pc1", "fort": "zz"}, "unknown_fort")
    trap = {"kind": "td.trap.set", "pc": "pc1", "passage": "n_a", "trap": "snare"}
    await p1.refused({**trap, "passage": "zz"}, "unknown_passage")
    await p1.refused({**trap, "check": False}, "gm_only")
    await p1.refused({**trap, "skill": "射撃（拳銃）"}, "trap_skill")
    await p1.refused({**trap, "result": cc(50, 12, "ハード成功")}, "player_rolls_refused")
    await g.ok({**trap, "pc": "pc2", "check": False})
    await p1.refused(trap, "trap_limit")
    await p1.refused({"kind": "bases.report", "happening": "character.damaged",
                      "character": "P1"}, "no_base_battle")
    await observer.refused({"kind": "td.move", "pc": "pc1", "to": "b"}, "forbidden_role")
    await p1.refused({"kind": "td.next_phase"}, "forbidden_role")
    await g.ok({"kind": "td.pc.place", "pc": "pc1", "fort": "a"})
    await g.ok({"kind": "td.pc.place", "pc": "pc2", "fort": "d"})
    await g.ok({"kind": "td.next_phase", "expect": "setup"})
    # The GM's SAN prompt does not exist for a player (as an id nobody uses).
    san = next(p for p, q in g.client.state["prompts"].items() if q["resume"] == "td.san")
    hidden_prompt = await p1.ask({"type": "answer", "prompt": san, "choice": "done"})
    nobody = await p1.ask({"type": "answer", "prompt": "q998", "choice": "done"})
    assert same_but_for(hidden_prompt, nobody, san, "q998"), (hidden_prompt, nobody)
    await g.ok({"kind": "answer", "prompt": san, "choice": "done"})
    await g.ok({"kind": "td.next_phase", "expect": "reinforcement"})
    await g.ok({"kind": "td.next_phase", "expect": "advance"})
    at_a = next(k for k, v in g.client.state["tower_defense"]["groups"].items() if v["fort"] == "a")
    at_d = next(k for k, v in g.client.state["tower_defense"]["groups"].items() if v["fort"] == "d")
    shoot = {"kind": "td.attack", "pc": "pc1", "weapon": "pistol", "group": at_a}
    await p1.refused({**shoot, "weapon": "zz"}, "unknown_weapon")
    await p1.refused({**shoot, "group": "zz"}, "unknown_group")
    await p1.refused({**shoot, "weapon": "knife"}, "wrong_weapon")
    await p1.refused({"kind": "td.special", "pc": "pc1", "group": at_a, "weapon": "pistol"},
                     "not_an_eye")
    await p1.refused({"kind": "td.pc.place", "pc": "pc1", "fort": "a"}, "not_setup")
    await p1.refused({**shoot, "ammo": "special"}, "no_special_ammo")
    await p1.refused({**shoot, "shots": 2, "results": [cc(80, 45, "レギュラー成功")]}, "shots_mismatch")
    await p1.refused({**shoot, "group": at_d}, "out_of_range")
    await p1.refused({**shoot, "weapon": "shotgun", "shots": 3}, "too_many_attacks")
    await p1.refused({**shoot, "weapon": "derringer", "shots": 2}, "out_of_ammo")
    await p1.refused({**shoot, "weapon": "shotgun", "shots": 2, "ammo": "special"}, "out_of_special")
    await p1.refused({"kind": "td.reload", "pc": "pc1", "weapon": "minigun"}, "no_reload")
    # a scenario must give a PC its weapons' skills (TD-SET-1); a GM override can take one
    await g.ok({"kind": "override", "path": ["tower_defense", "pcs", "pc1", "skills", "近接戦闘（格闘）"],
                "delete": True, "reason": "no_skill path"})
    await p1.refused({"kind": "td.melee", "pc": "pc1", "weapon": "knife", "group": at_a}, "no_skill")
    line = cc(80, 45, "レギュラー成功", bonus=-1)
    await p1.refused({**shoot, "results": [line]}, "player_rolls_refused")
    await bridge.refused({**shoot, "results": [line], "by": "p1"}, "no_reported_results")
    await g.ok({"kind": "room.player_rolls", "mode": "allow"})
    await p1.refused({**shoot, "results": ["よくわからない"]}, "bad_result")
    await p1.refused({**shoot, "results": [cc(70, 45, "レギュラー成功", -1)]}, "result_target_mismatch")
    await p1.refused({**shoot, "results": [cc(80, 90, "レギュラー成功", -1)]}, "result_inconsistent")
    await p1.refused({**shoot, "results": [cc(80, 45, "レギュラー成功")]}, "penalty_die_missing")
    await p1.refused({"kind": "td.move", "pc": "pc1", "to": "c"}, "not_adjacent")
    await p1.ok({"kind": "td.move", "pc": "pc1", "to": "b"})
    await p1.refused({"kind": "td.move", "pc": "pc1", "to": "a"}, "already_acted")
    # Table events: one the adapter cannot read, and one from a bridge that drives no VTT.
    reply = await bridge.ask({"type": "table.event", "event": {"kind": "dance"}})
    assert reply.get("code") == "event_ignored", reply
    reply = await plain.ask({"type": "table.event", "event": {"kind": "move", "id": "x"}})
    assert reply.get("code") == "no_adapter", reply
    await g.ok({"kind": "td.declare", "outcome": "victory", "note": "守り切った"})
    await p1.refused({"kind": "td.move", "pc": "pc1", "to": "a"}, "td_over")


@dataclass
class Table:
    """One room's GM, player p1, a Ccfolia bridge, a bridge that drives no VTT, an observer."""

    room: str
    gm: Peer
    p1: Peer
    bridge: Peer
    plain: Peer
    observer: Peer

    @classmethod
    async def seat(cls, r: Running, room: str) -> Table:
        g = await Peer.join(r, f"gm-{room}", None, room, secret=r.secret)

        async def token(role: str, **player: str) -> str:
            return str((await g.ask({"type": "invite.create", "role": role, **player}))["token"])

        # The bridges probe the refusals an uncredited VTT action may reach when the room
        # lets it decide for the GM's side (by default each is just `uncredited`).
        await g.ok({"kind": "room.uncredited", "mode": "gm_side"})
        table = Audience("table")
        return cls(room, g,
                   await Peer.join(r, f"p1-{room}", Audience("player", "p1"), room,
                                   token=await token("player", player="p1")),
                   await Peer.join(r, f"bridge-{room}", table, room,
                                   token=await token("bridge"), platform="ccfolia"),
                   await Peer.join(r, f"plain-{room}", table, room, token=await token("bridge")),
                   await Peer.join(r, f"observer-{room}", table, room, token=await token("observer")))

    @property
    def others(self) -> list[Peer]:
        return [self.p1, self.bridge, self.plain, self.observer]

    async def refusal_notices(self) -> list[dict[str, Any]]:
        """The GM's refusal notices for every reject a non-GM received (all of them)."""
        sent = sum(1 for p in self.others for m in p.frames if m["type"] == "reject")
        got: list[dict[str, Any]] = []
        for _ in range(500):
            got = [m for m in self.gm.frames if m["type"] == "notice" and m["kind"] == "refusal"
                   and m["data"]["role"] != "gm"]
            if len(got) >= sent:
                break
            await asyncio.sleep(0.01)
        assert len(got) == sent, (len(got), sent)
        return got

    async def check_nothing_leaked(self, r: Running) -> None:
        for peer in self.others:  # the history a non-GM may read, too
            reply = await peer.ask({"type": "history", "after": 0, "limit": 1000})
            assert reply["type"] == "history" and reply["entries"], reply
        state = r.server.rooms[self.room].engine.state
        for peer in self.others:
            assert peer.audience is not None
            leaks = peer.leaks(hidden_from(state, peer.audience))
            assert not leaks, f"{peer.name} received hidden data: {leaks[:10]}"

    async def close(self) -> None:
        for peer in (self.gm, *self.others):
            await peer.close()


async def test_every_refusal_path_keeps_hidden_data_from_non_gms(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "all.sqlite3", HIDDEN_BASES, seed="leaks")
    await r.server.create_room(load_scenario_file(HIDDEN_TD), secret=r.secret, room_id=TD_ROOM,
                               seed="leaks-td")
    tables: list[Table] = []
    try:
        tables.append(bases := await Table.seat(r, r.room))
        await bases_probes(bases)
        tables.append(td := await Table.seat(r, TD_ROOM))
        await td_probes(td)
        from test_engagement_hidden import HIDDEN_ENG, engagement_probes

        await r.server.create_room(load_scenario_file(HIDDEN_ENG), secret=r.secret,
                                   room_id=ENG_ROOM, seed="leaks-eng")
        tables.append(eng := await Table.seat(r, ENG_ROOM))
        await engagement_probes(eng)
        notices: list[dict[str, Any]] = []
        for table in tables:
            await table.check_nothing_leaked(r)
            notices += await table.refusal_notices()

        # The GM's notices say which engine code each refusal hit, with the whole reason.
        covered = {n["data"]["code"] for n in notices}
        said = {code: str([n["data"]["reason"] for n in notices if n["data"]["code"] == code])
                for code in covered}
        assert "冥府の門を叩く" in said["wrong_trigger"]
        assert "613" in said["event_exhausted"]
        assert "【励起】" in said["condition_not_met"]
        assert "囁きの呪詛" in said["not_active_trigger"] and "血の盟約" in said["needs_gm"]
        codes = refusal_codes(DRIVEN_HERE)
        assert not set(NOT_FROM_NON_GM) - codes, "listed codes that no longer exist"
        not_covered = codes - covered - set(NOT_FROM_NON_GM)
        assert not not_covered, f"refusal codes no test drives from a non-GM: {sorted(not_covered)}"
        assert not covered & set(NOT_FROM_NON_GM), sorted(covered & set(NOT_FROM_NON_GM))
    finally:
        for table in tables:
            await table.close()
        await r.runner.cleanup()
