"""Issue 32: the scenario editor builds its forms from the scenario file's JSON Schema
(`GET /api/scenario/schema`, `komasync schema --scenario`), so every property of every
part has its ja/en title, every enum value the seed's words, every id the list it names
(`x-ref`), every square the one `Cell` and every list of squares how it is drawn (`x-cells`).

Walks the schema from each top-level part through its `$ref`s, so a scenario field
declared without `titles.shown(...)` fails here, not as a raw key in the editor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from komasync.engine.scenario import scenario_schema

PARTS = ("room", "players", "table", "tower_defense", "grid", "engagement", "mass", "bases")
Node = dict[str, Any]


def _schema() -> Node:
    return scenario_schema()


def _target(node: Node) -> Node:
    """A `$ref`'s definition (other nodes are themselves)."""
    ref = node.get("$ref")
    if isinstance(ref, str):
        target: Node = _schema()["$defs"][ref.rsplit("/", 1)[-1]]
        return target
    return node


def _subschemas(node: Node) -> Iterator[Node]:
    """The schemas directly inside `node` that are not its properties."""
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        yield from (n for n in node.get(key, []) if isinstance(n, dict))
    for key in ("items", "additionalProperties", "propertyNames"):
        if isinstance(node.get(key), dict):
            yield node[key]


def _properties(part: str) -> Iterator[tuple[str, Node]]:
    """Every property reachable from the top-level `part`, each once, with its dotted place
    (`Model.field`, or the part itself at the top)."""
    yield f"Scenario.{part}", _schema()["properties"][part]
    seen: set[int] = set()
    todo: list[tuple[str, Node]] = [(part, _schema()["properties"][part])]
    while todo:
        where, node = todo.pop()
        node = _target(node)
        if id(node) in seen:
            continue
        seen.add(id(node))
        owner = node.get("title", where)
        for name, prop in node.get("properties", {}).items():
            yield f"{owner}.{name}", prop
            todo.append((f"{owner}.{name}", prop))
        todo.extend((where, sub) for sub in _subschemas(node))


def _enum_values(node: Any) -> set[str]:
    """The values an enum property may hold (as strings), through optional, list, map and
    shared-definition wrappers; a model's own fields are checked as its properties."""
    if not isinstance(node, dict):
        return set()
    target = _target(node)
    if target is not node:
        return _enum_values(target) if "properties" not in target else set()
    own = {str(v) for v in node.get("enum", []) if not isinstance(v, bool)}
    if "const" in node and not isinstance(node["const"], bool):
        own.add(str(node["const"]))
    for sub in _subschemas(node):
        own |= _enum_values(sub)
    return own


def _resolve(dotted: str) -> Node | None:
    """The item schema of the list a dotted scenario path names, or None (`*`: each item
    of the list so far, as in `bases.bases.*.events`)."""
    node: Node | None = _schema()
    for step in dotted.split("."):
        node = _items(node) if step == "*" else _object(node).get("properties", {}).get(step)
        if node is None:
            return None
    return _items(node)


def _items(node: Node | None) -> Node | None:
    """The item schema of a (maybe optional) list."""
    lists = [o for o in [node or {}, *(node or {}).get("anyOf", [])] if o.get("type") == "array"]
    return _target(lists[0]["items"]) if lists else None


def _object(node: Node) -> Node:
    """The object an optional property holds."""
    for option in [node, *node.get("anyOf", [])]:
        option = _target(option)
        if "properties" in option:
            return option
    return node


def _all_nodes(node: Any) -> Iterator[Node]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _all_nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _all_nodes(value)


def _refs(node: Node) -> list[str]:
    ref = node.get("x-ref")
    return [] if ref is None else [ref] if isinstance(ref, str) else list(ref)


def _is_cell(node: Any) -> bool:
    return isinstance(node, dict) and node.get("$ref") == "#/$defs/Cell"


def _cell_list(node: Node) -> bool:
    """A list (maybe optional) whose items are cells."""
    return any(o.get("type") == "array" and _is_cell(o.get("items"))
               for o in [node, *node.get("anyOf", [])])


@pytest.mark.parametrize("part", PARTS)
def test_every_property_of_the_part_has_both_titles(part: str) -> None:
    untitled = [where for where, prop in _properties(part)
                if not prop.get("title_ja") or not prop.get("title_en")]
    assert untitled == [], f"scenario properties without title_ja/title_en: {untitled}"


@pytest.mark.parametrize("part", PARTS)
def test_every_enum_value_of_the_part_has_words(part: str) -> None:
    missing: list[str] = []
    for where, prop in _properties(part):
        words = prop.get("words", {})
        unnamed = sorted(v for v in _enum_values(prop)
                         if not (words.get(v, {}).get("ja") and words.get(v, {}).get("en")))
        if unnamed:
            missing.append(f"{where}: {unnamed}")
    assert missing == [], f"enum values without the seed's words: {missing}"


