"""Issue 26 finding 5: every integer of every wire, scenario and state model is a strict
integer, so `true` (a Python int), 2.0 or "2" is refused where an integer is wanted.

Checked on the models' pydantic core schemas, walked through nested models, unions,
discriminated unions, lists, tuples, dicts and shared definitions, so a new field
declared as a bare `int` (or an integer `Literal` without `OnlyInt`) cannot slip through.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union

import pytest
from pydantic import BaseModel, Field, StrictInt, TypeAdapter, ValidationError

import komasync.adapters
import komasync.engine
import komasync.server
from conftest import EXAMPLES
from komasync.engine.bounds import Count, Exact, Finite, Number, OnlyInt, Serial, an_int
from komasync.engine.registry import ActionUnion, QueryUnion
from komasync.engine.scenario import Scenario, build_room, load_scenario_file
from komasync.engine.state import RoomState
from komasync.server.protocol import client_adapter, server_adapter
from komasync.server.settings import Settings

#: Models that may keep lax integers, and why.
LAX = {
    Settings: "flags and KOMASYNC_* environment variables are strings ('8750')",
}

#: Where integers come from outside: what clients send, what the server sends them, what
#: a scenario file and a stored room hold.
ROOTS: dict[str, TypeAdapter[Any]] = {
    "client messages": client_adapter,
    "server messages": server_adapter,
    "actions": TypeAdapter(ActionUnion),
    "queries": TypeAdapter(QueryUnion),
    "room state": TypeAdapter(RoomState),
    "scenario": TypeAdapter(Scenario),
}

# Keys of the core schema that hold no validation of the input.
_NOT_INPUT = {"cls", "metadata", "ref", "serialization", "config", "function", "expected"}


def lax_numbers(schema: Any, where: str = "") -> Iterator[str]:
    """Places in a pydantic core schema where a boolean (or 2.0, "2") may pass as a number."""
    if isinstance(schema, list | tuple):
        for item in schema:
            yield from lax_numbers(item, where)
        return
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind in ("int", "float") and not schema.get("strict"):
        yield f"{where}: {kind}"
    if kind == "literal" and any(type(v) in (int, float) for v in schema["expected"]):
        yield f"{where}: integer Literal {schema['expected']} without OnlyInt"
    if kind == "function-before" and schema["function"].get("function") is an_int:
        return  # `OnlyInt`: nothing but an int reaches what it guards
    if kind == "model":
        where = f"{where}/{schema['cls'].__name__}" if where else schema["cls"].__name__
    for key, value in schema.items():
        if key == "keys_schema":
            continue  # JSON object keys are strings: a dict[int, …] key is parsed from "1"
        if key == "fields" and isinstance(value, dict):
            for name, field in value.items():
                yield from lax_numbers(field, f"{where}.{name}")
        elif key not in _NOT_INPUT:
            yield from lax_numbers(value, where)


def _all_models() -> Iterator[type[BaseModel]]:
    for package in (komasync.engine, komasync.server, komasync.adapters):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    seen: set[type[BaseModel]] = set()
    todo = list(BaseModel.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls not in seen and cls.__module__.startswith("komasync."):
            seen.add(cls)
            yield cls


@pytest.mark.parametrize("root", ROOTS)
def test_every_integer_reached_from_the_wire_is_strict(root: str) -> None:
    lax = sorted(set(lax_numbers(ROOTS[root].core_schema)))
    assert not lax, f"{root}: lax numbers (StrictInt, or a bounded type of engine/bounds.py):\n" + \
        "\n".join(lax)


def test_every_model_of_komasync_has_strict_integers() -> None:
    # also models no root reaches (a platform adapter's settings, a roll, a happening…)
    lax = sorted({hit for cls in _all_models() if cls not in LAX
                  for hit in lax_numbers(cls.__pydantic_core_schema__)})
    assert not lax, "lax numbers:\n" + "\n".join(lax)


# -- the walk itself finds every place an integer can hide ---------------------------------
class _Leaf(BaseModel):
    n: int = 0


class _Tagged(BaseModel):
    kind: Literal["tagged"] = "tagged"
    n: StrictInt = 0
    leaf: _Leaf | None = None


class _Other(BaseModel):
    kind: Literal["other"] = "other"
    n: StrictInt = 0


class _Tree(BaseModel):
    children: list[_Tree] = Field(default_factory=list)
    weight: int = 0


class _Everywhere(BaseModel):
    plain: int
    optional: int | None = None
    listed: list[int] = Field(default_factory=list)
    mapped: dict[str, int] = Field(default_factory=dict)
    pair: tuple[int, StrictInt] = (0, 0)
    either: str | float = ""
    choice: Literal[1, 2] = 1
    tagged: Annotated[Union[_Tagged, _Other], Field(discriminator="kind")]  # noqa: UP007
    tree: _Tree | None = None


def test_the_walk_finds_a_lax_integer_wherever_it_is() -> None:
    found = {hit.split(":")[0] for hit in lax_numbers(_Everywhere.__pydantic_core_schema__)}
    assert found == {
        "_Everywhere.plain", "_Everywhere.optional", "_Everywhere.listed", "_Everywhere.mapped",
        "_Everywhere.pair", "_Everywhere.either", "_Everywhere.choice",
        "_Everywhere.tagged/_Tagged.leaf/_Leaf.n", "_Tree.weight",
    }, found


class _Strict(BaseModel):
    keyed: dict[int, Count] = Field(default_factory=dict)
    choice: Annotated[Literal[1, 3, 6], OnlyInt] = 1
    several: list[Number | Finite] = Field(default_factory=list)


def test_the_walk_passes_strict_integers_and_integer_keys() -> None:
    assert list(lax_numbers(_Strict.__pydantic_core_schema__)) == []


# -- what strict takes and refuses ---------------------------------------------------------
@pytest.mark.parametrize("kind", [Number, Count, Serial, Exact,
                                  Annotated[Literal[1, 3, 6], OnlyInt]])
@pytest.mark.parametrize("value", [True, False, 3.0, "3", None])
def test_an_integer_refuses_what_is_not_an_int(kind: Any, value: Any) -> None:
    check = TypeAdapter(kind)
    with pytest.raises(ValidationError):
        check.validate_python(value)
    with pytest.raises(ValidationError):
        check.validate_json(TypeAdapter(Any).dump_json(value))


@pytest.mark.parametrize("kind", [Number, Count, Serial, Exact,
                                  Annotated[Literal[1, 3, 6], OnlyInt]])
def test_an_integer_takes_an_int_from_python_and_from_json(kind: Any) -> None:
    check = TypeAdapter(kind)
    assert check.validate_python(3) == 3 and check.validate_json("3") == 3


def test_a_float_takes_an_integer_but_no_boolean() -> None:
    check = TypeAdapter(Finite)
    assert check.validate_python(2) == 2.0 and check.validate_json("2.5") == 2.5
    with pytest.raises(ValidationError):
        check.validate_python(True)


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_a_stored_room_validates_again_under_strict_integers(example: str) -> None:
    # the state is stored as JSON and validated back on load and replay
    state = build_room(load_scenario_file(EXAMPLES / example), seed="strict")
    again = RoomState.model_validate_json(state.model_dump_json())
    assert again == state
    assert RoomState.model_validate(state.model_dump(mode="json")) == state
