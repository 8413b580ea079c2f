"""Bad input gets a structured error to its sender; the room is untouched; nothing crashes it."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import connect

from conftest import (
    EXAMPLES,
    FRAMES,
    Client,
    Running,
    gm,
    invite,
    stalled_reader,
    start_server,
    unthrottled,
    until,
)
from komasync.engine.registry import ACTIONS
from komasync.server.connection import Limits


async def test_action_before_auth_is_refused(running: Running) -> None:
    c = await Client.connect(running.url)
    await c.send({"type": "action", "id": "a1",
                  "action": {"kind": "table.counter.add", "counter": "clock", "delta": 1}})
    err = await c.expect("error")
    assert err["code"] == "auth_required" and err["reason"]["ja"] and err["reason"]["en"]
    await c.auth(running.room, secret=running.secret)  # the connection is still usable
    assert (await c.expect("snapshot"))["version"] == 0


async def test_wrong_secret_is_refused(running: Running) -> None:
    c = await Client.connect(running.url)
    await c.send({"type": "auth", "room": running.room, "secret": "nope"})
    assert (await c.expect("error"))["code"] == "auth_failed"
    await c.send({"type": "auth", "room": "no-such-room", "secret": running.secret})
    assert (await c.expect("error"))["code"] == "auth_failed"


@pytest.mark.parametrize(("frame", "code"), [
    ("{not json", "bad_json"),
    ("[1, 2, 3]", "bad_message"),
    ('{"type": "fly"}', "bad_message"),
    ('{"type": "action", "id": "x", "action": {"kind": "table.teleport"}}', "unknown_kind"),
    ('{"type": "action", "id": "x", "action": {"kind": "table.move", "piece": 3,'
     ' "to": "north"}}', "bad_action"),
    ('{"type": "action", "id": "x", "action": {"kind": "table.move", "piece": "knight",'
     ' "to": {"x": 1, "y": 1}, "extra": true}}', "bad_action"),
    ('{"type": "action", "id": "", "action": {}}', "bad_action"),
    ('{"type": "ping", "t": {"deep": [1]}}', "bad_message"),
])
async def test_malformed_frames_get_structured_errors(running: Running, frame: str,
                                                      code: str) -> None:
    g = await gm(running)
    await g.send_raw(frame)
    err = await g.expect("error")
    assert err["code"] == code
    assert err["reason"]["ja"] and err["reason"]["en"]
    await g.send({"type": "ping", "t": 1})
    assert (await g.expect("pong"))["version"] == 0


async def test_oversized_frame_is_refused_and_connection_survives(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(max_frame=1000))
    try:
        g = await gm(r)
        await g.send_raw(json.dumps({"type": "ping", "t": "x" * 2000}))
        err = await g.expect("error")
        assert err["code"] == "frame_too_large" and err["details"]["limit"] == 1000
        await g.send({"type": "ping", "t": 2})
        assert (await g.expect("pong"))["t"] == 2
        # Far past the hard cap the socket is closed with "message too big" (1009).
        await g.send_raw("x" * 10_000)
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await g.recv()
        assert g.ws.close_code == 1009
    finally:
        await r.runner.cleanup()


async def test_rate_limit_answers_with_an_error(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(rate=1, burst=3))
    try:
        g = await gm(r)
        for i in range(6):
            await g.send({"type": "ping", "t": i})
        kinds: list[str] = []
        while len(kinds) < 6:
            msg = await g.recv()
            if msg["type"] != "notice":
                kinds.append(msg["type"])
        assert kinds.count("pong") == 3 and kinds.count("error") == 3
    finally:
        await r.runner.cleanup()


async def test_slow_consumer_is_dropped_without_stalling_the_room(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           Limits(outbox_bytes=4096, rate=10_000, burst=10_000))
    try:
        g = await gm(r)
        token = await invite(g, "observer")
        slow = await stalled_reader(r, token)  # it stops reading its socket
        room = r.server.rooms[r.room]
        slow_conn = next(c for c in room.audiences.conns if c.role == "observer")
        note = "x" * 1500  # ~1.6 KB frames: a few hundred KB in all, past any socket buffer
        for i in range(200):
            await g.reply_to(await g.act({"kind": "table.marker.place", "marker": {
                "id": f"m{i}", "text": note, "cell": {"x": i % 12, "y": 7}}}, id=f"s{i}"))
        await g.settle(200)
        # Dropped by the bytes it left unread, while the room went on for the GM.
        assert slow_conn.closed and slow_conn.close_reason == "slow_consumer"
        assert room.version == 200
        await until(lambda: slow_conn not in room.audiences.conns, "the slow reader left")
        slow.ws.transport.abort()
    finally:
        await r.runner.cleanup()


# -- fuzz ------------------------------------------------------------------------------
class ServerThread:
    """A komasync server on its own loop in a thread, for the synchronous fuzz test."""

    def __init__(self, db: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._main, args=(db,), daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def _main(self, db: Path) -> None:
        asyncio.set_event_loop(self.loop)
        self.running = self.loop.run_until_complete(start_server(
            db, EXAMPLES / "demo_table.yaml", unthrottled()))
        self.ready.set()
        self.loop.run_forever()

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.running.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    server = ServerThread(tmp_path_factory.mktemp("fuzz") / "f.sqlite3")
    yield server
    server.stop()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(["piece", "to", "counter", "delta", "value", "path", "reason",
                               "marker", "player", "x", "y", "kind", "prompt", "choice"])
actions = st.builds(
    lambda kind, fields: {"kind": kind, **fields},
    st.sampled_from([*ACTIONS, "nope", "", "table"]),
    st.dictionaries(field_names, json_values | st.builds(dict, x=st.integers(), y=st.integers()),
                    max_size=4),
)
frames = st.one_of(
    st.text(max_size=60),
    json_values.map(json.dumps),
    st.builds(lambda a, i, bv: json.dumps({"type": "action", "id": i, "action": a,
                                           **({"base_version": bv} if bv is not None else {})}),
              actions, st.text(max_size=70), st.none() | st.integers(-3, 3)),
    st.builds(lambda t, extra: json.dumps({"type": t, **extra}),
              st.sampled_from(["auth", "answer", "ping", "invite.create", "history",
                               "bridge.status", "invite.revoke"]),
              st.dictionaries(st.sampled_from(["id", "room", "role", "prompt", "after", "t"]),
                              json_values, max_size=3)),
)


def _drain_until_pong(ws: Any, tag: str) -> list[dict[str, Any]]:
    ws.send(json.dumps({"type": "ping", "t": tag}))
    got = []
    while True:
        msg = json.loads(ws.recv(timeout=5))
        if msg["type"] == "pong" and msg["t"] == tag:
            return got
        got.append(msg)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(frame=frames, role=st.sampled_from(["gm", "player"]))
def test_fuzz_nothing_a_client_sends_crashes_or_corrupts_the_room(
        fuzz_server: ServerThread, frame: str, role: str) -> None:
    r = fuzz_server.running
    room = r.server.rooms[r.room]
    with connect(r.url, max_size=None) as ws:
        if role == "gm":
            ws.send(json.dumps({"type": "auth", "room": r.room, "secret": r.secret}))
        else:
            token = _player_token(fuzz_server)
            ws.send(json.dumps({"type": "auth", "room": r.room, "token": token}))
        _drain_until_pong(ws, "ready")
        before = (room.version, room.engine.state.model_dump_json())
        ws.send(frame)
        replies = _drain_until_pong(ws, "after")
        acked = any(m["type"] == "ack" for m in replies)
        answered = any(m["type"] in ("ack", "reject", "error", "pong", "invites", "invite",
                                     "history") for m in replies)
        parsed = _try_json(frame)
        silent_ok = isinstance(parsed, dict) and parsed.get("type") in ("ping", "bridge.status")
        assert answered or silent_ok, (frame, replies)
        for m in replies:
            if m["type"] in ("error", "reject"):
                assert m["code"] and m["reason"]["ja"] and m["reason"]["en"]
        if not acked:
            assert (room.version, room.engine.state.model_dump_json()) == before
    FRAMES.clear()  # fuzz frames are invalid by design; schema checks live elsewhere


_TOKEN: dict[str, str] = {}


def _player_token(server: ServerThread) -> str:
    if "alice" not in _TOKEN:
        r = server.running
        with connect(r.url) as ws:
            ws.send(json.dumps({"type": "auth", "room": r.room, "secret": r.secret}))
            ws.send(json.dumps({"type": "invite.create", "id": "i", "role": "player",
                                "player": "alice"}))
            while True:
                msg = json.loads(ws.recv(timeout=5))
                if msg["type"] == "invite":
                    _TOKEN["alice"] = msg["token"]
                    break
    return _TOKEN["alice"]


def _try_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


# -- issue 26 finding 5: a boolean (or 2.0, or "2") is not an integer ---------------------
def _room_dump(r: Running) -> tuple[int, str]:
    room = r.server.rooms[r.room]
    return room.version, room.engine.state.model_dump_json()


async def _refused_as_shape(r: Running, g: Client, frame: dict[str, Any], code: str,
                            *fields: tuple[str | int, ...],
                            wanted: tuple[str, ...] = ("integer", "number")) -> None:
    """`frame` gets a structured `code` error naming each of `fields` as not what is
    `wanted` (an integer), and the room, its version and the sender's connection are as
    they were."""
    before = _room_dump(r)
    await g.send(frame, invalid=True)
    err = await _answer(g, frame)
    assert (err["type"], err.get("code"), err.get("id")) == ("error", code, frame.get("id")), err
    assert err["reason"]["ja"].startswith("メッセージの形が正しくありません")
    assert err["reason"]["en"].startswith("The message is malformed")
    for field in fields:
        assert any(_within(field, e["loc"]) and any(w in e["msg"] for w in wanted)
                   for e in err["details"]["errors"]), (field, err["details"])
    assert _room_dump(r) == before
    await g.send({"type": "ping", "t": "still-here"})
    assert (await g.expect("pong"))["version"] == before[0]


async def _answer(g: Client, frame: dict[str, Any]) -> dict[str, Any]:
    """The server's answer to `frame`: an error, or what it would have answered had it
    taken the frame (an ack or a reject, a pong, a history or a query's result)."""
    while True:
        msg = await g.recv()
        if msg["type"] == "error" or (msg["type"], frame["type"]) == ("pong", "ping") or (
                msg.get("id") == frame.get("id") and msg["type"] != "notice"):
            return msg


def _within(field: tuple[str | int, ...], loc: list[str | int]) -> bool:
    """`field` names a run of `loc` (a union's member or a tagged kind may sit around it)."""
    return any(tuple(loc[i:i + len(field)]) == field for i in range(len(loc)))


async def _act_ok(g: Client, action: dict[str, Any]) -> dict[str, Any]:
    reply = await g.reply_to(await g.act(action))
    assert reply["type"] == "ack", (action, reply)
    await g.settle(reply["version"])
    return reply


async def test_grid_move_to_true_true_is_not_a_move_to_1_1(tmp_path: Path) -> None:
    # issue 26 finding 5: `to: {"x": true, "y": true}` was acked and moved the piece to (1,1)
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    try:
        g = await gm(r)
        await _act_ok(g, {"kind": "grid.start"})
        await _act_ok(g, {"kind": "grid.process.start", "combatant": "fighter"})
        move = {"kind": "grid.move", "combatant": "fighter"}
        await _refused_as_shape(r, g, {"type": "action", "id": "m1",
                                       "action": {**move, "to": {"x": True, "y": True}}},
                                "bad_action", ("to", "x"), ("to", "y"))
        assert g.state["table"]["pieces"]["fighter"]["cell"] == {"x": 1, "y": 4}
        await _act_ok(g, {**move, "to": {"x": 1, "y": 1}})  # the same move, said with integers
        assert g.state["table"]["pieces"]["fighter"]["cell"] == {"x": 1, "y": 1}
    finally:
        await r.runner.cleanup()


async def test_grid_event_round_true_is_refused(tmp_path: Path) -> None:
    # issue 26 finding 5: `grid.event {round: true}` was acked as round 1
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "seamless_combat.yaml")
    try:
        g = await gm(r)
        event = {"kind": "grid.event", "id": "quake", "ja": "地震", "en": "A quake"}
        await _refused_as_shape(r, g, {"type": "action", "id": "e1",
                                       "action": {**event, "round": True}}, "bad_action",
                                ("round",))
        assert "quake" not in g.state["grid"]["events"]
        await _act_ok(g, {**event, "round": 1})
        assert g.state["grid"]["events"]["quake"]["round"] == 1
    finally:
        await r.runner.cleanup()


