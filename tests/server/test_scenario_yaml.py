"""The scenario editor's YAML writer (server/scenario_yaml.py, issue 32): the file a GM
would write — an original edited in place with its comments, order and styles, or a
clean new file in the model's order that `scenario check` accepts."""

from __future__ import annotations

import copy
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import EXAMPLES, KOMASYNC
from komasync.engine.scenario import build_room, load_scenario
from komasync.server.scenario_yaml import as_json, scenario_text

FILES = sorted(p.name for p in EXAMPLES.glob("*.yaml"))
TD = (EXAMPLES / "tower_defense.yaml").read_text(encoding="utf-8")


def data_of(text: str) -> Any:
    return as_json(yaml.safe_load(text))


def removed_lines(before: str, after: str) -> list[str]:
    """The lines of `before` missing from `after`, when `after` is `before` less some."""
    rest = after.splitlines()
    gone = []
    for line in before.splitlines():
        if rest and rest[0] == line:
            rest.pop(0)
        else:
            gone.append(line)
    assert not rest, rest
    return gone


@pytest.mark.parametrize("name", FILES)
def test_the_same_data_gives_the_original_back_byte_for_byte(name: str) -> None:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert scenario_text(data_of(text), text) == text


def test_a_forts_durability_changes_only_its_line() -> None:
    data = data_of(TD)
    data["tower_defense"]["forts"][4]["durability"] = 31
    out = scenario_text(data, TD)
    diff = [(a, b) for a, b in zip(TD.splitlines(), out.splitlines(), strict=True) if a != b]
    assert diff == [("    - {id: m_left, name: 左翼砦, tier: 2, durability: 30, cell: {x: 5, y: 9}}",
                     "    - {id: m_left, name: 左翼砦, tier: 2, durability: 31, cell: {x: 5, y: 9}}")]
    assert data_of(out) == data


def test_a_new_fort_is_written_like_its_siblings_and_every_comment_stays() -> None:
    data = data_of(TD)
    data["tower_defense"]["forts"].append(
        {"id": "gate", "name": "門砦", "tier": 1, "durability": 15, "cell": {"x": 10, "y": 4}})
    out = scenario_text(data, TD)
    assert removed_lines(out, TD) == [
        "    - {id: gate, name: 門砦, tier: 1, durability: 15, cell: {x: 10, y: 4}}"]
    lines = out.splitlines()
    at = lines.index("    - {id: gate, name: 門砦, tier: 1, durability: 15, cell: {x: 10, y: 4}}")
    assert lines[at - 1].startswith("    - {id: final,") and lines[at + 1] == ""  # before the gap
    assert data_of(out) == data


def test_a_new_block_item_is_block_style_with_its_siblings_key_order() -> None:
    text = "room:\n  name: t\nplayers:\n  - id: p1\n    name: A   # first\n"
    data = data_of(text)
    data["players"].append({"name": "B", "id": "p2"})
    assert scenario_text(data, text) == text + "  - id: p2\n    name: B\n"


@pytest.mark.parametrize("text", [
    "room:\n  name: t\nplayers:\n- id: p1\n  name: A\n",
    "room:\n    name: t\nplayers:\n    -   id: p1\n        name: A\n",
], ids=["dash-at-the-keys-column", "four-spaces"])
def test_new_lines_follow_the_originals_indentation(text: str) -> None:
    data = data_of(text)
    data["players"].append({"id": "p2", "name": "B"})
    out = scenario_text(data, text)
    first = text.split("players:\n", 1)[1]
    assert out == text + first.replace("p1", "p2").replace("A", "B")


def test_removing_a_passage_removes_its_line_only() -> None:
    data = data_of(TD)
    passages = data["tower_defense"]["passages"]
    data["tower_defense"]["passages"] = [p for p in passages if p["id"] != "cleft_to_mleft"]
    out = scenario_text(data, TD)
    (gone,) = removed_lines(TD, out)
    assert gone.startswith("    - {id: cleft_to_mleft, outer: f_center_left,")
    assert data_of(out) == data


def test_removing_an_item_keeps_the_comment_above_it() -> None:
    data = data_of(TD)
    data["tower_defense"]["passages"] = [p for p in data["tower_defense"]["passages"]
                                         if p["id"] != "front_1"]
    out = scenario_text(data, TD)
    (gone,) = removed_lines(TD, out)
    assert gone.startswith("    - {id: front_1,")
    lines = out.splitlines()
    comment = lines.index("    # lateral passages (same tier): PCs only")
    assert lines[comment + 1].startswith("    - {id: front_2,")


def test_removing_a_key_removes_its_line_and_keeps_the_others_comments() -> None:
    data = data_of(TD)
    del data["tower_defense"]["settings"]["eye_multiplier"]
    out = scenario_text(data, TD)
    assert removed_lines(TD, out) == [
        "    eye_multiplier: 2              # 魔眼: the marked group takes double damage this round"]


def test_an_emptied_list_is_written_empty_after_its_key_with_its_comment() -> None:
    text = (EXAMPLES / "seamless_combat.yaml").read_text(encoding="utf-8")
    data = data_of(text)
    data["grid"]["spots"] = []
    out = scenario_text(data, text)
    assert "  spots: []" + " " * 19 + "# GRID-GM-1 event spots" in out.splitlines()  # its column
    assert data_of(out) == data


def test_a_new_key_goes_where_the_model_puts_it() -> None:
    data = data_of(TD)
    data["tower_defense"]["traps"] = []  # the model: ... pcs, traps, waves
    out = scenario_text(data, TD)
    lines = out.splitlines()
    assert removed_lines(out, TD) == ["  traps: []"]
    assert lines[lines.index("  traps: []") + 1].startswith("  waves:")
    assert data_of(out) == data


