"""Queries: questions a client may ask about the state without acting.

A query never writes: no version bump, nothing logged. `answer` gets the room's state
and the asker's audience and must build its answer only from what that audience may
see (it raises `Refusal` for unknown or hidden things, named the same way).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from .tx import Role
from .views import Audience

__all__ = ["QueryBase"]


class QueryBase(BaseModel):
    """A query: `kind` picks it, `roles` may ask it, `answer` computes the reply."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    roles: ClassVar[frozenset[Role]] = frozenset({"gm", "player", "bridge", "observer"})
    #: The model of the answer (its `kind` the query's): the registry's `AnswerUnion`.
    Answer: ClassVar[type[BaseModel] | None] = None

    def answer(self, state: Any, audience: Audience) -> dict[str, Any]:
        raise NotImplementedError
