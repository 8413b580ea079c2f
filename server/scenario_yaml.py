"""The scenario file a GM would write, from the editor's data: the original file's text
with the edits applied in place (comments, key order, flow/block style and quoting kept,
by ruamel.yaml's round trip), or a clean new file in the scenario model's field order.

No I/O: text in, text out. The data is plain JSON (what POST /api/scenario/open gave,
edited); mapping keys are strings there, so an original's `1:` key matches "1".
"""

from __future__ import annotations

import io
import itertools
import json
import math
import re
import types
import typing
from typing import Any

from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.scalarstring import ScalarString

from ..engine.scenario import Scenario

__all__ = ["FLOW_WIDTH", "as_json", "scenario_text"]

#: In a new file a mapping or list below the top-level parts is written on one line
#: (`{x: 2, y: 1}`, `[a, b]`, `{id: f1, cell: {x: 2, y: 4}}`) when its data is at most this
#: long; anything longer is block style.
FLOW_WIDTH = 100

_SEQ_PRE = 1  # ruamel's comment slots: a list item's comment lines above it
_KEY_PRE = 1  # and a mapping key's


class _Representer(RoundTripRepresenter):
    """`null` is written `null` (ruamel writes nothing after `key:`): as a GM writes it."""


_Representer.add_representer(
    type(None), lambda r, _: r.represent_scalar("tag:yaml.org,2002:null", "null"))


def _yaml(mapping: int = 2, sequence: int = 4, offset: int = 2) -> YAML:
    y = YAML()  # round trip: comments, order, styles and quotes are kept
    y.Representer = _Representer
    y.preserve_quotes = True
    y.width = 1 << 30  # never wrap a long flow line the author kept on one line
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    return y


def scenario_text(data: dict[str, Any], original: str | None = None) -> str:
    """The YAML text for `data`: `original` with the edits applied, or a new file."""
    if original and original.strip():
        try:
            y = _yaml(*_indents(original))
            tree = y.load(original)
        except YAMLError:
            tree = None  # unreadable: the editor could not have opened it; write anew
        if isinstance(tree, CommentedMap):
            _apply_map(tree, data, Scenario, set())
            return _dump(y, tree)
    return _dump(_yaml(), _fresh(data, Scenario))


def _indents(text: str) -> tuple[int, int, int]:
    """The original's indentation (mapping, list item content, the `-` within the list),
    read off its lines, so lines written anew line up with the author's."""
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    keys = [len(line) - len(line.lstrip(" ")) for line in lines
            if line.startswith(" ") and not line.lstrip().startswith("-")]
    offset, sequence = 2, 4
    for above, line in itertools.pairwise(lines):
        if line.lstrip().startswith("- ") and re.match(r"^ *[^\s-].*:\s*(#.*)?$", above):
            parent = len(above) - len(above.lstrip(" "))
            dash = len(line) - len(line.lstrip(" "))
            content = dash + 1 + len(line[dash + 1:]) - len(line[dash + 1:].lstrip(" "))
            offset, sequence = max(dash - parent, 0), max(content - parent, 2)
            break
    return min(keys, default=2), sequence, offset


def _dump(y: YAML, tree: Any) -> str:
    out = io.StringIO()
    y.dump(tree, out)
    return out.getvalue()