def test_a_new_round_is_an_integer_key_like_the_others() -> None:
    data = data_of(TD)
    data["tower_defense"]["waves"]["rounds"]["6"] = [
        {"name": "ノフケー", "special": "nofke", "direction": "left_end"}]
    out = scenario_text(data, TD)
    # in the style and key order of the rounds before it (then the model's: `special`)
    assert out.endswith("      6:\n        - {name: ノフケー, direction: left_end, special: nofke}\n")
    assert yaml.safe_load(out)["tower_defense"]["waves"]["rounds"][6]


def test_a_changed_text_keeps_its_quotes_and_an_unchanged_number_its_spelling() -> None:
    text = ('room:\n  name: "Demo"   # shown\n  seed: \'7\'\nplayers: []\n'
            "table:\n  grid: {width: 1.0e1, height: 8}\n")
    data = data_of(text)
    data["room"]["name"] = "Demo 2"
    data["table"]["grid"]["width"] = 10  # the editor's JSON has no 1.0e1: the same number
    # the comment stays in its column
    assert scenario_text(data, text) == text.replace('"Demo"   #', '"Demo 2" #')


def test_new_texts_that_look_like_other_values_are_quoted() -> None:
    out = scenario_text({"room": {"name": "true", "seed": "12"}, "players": []})
    assert data_of(out) == {"room": {"name": "true", "seed": "12"}, "players": []}


def test_an_aliased_value_edited_in_one_place_changes_there_only() -> None:
    text = "room: {name: t}\nplayers:\n  - &who {id: p1, name: A}\n  - *who\n"
    data = data_of(text)
    data["players"][1] = {"id": "p2", "name": "B"}
    out = scenario_text(data, text)
    assert data_of(out) == data


def test_an_unreadable_original_is_written_anew() -> None:
    data = {"room": {"name": "t"}}
    assert scenario_text(data, "room: [\n") == scenario_text(data) == "room:\n  name: t\n"


@pytest.mark.parametrize("name", FILES)
def test_a_new_file_has_the_models_order_and_builds_the_same_room(name: str,
                                                                  tmp_path: Path) -> None:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    data = data_of(text)
    out = scenario_text(copy.deepcopy(data), None)
    assert not [line for line in out.splitlines() if line.lstrip().startswith("#")]
    assert data_of(out) == data
    top = list(yaml.safe_load(out))
    assert top[: len({"room", "players", "table"} & set(top))] == [
        k for k in ("room", "players", "table") if k in top]
    path = tmp_path / name
    path.write_text(out, encoding="utf-8")
    result = subprocess.run([*KOMASYNC, "scenario", "check", str(path)], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    built = build_room(load_scenario(out), "seed").model_dump(mode="json")
    assert built == build_room(load_scenario(text), "seed").model_dump(mode="json")


def test_a_new_file_is_block_style_with_short_lines_of_data_on_one_line() -> None:
    out = scenario_text({"players": [{"id": "p1", "name": "A"}], "room": {"name": "t"},
                         "table": {"grid": {"width": 10, "height": 8}}})
    assert out == ("room:\n  name: t\n\nplayers:\n  - {id: p1, name: A}\n\n"
                   "table:\n  grid: {width: 10, height: 8}\n")


def test_a_template_filled_in_keeps_its_comments_and_lists_one_item_a_line() -> None:
    template = (Path(__file__).resolve().parents[2] / "server/scenario_templates/tower_defense.yaml"
                ).read_text(encoding="utf-8")
    out = scenario_text(data_of(TD), template)
    comments = [line.split("#", 1)[1] for line in template.splitlines() if "#" in line]
    assert all(c in out for c in comments)
    assert "  forts:            # - {id: final" in out  # `forts: []` became a block list
    assert "    - {id: f_left, name: 左端砦, tier: 1, durability: 15, cell: {x: 2, y: 4}}" in out
    built = build_room(load_scenario(out), "seed").model_dump(mode="json")
    assert built == build_room(load_scenario(TD), "seed").model_dump(mode="json")


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    items = value.items() if isinstance(value, dict) else enumerate(value) \
        if isinstance(value, list) else []
    for k, v in items:
        yield from _places(v, (*path, k))


def _edit(data: Any, rnd: random.Random) -> None:
    """One random edit as the editor could make it: remove, retype, add, reorder."""
    path = rnd.choice([p for p in _places(data) if p])
    parent = data
    for seg in path[:-1]:
        parent = parent[seg]
    key, op = path[-1], rnd.random()
    if op < 0.3:
        del parent[key]
    elif op < 0.6:
        parent[key] = rnd.choice([1, 2.5, "x y", "true", None, False, "12", "a: b", "#c", "", [],
                                  {}, {"a": [1, {"b": 2}]}])
    elif isinstance(parent, list):
        if op < 0.8:
            parent.insert(rnd.randint(0, len(parent)), copy.deepcopy(rnd.choice(parent)))
        else:
            rnd.shuffle(parent)
    else:
        parent[f"new{rnd.randint(0, 9)}"] = rnd.choice(["s", [1, 2], {"id": "n", "cell": {"x": 1}}])


@pytest.mark.parametrize("name", FILES)
def test_any_edit_is_written_as_exactly_the_edited_data(name: str) -> None:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    rnd = random.Random(name)
    for _ in range(40):
        data = data_of(text)
        for _ in range(rnd.randint(1, 6)):
            _edit(data, rnd)
        assert data_of(scenario_text(copy.deepcopy(data), text)) == data