async def test_engagement_shot_with_true_numbers_is_refused(tmp_path: Path) -> None:
    # issue 26 finding 5: `engagement.shot` with `check/dice/power: true` was acked
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "engagement.yaml")
    try:
        g = await gm(r)
        await _act_ok(g, {"kind": "engagement.start"})
        await _act_ok(g, {"kind": "engagement.phase"})  # the main phase: shots may be declared
        shot = {"kind": "engagement.shot", "combatant": "ghost", "target": "aya"}
        await _refused_as_shape(r, g, {"type": "action", "id": "s1", "action": {
            **shot, "check": True, "dice": True, "power": True}}, "bad_action",
            ("check",), ("dice",), ("power",))
        assert g.state["engagement"].get("exchange") is None
        await _act_ok(g, {**shot, "check": 1, "dice": 1, "power": 1})
        assert g.state["engagement"]["exchange"]["attacker"] == "ghost"
    finally:
        await r.runner.cleanup()


def _act(action: dict[str, Any]) -> dict[str, Any]:
    return {"type": "action", "id": "x1", "action": action}


#: A sample of the other integers a client sends, one subsystem after another: each frame
#: is whole and right but for the marked field(s), so only that can refuse it.
NOT_INTEGERS: list[tuple[str, dict[str, Any], str, tuple[tuple[str | int, ...], ...]]] = [
    ("demo_table.yaml", _act({"kind": "table.counter.add", "counter": "clock", "delta": True}),
     "bad_action", (("delta",),)),
    ("demo_table.yaml", _act({"kind": "table.counter.set", "counter": "clock", "value": 2.0}),
     "bad_action", (("value",),)),
    ("demo_table.yaml", _act({"kind": "table.counter.set", "counter": "clock", "value": "2"}),
     "bad_action", (("value",),)),
    ("demo_table.yaml", _act({"kind": "table.move", "piece": "knight", "to": {"x": 2, "y": False}}),
     "bad_action", (("to", "y"),)),
    ("demo_table.yaml", {**_act({"kind": "table.counter.add", "counter": "clock", "delta": 1}),
                         "base_version": False}, "bad_action", (("base_version",),)),
    ("demo_table.yaml", _act({"kind": "undo", "to_version": False, "reason": "oops"}),
     "bad_action", (("to_version",),)),
    ("demo_table.yaml", _act({"kind": "override", "path": ["table", "counters", "clock", True],
                              "value": 3, "reason": "fix"}), "bad_action", (("path", 3),)),
    ("demo_table.yaml", {"type": "history", "id": "h1", "after": True}, "bad_message",
     (("after",),)),
    ("demo_table.yaml", {"type": "history", "id": "h1", "limit": True}, "bad_message",
     (("limit",),)),
    ("demo_table.yaml", {"type": "ping", "t": True}, "bad_message", (("t",),)),
    ("tower_defense.yaml", _act({"kind": "td.group.add", "name": "鬼", "count": True,
                                 "direction": "north"}), "bad_action", (("count",),)),
    ("tower_defense.yaml", _act({"kind": "td.attack", "pc": "p", "weapon": "w", "group": "g",
                                 "shots": True}), "bad_action", (("shots",),)),
    ("base_battle.yaml", _act({"kind": "bases.report", "happening": "character.damaged",
                               "amount": True}),
     "bad_action", (("amount",),)),
    ("base_battle.yaml", _act({"kind": "bases.count", "side": "pc", "on_field": True,
                               "incapacitated": 0}), "bad_action", (("on_field",),)),
    ("mass_combat.yaml", _act({"kind": "mass.adjust", "unit": "u", "attack": True}),
     "bad_action", (("attack",),)),
    ("mass_combat.yaml", _act({"kind": "mass.strength", "unit": "u", "value": True}),
     "bad_action", (("value",),)),
    ("seamless_combat.yaml", _act({"kind": "grid.status.add", "combatant": "fighter",
                                   "status": "poison", "value": True}),
     "bad_action", (("value",),)),
    ("seamless_combat.yaml", _act({"kind": "grid.spot", "id": "s", "cell": {"x": True, "y": 1}}),
     "bad_action", (("cell", "x"),)),
    ("seamless_combat.yaml", {"type": "query", "id": "q1", "query": {
        "kind": "grid.range", "combatant": "fighter", "range": True}}, "bad_message",
     (("range",),)),
    ("engagement.yaml", _act({"kind": "engagement.approach", "combatant": "aya",
                              "target": "oni", "dp": True}), "bad_action", (("dp",),)),
    ("engagement.yaml", _act({"kind": "engagement.melee", "combatant": "aya", "target": "oni",
                              "dp": 1, "grazes": True}), "bad_action", (("grazes",),)),
    ("engagement.yaml", _act({"kind": "engagement.melee", "combatant": "aya", "target": "oni",
                              "dp": True}), "bad_action", (("dp",),)),  # Literal[1, 3, 6]
]


