"""Legal-move data pushed into Foundry token flags, for the module's synchronous veto
(TD-ATK-1, TD-ATK-3, TD-PRE-1, TD-ADV-1)."""

from __future__ import annotations

from typing import Any

from adapter_support import FakeFoundry, Room

START = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "m_left",
         "pc5": "final", "pc6": "m_right", "npc1": "f_right"}


class Table:
    """A room with the Foundry adapter attached and a fake scene applying its ops."""

    def __init__(self) -> None:
        self.room = Room.build(seed="v")
        self.scene = FakeFoundry()
        self.scene.apply(self.room.attach()["foundry"], reset=True)

    def act(self, **action: Any) -> None:
        _, ops = self.room.act(action)
        self.scene.apply(ops["foundry"])
        for pid in list(self.room.engine.state.prompts):
            self.act(kind="answer", prompt=pid, choice="done")

    def legal(self, token_id: str) -> dict[str, Any] | None:
        legal: dict[str, Any] | None = (
            self.scene.by_ks()[token_id]["data"]["flags"]["komasync"]["legal"])
        return legal

    def fort_at(self, fort: str) -> dict[str, int]:
        cell = self.room.engine.state.tower_defense.forts[fort].cell  # type: ignore[union-attr]
        size = self.room.adapters["foundry"].geometry.unit
        return {"x": int(cell.x * size), "y": int(cell.y * size)}

    def phase(self) -> str:
        return self.room.engine.state.tower_defense.phase  # type: ignore[union-attr]


def test_setup_lets_a_pc_land_on_any_fort() -> None:  # TD-PRE-1
    legal = Table().legal("ks-pc-pc1")
    assert legal is not None
    assert len(legal["positions"]) == len(START)


def test_pc_attack_phase_allows_only_adjacent_forts_until_the_pc_acts() -> None:
    # TD-ATK-1 (adjacent along a passage), TD-ATK-3 (no move after acting)
    t = Table()
    for pc, fort in START.items():
        t.act(kind="td.pc.place", pc=pc, fort=fort)
    while t.phase() != "pc_attack":
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
    group = next(k for k in t.scene.by_ks() if k.startswith("ks-group-"))
    legal = t.legal(group)
    assert legal is not None and legal["positions"] == []
    t.act(kind="room.enforcement", mode="warn")
    assert t.legal(group) is None
