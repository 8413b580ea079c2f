"""What every engine test drives a room with: an engine built from a scenario, an action
applied as an actor, and a refusal that must leave the state untouched.

The subsystem kits (tests/engine/*/…_kit.py) build their scenarios on these and keep only
what is their own. This module sits beside tests/conftest.py, so every test imports it
as `engine_kit` (tests/engine/ is no package, and a module there is not on the path of
the tests in its subfolders).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from komasync.engine.core import Engine, Outcome
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action
from komasync.engine.scenario import Scenario, ScenarioError, build_room, load_scenario
from komasync.engine.tx import Actor

__all__ = ["GM", "do", "engine_of", "one_problem", "part", "refusal_of", "refused",
           "scenario_problems"]

GM = Actor(role="gm", label="GM")
P = TypeVar("P")


def engine_of(source: str | Mapping[str, Any], seed: str = "seed") -> Engine:
    """A room from scenario text (read as a scenario file is) or from a scenario dict."""
    scenario = (load_scenario(source) if isinstance(source, str)
                else Scenario.model_validate(source))
    return Engine(build_room(scenario, seed))


def part(e: Engine, name: str, model: type[P]) -> P:
    """The room's `name` part (a subsystem's state), which the test expects it to have."""
    value = getattr(e.state, name, None)
    assert isinstance(value, model), f"the room has no {name}"
    return value


def do(e: Engine, actor: Actor, **action: Any) -> Outcome:
    """Apply the action `action` describes (its `kind` and fields) as `actor`."""
    return e.apply(parse_action(action), actor)


def refusal_of(e: Engine, attempt: Callable[[], object], what: object = "") -> Refusal:
    """The refusal `attempt` meets (`what` names it if it is not refused); the room's
    state must be exactly as it was."""
    before = e.state.model_dump()
    try:
        attempt()
    except Refusal as r:
        assert e.state.model_dump() == before, f"refused but the state changed: {what}"
        return r
    raise AssertionError(f"not refused: {what}")


def refused(e: Engine, actor: Actor, **action: Any) -> Refusal:
    """Apply, expecting a refusal; the state must be untouched."""
    return refusal_of(e, lambda: do(e, actor, **action), action)


def scenario_problems(text: str) -> list[tuple[int | None, str, str]]:
    """What `load_scenario` finds wrong in the YAML `text`: (line, ja, en) per problem,
    [] when it is valid."""
    try:
        load_scenario(text, "t.yaml")
    except ScenarioError as e:
        return [(p.line, *_ja_en(p.message)) for p in e.problems]
    return []


def one_problem(text: str) -> tuple[int | None, str, str]:
    """The single problem `load_scenario` finds in `text`: (line, ja, en)."""
    found = scenario_problems(text)
    assert len(found) == 1, found
    return found[0]


def _ja_en(message: str) -> tuple[str, str]:
    ja, en = message.split(" / ", 1)
    return ja, en