def test_every_x_ref_names_a_list_of_things_with_an_id() -> None:
    refs = [(ref, n) for n in _all_nodes(_schema()) for ref in _refs(n)]
    assert len(refs) >= 8, "the schema names the lists its ids point at"
    bad = [ref for ref, _ in refs
           if "id" not in (_resolve(ref) or {}).get("properties", {})]
    assert bad == [], f"x-ref paths that are not lists of things with an id: {bad}"
    assert not [n for n in _all_nodes(_schema()) if "ids" in n and "properties" not in n], \
        "state paths (`ids`) are turned into scenario paths (`x-ref`)"


def test_every_square_is_a_cell_and_every_list_of_squares_says_how_it_is_drawn() -> None:
    cell = _schema()["$defs"]["Cell"]
    stray = [n.get("title") for n in _all_nodes(_schema()) if n is not cell
             and {"x", "y"} <= set(n.get("properties", {}))]
    assert stray == [], f"x/y objects that are not Cell: {stray}"
    lists = [(where, prop) for part in _schema()["properties"] for where, prop in _properties(part)
             if _cell_list(prop)]
    assert lists, "the scenario has lists of squares"
    undrawn = [where for where, prop in lists if prop.get("x-cells") not in ("path", "area")]
    assert undrawn == [], f"lists of cells without x-cells path/area: {undrawn}"


@pytest.mark.parametrize(("model", "field", "ref"), [
    ("PassageSpec", "outer", ["tower_defense.directions", "tower_defense.forts"]),
    ("PassageSpec", "inner", ["tower_defense.forts"]),
    ("WaveEntry", "direction", ["tower_defense.directions"]),
    ("PCSpec", "player", ["players"]),
    ("PCSpec", "weapons", ["tower_defense.weapons"]),
    ("PCSpec", "fort", ["tower_defense.forts"]),
    ("TrapSpec", "passage", ["tower_defense.passages"]),
    ("TrapSpec", "pc", ["tower_defense.pcs"]),
    ("Piece", "owner", ["players"]),
    ("Counter", "owner", ["players"]),
    ("CombatantSpec", "piece", ["table.pieces"]),
    ("UnitSpec", "side", ["mass.sides"]),
    ("UnitSpec", "player", ["players"]),
    ("UnitSpec", "formations", ["mass.formations"]),
    ("CharacterSpec", "player", ["players"]),
    ("Target", "name", ["bases.bases"]),
    ("Effect", "element", ["bases.bases.*.gp_conditions", "bases.bases.*.constants",
                           "bases.bases.*.events"]),
])
def test_an_id_names_its_list(model: str, field: str, ref: list[str]) -> None:
    assert _refs(_schema()["$defs"][model]["properties"][field]) == ref


def test_a_characters_counters_name_the_tables_counters() -> None:
    """A combatant's `counters` map a role (HP, DP) to a table counter: one misspelt
    would silently go unpaid, so the editor offers the table's counters."""
    counters = _schema()["$defs"]["CombatantSpec"]["properties"]["counters"]
    assert counters["additionalProperties"]["x-ref"] == "table.counters"
    assert counters["propertyNames"]["title_en"] and "x-ref" not in counters


def test_a_passage_is_walked_in_order() -> None:
    assert _schema()["$defs"]["PassageSpec"]["properties"]["cells"]["x-cells"] == "path"


def test_an_empty_piece_is_the_characters_own_id() -> None:
    """The editor names a character whose piece is left empty by the piece of its id."""
    assert _schema()["$defs"]["CombatantSpec"]["properties"]["piece"]["x-empty-means"] == "id"


def test_maps_say_what_their_keys_and_values_are() -> None:
    """A form for a map needs its keys' and values' words: waves by round number, a PC's
    skill values by skill name."""
    rounds = _schema()["$defs"]["WavePlan"]["properties"]["rounds"]
    assert rounds["propertyNames"]["pattern"] == "^[0-9]+$"
    assert rounds["propertyNames"]["title_ja"] == "ラウンド"
    assert rounds["additionalProperties"]["title_en"] == "that round's groups"
    skills = _schema()["$defs"]["PCSpec"]["properties"]["skills"]
    assert skills["propertyNames"]["title_ja"] == "技能名"
    assert skills["additionalProperties"]["title_ja"] == "技能値"
    assert "x-key" not in rounds and "x-value" not in skills


def test_the_tower_defense_part_is_in_the_seeds_words() -> None:
    defs = _schema()["$defs"]
    fort = defs["FortSpec"]["properties"]
    assert (fort["durability"]["title_ja"], fort["tier"]["title_ja"]) == ("耐久力", "段")
    assert fort["tier"]["description_ja"] and fort["tier"]["description_en"]
    assert defs["WaveEntry"]["properties"]["count"]["title_ja"] == "個体数"
    assert defs["WeaponSpec"]["properties"]["range"]["words"]["∞"]["en"] == "unlimited"
    assert _schema()["properties"]["tower_defense"]["title_ja"] == "タワーディフェンス"
