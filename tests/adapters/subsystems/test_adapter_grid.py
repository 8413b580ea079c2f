"""Seamless combat on both tables (adapters/subsystems/grid.py): the map's obstacles, the
off-map area and event spots as markers, statuses on the pieces, round and process on the
board, and the legal squares pushed into Foundry token flags after every change
(GRID-MV-1/2/3, GRID-RND-1/2, GRID-GM-1, GRID-ST-6)."""

from __future__ import annotations

import copy
from typing import Any

from adapter_support import GM, FakeCcfolia, FakeFoundry, Room, player

from komasync.engine.grid import legal_destinations

ALICE, BOB = player("alice"), player("bob")


class Tables:
    """The example chapel with both adapters attached and both fake platforms applying ops."""

    def __init__(self) -> None:
        self.room = Room.build("seamless_combat.yaml", seed="g")
        resets = self.room.attach()
        self.foundry, self.ccfolia = FakeFoundry(), FakeCcfolia()
        self.foundry.apply(resets["foundry"], reset=True)
        self.ccfolia.apply(resets["ccfolia"], reset=True)

    def act(self, actor: Any = GM, **action: Any) -> None:
        _, ops = self.room.act(action, actor)
        self.foundry.apply(ops["foundry"])
        self.ccfolia.apply(ops["ccfolia"])

    def legal(self, piece: str) -> dict[str, Any] | None:
        flags: dict[str, Any] = self.foundry.by_ks()[f"ks-piece-{piece}"]["data"]["flags"]["komasync"]
        return copy.deepcopy(flags.get("legal"))

    def pos(self, x: int, y: int) -> dict[str, float]:
        px, py = self.room.adapters["foundry"].geometry.pos({"x": x, "y": y})
        return {"x": px, "y": py}

    def board(self) -> str:
        return str(self.foundry.by_ks()["ks-board"]["data"]["text"])


def test_grid_map_is_drawn_on_both_tables() -> None:  # GRID-GM-1, GRID-ST-6, GRID-MV-3
    t = Tables()
    ids = set(t.foundry.by_ks())
    assert {"ks-piece-fighter", "ks-piece-ghoul1", "ks-gridspot-altar", "ks-gridoff-area"} <= ids
    walls = [d for k, d in t.foundry.by_ks().items() if k.startswith("ks-gridwall-")]
    assert walls and all(d["type"] == "Drawing" for d in walls)
    assert len(walls) == 10  # two 1×3 walls (3 rows each) and four pillars, merged per row
    spot = t.ccfolia.objects["ks-gridspot-altar"]
    assert spot["type"] == "marker" and "祭壇" in spot["data"]["text"]


def test_grid_before_combat_no_opinion_then_legal_squares_pushed() -> None:  # GRID-MV-1
    t = Tables()
    assert t.legal("fighter") is None  # before combat: pieces move freely
    t.act(kind="grid.start")
    assert "第1ラウンド プレイヤーラウンド" in t.board()
    nothing = t.legal("fighter")
    assert nothing is not None and nothing["positions"] == [] and "GRID-MV-1" in nothing["reason"]["en"]
    t.act(ALICE, kind="grid.process.start", combatant="fighter")
    legal = t.legal("fighter")
    assert legal is not None and "GRID-MV-1/2/3" in legal["reason"]["en"]
    g, table = t.room.engine.state.grid, t.room.engine.state.table
    assert g is not None
    want = sorted(str(t.pos(x, y)) for x, y in legal_destinations(g, table, "fighter"))
    assert sorted(map(str, legal["positions"])) == want
    assert legal["radius"] < t.room.adapters["foundry"].geometry.unit / 2  # never a neighbour
    other = t.legal("archer")
    assert other is not None and other["positions"] == [] and "剣士レオ" in other["reason"]["ja"]
    assert "剣士レオ（ムーブ 残り1マス）" in t.board()


def test_grid_legal_squares_follow_every_change() -> None:  # GRID-MV-1, GRID-MV-2
    t = Tables()
    t.act(kind="grid.start")
    t.act(ALICE, kind="grid.process.start", combatant="fighter")
    first = t.legal("fighter")
    t.act(ALICE, kind="table.move", piece="fighter", to={"x": 2, "y": 4})  # the move step
    after = t.legal("fighter")
    assert first is not None and after is not None and after["positions"] != first["positions"]
    assert "マイナー2" in after["reason"]["ja"]
    assert t.pos(2, 4) not in after["positions"]  # the square it stands on is no move
    t.act(ALICE, kind="grid.process.end", combatant="fighter")
    done = t.legal("fighter")
    assert done is not None and done["positions"] == []


def test_grid_statuses_show_on_the_pieces() -> None:  # GRID-ST-1
    t = Tables()
    t.act(kind="grid.status.add", combatant="archer", status="poison", value=3)
    params = t.ccfolia.objects["ks-piece-archer"]["data"]["params"]
    assert {"label": "状態", "value": "[毒]3"} in params
    t.act(kind="grid.status.add", combatant="fighter", status="effect", name="[ブレス]", duration="round")
    assert {"label": "状態", "value": "[ブレス]"} in t.ccfolia.objects["ks-piece-fighter"]["data"]["params"]


def test_grid_relaxed_enforcement_means_no_veto() -> None:  # GRID-MV-1
    t = Tables()
    t.act(kind="grid.start")
    t.act(kind="room.enforcement", mode="warn")
    assert t.legal("fighter") is None
