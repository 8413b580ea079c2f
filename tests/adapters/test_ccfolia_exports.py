"""Ccfolia exports without a bridge: clipboard JSON and the room ZIP (golden + field checks).

The ZIP's `__data.json` is checked against the real room data of
tests/data/ccfolia/bundler-room-data.json (a copy of the shared fixture, see its README):
same meta version, same entity names, every `room` field the fixture has (with the same
JSON type), resources as `{<sha256>.png: {type}}` naming files that are in the ZIP.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
import zlib
from typing import Any

import pytest
from adapter_support import Room, golden, play_round

from conftest import fixture_path
from komasync.adapters import exports
from komasync.adapters.render import render


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


# -- calibration in the exports (issue 14) ----------------------------------------------------

CALIBRATIONS = [
    {"units": "cell", "origin_x": -12, "origin_y": -9},
    {"units": "px", "cell_size": 24, "origin_x": -300, "origin_y": -200},
    {"units": "px", "cell_size": 48, "origin_x": 10, "origin_y": 20},
]


def _expected_place(o: dict[str, Any], cal: dict[str, Any]) -> tuple[float, float, float]:
    """Where docs/adapters.md (Geometry) says an object goes, computed here by hand:
    origin + (square + slot × 0.25) × unit, size × unit."""
    unit = cal["cell_size"] if cal["units"] == "px" else 1
    shift = o["slot"] * 0.25
    return (cal["origin_x"] + (o["cell"]["x"] + shift) * unit,
            cal["origin_y"] + (o["cell"]["y"] + shift) * unit, unit)


@pytest.mark.parametrize("cal", CALIBRATIONS, ids=lambda c: f"{c['units']}-{c.get('cell_size', 1)}")
def test_exports_reread_field_by_field_with_calibration(cal: dict[str, Any]) -> None:
    room = Room.build(platforms={"ccfolia": dict(cal)})
    play_round(room)  # groups on the board, a spent trap, a PC moved
    tree = room.tree
    objs = render(tree)
    with zipfile.ZipFile(io.BytesIO(exports.room_zip(tree))) as zf:
        data = json.loads(zf.read("__data.json"))
    characters = data["entities"]["characters"]
    markers = data["entities"]["room"]["markers"]
    clips = exports.clipboard(tree)
    assert set(clips) == set(characters)
    checked = 0
    for oid, o in objs.items():
        if o.get("cell") is None or o["kind"] in ("base",):
            continue
        target = characters.get(oid) or markers.get(oid)
        assert target is not None, oid
        x, y, unit = _expected_place(o, cal)
        assert (target["x"], target["y"]) == (pytest.approx(x), pytest.approx(y)), oid
        size = o.get("size", 1) if o["kind"] != "marker" else o["width"]
        assert target["width"] == pytest.approx(size * unit), oid
        if oid in clips:  # the clipboard is the same character, minus what pasting cannot set
            clip = clips[oid]["data"]
            assert set(clip) == set(target) - {"x", "y", "active"}, oid
            for key, value in clip.items():
                assert target[key] == value, (oid, key)
        checked += 1
    assert checked >= 20
    assert exports.CALIBRATION_MARKER not in markers
    head = json.loads(exports.clipboard_lines(tree)[0])["komasync"]
    assert head["calibrated"] is True and head["warning"] is None
    assert {k: head[k] for k in cal} == cal
    assert exports.export_notice(tree)["calibrated"] is True


def test_an_uncalibrated_export_carries_its_warning() -> None:
    tree = Room.build().tree
    notice = exports.export_notice(tree)
    assert notice["calibrated"] is False
    assert notice["warning"]["ja"].startswith("komasync: ココフォリア用のキャリブレーションがありません")
    assert "no Ccfolia calibration" in notice["warning"]["en"]
    # the room ZIP: a marker panel under the board with the warning, Japanese first
    with zipfile.ZipFile(io.BytesIO(exports.room_zip(tree))) as zf:
        data = json.loads(zf.read("__data.json"))
        marker = data["entities"]["room"]["markers"][exports.CALIBRATION_MARKER]
        assert marker["imageUrl"] in zf.namelist()
    assert marker["text"] == f"{notice['warning']['ja']}\n{notice['warning']['en']}"
    assert marker["y"] > max(c["y"] for c in data["entities"]["characters"].values()
                             if c["name"] != "komasync")  # below the board
    # the clipboard file: its first line says so and is not a character
    lines = [json.loads(line) for line in exports.clipboard_lines(tree)]
    assert "kind" not in lines[0] and lines[0]["komasync"]["warning"] == notice["warning"]
    assert lines[0]["komasync"]["note"]["ja"].startswith("この行はキャラクターではありません")
    assert all(line["kind"] == "character" for line in lines[1:])
    assert exports.clipboard_document(tree)["komasync"] == lines[0]["komasync"]
    assert {k: v for k, v in lines[0]["komasync"].items() if k != "note"} == notice


def _centre_pixel(png: bytes) -> tuple[int, int, int]:
    """The middle pixel of one of our own PNGs (RGB, 8 bit, filter 0 on every row)."""
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    at, body = 8, b""
    while at < len(png):
        size = int.from_bytes(png[at:at + 4], "big")
        if png[at + 4:at + 8] == b"IDAT":
            body += png[at + 8:at + 8 + size]
        at += 12 + size
    row = zlib.decompress(body)[(height // 2) * (1 + 3 * width):][:1 + 3 * width]
    x = 1 + 3 * (width // 2)
    return row[x], row[x + 1], row[x + 2]


def test_room_zip_tiles_take_each_markers_drawing_colour() -> None:
    # the tile of a marker panel is its drawing's colour (as on Foundry): a trap's red, a
    # direction's blue, a mass-combat row label its side's colour, a plain marker grey
    cases = {"tower_defense.yaml": {"ks-dir-left_end": (21, 101, 192)},
             "demo_table.yaml": {"ks-marker-gate": (84, 110, 122)},
             "mass_combat.yaml": {"ks-mass-row-0-back": (30, 136, 229),
                                  "ks-mass-row-1-front": (211, 47, 47)}}
    for scenario, tiles in cases.items():
        with zipfile.ZipFile(io.BytesIO(exports.room_zip(Room.build(scenario).tree))) as zf:
            markers = json.loads(zf.read("__data.json"))["entities"]["room"]["markers"]
            for oid, rgb in tiles.items():
                assert _centre_pixel(zf.read(markers[oid]["imageUrl"])) == rgb, (scenario, oid)