@pytest.mark.parametrize(("scenario", "frame", "code", "fields"), NOT_INTEGERS,
                         ids=[f"{s}:{f.get('action', f).get('kind', f['type'])}"
                              for s, f, _, _ in NOT_INTEGERS])
async def test_a_non_integer_where_an_integer_is_wanted_is_refused(
        tmp_path: Path, scenario: str, frame: dict[str, Any], code: str,
        fields: tuple[tuple[str | int, ...], ...]) -> None:
    # issue 26 finding 5: every integer of every wire model is a strict integer
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / scenario)
    try:
        await _refused_as_shape(r, await gm(r), frame, code, *fields)
    finally:
        await r.runner.cleanup()


async def test_auth_since_true_is_not_a_resume_from_version_1(running: Running) -> None:
    # issue 26 finding 5: a resume point is an integer, not a boolean
    c = await Client.connect(running.url)
    await c.send({"type": "auth", "room": running.room, "secret": running.secret,
                  "since": True}, invalid=True)
    err = await c.recv()
    assert (err["type"], err.get("code")) == ("error", "bad_message"), err
    assert ["auth", "since"] in [e["loc"] for e in err["details"]["errors"]], err
    await c.auth(running.room, secret=running.secret)  # not joined: it may still authenticate
    assert (await c.expect("snapshot"))["version"] == 0


