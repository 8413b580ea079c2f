"""Prompts: an action pauses for a choice by a named role; an answer resumes it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, StrictBool

from .bounds import Id, Name, Paragraph, Sentence
from .views import Audience, Entity

__all__ = ["Choice", "Prompt"]


class Choice(BaseModel):
    """One answer a prompt offers, labelled in both languages."""

    id: Id
    ja: Sentence
    en: Sentence


class Prompt(Entity):
    """A question waiting for `to` ("gm", "players" or "player:<id>")."""

    __secret__ = frozenset({"resume", "context"})

    id: Id
    to: Name = "gm"
    kind: Name = "choice"
    """What the question is, e.g. `<subsystem>.<question>` (each subsystem's doc
    lists its kinds); `choice` for a GM's free-form question."""
    about: dict[Name, Id] = Field(default_factory=dict, max_length=8)
    """The ids the question is about, by role (`unit`, `leaving`, `from`…)."""
    ja: Paragraph
    en: Paragraph
    choices: list[Choice] = Field(default_factory=list)
    free: StrictBool = False
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
