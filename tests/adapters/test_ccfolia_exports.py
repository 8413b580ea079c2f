"""Ccfolia exports without a bridge: clipboard JSON and the room ZIP (golden + field checks).

The ZIP's `__data.json` is checked against the real room data of
shared/fixtures/ccfolia/bundler-room-data.json: same meta version, same entity names,
every `room` field the fixture has (with the same JSON type), resources as
`{<sha256>.png: {type}}` naming files that are in the ZIP.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from typing import Any

import pytest
from adapter_support import Room, golden, play_round

from conftest import fixture_path
from komasync.adapters import exports


@pytest.fixture(scope="module")
def fixture_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        fixture_path("ccfolia", "bundler-room-data.json").read_text(encoding="utf-8"))
    return data


def test_clipboard_matches_golden() -> None:
    golden("ccfolia_clipboard.json", exports.clipboard(Room.build().tree))


def test_clipboard_objects_are_pasteable_characters() -> None:
    clips = exports.clipboard(Room.build().tree)
    assert clips
    for clip in clips.values():
        assert set(clip) == {"kind", "data"} and clip["kind"] == "character"
        data = clip["data"]
        assert not {"x", "y", "active"} & set(data)  # pasting cannot set these
        assert isinstance(data["name"], str) and data["iconUrl"] is None
        assert len(data["status"]) <= 8
        for bar in data["status"]:
            assert set(bar) == {"label", "value", "max"}
            assert isinstance(bar["value"], int) and isinstance(bar["max"], int)
        for param in data["params"]:
            assert set(param) == {"label", "value"} and isinstance(param["value"], str)
        json.dumps(clip)


def test_clipboard_after_a_round_shows_groups() -> None:
    # TD-MAP-2 / TD-REIN-1: the groups on the board paste as characters with 個体数
    room = Room.build()
    play_round(room)
    clips = exports.clipboard(room.tree)
    group = clips["ks-group-r1-center_left"]["data"]
    assert group["status"][0]["label"] == "個体数"
    assert "ks-group-r1-left_end" not in clips  # destroyed in the round


def test_room_zip_matches_golden_and_is_deterministic() -> None:
    tree = Room.build().tree
    blob = exports.room_zip(tree)
    assert blob == exports.room_zip(tree)
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        data = json.loads(zf.read("__data.json"))
    golden("ccfolia_room_data.json", data)


def test_room_zip_fields(fixture_data: dict[str, Any]) -> None:
    tree = Room.build().tree
    with zipfile.ZipFile(io.BytesIO(exports.room_zip(tree))) as zf:
        names = zf.namelist()
        assert names[:2] == ["__data.json", ".token"]
        assert zf.testzip() is None
        data = json.loads(zf.read("__data.json"))
        token = zf.read(".token").decode("ascii")
        files = {n: zf.read(n) for n in names[2:]}
    assert re.fullmatch(r"0\.[0-9a-f]{64}", token)
    # meta and entities exactly as the fixture has them
    assert data["meta"] == fixture_data["meta"] == {"version": "1.1.0"}
    assert list(data["entities"]) == list(fixture_data["entities"])
    room, fixture_room = data["entities"]["room"], fixture_data["entities"]["room"]
    for key, value in fixture_room.items():
        assert key in room, key
        if value is not None and room[key] is not None:
            assert type(room[key]) is type(value), key
    grid = tree["table"]["grid"]
    assert (room["fieldWidth"], room["fieldHeight"]) == (grid["width"], grid["height"])
    # resources: sha256-named images present in the ZIP, as in the fixture
    assert set(data["resources"]) == set(files)
    for name, body in files.items():
        assert name == hashlib.sha256(body).hexdigest() + ".png"
        assert body.startswith(b"\x89PNG\r\n\x1a\n")
        assert data["resources"][name] == {"type": "image/png"}
    for name in fixture_data["resources"]:
        assert re.fullmatch(r"[0-9a-f]{64}\.png", name)
    # TD-MAP-2: the fortress map is the foreground; traps/directions are marker panels
    assert room["foregroundUrl"] in files
    markers = room["markers"]
    assert {"ks-dir-left_end", "ks-dir-right_end"} <= set(markers)
    for marker in markers.values():
        assert set(marker) == {"x", "y", "z", "width", "height", "locked", "freezed", "text",
                               "imageUrl", "clickAction"}
        assert marker["imageUrl"] in files
    # characters: forts (always with a 耐久力 bar in the ZIP), PCs and the board
    characters = data["entities"]["characters"]
    assert characters["ks-fort-final"]["status"][0]["label"] == "耐久力"
    assert "ks-pc-pc1" in characters and "ks-board" in characters
    for character in characters.values():
        assert {"name", "status", "params", "x", "y", "width", "height"} <= set(character)


def test_fortress_map_png_has_the_grid_size() -> None:
    tree = Room.build().tree
    with zipfile.ZipFile(io.BytesIO(exports.room_zip(tree))) as zf:
        room = json.loads(zf.read("__data.json"))["entities"]["room"]
        image = zf.read(room["foregroundUrl"])
    width = int.from_bytes(image[16:20], "big")
    height = int.from_bytes(image[20:24], "big")
    grid = tree["table"]["grid"]
    assert (width, height) == (grid["width"] * 24, grid["height"] * 24)


def test_generic_room_zip_has_no_map_and_no_hidden_things() -> None:
    tree = Room.build("demo_table.yaml").tree
    blob = exports.room_zip(tree)
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        text = zf.read("__data.json").decode("utf-8")
        data = json.loads(text)
    assert data["entities"]["room"]["foregroundUrl"] is None
    assert "ks-piece-knight" in data["entities"]["characters"]
    assert "ks-marker-gate" in data["entities"]["room"]["markers"]
    for secret in ("assassin", "暗殺者", "pit", "落とし穴", "doom", "破滅"):
        assert secret not in text
