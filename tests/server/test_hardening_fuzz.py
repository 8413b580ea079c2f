"""Issue 13, what must be shown 2: a property test over the whole action schema.

Every action kind's JSON Schema (from the registry) is turned into values that mostly fit
the schema — ids of things that exist, numbers at and past their bounds — and sometimes
anything but: 2^64-1, -2^63, NaN, ±inf, 1e999, long strings, deep nesting, wrong types.
They go over real sockets from the GM and from a player to three real rooms (table,
tower defense, base battle). Every frame must be answered (ack, reject or error); on a
refusal the state, the version and the GM's streamed copy are untouched; the log in
SQLite stays gapless; and a server restarted on the same database replays every room to
exactly the state it had.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from conftest import EXAMPLES, Running, apply_ops, logged_versions, start_server, unthrottled
from komasync.engine.bounds import MAX_NUMBER
from komasync.engine.registry import ACTIONS

SOCKETS = contextlib.ExitStack()
ROOMS = {"table": ("demo_table.yaml", "alice"), "td": ("tower_defense.yaml", "p1"),
         "bases": ("base_battle.yaml", "p1")}
SECRET = "fuzz-secret"
LIMITS = unthrottled()


# -- a server on its own loop (the sockets below are synchronous clients) ------------------
class ServerThread:
    def __init__(self, db: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._main, args=(db,), daemon=True)
        self.thread.start()
        assert self.ready.wait(30), "the server did not start"

    def _main(self, db: Path) -> None:
        asyncio.set_event_loop(self.loop)
        self.running = self.loop.run_until_complete(self._start(db))
        self.ready.set()
        self.loop.run_forever()

    async def _start(self, db: Path) -> Running:
        from komasync.engine.scenario import load_scenario_file

        first, *rest = ROOMS.items()
        r = await start_server(db, EXAMPLES / first[1][0], LIMITS, room_id=first[0],
                               secret=SECRET, seed="fuzz")
        for room_id, (scenario, _player) in rest:
            if await r.server.storage.call(r.server.storage.storage.room, room_id) is None:
                await r.server.create_room(load_scenario_file(EXAMPLES / scenario),
                                           secret=SECRET, room_id=room_id, seed="fuzz")
        for room_id in ROOMS:
            await r.server.room(room_id)
        return r

    def call(self, fn: Any) -> Any:
        """Run `fn()` on the server's loop (reading a room between frames)."""
        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.running.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class Peer:
    """One synchronous client; the GM's keeps the state its change frames stream."""

    def __init__(self, url: str, room: str, auth: dict[str, Any]) -> None:
        self.ws: ClientConnection = SOCKETS.enter_context(connect(url, max_size=None))
        self.ws.send(json.dumps({"type": "auth", "room": room, **auth}))
        self.state: dict[str, Any] = {}
        self.version = 0
        self.frames = self.until_pong("ready")

    def until_pong(self, tag: str) -> list[dict[str, Any]]:
        self.ws.send(json.dumps({"type": "ping", "t": tag}))
        got = []
        while True:
            msg = json.loads(self.ws.recv(timeout=20))
            if msg["type"] == "snapshot":
                self.state, self.version = msg["state"], msg["version"]
            elif msg["type"] == "change":
                assert msg["from_version"] == self.version, msg
                apply_ops(self.state, msg["ops"])
                self.version = msg["to_version"]
            if msg["type"] == "pong" and msg["t"] == tag:
                return got
            got.append(msg)


# -- values from the schema ------------------------------------------------------------------
def _nested(depth: int) -> Any:
    value: Any = "deep"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


