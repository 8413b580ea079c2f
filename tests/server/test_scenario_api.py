"""The scenario editor's HTTP routes (issue 32, /work/notes/editor_contract.md), on a real
server over loopback with aiohttp's client: templates, open, check, save, room, preview;
the GM's secret or key, throttled failures, and bad input answered 400, never 500."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml

from conftest import EXAMPLES, KOMASYNC, Running, start_server, store_args
from komasync.engine.scenario_file import PARTS
from komasync.server.connection import Limits
from komasync.server.gm_key import ensure_gm_key
from komasync.server.scenario_yaml import as_json

FILES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))
Answer = tuple[int, dict[str, Any]]


async def post(r: Running, route: str, body: Any, secret: str | None = "", *,
               raw: bytes | None = None) -> Answer:
    """POST /api/scenario/<route> with the room's GM secret (None: no Authorization)."""
    secret = r.secret if secret == "" else secret
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    async with aiohttp.ClientSession() as http:
        data = raw if raw is not None else json.dumps(body).encode()
        async with http.post(f"{r.http}/api/scenario/{route}", data=data,
                             headers={**headers, "Content-Type": "application/json"}) as answer:
            return answer.status, await answer.json()


async def opened(r: Running, text: str, filename: str = "x.yaml") -> dict[str, Any]:
    status, body = await post(r, "open", {"yaml": text, "filename": filename})
    assert status == 200, body
    return body


