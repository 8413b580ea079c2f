"""What an accepted action tells its sender in the ack: ids it created and typed results.

Each subsystem declares its `Result` models (`Subsystem.results`); a handler reports one
with `Tx.report`, naming in `about` the state it is built from, so the server sends it
only to a sender shown all of that (as `views.refusal_for` does for refusals).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr

from .bounds import Id, Name
from .errors import Text
from .paths import Path
from .views import Audience, shows

__all__ = ["Created", "Result", "told"]


class Result(BaseModel):
    """A typed outcome of an action (a move's cost and path, an exchange's next stage);
    each subsystem's results narrow `kind` to a literal of their own."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    _about: tuple[Path, ...] = PrivateAttr(default=())

    def roll_check(self, action: Any) -> tuple[str, Text] | None:
        """The rule and the check a reported dice line in `action` was used for, when this
        result reports that check (else None: the action's own `check` says it)."""
        return None


class Created(BaseModel):
    """An id the action made (a status, a prompt, a unit): `what` it is and `id`."""

    model_config = ConfigDict(extra="forbid")

    what: Name
    id: Id
    _about: tuple[Path, ...] = PrivateAttr(default=())


def told(created: Sequence[Created], results: Sequence[Result], root: Any,
         audience: Audience) -> dict[str, Any]:
    """The ack's `created` and `results` as `audience` may read them (right after the
    action, from the state it left): only what they are shown all of."""
    def seen(about: tuple[Path, ...]) -> bool:
        return all(shows(root, path, audience) for path in about)

    out: dict[str, Any] = {}
    if kept := [c.model_dump(mode="json") for c in created if seen(c._about)]:
        out["created"] = kept
    if said := [r.model_dump(mode="json") for r in results if seen(r._about)]:
        out["results"] = said
    return out