JSON_LEAF = (st.none() | st.booleans() | st.integers(-2**70, 2**70)
             | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
ANY_JSON = st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
EXTREME = st.one_of(
    st.sampled_from([2**64 - 1, -2**63, 2**63, 2**53, -2**53 - 1, MAX_NUMBER + 1,
                     -MAX_NUMBER - 1, 10**30, 0, -1]),
    st.sampled_from([float("nan"), float("inf"), float("-inf"), 1e308, -0.0, 0.5]),
    st.sampled_from(["x" * 5000, "駒" * 3000, "", "\u0000", "../../etc", "<script>"]),
    st.sampled_from([_nested(40), _nested(300), [], {}, [[]], {"": None}]),
    ANY_JSON,
)


class SchemaValues:
    """Hypothesis strategies for the values a JSON Schema describes (mostly fitting)."""

    def __init__(self, defs: dict[str, Any], ids: dict[str, list[str]], wild: bool) -> None:
        self.defs = defs
        self.ids = ids  # by collection name ("counters"), and "" for all of them
        self.wild = wild  # some fields get anything at all

    def of(self, node: dict[str, Any], depth: int = 0, name: str = "") -> st.SearchStrategy[Any]:
        fitting = self._fitting(node, depth, name)
        return st.one_of(fitting, EXTREME) if self.wild else fitting

    def _named(self, name: str) -> st.SearchStrategy[str]:
        """Ids for a field: a `counter` field names one of the `counters`, say."""
        own = self.ids.get(name + "s") or self.ids.get(name + "es") or []
        every = st.sampled_from(self.ids[""])
        return st.sampled_from(own) | every if own else every

    def _fitting(self, node: dict[str, Any], depth: int, name: str = "") -> st.SearchStrategy[Any]:
        if "$ref" in node:
            return self._fitting(self.defs[node["$ref"].rsplit("/", 1)[-1]], depth, name)
        if "const" in node:
            return st.just(node["const"])
        if "enum" in node:
            return st.sampled_from(node["enum"])
        for key in ("anyOf", "oneOf"):
            if key in node:
                return st.one_of([self._fitting(n, depth, name) for n in node[key]])
        kind = node.get("type")
        if kind == "integer":
            # no declared bound: anything JSON can carry, far past 64 bits
            lo, hi = node.get("minimum", -2**70), node.get("maximum", 2**70)
            small = [n for n in (1, 2, 0, 3, 5, 12, -1) if lo <= n <= hi]
            return st.sampled_from([*small, *small, lo, hi]) | st.integers(lo, hi)
        if kind == "number":
            return st.floats(node.get("minimum"), node.get("maximum"), allow_nan=False)
        if kind == "string":
            top = min(node.get("maxLength", 40), 40)
            return self._named(name) | st.text(min_size=1, max_size=top) | \
                st.just("あ" * node.get("maxLength", 100))
        if kind == "boolean":
            return st.booleans()
        if kind == "null":
            return st.none()
        if depth > 4:
            return st.just(None)
        if kind == "array":
            return st.lists(self._fitting(node.get("items", {}), depth + 1),
                            max_size=min(node.get("maxItems", 3), 3))
        if kind == "object" and "properties" in node:
            return self.model(node, depth + 1)
        if kind == "object":
            values = node.get("additionalProperties")
            inner = self._fitting(values, depth + 1) if isinstance(values, dict) else ANY_JSON
            return st.dictionaries(self._named(name) | st.text(max_size=6), inner,
                                   max_size=3)
        return ANY_JSON

    def model(self, node: dict[str, Any], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
        props, required = node["properties"], set(node.get("required", ()))
        return st.fixed_dictionaries(
            {k: self.of(v, depth, k) for k, v in props.items() if k in required},
            optional={k: self.of(v, depth, k) for k, v in props.items() if k not in required})


SUBSYSTEM_OF = {"td": "td.", "bases": "bases."}


def actions(room: str, ids: dict[str, list[str]]) -> st.SearchStrategy[dict[str, Any]]:
    """Any action of the registry a room's subsystems take, from its model's JSON Schema
    (every kind is sent to some room: td.* to the tower defense, bases.* to the bases)."""
    kinds = []
    for kind, model in sorted(ACTIONS.items()):
        if kind.startswith(("td.", "bases.")) and not kind.startswith(SUBSYSTEM_OF.get(room, "-")):
            continue
        schema = model.model_json_schema()
        for wild in (False, False, False, True):
            values = SchemaValues(schema.get("$defs", {}), ids, wild)
            kinds.append(values.model(schema).map(lambda a, k=kind: {**a, "kind": k}))
    return st.one_of(kinds)


def _ids(tree: Any, collection: str = "") -> Iterator[tuple[str, str]]:
    """Every id in a GM snapshot with the collection it is in (pieces, forts, events…)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            if isinstance(value, dict) and "id" in value:
                yield collection, str(key)
            if key == "id" and isinstance(value, str):
                yield collection, value
            yield from _ids(value, str(key))
    elif isinstance(tree, list):
        for value in tree:
            yield from _ids(value, collection)


def ids_of(state: dict[str, Any], player: str) -> dict[str, list[str]]:
    out: dict[str, set[str]] = {"": {player, "p2"}, "players": {player}}
    for collection, ident in _ids(state):
        out.setdefault(collection, set()).add(ident)
        out[""].add(ident)
    return {k: sorted(v) for k, v in out.items()}


def _has_nan(msg: dict[str, Any]) -> bool:
    try:
        json.dumps(msg, allow_nan=False)
    except ValueError:
        return True
    return False


def _invite(gm: Peer, player: str) -> str:
    gm.ws.send(json.dumps({"type": "invite.create", "id": "inv", "role": "player",
                           "player": player}))
    for msg in gm.until_pong("invited"):
        if msg["type"] == "invite":
            return str(msg["token"])
    raise AssertionError("no invite")


def test_fuzz_the_whole_action_schema_keeps_the_log_replayable(tmp_path: Path) -> None:
    db = tmp_path / "fuzz.sqlite3"
    server = ServerThread(db)
    try:
        url = server.running.url
        gms = {room: Peer(url, room, {"secret": SECRET}) for room in ROOMS}
        players = {room: Peer(url, room, {"token": _invite(gms[room], player)})
                   for room, (_s, player) in ROOMS.items()}
        bases = st.sampled_from([*[None] * 12, 0, 1, 2**64])
        frames = st.one_of([
            st.tuples(st.just(room), st.sampled_from(["gm", "gm", "player"]),
                      actions(room, ids_of(gms[room].state, player)), bases)
            for room, (_s, player) in ROOMS.items()])
        counter = iter(range(10**9))

        @settings(max_examples=300, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(frame=frames)
        def one(frame: tuple[str, str, dict[str, Any], int | None]) -> None:
            room_id, role, action, base = frame
            sender = gms[room_id] if role == "gm" else players[room_id]
            gm = gms[room_id]
            room = server.running.server.rooms[room_id]
            before = server.call(lambda: (room.version, room.engine.state.model_dump_json()))
            seen = json.loads(json.dumps(gm.state))
            msg_id = f"f{next(counter)}"
            msg: dict[str, Any] = {"type": "action", "id": msg_id, "action": action}
            if base is not None:
                msg["base_version"] = base if base != 2**64 else base - 1
            sender.ws.send(json.dumps(msg))
            got = sender.until_pong("sent")
            gm.until_pong("seen")
            if _has_nan(msg):  # NaN / Infinity are not JSON: the frame is refused unread
                replies = [m for m in got if m["type"] == "error" and m["code"] == "bad_json"]
            else:
                replies = [m for m in got if m.get("id") == msg_id
                           and m["type"] in ("ack", "reject", "error")]
            assert len(replies) == 1, (action, got)
            for reply in replies:
                if reply["type"] != "ack":
                    assert reply["code"] and reply["reason"]["ja"] and reply["reason"]["en"]
            after = server.call(lambda: (room.version, room.engine.state.model_dump_json()))
            if any(r["type"] == "ack" and not r.get("duplicate") for r in replies):
                assert after[0] == before[0] + 1
            else:
                assert after == before, (action, replies)
                assert gm.state == seen
            assert gm.version == after[0]

        one()
        for room_id in ROOMS:
            fresh = Peer(url, room_id, {"secret": SECRET})
            assert fresh.state == gms[room_id].state  # the streamed copy never drifted
        states = server.call(lambda: {rid: (r.version, r.engine.state.model_dump(mode="json"))
                                      for rid, r in server.running.server.rooms.items()})
        for room_id, (version, _state) in states.items():
            assert logged_versions(db, room_id) == list(range(1, version + 1))
        assert sum(v for v, _s in states.values()) > 0
    finally:
        SOCKETS.close()
        server.stop()
    again = ServerThread(db)  # restart on the same file: every room replays
    try:
        komasync = again.running.server
        assert komasync.quarantined == {}
        replayed = again.call(lambda: {rid: (r.version, r.engine.state.model_dump(mode="json"))
                                       for rid, r in komasync.rooms.items()})
        assert replayed == states
    finally:
        again.stop()
