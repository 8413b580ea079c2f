"""One full tower-defense round (TD-RND) of examples/tower_defense.yaml, as the Ccfolia
and Foundry operation streams: golden files plus the properties every stream must have.

Regenerate the golden files after an intended change: `UPDATE_GOLDEN=1 python -m pytest
tests/adapters -q` (see adapter_support.py), then review their diff.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

import pytest
from adapter_support import FakeCcfolia, FakeFoundry, Room, golden, play_round

from komasync.adapters.ccfolia import CcfoliaAdapter
from komasync.adapters.foundry import FoundryAdapter
from komasync.adapters.registry import make_adapter


@pytest.fixture(scope="module")
def streams() -> dict[str, list[dict[str, Any]]]:
    return play_round(Room.build())


def test_ccfolia_round_matches_golden(streams: dict[str, list[dict[str, Any]]]) -> None:
    golden("ccfolia_round.json", streams["ccfolia"])


def test_foundry_round_matches_golden(streams: dict[str, list[dict[str, Any]]]) -> None:
    golden("foundry_round.json", streams["foundry"])


def test_registry_makes_both_adapters() -> None:
    room = Room.build()
    assert isinstance(make_adapter("ccfolia", room.tree), CcfoliaAdapter)
    assert isinstance(make_adapter("foundry", room.tree), FoundryAdapter)
    assert make_adapter("foundry", room.tree).platform == "foundry"


# -- TD-MAP-2: what each thing is on Ccfolia ---------------------------------------------------


def _ccfolia_ops(streams: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [op for step in streams["ccfolia"] for op in step["ops"]]


def test_ccfolia_groups_are_characters_with_count(streams: dict[str, list[dict[str, Any]]]) -> None:
    # TD-MAP-2 enemy groups = characters; TD-REIN-1 個体数 published as a status bar
    created = {op["id"]: op for op in _ccfolia_ops(streams) if op["op"] == "character.create"}
    group = created["ks-group-r1-left_end"]
    assert group["ref"] == {"kind": "group", "id": "r1-left_end"}
    assert group["data"]["status"] == [{"label": "個体数", "value": 5, "max": 5}]
    assert "r1-left_end" in group["data"]["memo"]


def test_ccfolia_traps_are_markers_and_forts_are_dice(streams: dict[str, list[dict[str, Any]]]) -> None:
    # TD-MAP-2 traps = marker panels; fort durability = dice symbols (and a 耐久力 bar: both)
    ops = _ccfolia_ops(streams)
    trap = next(op for op in ops if op["op"] == "marker.create" and op["ref"]["kind"] == "trap")
    assert "爆破トラップ" in trap["data"]["text"] and "explosive" in trap["data"]["text"]
    reset = streams["ccfolia"][0]["ops"]
    dice = [op for op in reset if op["op"] == "dice.create" and op["ref"]["id"] == "final"]
    max_final = Room.build().tree["tower_defense"]["forts"]["final"]["max_durability"]
    assert sum(op["data"]["value"] for op in dice) == max_final
    assert all(op["data"]["value"] <= op["data"]["faces"] for op in dice)
    fort = next(op for op in reset if op.get("id") == "ks-fort-final")
    assert fort["data"]["status"][0]["label"] == "耐久力"


def test_ccfolia_fort_damage_updates_bar_dice_and_chat(streams: dict[str, list[dict[str, Any]]]) -> None:
    # TD-EATK-1: the enemy attack step lowers 耐久力; bar, dice and a bilingual chat line
    last = streams["ccfolia"][-1]
    assert last["step"] == "enemy attack"
    bars = [op for op in last["ops"] if op["op"] == "character.update" and op["id"].startswith("ks-fort-")]
    assert bars and all(op["status_commands"][0].startswith(":耐久力=") for op in bars)
    assert any(op["op"] in ("dice.update", "dice.remove") for op in last["ops"])
    chat = [op["text"] for op in last["ops"] if op["op"] == "chat"]
    assert any("耐久力" in t and "durability" in t and " / " in t for t in chat)


def test_every_automatic_step_has_a_chat_line(streams: dict[str, list[dict[str, Any]]]) -> None:
    for name, stream in streams.items():
        for step in stream:
            if step["action"] and step["action"]["kind"] == "td.next_phase":
                chat = [op for op in step["ops"] if op["op"] == "chat"]
                assert chat, (name, step["step"])


# -- Foundry: batching, flags, pixels -----------------------------------------------------------


def test_foundry_batches_one_call_per_document_type(streams: dict[str, list[dict[str, Any]]]) -> None:
    for step in streams["foundry"]:
        calls = Counter((op["op"], op.get("type")) for op in step["ops"])
        assert all(n == 1 for n in calls.values()), (step["step"], calls)


def test_foundry_documents_carry_the_komasync_flag(streams: dict[str, list[dict[str, Any]]]) -> None:
    created = [d for step in streams["foundry"] for op in step["ops"] if op["op"] == "create"
               for d in op["data"]]
    assert created
    ids = [d["flags"]["komasync"]["id"] for d in created]
    assert len(ids) == len(set(ids))
    assert all(i.startswith("ks-") for i in ids)


def test_foundry_positions_are_pixels_from_cells(streams: dict[str, list[dict[str, Any]]]) -> None:
    # grid size 100, padding offset 0 (defaults); a fort's drawing sits on its square
    room = Room.build()
    fort = room.tree["tower_defense"]["forts"]["f_left"]
    reset = streams["foundry"][0]["ops"]
    drawing = next(d for op in reset if op["op"] == "create" and op["type"] == "Drawing"
                   for d in op["data"] if d["flags"]["komasync"]["id"] == "ks-fort-f_left")
    assert (drawing["x"], drawing["y"]) == (fort["cell"]["x"] * 100, fort["cell"]["y"] * 100)
    assert drawing["text"].startswith("左端砦\n耐久力 ")


# -- the stream adds up: applying every update equals a fresh reset -------------------------------


@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_updates_add_up_to_a_fresh_reset(platform: str) -> None:
    room = Room.build()
    streams = play_round(room)
    fake: Any = FakeCcfolia() if platform == "ccfolia" else FakeFoundry()
    for i, step in enumerate(streams[platform]):
        fake.apply(step["ops"], reset=i == 0)
    fresh: Any = FakeCcfolia() if platform == "ccfolia" else FakeFoundry()
    adapter = make_adapter(platform, room.tree)
    fresh.apply(adapter.reset(room.tree), reset=True)
    if platform == "ccfolia":
        assert fake.objects == fresh.objects
        assert fake.room == fresh.room
    else:
        assert fake.by_ks() == fresh.by_ks()


@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_reset_on_a_table_that_already_has_objects_converges(platform: str) -> None:
    """A bridge that re-joins gets a reset: stale komasync objects go, the rest are upserts."""
    room = Room.build()
    streams = play_round(room)
    fake: Any = FakeCcfolia() if platform == "ccfolia" else FakeFoundry()
    fake.apply(streams[platform][0]["ops"], reset=True)  # the table as it was at the start
    adapter = make_adapter(platform, room.tree)
    fake.apply(adapter.reset(room.tree), reset=True)
    fresh: Any = FakeCcfolia() if platform == "ccfolia" else FakeFoundry()
    fresh.apply(make_adapter(platform, room.tree).reset(room.tree), reset=True)
    if platform == "ccfolia":
        assert fake.objects == fresh.objects
    else:
        assert fake.by_ks() == fresh.by_ks()


def test_only_touched_objects_change() -> None:
    room = Room.build()
    room.attach()
    _o, out = room.act({"kind": "td.pc.place", "pc": "pc3", "fort": "f_right"})
    touched = {op["id"] for op in out["ccfolia"] if "id" in op}
    assert touched == {"ks-pc-pc3"}
    updates = [u["id"] for op in out["foundry"] if op["op"] == "update" for u in op["updates"]]
    assert updates == ["ks-pc-pc3"]


def test_adapter_keeps_no_reference_into_the_projection() -> None:
    # View.update mutates its tree in place; the adapter must diff against its own copy
    room = Room.build()
    room.attach()
    before = copy.deepcopy({k: v.shown for k, v in room.adapters.items()})
    room.tree["tower_defense"]["forts"]["f_left"]["durability"] = 1  # not via the engine
    for name, adapter in room.adapters.items():
        assert json.dumps({k: vars(v) for k, v in adapter.shown.items()}, sort_keys=True) == \
            json.dumps({k: vars(v) for k, v in before[name].items()}, sort_keys=True)


def test_no_change_no_ops() -> None:
    room = Room.build()
    room.attach()
    for adapter in room.adapters.values():
        assert adapter.update(room.tree, [], []) == []
