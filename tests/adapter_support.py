"""Helpers for the adapter tests: drive the pure engine through one tower-defense round,
feed the `table` projection to both adapters, and fake the two platforms' object stores
so an operation stream can be applied and compared with a fresh reset.

Golden files live in tests/adapters/golden/. Regenerate them after an intended change:

    UPDATE_GOLDEN=1 python -m pytest tests/adapters -q

then review the diff of the JSON files before keeping it.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import EXAMPLES
from komasync.adapters.base import EventResult
from komasync.adapters.ccfolia import CcfoliaAdapter
from komasync.adapters.common import TableAdapter
from komasync.adapters.foundry import FoundryAdapter
from komasync.engine.core import Engine, Outcome
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action
from komasync.engine.scenario import build_room, load_scenario_file
from komasync.engine.tx import Actor
from komasync.engine.views import Audience, View

GOLDEN = Path(__file__).resolve().parent / "adapters" / "golden"
GM = Actor(role="gm", label="GM")
BRIDGE = Actor(role="bridge", label="bridge")

#: TD-PRE-1 starting forts for the example's PCs.
START = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
         "pc5": "m_left", "pc6": "m_right", "npc1": "final"}


def cc(target: int, value: int, level: str, bonus: int = 0) -> str:
    """A BCDice CC result line as Ccfolia shows it."""
    return f"(1D100<={target}) ボーナス・ペナルティダイス[{bonus}] ＞ {value} ＞ {value} ＞ {level}"


def player(pid: str) -> Actor:
    return Actor(role="player", player=pid, label=pid)


@dataclass
class Room:
    """A room on the pure engine with the table view and both adapters attached."""

    engine: Engine
    view: View
    adapters: dict[str, TableAdapter] = field(default_factory=dict)
    prompts_answered: int = 0

    @classmethod
    def build(cls, scenario: str = "tower_defense.yaml", seed: str = "seed",
              platforms: dict[str, dict[str, Any]] | None = None) -> Room:
        state = build_room(load_scenario_file(EXAMPLES / scenario), seed)
        state.meta.player_rolls = "allow"  # the round has p1 report BCDice lines directly
        if platforms:
            state.meta.platforms = copy.deepcopy(platforms)
        engine = Engine(state)
        return cls(engine, View(Audience("table"), state))

    @property
    def tree(self) -> dict[str, Any]:
        return self.view.tree

    def attach(self) -> dict[str, list[dict[str, Any]]]:
        """Bridges join: make both adapters and return their reset operations."""
        self.adapters = {"ccfolia": CcfoliaAdapter.from_tree(self.tree),
                         "foundry": FoundryAdapter.from_tree(self.tree)}
        return {name: a.reset(self.tree) for name, a in self.adapters.items()}

    def act(self, action: dict[str, Any], actor: Actor = GM) -> tuple[Outcome, dict[str, Any]]:
        """Apply through Engine.apply, project for the table, feed every adapter."""
        outcome = self.engine.apply(parse_action(action), actor)
        ops = self.view.update(self.engine.state, outcome.units)
        log = [{"ja": x.ja, "en": x.en} for x in outcome.log if x.chat]
        out = {name: a.update(self.tree, ops, log) for name, a in self.adapters.items()}
        return outcome, out

    def san_prompt(self) -> str:
        return next(iter(self.engine.state.prompts))


def one_round() -> Iterator[tuple[str, dict[str, Any], Actor]]:
    """TD-RND: setup (TD-PRE-1), then reinforcement, advance, PC attack, enemy attack."""
    for pc, fort in START.items():
        yield f"place {pc}", {"kind": "td.pc.place", "pc": pc, "fort": fort}, GM
    yield "trap", {"kind": "td.trap.set", "pc": "pc1", "passage": "in_left",
                   "trap": "explosive", "check": False}, GM
    yield "reinforcement", {"kind": "td.next_phase", "expect": "setup"}, GM
    yield "san done", {"kind": "answer", "prompt": "@san", "choice": "done"}, GM
    yield "advance", {"kind": "td.next_phase", "expect": "reinforcement"}, GM
    yield "pc attack", {"kind": "td.next_phase", "expect": "advance"}, GM
    yield "pc1 shoots", {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle",
                         "group": "r1-left_end",
                         "results": [cc(80, 52, "レギュラー成功"), cc(80, 90, "失敗"),
                                     cc(80, 1, "クリティカル")]}, player("p1")
    yield "pc2 moves", {"kind": "td.move", "pc": "pc2", "to": "f_left"}, player("p2")
    yield "enemy attack", {"kind": "td.next_phase", "expect": "pc_attack"}, GM


def play_round(room: Room) -> dict[str, list[dict[str, Any]]]:
    """Reset plus one full round; per platform a list of {step, action, ops}."""
    resets = room.attach()
    streams: dict[str, list[dict[str, Any]]] = {
        name: [{"step": "reset", "action": None, "ops": ops}] for name, ops in resets.items()}
    for label, action, actor in one_round():
        if action.get("prompt") == "@san":
            action = {**action, "prompt": room.san_prompt()}
        _outcome, out = room.act(action, actor)
        for name, ops in out.items():
            streams[name].append({"step": label, "action": action, "ops": ops})
    return streams


# -- events: rooms to drop things in, submitting as the bridge, positions ------------------


P1 = {"id": "user-1", "name": "プレイヤー1"}
P2 = {"id": "user-2", "name": "プレイヤー2"}


def td_room(phase: str = "pc_attack", **kw: Any) -> Room:
    """The example after setup, advanced to `phase` of round 1."""
    room = Room.build(**kw)
    room.attach()
    if phase == "setup":
        return room
    for pc, fort in START.items():
        room.act({"kind": "td.pc.place", "pc": pc, "fort": fort})
    room.act({"kind": "td.next_phase"})
    room.act({"kind": "answer", "prompt": room.san_prompt(), "choice": "done"})
    for _ in ("advance", "pc_attack"):
        if room.tree["tower_defense"]["phase"] == phase:
            break
        room.act({"kind": "td.next_phase"})
    assert room.tree["tower_defense"]["phase"] == phase
    return room


def demo(platforms: dict[str, Any] | None = None) -> Room:
    room = Room.build("demo_table.yaml", platforms=platforms)
    room.attach()
    return room


def submit(room: Room, platform: str, event: dict[str, Any]) -> tuple[EventResult, Any]:
    """What the server does with a `table.event`: translate, then apply as the bridge."""
    result = room.adapters[platform].event(event, room.tree)
    if result.action is None:
        return result, None
    try:
        outcome, _out = room.act(result.action, BRIDGE)
    except Refusal as refusal:
        return result, refusal
    return result, outcome


def at(adapter: TableAdapter, cell: dict[str, int], jitter: float = 0.0) -> dict[str, float]:
    x, y = adapter.geometry.pos(cell)
    return {"x": x + jitter, "y": y + jitter}


def fort_cell(room: Room, fort: str) -> dict[str, int]:
    return dict(room.tree["tower_defense"]["forts"][fort]["cell"])


def position(ops: list[dict[str, Any]], platform: str, oid: str) -> tuple[Any, Any]:
    if platform == "ccfolia":
        op = next(o for o in ops if o.get("id") == oid and o["op"].endswith(".update"))
        return op["data"]["x"], op["data"]["y"]
    op = next(o for o in ops if o["op"] == "update")
    u = next(u for u in op["updates"] if u["id"] == oid)
    return u["data"]["x"], u["data"]["y"]


def shown_position(adapter: TableAdapter, oid: str) -> tuple[Any, Any]:
    data = adapter.shown[oid].data
    return data["x"], data["y"]


# -- golden files ------------------------------------------------------------------------------


def golden(name: str, value: Any) -> None:
    """Compare `value` with golden/<name>; with UPDATE_GOLDEN=1, (re)write it instead."""
    path = GOLDEN / name
    text = json.dumps(value, ensure_ascii=False, indent=1) + "\n"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"missing golden file {path}; run with UPDATE_GOLDEN=1"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert json.loads(text) == expected, (
        f"{name} differs from its golden file; if intended, regenerate with UPDATE_GOLDEN=1")


# -- fake platforms: apply an operation stream the way docs/adapters.md says -------------------


class FakeCcfolia:
    """Characters, markers, dice and chat of one Ccfolia room, driven by our ops."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}  # id -> {"type", "data"}
        self.room: dict[str, Any] = {}
        self.chat: list[dict[str, Any]] = []

    def apply(self, ops: list[dict[str, Any]], reset: bool = False) -> None:
        for op in ops:
            name = op["op"]
            if name == "reset":
                keep = set(op["ids"])
                self.objects = {k: v for k, v in self.objects.items() if k in keep}
            elif name == "room.update":
                self.room.update(op["data"])
            elif name == "chat":
                self.chat.append(op)
            else:
                kind, verb = name.split(".")
                assert kind in ("character", "marker", "dice"), name
                if verb == "create":
                    assert reset or op["id"] not in self.objects, f"created twice: {op['id']}"
                    self.objects[op["id"]] = {"type": kind, "data": copy.deepcopy(op["data"])}
                elif verb == "update":
                    obj = self.objects[op["id"]]
                    assert obj["type"] == kind
                    obj["data"].update(copy.deepcopy(op["data"]))
                elif verb == "remove":
                    del self.objects[op["id"]]
                else:
                    raise AssertionError(name)