async def test_override_writes_no_boolean_into_an_integer(running: Running) -> None:
    # issue 26 finding 5: a GM's override is checked against the field's strict type too
    g = await gm(running)
    before = _room_dump(running)
    path = ["table", "counters", "clock", "value"]
    reply = await g.reply_to(await g.act({"kind": "override", "path": path, "value": True,
                                          "reason": "fix"}))
    assert (reply["type"], reply["code"]) == ("reject", "bad_value"), reply
    assert reply["reason"]["ja"] and reply["reason"]["en"]
    assert _room_dump(running) == before


# -- issue 26 finding 5: 1, "true", "yes" or "on" is not a boolean -------------------------
async def test_grid_start_surprise_1_or_yes_is_not_a_surprise(tmp_path: Path) -> None:
    # `grid.start {surprise: 1}` (or "yes") was acked as a surprise: the enemy round first
    scenario = tmp_path / "surprise.yaml"
    scenario.write_text((EXAMPLES / "seamless_combat.yaml").read_text(encoding="utf-8")
                        .replace("# surprise: true", "surprise: true"), encoding="utf-8")
    r = await start_server(tmp_path / "k.sqlite3", scenario)
    try:
        g = await gm(r)
        assert g.state["grid"]["settings"]["surprise"] is True  # GRID-X-1 is on
        for lax in (1, "yes", "true", "on"):
            await _refused_as_shape(r, g, _act({"kind": "grid.start", "surprise": lax}),
                                    "bad_action", ("surprise",), wanted=("boolean",))
        assert not g.state["grid"]["active"]
        await _act_ok(g, {"kind": "grid.start", "surprise": True})  # said with a boolean
        assert (g.state["grid"]["active"], g.state["grid"]["side"]) == (True, "enemy")
    finally:
        await r.runner.cleanup()


