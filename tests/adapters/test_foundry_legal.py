"""Legal-move data pushed into Foundry token flags, for the module's synchronous veto
(TD-ATK-1, TD-ATK-3, TD-PRE-1, TD-ADV-1)."""

from __future__ import annotations

from typing import Any

from conftest import EXAMPLES
from komasync.adapters.foundry import FoundryAdapter
from komasync.engine.core import Engine
from komasync.engine.registry import parse_action
from komasync.engine.scenario import build_room, load_scenario_file
from komasync.engine.tx import Actor
from komasync.engine.views import Audience, View

GM = Actor(role="gm")
START = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "m_left",
         "pc5": "final", "pc6": "m_right", "npc1": "f_right"}


class Table:
    def __init__(self) -> None:
        self.engine = Engine(build_room(load_scenario_file(EXAMPLES / "tower_defense.yaml"), "v"))
        self.view = View(Audience("table"), self.engine.state)
        self.adapter = FoundryAdapter.from_tree(self.view.tree)
        self.tokens: dict[str, dict[str, Any]] = {}
        self._take(self.adapter.reset(self.view.tree))

    def act(self, **action: Any) -> None:
        out = self.engine.apply(parse_action(action), GM)
        self._take(self.adapter.update(self.view.tree, self.view.update(self.engine.state,
                                                                        out.units), []))
        for pid in list(self.engine.state.prompts):
            self.act(kind="answer", prompt=pid, choice="done")

    def _take(self, ops: list[dict[str, Any]]) -> None:
        for op in ops:
            if op.get("type") != "Token":
                continue
            if op["op"] == "create":
                for data in op["data"]:
                    self.tokens[data["flags"]["komasync"]["id"]] = data
            elif op["op"] == "update":
                for u in op["updates"]:
                    _merge(self.tokens[u["id"]], u["data"])

    def legal(self, token_id: str) -> dict[str, Any] | None:
        flags: dict[str, Any] = self.tokens[token_id]["flags"]["komasync"]
        return flags.get("legal")

    def fort_at(self, fort: str) -> dict[str, float]:
        cell = self.engine.state.tower_defense.forts[fort].cell  # type: ignore[union-attr]
        size = self.adapter.geometry.unit
        return {"x": int(cell.x * size), "y": int(cell.y * size)}


def _merge(into: dict[str, Any], data: dict[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def test_setup_lets_a_pc_land_on_any_fort() -> None:  # TD-PRE-1
    t = Table()
    legal = t.legal("ks-pc-pc1")
    assert legal is not None
    assert len(legal["positions"]) == len(START)


def test_pc_attack_phase_allows_only_adjacent_forts_until_the_pc_acts() -> None:
    # TD-ATK-1 (adjacent along a passage), TD-ATK-3 (no move after acting)
    t = Table()
    for pc, fort in START.items():
        t.act(kind="td.pc.place", pc=pc, fort=fort)
    while t.engine.state.tower_defense.phase != "pc_attack":  # type: ignore[union-attr]
        t.act(kind="td.next_phase")
    legal = t.legal("ks-pc-pc1")
    assert legal is not None and "TD-ATK-1" in legal["reason"]["en"]
    assert sorted(map(str, legal["positions"])) == sorted(
        str(t.fort_at(f)) for f in ("f_left", "f_center_left", "m_left"))
    t.act(kind="td.reload", pc="pc1", weapon="desert_eagle")
    legal = t.legal("ks-pc-pc1")
    assert legal is not None and legal["positions"] == [] and "TD-ATK-3" in legal["reason"]["en"]


def test_enemies_never_move_by_hand_and_warn_mode_pushes_nothing() -> None:  # TD-ADV-1
    t = Table()
    for pc, fort in START.items():
        t.act(kind="td.pc.place", pc=pc, fort=fort)
    t.act(kind="td.next_phase")
    group = next(k for k in t.tokens if k.startswith("ks-group-"))
    legal = t.legal(group)
    assert legal is not None and legal["positions"] == []
    t.act(kind="room.enforcement", mode="warn")
    assert t.legal(group) is None
