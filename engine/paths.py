"""Reading and writing a state tree (pydantic models, dicts, lists) by path."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated, Any, Final, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter

__all__ = ["MISSING", "Path", "delete", "field_rule", "field_type", "get", "has", "put",
           "validator"]

Segment = str | int
Path = tuple[Segment, ...]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


def _child(obj: Any, seg: Segment) -> Any:
    if isinstance(obj, BaseModel):
        if not isinstance(seg, str) or seg not in type(obj).__pydantic_fields__:
            return MISSING
        return getattr(obj, seg)
    if isinstance(obj, dict):
        return obj.get(seg, MISSING)
    if isinstance(obj, list) and isinstance(seg, int) and -len(obj) <= seg < len(obj):
        return obj[seg]
    return MISSING


def get(root: Any, path: Sequence[Segment]) -> Any:
    """The value at `path`, or MISSING."""
    obj = root
    for seg in path:
        obj = _child(obj, seg)
        if obj is MISSING:
            return MISSING
    return obj


def has(root: Any, path: Sequence[Segment]) -> bool:
    return get(root, path) is not MISSING


def put(root: Any, path: Sequence[Segment], value: Any) -> Any:
    """Set `path` to `value` (creating a dict entry if needed); returns the old value."""
    parent = get(root, path[:-1])
    seg = path[-1]
    old = _child(parent, seg)
    if isinstance(parent, BaseModel):
        if old is MISSING:
            raise KeyError(path)
        setattr(parent, str(seg), value)
    elif isinstance(parent, dict):
        parent[seg] = value
    elif isinstance(parent, list) and isinstance(seg, int):
        if old is MISSING:
            raise KeyError(path)
        parent[seg] = value
    else:
        raise KeyError(path)
    return old


def delete(root: Any, path: Sequence[Segment]) -> Any:
    """Remove a dict entry; returns the old value (MISSING if there was none)."""
    parent = get(root, path[:-1])
    if not isinstance(parent, dict):
        raise KeyError(path)
    return parent.pop(path[-1], MISSING)


def _strip_optional(ann: Any) -> Any:
    """`X | None` → X, and a constrained container → the container (its items are typed)."""
    for _ in range(2):
        if get_origin(ann) is Annotated:
            ann = get_args(ann)[0]
        if get_origin(ann) in (Union, _UnionType):
            args = [a for a in get_args(ann) if a is not type(None)]
            if len(args) == 1:
                ann = args[0]
    return ann


_UnionType = type(int | None)


Shape = tuple[tuple[type[BaseModel], str] | None, ...]
"""A path by type: (model class, field) per model step, None for a dict or list item."""


def _shape(root: BaseModel, path: Sequence[Segment]) -> Shape:
    shape: list[tuple[type[BaseModel], str] | None] = []
    obj: Any = root
    for i, seg in enumerate(path):
        if isinstance(obj, BaseModel):
            if not isinstance(seg, str) or seg not in type(obj).__pydantic_fields__:
                raise KeyError(path)
            shape.append((type(obj), seg))
        elif isinstance(obj, dict | list):
            shape.append(None)
        else:
            raise KeyError(path)
        obj = _child(obj, seg)
        if obj is MISSING and i < len(path) - 1:
            raise KeyError(path)
    return tuple(shape)


@lru_cache(maxsize=2048)
def _resolve(shape: Shape) -> Any:
    ann: Any = None
    for step in shape:
        if step is not None:
            info = step[0].__pydantic_fields__[step[1]]
            ann = info.annotation
            if info.metadata:  # keep the field's constraints (ge=0 …) for overrides
                ann = Annotated[ann, *info.metadata]
            continue
        inner = _strip_optional(ann)
        if get_origin(inner) is dict:
            ann = get_args(inner)[1]
        elif get_origin(inner) is list:
            ann = get_args(inner)[0]
        else:
            raise KeyError(shape)
    return ann


@lru_cache(maxsize=2048)
def _validator(shape: Shape) -> TypeAdapter[Any]:
    return TypeAdapter(_resolve(shape))


def field_type(root: BaseModel, path: Sequence[Segment]) -> Any:
    """The declared type of the value at `path`, for validating a GM override."""
    return _resolve(_shape(root, path))


def validator(root: BaseModel, path: Sequence[Segment]) -> TypeAdapter[Any]:
    """A validator for the declared type at `path` (cached by the path's shape: `Tx.set`
    validates every write with one)."""
    return _validator(_shape(root, path))


def field_rule(root: BaseModel, path: Sequence[Segment]) -> str | None:
    """The rule ID a model field names for its constraint (`json_schema_extra={"rule": …}`)."""
    parent = get(root, path[:-1])
    if not isinstance(parent, BaseModel) or not isinstance(path[-1], str):
        return None
    info = type(parent).model_fields.get(path[-1])
    extra = info.json_schema_extra if info is not None else None
    rule = extra.get("rule") if isinstance(extra, dict) else None
    return rule if isinstance(rule, str) else None

