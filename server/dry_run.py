"""GM dry runs: what actions would do, applied in order by the engine on a copy of the room.

The copy is deep, so the room's state, version and dice counter are never touched: the
console shows an override's consequences (and what the next step would then bring)
before the GM applies it. Answered inside the room task, in the room's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_core import to_jsonable_python

from ..engine.actions import ActionBase
from ..engine.core import Engine
from ..engine.errors import Refusal
from ..engine.paths import MISSING
from ..engine.tx import Actor, Tx

__all__ = ["dry_run"]


def dry_run(engine: Engine, actions: Sequence[ActionBase], actor: Actor) -> dict[str, Any]:
    """The `dry_run.result` body (without type and id): each action's consequences on one
    copy of the room, up to the first refusal."""
    copy = Engine(engine.state.model_copy(deep=True), engine.version)
    steps: list[dict[str, Any]] = []
    for i, action in enumerate(actions):
        try:
            outcome = copy.apply(action, actor)
        except Refusal as r:
            refused = {"step": i, "code": r.code, "rule": r.rule,
                       "reason": {"ja": r.ja, "en": r.en}}
            return {"version": engine.version, "steps": steps, "refused": refused}
        steps.append(_step(action, outcome.tx))
    return {"version": engine.version, "steps": steps, "refused": None}


def _step(action: ActionBase, tx: Tx) -> dict[str, Any]:
    return {
        "kind": str(getattr(action, "kind", "")),
        "changes": _changes(tx),
        "log": [{"ja": x.ja, "en": x.en} for x in tx.log],
        "happenings": [{"kind": p.kind, "data": to_jsonable_python(p.data)}
                       for p in tx.happenings],
        "warnings": to_jsonable_python(tx.warnings),
    }


def _changes(tx: Tx) -> list[dict[str, Any]]:
    """One entry per path written (its first old and last new value), writes that end
    where they began left out."""
    first: dict[tuple[str | int, ...], Any] = {}
    last: dict[tuple[str | int, ...], Any] = {}
    for c in tx.changes:
        first.setdefault(c.path, c.old)
        last[c.path] = c.new
    out = []
    for path, old in first.items():
        new = last[path]
        if _same(old, new):
            continue
        out.append({"path": list(path),
                    "old": None if old is MISSING else to_jsonable_python(old),
                    "new": None if new is MISSING else to_jsonable_python(new),
                    "had": old is not MISSING, "has": new is not MISSING})
    return out


def _same(a: Any, b: Any) -> bool:
    if a is MISSING or b is MISSING:
        return a is b
    return bool(to_jsonable_python(a) == to_jsonable_python(b))
