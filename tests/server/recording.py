"""A scripted session over real sockets whose every frame, per client, is recorded.

Three rooms (the generic table, tower defense, base battle), each with a GM, two players,
an observer and both platform bridges (Ccfolia, Foundry). The script is deterministic:
fixed seeds, one step at a time, and after every step a barrier (each client pings and
reads up to its pong), so each client's stream is the same on every run. The few values
that are not (wall-clock times, random invite ids and tokens, the order of a set) are
normalised, and the rate limit is lifted (a faster run would otherwise be throttled);
every other frame is kept exactly as received.

`tests/server/data/recorded_session.json` holds the recording made from the server as it
was before the performance work of issue 16; test_recorded_session.py checks that the
server still sends every audience the same bytes. To record again (only after an
intended, reviewed change of what clients receive):

    python tests/server/recording.py --write
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # conftest, the TD driver (run as a script)

from test_tower_defense_game import Table  # noqa: E402

from conftest import EXAMPLES, Client, Running, invite, start_server, unthrottled  # noqa: E402

DATA = HERE / "data" / "recorded_session.json"
UNTHROTTLED = unthrottled()
Recording = dict[str, dict[str, list[str]]]

INVITE_ID = re.compile(r"\bi[0-9a-f]{12}\b")
VOLATILE = {"at", "created_at", "last_event"}


class Session:
    """One room's clients, by name, in a fixed order; steps end with a barrier."""

    def __init__(self, r: Running, compression: str | None = "deflate") -> None:
        self.r = r
        self.compression = compression  # None: the server frames and writes it directly
        self.clients: dict[str, Client] = {}
        self.closed: dict[str, list[str]] = {}
        self.tokens: dict[str, str] = {}
        self.kept: dict[str, tuple[dict[str, Any], int]] = {}  # state, version at leave
        self.n = 0

    @property
    def gm(self) -> Client:
        return self.clients["gm"]

    async def connect_gm(self) -> None:
        c = await Client.connect(self.r.url, compression=self.compression)
        await c.auth(self.r.room, secret=self.r.secret)
        await c.expect("snapshot")
        self.clients["gm"] = c

    async def connect(self, name: str, role: str, player: str | None = None,
                      platform: str | None = None, since: int | None = None) -> Client:
        if name not in self.tokens:
            self.tokens[name] = await invite(self.gm, role, player)
            await self.barrier()
        c = await Client.connect(self.r.url, compression=self.compression)
        auth: dict[str, Any] = {"token": self.tokens[name]}
        if platform:
            auth["platform"] = platform
        if since is not None:
            auth["since"] = since
            c.state, c.version = self.kept[name]
        await c.auth(self.r.room, **auth)
        self.clients[name] = c
        await self.gm.expect("notice", kind="presence")
        await self.barrier()
        return c

    async def leave(self, name: str) -> None:
        c = self.clients.pop(name)
        self.kept[name] = (c.state, c.version)
        self.closed.setdefault(name, []).extend(c.raw)
        await c.close()
        await self.gm.expect("notice", kind="presence")  # the server saw it go
        await self.barrier()

    async def barrier(self) -> None:
        """Every client pings and reads up to its pong: everything before it has arrived."""
        for c in self.clients.values():
            self.n += 1
            await c.send({"type": "ping", "t": f"b{self.n}"})
            await c.expect("pong", t=f"b{self.n}")

    async def act(self, name: str, action: dict[str, Any], **kw: Any) -> dict[str, Any]:
        c = self.clients[name]
        reply = await c.reply_to(await c.act(action, **kw))
        await self.barrier()
        return reply

    async def send(self, name: str, msg: dict[str, Any], reply: str) -> dict[str, Any]:
        c = self.clients[name]
        await c.send(msg)
        got = await c.expect(reply)
        await self.barrier()
        return got

    def frames(self) -> dict[str, list[str]]:
        out = {name: list(raw) for name, raw in self.closed.items()}
        for name, c in self.clients.items():
            out.setdefault(name, []).extend(c.raw)
        return out

    async def close(self) -> None:
        for c in self.clients.values():
            await c.close()


async def audiences(s: Session, players: tuple[str, str]) -> None:
    """Two players, an observer and both bridges join the GM."""
    for p in players:
        await s.connect(p, "player", p)
    await s.connect("observer", "observer")
    await s.connect("ccfolia", "bridge", platform="ccfolia")
    await s.connect("foundry", "bridge", platform="foundry")
    for name, platform in (("ccfolia", "ccfolia"), ("foundry", "foundry")):
        await s.clients[name].send({"type": "bridge.status", "platform": platform,
                                    "version": 0, "detail": "recorded"})
        await s.gm.expect("notice", kind="bridge")
        await s.barrier()