def example(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


# -- templates ----------------------------------------------------------------------------------

async def test_templates_one_per_subsystem_commented_and_public(running: Running) -> None:
    async with aiohttp.ClientSession() as http, http.get(
            running.http + "/api/scenario/templates") as answer:  # no Authorization: public
        assert answer.status == 200
        templates = (await answer.json())["templates"]
    ids = [t["id"] for t in templates]
    assert ids[0] == "empty" and set(ids) == {"empty", *PARTS}
    for t in templates:
        assert t["ja"] and t["en"] and t["ja"] != t["en"]
        assert "#" in t["yaml"]  # a commented file a GM starts from
        data = yaml.safe_load(t["yaml"])
        assert set(data) >= {"room", "players"} and (t["id"] == "empty" or t["id"] in data)
        body = await opened(running, t["yaml"], f"{t['id']}.yaml")
        assert body["scenario"] == as_json(data)


# -- open → save: the file comes back byte for byte ------------------------------------------------

@pytest.mark.parametrize("name", FILES)
async def test_open_then_save_gives_the_example_back_byte_for_byte(running: Running,
                                                                    name: str) -> None:
    text = example(name)
    body = await opened(running, text, name)
    assert body["problems"] == []
    assert body["scenario"] == as_json(yaml.safe_load(text))
    assert list(body["scenario"]) == list(yaml.safe_load(text))  # keys in file order
    status, saved = await post(running, "save", {"scenario": body["scenario"],
                                                 "original": text, "filename": name})
    assert status == 200 and saved == {"yaml": text, "problems": []}
    status, checked = await post(running, "check", {"scenario": body["scenario"],
                                                    "original": text})
    assert status == 200 and checked == {"ok": True, "problems": [], "yaml": text}


async def test_save_writes_the_edit_in_place_and_says_its_problems(running: Running) -> None:
    text = example("tower_defense.yaml")
    data = (await opened(running, text))["scenario"]
    data["tower_defense"]["forts"][1]["durability"] = 16
    data["tower_defense"]["forts"][6]["cell"]["y"] = 20  # off the 21×15 board
    status, saved = await post(running, "save", {"scenario": data, "original": text})
    assert status == 200  # saving work in progress is allowed; its problems come back
    changed = [(a, b) for a, b in zip(text.splitlines(), saved["yaml"].splitlines(), strict=True)
               if a != b]
    assert [b for _, b in changed] == [
        "    - {id: f_center_left, name: 中央左砦, tier: 1, durability: 16, cell: {x: 7, y: 4}}",
        "    - {id: final, name: 最終砦, tier: 3, durability: 60, cell: {x: 10, y: 20}}"]
    (problem,) = saved["problems"]
    assert problem["path"] == ["tower_defense", "forts", 6, "cell"]
    assert saved["yaml"].splitlines()[problem["line"] - 1].strip().startswith("- {id: final")
    assert problem["rule"] == "TABLE-MV-2" and "盤面" in problem["ja"] and "board" in problem["en"]


async def test_save_from_scratch_writes_a_file_scenario_check_accepts(running: Running,
                                                                      tmp_path: Path) -> None:
    data = as_json(yaml.safe_load(example("tower_defense.yaml")))
    status, saved = await post(running, "save", {"scenario": data, "original": None})
    assert status == 200 and saved["problems"] == []
    assert [k for k in yaml.safe_load(saved["yaml"])] == ["room", "players", "table",
                                                         "tower_defense"]
    path = tmp_path / "drawn.yaml"
    path.write_text(saved["yaml"], encoding="utf-8")
    result = await asyncio.to_thread(subprocess.run, [*KOMASYNC, "scenario", "check", str(path)],
                                     capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert as_json(yaml.safe_load(saved["yaml"])) == data


# -- the check's problems: path, line, ja/en, rule (the issue's three cases) -----------------------

OFF_BOARD = """room: {name: t}
players: [{id: p1, name: P}]
table:
  grid: {width: 10, height: 8}
  pieces:
    - {id: goblin, name: ゴブリン, cell: {x: 12, y: 1}}
"""
MISSPELLED_COUNTER = """room: {name: t}
players: [{id: alice, name: A}]
table:
  grid: {width: 12, height: 6}
  pieces:
    - {id: aya, name: アヤ, owner: alice, cell: {x: 3, y: 1}}
    - {id: oni, name: 鬼, cell: {x: 8, y: 1}}
  counters:
    - {id: oni_hp, name: 鬼 HP, value: 40, min: 0}
grid:
  combatants:
    - {id: aya, side: pc}
    - {id: oni, side: enemy, counters: {HP: oni_hpp}}
"""
ON_OBSTACLE = """room: {name: t}
players: [{id: alice, name: A}]
table:
  grid: {width: 12, height: 6}
  pieces:
    - {id: aya, name: アヤ, owner: alice, cell: {x: 3, y: 1}}
grid:
  obstacles:
    - {x: 3, y: 1}
  combatants:
    - {id: aya, side: pc}
"""


@pytest.mark.parametrize(("text", "line", "path", "ja", "en", "rule"), [
    (OFF_BOARD, 6, ["table", "pieces", 0], "盤面 10×8 の外", "outside the 10×8 board",
     "TABLE-MV-2"),
    (MISSPELLED_COUNTER, 13, ["grid", "combatants", 1], "oni_hpp が table.counters にありません",
     "counter oni_hpp (for HP) is not in table.counters", None),
    (ON_OBSTACLE, 11, ["grid", "combatants", 0], "障害物には立てません", "is an obstacle",
     "GRID-MV-3"),
], ids=["piece-off-the-map", "misspelled-counter", "pc-on-an-obstacle"])
async def test_the_issue_cases_come_back_with_path_line_and_both_languages(
        running: Running, tmp_path: Path, text: str, line: int, path: list[Any], ja: str,
        en: str, rule: str | None) -> None:
    body = await opened(running, text, "case.yaml")
    (problem,) = body["problems"]
    assert problem["line"] == line and problem["path"][:len(path)] == path
    assert ja in problem["ja"] and en in problem["en"] and problem["rule"] == rule
    # the same sentence and line as `komasync scenario check` prints
    file = tmp_path / "case.yaml"
    file.write_text(text, encoding="utf-8")
    result = await asyncio.to_thread(subprocess.run, [*KOMASYNC, "scenario", "check", str(file)],
                                     capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"{file}:{line}: {problem['where']}: {problem['ja']} / {problem['en']}" in result.stderr
    # check on the opened data says it again, at the line of the text save would write
    status, checked = await post(running, "check", {"scenario": body["scenario"],
                                                    "original": text})
    assert status == 200 and not checked["ok"] and checked["problems"] == body["problems"]
    status, refused = await post(running, "room", {"scenario": body["scenario"]})
    assert status == 422 and [p["ja"] for p in refused["problems"]] == [problem["ja"]]


async def test_a_syntax_error_is_one_problem_at_its_line(running: Running) -> None:
    body = await opened(running, "room:\n  name: a\n   bad: [\n")
    assert body["scenario"] is None
    (problem,) = body["problems"]
    assert problem["line"] == 3 and problem["path"] == [] and "YAML" in problem["en"]
    body = await opened(running, "- just\n- a list\n")
    assert body["scenario"] is None and body["problems"][0]["en"] == "write key: value pairs"


# -- a room from the editor is the room `room create` makes -----------------------------------------

@pytest.mark.parametrize("name", FILES)
async def test_a_room_from_the_editor_equals_one_from_room_create(tmp_path: Path, name: str) -> None:
    db = tmp_path / "k.sqlite3"
    r = await start_server(db, EXAMPLES / "demo_table.yaml")
    try:
        text = example(name)
        data = (await opened(r, text, name))["scenario"]
        status, made = await post(r, "room", {"scenario": data, "original": text,
                                              "filename": f"some/folder/{name}"})
        assert status == 200, made
        assert made["name"] == yaml.safe_load(text)["room"]["name"] and made["secret"]
        result = await asyncio.to_thread(
            subprocess.run, [*KOMASYNC, "room", "create", str(EXAMPLES / name), "--id", "cli",
                             *store_args(db)], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        store = r.server.storage.storage
        editor = await r.server.storage.call(store.room, made["room"])
        cli = await r.server.storage.call(store.room, "cli")
        assert editor is not None and cli is not None
        assert _aside(editor.initial_state) == _aside(cli.initial_state)
        assert editor.initial_state.keys() == cli.initial_state.keys()
        named = {s.id: s.scenario for s in await r.server.storage.call(store.room_summaries)}
        assert named[made["room"]] == named["cli"] == name
        assert editor.gm_secret_ok(made["secret"])
    finally:
        await r.runner.cleanup()


def _aside(state: dict[str, Any]) -> dict[str, Any]:
    """The state but its dice seed (each room draws its own unless the file sets one)."""
    return {**state, "rng": {k: v for k, v in state["rng"].items() if k != "seed"}}


async def test_a_refused_scenario_makes_no_room(running: Running) -> None:
    store = running.server.storage.storage
    before = await running.server.storage.call(store.room_ids)
    data = as_json(yaml.safe_load(OFF_BOARD))
    status, body = await post(running, "room", {"scenario": data})
    assert status == 422 and body["problems"][0]["rule"] == "TABLE-MV-2"
    assert await running.server.storage.call(store.room_ids) == before


# -- preview: as the GM and as the players see it ----------------------------------------------------

async def test_preview_shows_hidden_things_to_the_gm_only(running: Running) -> None:
    data = as_json(yaml.safe_load(example("demo_table.yaml")))
    status, body = await post(running, "preview", {"scenario": data})
    assert status == 200
    gm, players = body["gm"]["table"], body["players"]["table"]
    assert {"assassin", "knight"} <= set(gm["pieces"]) and "knight" in players["pieces"]
    assert "assassin" not in players["pieces"]  # hidden: the GM's tree only
    assert "pit" in gm["markers"] and "pit" not in players["markers"]
    assert "doom" in gm["counters"] and "doom" not in players["counters"]
    assert "alice_hp" not in players["counters"]  # its owner's only
    status, alice = await post(running, "preview", {"scenario": data, "player": "alice"})
    assert status == 200 and "alice_hp" in alice["players"]["table"]["counters"]
    assert "assassin" not in alice["players"]["table"]["pieces"]
    status, refused = await post(running, "preview", {"scenario": as_json(yaml.safe_load(
        OFF_BOARD)), "original": OFF_BOARD})  # lines of the editor's text
    assert status == 422 and refused["problems"][0]["line"] == 6


# -- who may ask -------------------------------------------------------------------------------------

ROUTES = ["open", "check", "save", "room", "preview"]


@pytest.mark.parametrize("route", ROUTES)
async def test_each_route_needs_a_gm_secret(running: Running, route: str) -> None:
    body = {"yaml": "room: {name: t}\n", "scenario": {"room": {"name": "t"}}}
    for secret in (None, "", "wrong-secret"):
        status, answer = await post(running, route, body, secret=secret or None)
        assert status == 403 and answer["code"] == "auth_failed"
    store = running.server.storage.storage
    assert await running.server.storage.call(store.room_ids) == [running.room]


async def test_the_servers_gm_key_opens_the_editor_and_failures_are_throttled(
        tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml",
                           limits=Limits(auth_failures_per_address=3))
    try:
        key = await r.server.storage.call(ensure_gm_key, r.server.storage.storage)
        status, body = await post(r, "check", {"scenario": {}}, secret=key)
        assert status == 200 and body["ok"]
        for _ in range(3):
            status, _body = await post(r, "check", {"scenario": {}}, secret="guess-" + "x" * 20)
            assert status == 403
        status, body = await post(r, "check", {"scenario": {}})  # even the right secret waits
        assert status == 429 and body["code"] == "auth_throttled"
        assert body["details"]["retry_after"] >= 1
    finally:
        await r.runner.cleanup()


# -- bad input: a structured 400, never a 500 ------------------------------------------------------

def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": [value]}
    return value


BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True))


@pytest.mark.parametrize(("route", "raw"), [
    ("open", b"{"),
    ("open", b"[1, 2]"),
    ("open", b"\xff\xfe"),
    ("open", json.dumps({}).encode()),
    ("open", json.dumps({"yaml": 3}).encode()),
    ("open", json.dumps({"yaml": "a: 1", "filename": ["x"]}).encode()),
    ("open", json.dumps({"yaml": BOMB}).encode()),
    ("open", json.dumps({"yaml": "[" * 5000 + "]" * 5000}).encode()),
    ("open", json.dumps({"yaml": "a: " + "x" * (300 * 1024)}).encode()),
    ("check", json.dumps({"scenario": []}).encode()),
    ("check", json.dumps({"scenario": "room: x"}).encode()),
    ("check", json.dumps({"scenario": None}).encode()),
    ("save", json.dumps({"scenario": {}, "original": 5}).encode()),
    ("save", json.dumps({"scenario": {}, "original": BOMB}).encode()),
    ("save", json.dumps({"scenario": _nested(40)}).encode()),
    ("room", json.dumps({"scenario": {"table": {"pieces": [{"id": "p"}] * 60_000}}}).encode()),
    ("preview", json.dumps({"scenario": {}, "player": 7}).encode()),
    ("preview", b"[" * 100_000 + b"]" * 100_000),
    ("check", b"x" * (1024 * 1024 + 10)),
], ids=["broken-json", "not-an-object", "not-utf8", "no-yaml", "yaml-not-text",
        "filename-not-text", "yaml-bomb", "yaml-too-deep", "yaml-too-long", "scenario-a-list",
        "scenario-a-text", "no-scenario", "original-not-text", "original-a-bomb", "data-too-deep",
        "data-too-big", "player-not-text", "json-too-deep", "body-too-large"])
async def test_bad_input_is_a_400_with_words(running: Running, route: str, raw: bytes) -> None:
    status, body = await post(running, route, None, raw=raw)
    assert status == 400, body
    assert body["code"] == "bad_message" and body["reason"]["ja"] and body["reason"]["en"]
    assert body["reason"]["ja"] != body["reason"]["en"]
    status, body = await post(running, "check", {"scenario": {}})  # and the server goes on
    assert status == 200 and body["ok"]


def test_problem_sentences_split_outside_brackets() -> None:
    from komasync.engine.scenario_file import Problem
    from komasync.server.scenario_api import problem_json

    said = problem_json(Problem("f", 3, "table", "駒「騎士 / Knight」は盤面の外です（TABLE-MV-2） / "
                                "piece 騎士 / Knight is off the board (TABLE-MV-2)", ("table",)))
    assert said == {"path": ["table"], "line": 3, "where": "table",
                    "ja": "駒「騎士 / Knight」は盤面の外です（TABLE-MV-2）",
                    "en": "piece 騎士 / Knight is off the board (TABLE-MV-2)",
                    "rule": "TABLE-MV-2"}
    assert re.fullmatch(r"[A-Z]+(-[A-Z0-9]+)+", said["rule"])
