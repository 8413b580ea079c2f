"""Issue 13 finding 1: every number, text and list a client may send or state may hold
has declared bounds, checked on the JSON Schema so a new field cannot slip through."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import TypeAdapter

from komasync.engine.bounds import MAX_SERIAL
from komasync.engine.registry import ACTIONS
from komasync.engine.state import RoomState
from komasync.server.protocol import client_adapter

SCHEMAS = {
    "actions": TypeAdapter(Any).json_schema() if False else None,
}


def _nodes(node: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from _nodes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(value, f"{where}/{i}")


def _unbounded(schema: dict[str, Any], containers: bool) -> list[str]:
    """Schema places that accept an unbounded number, text, list or object."""
    out = []
    for where, node in _nodes(schema, "#"):
        kind = node.get("type")
        if "const" in node or "enum" in node or where.endswith("/propertyNames"):
            continue
        if kind == "integer" and ("minimum" not in node or "maximum" not in node):
            out.append(f"{where}: integer without minimum/maximum")
        if kind == "number" and ("minimum" not in node or "maximum" not in node):
            out.append(f"{where}: number without minimum/maximum")
        if kind == "integer" and abs(node.get("maximum", 0)) > MAX_SERIAL:
            out.append(f"{where}: integer bound past {MAX_SERIAL}")
        if kind == "string" and "maxLength" not in node:
            out.append(f"{where}: string without maxLength")
        if containers and kind == "array" and "maxItems" not in node:
            out.append(f"{where}: array without maxItems")
        if (containers and kind == "object" and node.get("additionalProperties") not in
                (None, False) and "maxProperties" not in node):
            out.append(f"{where}: object without maxProperties")
    return out


@pytest.mark.parametrize("kind", sorted(ACTIONS))
def test_every_action_field_is_bounded(kind: str) -> None:
    schema = ACTIONS[kind].model_json_schema()
    assert _unbounded(schema, containers=True) == []


def test_every_client_message_is_bounded() -> None:
    schema = client_adapter.json_schema()
    assert _unbounded(schema, containers=True) == []


def test_every_number_and_text_of_the_state_is_bounded() -> None:
    assert _unbounded(RoomState.model_json_schema(), containers=False) == []