async def test_override_delete_true_as_text_deletes_nothing(running: Running) -> None:
    # `override {delete: "true"}` was taken as a deletion
    g = await gm(running)
    path = ["table", "counters", "clock"]
    await _refused_as_shape(running, g, _act({"kind": "override", "path": path,
                                              "delete": "true", "reason": "fix"}),
                            "bad_action", ("delete",), wanted=("boolean",))
    assert "clock" in g.state["table"]["counters"]
    await _act_ok(g, {"kind": "override", "path": path, "delete": True, "reason": "fix"})
    assert "clock" not in g.state["table"]["counters"]


async def test_override_writes_no_number_or_text_into_a_boolean(running: Running) -> None:
    # a GM's override is checked against the field's strict type: 1 or "yes" is no boolean
    g = await gm(running)
    path = ["table", "pieces", "knight", "hidden"]
    for lax in (1, "yes", "true"):
        before = _room_dump(running)
        reply = await g.reply_to(await g.act({"kind": "override", "path": path, "value": lax,
                                              "reason": "fix"}))
        assert (reply["type"], reply.get("code")) == ("reject", "bad_value"), reply
        assert reply["reason"]["ja"] and reply["reason"]["en"]
        assert _room_dump(running) == before
    await _act_ok(g, {"kind": "override", "path": path, "value": True, "reason": "fix"})
    assert running.server.rooms[running.room].engine.state.table.pieces["knight"].hidden


