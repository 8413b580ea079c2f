"""Prompts: an action pauses for a choice by a named role; an answer resumes it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, StrictBool

from .bounds import Id, Name, Paragraph, Sentence
from .titles import shown
from .views import Audience, Entity

__all__ = ["Choice", "Prompt"]


class Choice(BaseModel):
    """One answer a prompt offers, labelled in both languages."""

    id: Id
    ja: Sentence = Field(json_schema_extra=shown("選択肢", "choice"))
    en: Sentence = Field(json_schema_extra=shown("英語の選択肢", "English choice"))


class Prompt(Entity):
    """A question waiting for `to` ("gm", "players" or "player:<id>")."""

    __secret__ = frozenset({"resume", "context"})

    id: Id
    to: Name = Field(default="gm", json_schema_extra=shown("宛先", "to"))
    kind: Name = Field(default="choice", json_schema_extra=shown("問いの種類", "kind"))
    """What the question is, e.g. `<subsystem>.<question>` (each subsystem's doc
    lists its kinds); `choice` for a GM's free-form question."""
    about: dict[Name, Id] = Field(default_factory=dict, max_length=8, json_schema_extra=shown(
        "関係するもの", "about"))
    """The ids the question is about, by role (`unit`, `leaving`, `from`…)."""
    ja: Paragraph = Field(json_schema_extra=shown("問い", "question"))
    en: Paragraph = Field(json_schema_extra=shown("英語の問い", "English question"))
    choices: list[Choice] = Field(default_factory=list, json_schema_extra=shown("選択肢", "choices"))
    free: StrictBool = Field(default=False, json_schema_extra=shown("自由回答", "free answer"))
    resume: Name
    context: dict[str, Any] = Field(default_factory=dict)

    def visible_to(self, audience: Audience) -> bool:
        if audience.is_gm:
            return True
        return audience.kind == "player" and self.to in ("players", audience.key)

    def answerable_by(self, role: str, player: str | None) -> bool:
        if role == "gm":
            return True
        return role == "player" and self.to in ("players", f"player:{player}")