class FakeFoundry:
    """Tokens, drawings and chat messages of one Foundry scene, driven by our ops.

    Documents get their own `_id`s; ours live in `flags.komasync.id`, as in Foundry.
    `calls` counts the embedded-document calls per (operation, type) of each frame.
    """

    def __init__(self) -> None:
        self.docs: dict[str, dict[str, Any]] = {}  # Foundry _id -> {"type", "data"}
        self.chat: list[dict[str, Any]] = []
        self.calls: list[tuple[str, str]] = []
        self._n = 0

    def find(self, ks_id: str) -> str:
        for _id, doc in self.docs.items():
            if doc["data"]["flags"]["komasync"]["id"] == ks_id:
                return _id
        raise KeyError(ks_id)

    def by_ks(self) -> dict[str, dict[str, Any]]:
        return {d["data"]["flags"]["komasync"]["id"]: d for d in self.docs.values()}

    def apply(self, ops: list[dict[str, Any]], reset: bool = False) -> None:
        self.calls = []
        pending_keep: set[str] | None = None
        for op in ops:
            name = op["op"]
            self.calls.append((name, op.get("type", "")))
            if name == "reset":
                pending_keep = set(op["ids"])
                for _id in [i for i, d in self.docs.items()
                            if d["data"]["flags"]["komasync"]["id"] not in pending_keep]:
                    del self.docs[_id]
            elif name == "create":
                for data in op["data"]:
                    ks = data["flags"]["komasync"]["id"]
                    try:
                        existing = self.find(ks)
                    except KeyError:
                        existing = None
                    if existing is not None:
                        assert reset, f"created twice: {ks}"
                        self.docs[existing] = {"type": op["type"], "data": copy.deepcopy(data)}
                        continue
                    self._n += 1
                    self.docs[f"doc{self._n:04d}"] = {"type": op["type"],
                                                      "data": copy.deepcopy(data)}
            elif name == "update":
                for u in op["updates"]:
                    doc = self.docs[self.find(u["id"])]
                    assert doc["type"] == op["type"]
                    _merge(doc["data"], copy.deepcopy(u["data"]))
            elif name == "delete":
                for ks in op["ids"]:
                    del self.docs[self.find(ks)]
            elif name == "chat":
                self.chat.extend(op["messages"])
            else:
                raise AssertionError(name)


def _merge(into: dict[str, Any], data: dict[str, Any]) -> None:
    """Foundry's update merges nested objects."""
    for k, v in data.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v
