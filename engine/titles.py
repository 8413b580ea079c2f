"""What a field is called on screen, declared beside its type (one way for every field).

`shown(ja, en, …)` is a field's `json_schema_extra`: its ja/en title, the rule ID its
constraint follows (read back by `paths.field_rule`), the seed's words for each value of
an enum (`words`) and, for an id, the state path of the things it names (`ids`: the
console offers those by name). `komasync schema` and `GET /api/schema` carry them, so the
console's typed override editor needs no table of its own.

Scenario models say the same, plus what the scenario editor builds forms from: `ref` (the
scenario list(s) an id names, when not the state path of `ids`), `cells` (a list of
squares walked in order, `path`, or a set, `area`), `about` (a short ja/en description),
`empty_means` (left empty, the field takes the item's own field of that name: a
character's piece is its id) and, for a map, `key`/`value` (what its keys and values
are). `editor_schema` turns them into the scenario schema's `x-ref`, `x-cells`,
`propertyNames` and `additionalProperties`.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["SCENARIO_PATHS", "editor_schema", "shown"]

#: Where the things a state path holds are written in a scenario file (any other path is
#: written where the state keeps it: a part's map of things by id in the state is the
#: same part's list of them in the file).
SCENARIO_PATHS = {"meta.players": "players"}


def shown(ja: str, en: str, *, rule: str | None = None,
          words: dict[str, tuple[str, str]] | None = None,
          ids: tuple[str, ...] | None = None,
          ref: str | tuple[str, ...] | None = None,
          cells: Literal["path", "area"] | None = None,
          about: tuple[str, str] | None = None,
          key: tuple[str, str] | None = None, key_pattern: str | None = None,
          value: tuple[str, str] | None = None,
          empty_means: str | None = None) -> dict[str, Any]:
    """A field's `json_schema_extra`: title_ja/title_en, and the rest when given (`ref`
    names one scenario list's dotted path, or a tuple of them when either may be named)."""
    extra: dict[str, Any] = {"title_ja": ja, "title_en": en}
    if about is not None:
        extra["description_ja"], extra["description_en"] = about
    if rule is not None:
        extra["rule"] = rule
    if words is not None:
        extra["words"] = {value: {"ja": w_ja, "en": w_en} for value, (w_ja, w_en) in words.items()}
    if ids is not None:
        extra["ids"] = list(ids)
    if ref is not None:
        extra["x-ref"] = ref if isinstance(ref, str) else list(ref)
    if cells is not None:
        extra["x-cells"] = cells
    if empty_means is not None:  # left empty, the field means the item's own `empty_means`
        extra["x-empty-means"] = empty_means
    if key is not None or key_pattern is not None:
        extra["x-key"] = _titled(key, pattern=key_pattern)
    if value is not None:
        extra["x-value"] = _titled(value)
    return extra


def _titled(words: tuple[str, str] | None, pattern: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {} if words is None else {"title_ja": words[0], "title_en": words[1]}
    if pattern is not None:
        out["pattern"] = pattern
    return out


def editor_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A scenario model's JSON Schema as the scenario editor reads it (changed in place):
    each id's `x-ref` in scenario paths, a map's key and value words in its
    `propertyNames` and `additionalProperties` (a map's `x-ref` names its values)."""
    _walk(schema)
    return schema


#: Keywords whose values are data, not schemas (a default may be any JSON).
_DATA = frozenset({"default", "words", "enum", "const", "examples", "x-key", "x-value"})
#: Keywords whose values map names to schemas.
_NAMED = frozenset({"properties", "$defs", "patternProperties"})


def _walk(node: Any) -> None:
    """Every schema node below `node` (each once), its field words applied."""
    if not isinstance(node, dict):
        return
    _field(node)
    for keyword, child in node.items():
        if keyword in _DATA:
            continue
        if keyword in _NAMED and isinstance(child, dict):
            for sub in child.values():
                _walk(sub)
        elif isinstance(child, list):
            for sub in child:
                _walk(sub)
        else:
            _walk(child)


def _field(node: dict[str, Any]) -> None:
    ids = node.pop("ids", None)
    if isinstance(ids, list) and "x-ref" not in node:
        dotted = ".".join(map(str, ids))
        node["x-ref"] = SCENARIO_PATHS.get(dotted, dotted)
    owner = _map(node)
    if owner is None:
        return
    values: dict[str, Any] = owner["additionalProperties"]
    values.update(node.pop("x-value", {}))
    if "x-ref" in node:  # a map's x-ref names its values
        values["x-ref"] = node.pop("x-ref")
    if "x-key" in node:
        owner.setdefault("propertyNames", {}).update(node.pop("x-key"))


def _map(node: dict[str, Any]) -> dict[str, Any] | None:
    """The map schema of a map field (itself, or its `anyOf` option when optional)."""
    for option in [node, *node.get("anyOf", [])]:
        if (isinstance(option, dict) and option.get("type") == "object"
                and isinstance(option.get("additionalProperties"), dict)):
            return option
    return None
