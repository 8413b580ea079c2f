"""What a state field is called on screen, declared beside its type (one way for every field).

`shown(ja, en, …)` is a field's `json_schema_extra`: its ja/en title, the rule ID its
constraint follows (read back by `paths.field_rule`), the seed's words for each value of
an enum (`words`) and, for an id, the state path of the things it names (`ids`: the
console offers those by name). `komasync schema` and `GET /api/schema` carry them, so the
console's typed override editor needs no table of its own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["shown"]


def shown(ja: str, en: str, *, rule: str | None = None,
          words: dict[str, tuple[str, str]] | None = None,
          ids: tuple[str, ...] | None = None) -> dict[str, Any]:
    """A field's `json_schema_extra`: title_ja/title_en, and rule, words, ids when given."""
    extra: dict[str, Any] = {"title_ja": ja, "title_en": en}
    if rule is not None:
        extra["rule"] = rule
    if words is not None:
        extra["words"] = {value: {"ja": w_ja, "en": w_en} for value, (w_ja, w_en) in words.items()}
    if ids is not None:
        extra["ids"] = list(ids)
    return extra
