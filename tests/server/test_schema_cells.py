"""Issue 28: one `Cell {x, y}` everywhere. The published protocol schema and the room
state's schema are walked: every object with `x` and `y` is the `Cell` definition, and
no cell travels as a pair of integers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from komasync.engine.state import RoomState
from komasync.server.protocol import json_schema

Node = tuple[str, Any]


def _walk(node: Any, where: str = "#") -> Iterator[Node]:
    """Every schema node with its JSON pointer-ish location."""
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{where}/{i}")


def _is_int(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") == "integer"


def _is_pair(node: Any) -> bool:
    """An array of exactly two integers (a cell as `[x, y]`)."""
    if not isinstance(node, dict) or node.get("type") != "array":
        return False
    prefix = node.get("prefixItems")
    if isinstance(prefix, list) and len(prefix) == 2 and all(map(_is_int, prefix)):
        return True
    return _is_int(node.get("items")) and node.get("minItems") == node.get("maxItems") == 2


def _offenders(schema: dict[str, Any]) -> list[str]:
    defs = schema.get("$defs", {})
    cell = defs.get("Cell")
    assert cell is not None, "the schema has no Cell definition"
    bad = []
    for where, node in _walk(schema):
        props = node.get("properties")
        if isinstance(props, dict) and {"x", "y"} <= props.keys() and node is not cell:
            bad.append(f"{where}: an x/y object that is not Cell")
        if node.get("type") == "array" and (_is_pair(node.get("items")) or any(
                _is_pair(p) for p in node.get("prefixItems", []))):
            bad.append(f"{where}: an array of [x, y] pairs")
        if _is_pair(node) and where.rsplit("/", 1)[-1] in ("from", "to", "at", "cell", "origin"):
            bad.append(f"{where}: a cell as a pair")
    return bad


def test_every_cell_in_the_protocol_schema_is_one_cell() -> None:
    """Actions, queries and their answers, acks' results: each cell is `Cell` (issue 28)."""
    schema = json_schema()
    assert not _offenders(schema)
    defs = schema["$defs"]
    # the grid queries' answers are typed and their squares are Cells
    for answer in ("RangeAnswer", "AreaAnswer", "FlashAnswer", "LegalAnswer", "SightAnswer"):
        assert answer in defs, answer
    assert defs["RangeAnswer"]["properties"]["squares"]["items"] == {"$ref": "#/$defs/Cell"}
    assert defs["LegalSquare"]["properties"]["cell"] == {"$ref": "#/$defs/Cell"}


def test_every_cell_in_the_room_state_schema_is_one_cell() -> None:
    """The state every audience is sent: pieces, obstacles, the process (issue 28)."""
    assert not _offenders(RoomState.model_json_schema())


def test_the_walk_finds_a_pair_and_a_stray_xy_object() -> None:
    """The check itself fails on the two shapes it is there to forbid."""
    pair = {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}]}
    stray = {"type": "object", "properties": {"x": {"type": "integer"},
                                              "y": {"type": "integer"}, "cost": {}}}
    schema = {"$defs": {"Cell": {"type": "object", "properties": {"x": {}, "y": {}}},
                        "Old": {"type": "object", "properties": {
                            "squares": {"type": "array", "items": pair}, "legal": {
                                "type": "array", "items": stray}}}}}
    assert len(_offenders(schema)) == 2
