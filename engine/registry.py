"""The registry: every subsystem, declared once; the action union is built from it."""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import BaseModel, Field, TypeAdapter

from . import bases, control, engagement, grid, mass, table, tower_defense
from .actions import ActionBase
from .codes import CORE
from .errors import Codes
from .outcomes import Result
from .queries import QueryBase
from .registry_types import PhaseTable, Resumer, RoundOf, Subsystem, Trigger

__all__ = ["ACTIONS", "ANSWERS", "PHASE_TABLES", "QUERIES", "REFUSALS", "RESULTS", "RESUMERS",
           "ROUND_OF", "SETTLERS", "SUBSYSTEMS", "TRIGGERS", "AnswerUnion", "ResultUnion", "action_adapter",
           "parse_action"]

SUBSYSTEMS: tuple[Subsystem, ...] = (
    control.SUBSYSTEM,
    table.SUBSYSTEM,
    tower_defense.SUBSYSTEM,
    bases.SUBSYSTEM,
    grid.SUBSYSTEM,
    mass.SUBSYSTEM,
    engagement.SUBSYSTEM,
)

ACTIONS: dict[str, type[ActionBase]] = {
    cls.model_fields["kind"].default: cls for s in SUBSYSTEMS for cls in s.actions
}
TRIGGERS: tuple[Trigger, ...] = tuple(t for s in SUBSYSTEMS for t in s.triggers)
RESUMERS: dict[str, Resumer] = {k: v for s in SUBSYSTEMS for k, v in s.resumers.items()}
SETTLERS = tuple(fn for s in SUBSYSTEMS for fn in s.settlers)
QUERIES: dict[str, type[QueryBase]] = {
    cls.model_fields["kind"].default: cls for s in SUBSYSTEMS for cls in s.queries
}
#: Each subsystem's phase/step table by subsystem name (public rules: sent with the room).
PHASE_TABLES: dict[str, PhaseTable] = {s.name: s.phases for s in SUBSYSTEMS if s.phases}
#: What round a subsystem's part is in, by subsystem name (a replay's round boundaries).
ROUND_OF: dict[str, RoundOf] = {s.name: s.round_of for s in SUBSYSTEMS if s.round_of}

#: Every declared refusal code, by group: the core's, then each subsystem's (the server
#: adds its own protocol codes: server/errors.py).
REFUSALS: tuple[Codes, ...] = (CORE, *(s.refusals for s in SUBSYSTEMS if s.refusals))
RESULTS: tuple[type[Result], ...] = tuple(r for s in SUBSYSTEMS for r in s.results)

ActionUnion: Any = Annotated[Union[tuple(ACTIONS.values())], Field(discriminator="kind")]  # noqa: UP007
action_adapter: TypeAdapter[Any] = TypeAdapter(ActionUnion)
QueryUnion: Any = Annotated[Union[tuple(QUERIES.values())], Field(discriminator="kind")]  # noqa: UP007
#: The results an ack may carry (a plain `Result` until a subsystem declares one).
#: Every query's typed answer (server/protocol.py's `QueryResult.result`).
ANSWERS: tuple[type[BaseModel], ...] = tuple(q.Answer for q in QUERIES.values() if q.Answer)
AnswerUnion: Any = (Annotated[Union[ANSWERS], Field(discriminator="kind")]  # noqa: UP007
                    if len(ANSWERS) > 1 else ANSWERS[0] if ANSWERS else dict[str, Any])
ResultUnion: Any = (Annotated[Union[RESULTS], Field(discriminator="kind")]  # noqa: UP007
                    if len(RESULTS) > 1 else RESULTS[0] if RESULTS else Result)


def parse_action(data: Any) -> ActionBase:
    """Validate a client's action object (raises pydantic.ValidationError)."""
    action: ActionBase = action_adapter.validate_python(data)
    return action