async def test_a_piece_placed_with_hidden_1_is_refused(running: Running) -> None:
    # `table.piece.place` with `hidden: 1` was acked: a hidden piece from a number
    g = await gm(running)
    piece = {"id": "spy", "name": "密偵 / Spy", "cell": {"x": 3, "y": 3}}
    await _refused_as_shape(running, g, _act({"kind": "table.piece.place",
                                              "piece": {**piece, "hidden": 1}}),
                            "bad_action", ("piece", "hidden"), wanted=("boolean",))
    assert "spy" not in g.state["table"]["pieces"]
    await _act_ok(g, {"kind": "table.piece.place", "piece": {**piece, "hidden": True}})
    assert running.server.rooms[running.room].engine.state.table.pieces["spy"].hidden


#: A sample of the other booleans a client sends, one subsystem after another: each frame
#: is whole and right but for the marked field, so only that can refuse it.
NOT_BOOLEANS: list[tuple[str, dict[str, Any], str, tuple[str | int, ...]]] = [
    ("demo_table.yaml", _act({"kind": "table.piece.reveal", "piece": "assassin",
                              "hidden": "false"}), "bad_action", ("hidden",)),
    ("demo_table.yaml", _act({"kind": "table.piece.allow", "piece": "ghoul", "player": "alice",
                              "allow": "on"}), "bad_action", ("allow",)),
    ("demo_table.yaml", _act({"kind": "table.marker.place", "marker": {
        "id": "trap", "text": "罠 / Trap", "cell": {"x": 1, "y": 1}, "hidden": 0}}),
     "bad_action", ("marker", "hidden")),
    ("seamless_combat.yaml", _act({"kind": "grid.status.add", "combatant": "fighter",
                                   "status": "poison", "removable": 0}),
     "bad_action", ("removable",)),
    ("seamless_combat.yaml", _act({"kind": "grid.spot", "id": "s", "cell": {"x": 1, "y": 1},
                                   "hidden": "yes"}), "bad_action", ("hidden",)),
    ("seamless_combat.yaml", _act({"kind": "grid.event", "id": "quake", "round": 1,
                                   "announced": "no"}), "bad_action", ("announced",)),
    ("seamless_combat.yaml", _act({"kind": "grid.publish", "combatant": "fighter",
                                   "published": 1}), "bad_action", ("published",)),
    ("seamless_combat.yaml", _act({"kind": "grid.spot", "id": "s1", "cell": {"x": 1, "y": 1},
                                   "hidden": "true"}), "bad_action", ("hidden",)),
    ("seamless_combat.yaml", {"type": "query", "id": "q1", "query": {
        "kind": "grid.range", "combatant": "fighter", "range": 2, "non_attack": 1}},
     "bad_message", ("non_attack",)),
    ("engagement.yaml", _act({"kind": "engagement.link", "a": "aya", "b": "oni",
                              "engaged": "yes"}), "bad_action", ("engaged",)),
    ("engagement.yaml", _act({"kind": "engagement.shot", "combatant": "ghost", "target": "aya",
                              "check": 1, "dice": 1, "power": 1, "report_check": 1}),
     "bad_action", ("report_check",)),
    ("engagement.yaml", _act({"kind": "engagement.combatant.add", "combatant": {
        "id": "fox2", "piece": "fox", "side": "enemy", "published": "true"}}),
     "bad_action", ("combatant", "published")),
    ("base_battle.yaml", _act({"kind": "bases.fire", "element": "erosion", "active": "off"}),
     "bad_action", ("active",)),
    ("base_battle.yaml", _act({"kind": "bases.effect", "effect": {
        "do": "message", "text": "x", "target": {"this": 1}}}),
     "bad_action", ("effect", "target", "this")),
    ("tower_defense.yaml", _act({"kind": "td.trap.set", "pc": "p", "passage": "in_left",
                                 "trap": "snare", "check": "false"}), "bad_action", ("check",)),
]


@pytest.mark.parametrize(("scenario", "frame", "code", "field"), NOT_BOOLEANS,
                         ids=[f"{s}:{f.get('action', f).get('kind', f['type'])}"
                              for s, f, _, _ in NOT_BOOLEANS])
async def test_a_non_boolean_where_a_boolean_is_wanted_is_refused(
        tmp_path: Path, scenario: str, frame: dict[str, Any], code: str,
        field: tuple[str | int, ...]) -> None:
    # issue 26 finding 5: every boolean of every wire model is a strict boolean
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / scenario)
    try:
        await _refused_as_shape(r, await gm(r), frame, code, field, wanted=("boolean",))
    finally:
        await r.runner.cleanup()
