"""Helpers shared by the base-battle tests (this module holds no tests)."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from engine_kit import GM, do, engine_of

from komasync.engine.bases.model import Base, Element
from komasync.engine.core import Engine, Outcome
from komasync.engine.state import Enforcement
from komasync.engine.tx import Actor

P1 = Actor(role="player", player="p1", label="p1")
BRIDGE = Actor(role="bridge", label="bridge")
HEAD = "room: {name: test, seed: s}\nplayers: [{id: p1, name: A}, {id: p2, name: B}]\nbases:\n"


def scenario_text(body: str) -> str:
    """A whole scenario whose `bases:` part is `body`."""
    return HEAD + textwrap.indent(textwrap.dedent(body).strip("\n"), "  ") + "\n"


def room(body: str, enforcement: Enforcement = "enforce") -> Engine:
    engine = engine_of(scenario_text(body))
    engine.state.meta.enforcement = enforcement
    return engine


def act(engine: Engine, actor: Actor = GM, **action: Any) -> Outcome:
    """`do`, as the GM unless told otherwise."""
    return do(engine, actor, **action)


def rounds(engine: Engine, n: int = 1) -> list[Outcome]:
    return [act(engine, kind="bases.round") for _ in range(n)]


def report(engine: Engine, happening: str, actor: Actor = GM, **data: Any) -> Outcome:
    return act(engine, actor, kind="bases.report", happening=happening, **data)


def effect(engine: Engine, do: str, target: str | None = None, source: str | None = None,
           **fields: Any) -> Outcome:
    eff: dict[str, Any] = {"do": do, **fields}
    if target is not None:
        eff["target"] = {"name": target}
    return act(engine, kind="bases.effect", effect=eff, source=source)


def base(engine: Engine, base_id: str) -> Base:
    assert engine.state.bases is not None
    return engine.state.bases.bases[base_id]


def element(engine: Engine, element_id: str) -> Element:
    assert engine.state.bases is not None
    for b in engine.state.bases.bases.values():
        for e in b.elements():
            if e.id == element_id:
                return e
    raise KeyError(element_id)


def fired(outcome: Outcome) -> list[str]:
    """Element ids of events fired and GP change conditions applied, in order."""
    kinds = ("bases.event.fired", "bases.gp_condition.applied")
    return [h.data["element"] for h in outcome.happenings if h.kind in kinds]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