def position(reset: list[dict[str, Any]], ks_id: str) -> dict[str, Any]:
    """Where the Ccfolia reset put an object."""
    data = next(op for op in reset if op.get("id") == ks_id)["data"]
    return {"x": data["x"], "y": data["y"]}


async def table_room(s: Session) -> None:
    await audiences(s, ("alice", "bob"))
    reset = next(json.loads(f) for f in s.clients["ccfolia"].raw
                 if '"type":"table.ops"' in f)["ops"]
    await s.act("alice", {"kind": "table.move", "piece": "knight", "to": {"x": 4, "y": 3}})
    await s.act("alice", {"kind": "table.move", "piece": "archer", "to": {"x": 5, "y": 5}})
    await s.act("alice", {"kind": "table.move", "piece": "knight", "to": {"x": 40, "y": 3}})
    await s.act("gm", {"kind": "table.move", "piece": "assassin", "to": {"x": 3, "y": 3}})
    await s.act("gm", {"kind": "table.counter.add", "counter": "doom", "delta": 1})
    await s.act("alice", {"kind": "table.counter.add", "counter": "alice_hp", "delta": -3})
    await s.act("bob", {"kind": "table.counter.add", "counter": "alice_hp", "delta": -1})
    await s.act("gm", {"kind": "table.counter.add", "counter": "clock", "delta": 2})
    await s.leave("bob")
    await s.act("gm", {"kind": "table.piece.reveal", "piece": "assassin"})
    await s.act("gm", {"kind": "table.marker.place", "marker": {
        "id": "fog", "text": "霧 / Fog", "cell": {"x": 7, "y": 7}, "hidden": True}})
    await s.connect("bob", "player", "bob", since=s.kept["bob"][1])
    await s.act("gm", {"kind": "table.piece.place", "piece": {
        "id": "wolf", "name": "狼 / Wolf", "owner": "bob", "cell": {"x": 0, "y": 7}}})
    await s.act("bob", {"kind": "table.move", "piece": "wolf", "to": {"x": 1, "y": 7}})
    await s.act("gm", {"kind": "table.piece.allow", "piece": "ghoul", "player": "bob"})
    await s.act("bob", {"kind": "table.move", "piece": "ghoul", "to": {"x": 8, "y": 4}})
    await s.act("gm", {"kind": "room.enforcement", "mode": "warn"})
    await s.act("alice", {"kind": "table.move", "piece": "archer", "to": {"x": 2, "y": 2}})
    await s.act("gm", {"kind": "room.enforcement", "mode": "enforce"})
    await s.act("gm", {"kind": "override", "path": ["table", "counters", "clock", "value"],
                       "value": 5, "reason": "時計を進める / wind the clock"})
    # Moves reported by the Ccfolia bridge: Alice's own piece, then Bob's (refused).
    ghoul = position(reset, "ks-piece-ghoul")
    for n, piece in enumerate(("knight", "archer")):
        event = {"kind": "move", "id": f"ks-piece-{piece}",
                 "user": {"id": "u-alice", "name": "Alice"}, **ghoul}
        await s.clients["ccfolia"].send({"type": "table.event", "id": f"e{n}", "event": event})
        await s.clients["ccfolia"].reply_to(f"e{n}")
        await s.barrier()
    await s.leave("observer")
    await s.act("gm", {"kind": "table.marker.remove", "marker": "gate"})
    await s.connect("observer", "observer")
    await s.act("gm", {"kind": "undo", "to_version": 3, "reason": "やり直し / take back"})
    await s.act("gm", {"kind": "table.piece.remove", "piece": "wolf"})
    await s.send("gm", {"type": "history", "id": "h1", "after": 0, "limit": 50}, "history")
    await s.send("alice", {"type": "history", "id": "h2", "after": 0, "limit": 50}, "history")
    await s.send("gm", {"type": "invite.list", "id": "l1"}, "invites")


