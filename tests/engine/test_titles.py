"""Issue 30 "typed edits everywhere": every field of the room's state that the console's
override editor shows has its ja/en title, and every enum a GM picks has the seed's words.

Walks the state schema the console reads (`GET /api/schema`, `protocol.state_schema()`),
so a new state field declared without `titles.shown(...)` fails here, not on screen as a
raw key. What the editor never shows is listed below, each with its reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from komasync.server.protocol import state_schema

#: Fields the editor never offers, by (model, field), with why.
NOT_SHOWN: dict[tuple[str, str], str] = {
    ("RoomMeta", "seq"): "the room's id sequence: engine bookkeeping, never edited by hand",
    ("RoomMeta", "gm_seq"): "the GM's id sequence: engine bookkeeping, never edited by hand",
    ("RoomState", "rng"): "the dice generator: never projected, never editable",
    ("EngagementState", "hidden_seq"): "the hidden attacks' id sequence: engine bookkeeping",
    ("Prompt", "resume"): "which handler the answer resumes: the engine's continuation, GM-secret",
    ("Prompt", "context"): "what the resumed handler needs: the engine's continuation, GM-secret",
}
#: Models the editor never opens: not state a GM edits (the dice generator's internals).
NOT_SHOWN_MODELS: dict[str, str] = {
    "RngState": "the dice generator's seed and draw count: replay bookkeeping",
}
#: `id` is every entity's key in its map: the editor shows the thing by its name instead.
KEYS = frozenset({"id"})


def _defs() -> dict[str, Any]:
    defs: dict[str, Any] = state_schema()["$defs"]
    return defs


def _fields() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for model, node in sorted(_defs().items()):
        if model in NOT_SHOWN_MODELS:
            continue
        for name, field in node.get("properties", {}).items():
            if name not in KEYS and (model, name) not in NOT_SHOWN:
                yield model, name, field


def _enum_values(node: Any) -> set[str]:
    """The values an enum field may hold (as the words' keys: strings), through optional,
    list and map wrappers; a `$ref` to a model is that model's business."""
    if isinstance(node, list):
        return {v for item in node for v in _enum_values(item)}
    if not isinstance(node, dict) or "$ref" in node:
        return set()
    own = {str(v) for v in node.get("enum", []) if not isinstance(v, bool)}
    if "const" in node and not isinstance(node["const"], bool):
        own.add(str(node["const"]))
    for key in ("anyOf", "oneOf", "items", "additionalProperties", "prefixItems"):
        own |= _enum_values(node.get(key))
    return own


def _shared_enum(node: dict[str, Any]) -> set[str]:
    """The values of an enum declared once as a definition (`$ref` to a bare enum)."""
    refs = [node, *node.get("anyOf", []), node.get("items") or {}]
    values: set[str] = set()
    for ref in refs:
        if isinstance(ref, dict) and isinstance(ref.get("$ref"), str):
            target = _defs()[ref["$ref"].rsplit("/", 1)[-1]]
            values |= {str(v) for v in target.get("enum", []) if not isinstance(v, bool)}
    return values


def test_every_shown_field_has_both_titles() -> None:
    untitled = [f"{model}.{name}" for model, name, field in _fields()
                if not field.get("title_ja") or not field.get("title_en")]
    assert untitled == [], f"fields without title_ja/title_en: {untitled}"


def test_every_enum_a_gm_picks_has_words_for_each_value() -> None:
    missing: list[str] = []
    for model, name, field in _fields():
        values = _enum_values(field) | _shared_enum(field)
        words = field.get("words", {})
        unnamed = sorted(v for v in values if not (words.get(v, {}).get("ja")
                                                  and words.get(v, {}).get("en")))
        if unnamed:
            missing.append(f"{model}.{name}: {unnamed}")
    assert missing == [], f"enum values without the seed's words: {missing}"


@pytest.mark.parametrize(("model", "field", "rule"), [
    ("Unit", "strength", "MASS-PREP-2"),
    ("Unit", "max_strength", "MASS-PREP-1"),
    ("Base", "base_gp", "BASE-GP-1"),
])
def test_a_titled_field_keeps_its_rule(model: str, field: str, rule: str) -> None:
    assert _defs()[model]["properties"][field]["rule"] == rule


def test_the_room_settings_are_in_the_tables_words() -> None:
    meta = _defs()["RoomMeta"]["properties"]
    assert meta["enforcement"]["words"]["enforce"] == {"ja": "強制", "en": "enforce"}
    assert meta["enforcement"]["words"]["warn"]["ja"] == "警告のみ"
    assert meta["enforcement"]["words"]["off"]["ja"] == "なし"
    assert set(meta["player_rolls"]["words"]) == {"refuse", "allow"}
    assert set(meta["uncredited"]["words"]) == {"moves", "gm_side"}