def as_json(value: Any) -> Any:
    """A parsed YAML value as plain JSON: string keys, ISO dates, no NaN/∞ floats."""
    if isinstance(value, dict):
        return {_key(k): as_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [as_json(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value.isoformat()) if hasattr(value, "isoformat") else str(value)


def _key(k: Any) -> str:
    if isinstance(k, bool) or k is None:
        return json.dumps(k)  # YAML `true:` / `null:` keys as JSON would name them
    return str(k)


# -- the scenario model, followed along a path --------------------------------------------------

def _unwrap(tp: Any) -> Any:
    """The container or model an annotation stands for (Annotated and Optional peeled)."""
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin is typing.Union or origin is types.UnionType:
            args = [a for a in typing.get_args(tp) if _container(a)]
            if not args:
                return None
            tp = args[0]
        else:
            return tp


def _container(tp: Any) -> bool:
    tp = typing.get_origin(tp) or tp
    return tp is typing.Annotated or (isinstance(tp, type) and issubclass(
        tp, BaseModel | list | dict | tuple)) or tp is typing.Union or tp is types.UnionType


def _child(tp: Any, key: Any) -> Any:
    """The annotation of `key` inside `tp` (a model's field, a list's item, a dict's value)."""
    tp = _unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        field = tp.model_fields.get(str(key))
        return field.annotation if field else None
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin in (list, tuple) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def _field_order(tp: Any) -> list[str]:
    tp = _unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return list(tp.model_fields)
    return []


def _int_keys(tp: Any) -> bool:
    """Whether a mapping of this annotation is keyed by integers (waves' `rounds: 1:`)."""
    tp = _unwrap(tp)
    args = typing.get_args(tp)
    return typing.get_origin(tp) is dict and bool(args) and _unwrap(args[0]) is int


def _yaml_key(k: str, tp: Any, siblings: list[Any]) -> Any:
    """A new key as the file writes it: an integer where the model or its siblings say so."""
    number = k.lstrip("-").isdigit()
    ints = siblings and all(isinstance(s, int) and not isinstance(s, bool) for s in siblings)
    return int(k) if number and (_int_keys(tp) or ints) else k


# -- applying the edited data onto the original's tree ----------------------------------------

def _same(old: Any, new: Any) -> bool:
    """Equal as JSON data (a YAML `1.0` and the editor's `1` are the same number)."""
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool) and old == new
    if isinstance(old, int | float) and isinstance(new, int | float):
        return bool(old == new)
    if isinstance(old, dict) and isinstance(new, dict):
        return len(old) == len(new) and all(
            _key(k) in new and _same(v, new[_key(k)]) for k, v in old.items())
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(map(_same, old, new))
    if isinstance(old, str) and isinstance(new, str):
        return str(old) == new
    return old is None and new is None


def _apply(old: Any, new: Any, tp: Any, seen: set[int]) -> Any:
    """`new` in the place of `old`: `old` itself, edited in place, where its kind is kept."""
    if isinstance(old, dict | list) and old and not new and isinstance(new, dict | list):
        return _styled(new, None, tp)  # emptied: `[]` after the key (a block list has no
        # way to say empty), the key's comment after it
    if isinstance(old, CommentedMap) and isinstance(new, dict) and id(old) not in seen:
        _unfold(old, new)
        _apply_map(old, new, tp, seen)
        return old
    if isinstance(old, CommentedSeq) and isinstance(new, list) and id(old) not in seen:
        _unfold(old, new)
        _apply_seq(old, new, tp, seen)
        return old
    if _same(old, new) and not isinstance(old, dict | list):
        return old  # untouched: its spelling (quotes, `1.0`, `0x1F`) stays
    if isinstance(old, ScalarString) and isinstance(new, str):
        return type(old)(new)  # a changed text keeps its quoting style
    return _styled(new, old, tp)


def _unfold(old: CommentedMap | CommentedSeq, new: dict[str, Any] | list[Any]) -> None:
    """A template's empty `forts: []` filled with forts becomes a block list (one fort a
    line), not every fort on the one line of the `[]`."""
    members = new.values() if isinstance(new, dict) else new
    if not old and old.fa.flow_style() and any(isinstance(v, dict | list) for v in members):
        old.fa.set_block_style()


def _apply_map(tree: CommentedMap, data: dict[str, Any], tp: Any, seen: set[int]) -> None:
    seen.add(id(tree))  # an anchored node met twice is written out the second time
    keys = {_key(k): k for k in tree}
    for name, k in keys.items():
        if name not in data:
            _drop_key(tree, k)
    order = _field_order(tp)
    for name, value in data.items():
        if name in keys:
            k = keys[name]
            tree[k] = _apply(tree[k], value, _child(tp, k), seen)
            continue
        like = _sibling_value(tree)
        k = _yaml_key(name, tp, list(tree))
        tree.insert(_place(tree, name, order), k, _styled(value, like, _child(tp, name)))


def _sibling_value(tree: CommentedMap) -> Any:
    """A value of the mapping to write a new one like (a map of like entries: `skills`)."""
    values = list(tree.values())
    return values[-1] if values and isinstance(values[-1], dict | list) else None


def _place(tree: CommentedMap, name: str, order: list[str]) -> int:
    """Where a new key goes: after the keys the model puts before it, else at the end."""
    if name not in order:
        return len(tree)
    before = set(order[: order.index(name)])
    at = 0
    for i, k in enumerate(tree):
        if _key(k) in before:
            at = i + 1
    return at if any(_key(k) not in before for k in list(tree)[at:]) else len(tree)


def _drop_key(tree: CommentedMap, k: Any) -> None:
    """Remove a key and its line(s); comment lines above it stay, above the next key."""
    keys = list(tree)
    pre = _pre(tree.ca.items.get(k), _KEY_PRE)
    del tree[k]
    tree.ca.items.pop(k, None)
    rest = keys[keys.index(k) + 1:]
    if pre and rest:
        _give_pre(tree.ca.items, rest[0], pre, _KEY_PRE, 4)


def _pre(slots: list[Any] | None, at: int) -> list[Any]:
    return list(slots[at] or []) if slots and len(slots) > at else []


def _give_pre(items: dict[Any, Any], where: Any, pre: list[Any], at: int, size: int) -> None:
    slots = items.setdefault(where, [None] * size)
    slots[at] = pre + list(slots[at] or [])


def _apply_seq(seq: CommentedSeq, data: list[Any], tp: Any, seen: set[int]) -> None:
    """Items kept (matched by id, else by equal content) are edited in place; removed
    items take their line(s) away, new ones are written like their neighbours."""
    seen.add(id(seq))
    item_tp = _child(tp, 0)
    plan = _align(list(seq), data)
    comments = dict(seq.ca.items)
    old = list(seq)
    like = next((x for x in reversed(old) if isinstance(x, dict | list)), old[-1] if old else None)
    out: list[Any] = []
    placed: dict[int, list[Any]] = {}
    carried: list[Any] = []  # comment lines above removed items, for the next item
    for i, j in plan:
        if j is None:  # removed
            carried += _pre(comments.get(i), _SEQ_PRE)
            continue
        if i is None:
            value = _styled(data[j], like, item_tp)
            slots: list[Any] = [None, []]
        else:
            value = _apply(old[i], data[j], item_tp, seen)
            slots = list(comments.get(i) or [None, []])
        if carried:
            slots[_SEQ_PRE] = carried + list(slots[_SEQ_PRE] or [])
            carried = []
        placed[len(out)] = slots
        out.append(value)
    seq[:] = out
    seq.ca.items.clear()
    seq.ca.items.update({n: s for n, s in placed.items() if any(s)})


def _align(old: list[Any], new: list[Any]) -> list[tuple[int | None, int | None]]:
    """Pairs (old index, new index); None on one side: removed or added. Items with an
    `id` pair by it; others in order where both lists still have items there."""
    from difflib import SequenceMatcher

    sig_old = [_signature(x) for x in old]
    sig_new = [_signature(x) for x in new]
    plan: list[tuple[int | None, int | None]] = []
    matcher = SequenceMatcher(None, sig_old, sig_new, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            plan += zip(range(a0, a1), range(b0, b1), strict=True)
            continue
        pairs = 0 if _has_ids(old[a0:a1]) or _has_ids(new[b0:b1]) else min(a1 - a0, b1 - b0)
        plan += [(a0 + n, b0 + n) for n in range(pairs)]  # an item edited where it stands
        plan += [(i, None) for i in range(a0 + pairs, a1)]
        plan += [(None, j) for j in range(b0 + pairs, b1)]
    return plan


def _signature(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        return "id:" + str(item["id"])
    return "=" + json.dumps(as_json(item), sort_keys=True, ensure_ascii=False)


def _has_ids(items: list[Any]) -> bool:
    return any(isinstance(x, dict) and isinstance(x.get("id"), str) for x in items)


# -- new values: like their siblings, or clean block style ------------------------------------

def _styled(value: Any, like: Any, tp: Any, depth: int = 2, flow: bool | None = None) -> Any:
    """`value` as ruamel nodes, in the style of `like` (a sibling), else the default;
    `depth` 1 is a top-level part (always block style in a new file)."""
    if isinstance(value, dict):
        node = CommentedMap()
        for name in _ordered(value, like, tp):
            sub = like.get(name) if isinstance(like, dict) else None
            node[_yaml_key(name, tp, [])] = _styled(value[name], sub, _child(tp, name), depth + 1)
        _flow(node, like, value, depth, flow)
        return node
    if isinstance(value, list):
        seq = CommentedSeq()
        inner = next((x for x in like if isinstance(x, dict | list)), None) if isinstance(
            like, list) else None
        items = None if inner is not None else all(  # a new list's items: one style for all
            _short(x) for x in value if isinstance(x, dict | list))
        for item in value:
            seq.append(_styled(item, inner, _child(tp, 0), depth + 1, items))
        _flow(seq, like, value, depth, flow)
        return seq
    return value


def _ordered(value: dict[str, Any], like: Any, tp: Any) -> list[str]:
    """A new mapping's keys: in its sibling's order, then in the model's, then as given."""
    seen = [_key(k) for k in like] if isinstance(like, dict) else []
    order = seen + [k for k in _field_order(tp) if k not in seen]
    return sorted(value, key=lambda k: order.index(k) if k in order else len(order))


def _short(value: Any) -> bool:
    return len(json.dumps(value, ensure_ascii=False)) <= FLOW_WIDTH


def _flow(node: CommentedMap | CommentedSeq, like: Any, value: dict[str, Any] | list[Any],
          depth: int, flow: bool | None) -> None:
    if isinstance(like, CommentedMap | CommentedSeq) and isinstance(like, type(node)):
        if like.fa.flow_style():
            node.fa.set_flow_style()
        else:
            node.fa.set_block_style()
        return
    if flow is None:
        flow = depth > 1 and _short(value)
    if not value or flow:
        node.fa.set_flow_style()
    else:
        node.fa.set_block_style()


def _fresh(data: dict[str, Any], tp: Any) -> CommentedMap:
    """A new file: the model's field order, block style but for short lines of data."""
    node = CommentedMap()
    for name in _ordered(data, None, tp):
        node[name] = _styled(data[name], None, _child(tp, name), 1)
    _space_parts(node)
    return node


def _space_parts(node: CommentedMap) -> None:
    """A blank line between the file's top-level parts, as the examples have."""
    for k in list(node)[1:]:
        _give_pre(node.ca.items, k, [_blank()], _KEY_PRE, 4)


def _blank() -> Any:
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    return CommentToken("\n", CommentMark(0), None)