async def tower_defense_room(s: Session) -> None:
    await audiences(s, ("p1", "p2"))
    g = s.gm
    players = {"p1": s.clients["p1"], "p2": s.clients["p2"]}
    players.update({f"p{i}": g for i in range(3, 7)})

    class Recorded(Table):
        async def act(self, client: Client, kind: str, **fields: Any) -> dict[str, Any]:
            reply = await super().act(client, kind, **fields)
            await s.barrier()
            return reply

        async def next_phase(self) -> None:
            await super().next_phase()
            await s.barrier()

    t = Recorded(s.r, g, players)
    await t.act(players["p1"], "td.pc.place", pc="pc2", fort="f_left")  # TD-ATK-1 refusal
    await t.setup()
    while t.td.outcome == "none" and t.td.round <= 2:
        await t.next_phase()
        if t.td.phase == "pc_attack":
            await t.pc_phase()
    await s.leave("p2")
    await t.next_phase()
    await s.connect("p2", "player", "p2", since=s.kept["p2"][1])
    await s.send("p1", {"type": "history", "id": "h1", "after": 0, "limit": 20}, "history")


async def base_battle_room(s: Session) -> None:
    await audiences(s, ("p1", "p2"))
    await s.act("gm", {"kind": "bases.round"})
    await s.act("gm", {"kind": "override", "path": ["bases", "bases", "battery", "note"],
                       "value": "砲台は第2ラウンドに動く", "reason": "隠し砲台のメモ"})
    await s.act("gm", {"kind": "bases.report", "happening": "character.damaged",
                       "character": "アリス"})
    await s.act("p1", {"kind": "bases.round"})  # GM only: refused
    await s.leave("observer")
    await s.act("gm", {"kind": "bases.round"})
    await s.act("gm", {"kind": "bases.reveal", "base": "battery", "what": "gp"})
    await s.connect("observer", "observer")
    await s.act("gm", {"kind": "bases.round"})
    await s.act("gm", {"kind": "bases.report", "happening": "character.incapacitated",
                       "character": "ボブ"})
    for prompt_id, prompt in sorted(s.gm.state["prompts"].items()):
        choice = prompt["choices"][0]["id"] if prompt.get("choices") else "done"
        await s.send("gm", {"type": "answer", "id": f"a-{prompt_id}", "prompt": prompt_id,
                            "choice": choice}, "ack")


ROOMS: dict[str, tuple[str, str, Callable[[Session], Awaitable[None]]]] = {
    "table": ("demo_table.yaml", "rec-table", table_room),
    "tower_defense": ("tower_defense.yaml", "section-v", tower_defense_room),
    "bases": ("base_battle.yaml", "gate", base_battle_room),
}


async def record(tmp: Path, compression: str | None = "deflate") -> Recording:
    """Play every room's script; each client's frames, normalised. `compression=None`:
    every client declines permessage-deflate (frames take the server's uncompressed path)."""
    out: Recording = {}
    for room, (scenario, seed, script) in ROOMS.items():
        # No rate limit: how fast the script runs must never change what it records.
        r = await start_server(tmp / f"{room}.sqlite3", EXAMPLES / scenario, UNTHROTTLED,
                               room_id=room, secret=f"{room}-gm-secret", seed=seed)
        s = Session(r, compression)
        try:
            await s.connect_gm()
            await script(s)
            out[room] = s.frames()
        finally:
            await s.close()
            await r.runner.cleanup()
    return normalise(out)


def normalise(rec: Recording) -> Recording:
    """Random invite ids → INV1, INV2… (in order of appearance); tokens, times and the
    connection list's set order made stable. Other frames stay byte for byte."""
    ids: dict[str, str] = {}

    def name(m: re.Match[str]) -> str:
        return ids.setdefault(m.group(0), f"INV{len(ids) + 1}")

    out: Recording = {}
    for room, clients in rec.items():
        out[room] = {}
        for client, frames in clients.items():
            kept = []
            for raw in frames:
                raw = INVITE_ID.sub(name, raw)
                if any(f'"{k}":' in raw for k in (*VOLATILE, "token")):
                    raw = "~" + json.dumps(_stable(json.loads(raw)), sort_keys=True,
                                           ensure_ascii=False)
                kept.append(raw)
            out[room][client] = kept
    return out


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: (0 if k in VOLATILE else "TOKEN" if k == "token" else _stable(v))
               for k, v in value.items()}
        if isinstance(out.get("connections"), list):
            out["connections"].sort(key=lambda c: json.dumps(c, sort_keys=True))
        return out
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--write", action="store_true", help=f"write {DATA}")
    p.add_argument("--out", default=None, help="write to this file instead")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        rec = asyncio.run(record(Path(d)))
    text = json.dumps(rec, ensure_ascii=False, indent=1) + "\n"
    target = Path(a.out) if a.out else DATA if a.write else None
    if target is None:
        print(text)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    frames = sum(len(f) for clients in rec.values() for f in clients.values())
    print(f"{target}: {frames} frames, {len(text):,} bytes")


if __name__ == "__main__":
    main()
