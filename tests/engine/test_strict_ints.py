"""Issue 26 finding 5: every integer of every wire, scenario and state model is a strict
integer, so `true` (a Python int), 2.0 or "2" is refused where an integer is wanted; and
every boolean a strict boolean, so 1, "true", "yes" or "on" is refused where one is wanted.

Checked on the models' pydantic core schemas, walked through nested models, unions,
discriminated unions, lists, tuples, dicts and shared definitions, so a new field
declared as a bare `int` or `bool` (or an integer `Literal` without `OnlyInt`) cannot slip
through.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union

import pytest
from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
    ValidationError,
)

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


def _nodes(schema: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema that validates input in a pydantic core schema, with the field it is in."""
    if isinstance(schema, list | tuple):
        for item in schema:
            yield from _nodes(item, where)
        return
    if not isinstance(schema, dict):
        return
    yield where, schema
    kind = schema.get("type")
    if kind == "function-before" and schema["function"].get("function") is an_int:
        return  # `OnlyInt`: nothing but an int reaches what it guards
    if kind == "model":
        where = f"{where}/{schema['cls'].__name__}" if where else schema["cls"].__name__
    for key, value in schema.items():
        if key == "keys_schema":
            continue  # JSON object keys are strings: a dict[int, …] key is parsed from "1"
        if key == "fields" and isinstance(value, dict):
            for name, field in value.items():
                yield from _nodes(field, f"{where}.{name}")
        elif key not in _NOT_INPUT:
            yield from _nodes(value, where)


def lax_numbers(schema: Any) -> Iterator[str]:
    """Places in a pydantic core schema where a boolean (or 2.0, "2") may pass as a number."""
    for where, node in _nodes(schema):
        kind = node.get("type")
        if kind in ("int", "float") and not node.get("strict"):
            yield f"{where}: {kind}"
        if kind == "literal" and any(type(v) in (int, float) for v in node["expected"]):
            yield f"{where}: integer Literal {node['expected']} without OnlyInt"


def lax_bools(schema: Any) -> Iterator[str]:
    """Places in a pydantic core schema where 1, "true", "yes" or "on" may pass as a boolean."""
    for where, node in _nodes(schema):
        kind = node.get("type")
        if kind == "bool" and not node.get("strict"):
            yield f"{where}: bool"
        if kind == "literal" and any(type(v) is bool for v in node["expected"]):
            # a Literal compares by equality (1 == True) and takes no Strict()
            yield f"{where}: boolean Literal {node['expected']}"


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


@pytest.mark.parametrize("root", ROOTS)
def test_every_boolean_reached_from_the_wire_is_strict(root: str) -> None:
    lax = sorted(set(lax_bools(ROOTS[root].core_schema)))
    assert not lax, f"{root}: lax booleans (StrictBool):\n" + "\n".join(lax)


def test_every_model_of_komasync_has_strict_integers() -> None:
    # also models no root reaches (a platform adapter's settings, a roll, a happening…)
    lax = sorted({hit for cls in _all_models() if cls not in LAX
                  for hit in lax_numbers(cls.__pydantic_core_schema__)})
    assert not lax, "lax numbers:\n" + "\n".join(lax)


def test_every_model_of_komasync_has_strict_booleans() -> None:
    lax = sorted({hit for cls in _all_models() if cls not in LAX
                  for hit in lax_bools(cls.__pydantic_core_schema__)})
    assert not lax, "lax booleans (StrictBool):\n" + "\n".join(lax)


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


class _Flag(BaseModel):
    on: bool = False


class _FlagTagged(BaseModel):
    kind: Literal["tagged"] = "tagged"
    on: StrictBool = False
    flag: _Flag | None = None


class _FlagOther(BaseModel):
    kind: Literal["other"] = "other"
    on: StrictBool = False


class _FlagTree(BaseModel):
    children: list[_FlagTree] = Field(default_factory=list)
    open: bool = False


class _FlagsEverywhere(BaseModel):
    plain: bool
    optional: bool | None = None
    listed: list[bool] = Field(default_factory=list)
    mapped: dict[str, bool] = Field(default_factory=dict)
    pair: tuple[StrictBool, bool] = (False, False)
    either: str | bool = ""
    choice: Literal[True] = True
    checked: Annotated[bool, AfterValidator(lambda v: v)] = False
    tagged: Annotated[Union[_FlagTagged, _FlagOther], Field(discriminator="kind")]  # noqa: UP007
    tree: _FlagTree | None = None


def test_the_walk_finds_a_lax_boolean_wherever_it_is() -> None:
    found = {hit.split(":")[0] for hit in lax_bools(_FlagsEverywhere.__pydantic_core_schema__)}
    assert found == {
        "_FlagsEverywhere.plain", "_FlagsEverywhere.optional", "_FlagsEverywhere.listed",
        "_FlagsEverywhere.mapped", "_FlagsEverywhere.pair", "_FlagsEverywhere.either",
        "_FlagsEverywhere.choice", "_FlagsEverywhere.checked",
        "_FlagsEverywhere.tagged/_FlagTagged.flag/_Flag.on", "_FlagTree.open",
    }, found


class _StrictFlags(BaseModel):
    keyed: dict[bool, StrictBool] = Field(default_factory=dict)
    several: list[StrictBool | Number] = Field(default_factory=list)
    either: StrictBool | list[str] = False


def test_the_walk_passes_strict_booleans() -> None:
    assert list(lax_bools(_StrictFlags.__pydantic_core_schema__)) == []
    assert list(lax_bools(_Strict.__pydantic_core_schema__)) == []


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


@pytest.mark.parametrize("value", [1, 0, 1.0, "true", "false", "yes", "on", "1", "t", None])
def test_a_boolean_refuses_what_is_not_a_bool(value: Any) -> None:
    check = TypeAdapter(StrictBool)
    with pytest.raises(ValidationError):
        check.validate_python(value)
    with pytest.raises(ValidationError):
        check.validate_json(TypeAdapter(Any).dump_json(value))


def test_a_boolean_takes_a_bool_from_python_and_from_json() -> None:
    check = TypeAdapter(StrictBool)
    assert check.validate_python(True) is True and check.validate_json("false") is False
