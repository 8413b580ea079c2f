"""The platform adapters know drawings, not subsystems (issue 27, "the subsystem seam").

`adapters/ccfolia/*.py`, `adapters/foundry/*.py`, the Ccfolia exports and the drawing
vocabulary (adapters/drawing.py) must not name any subsystem, object
kind or stable-id prefix the registry and the rendered examples show, nor any of the
words the subsystems draw (bar and param labels, captions, board labels); and a new
kind drawn with the vocabulary of adapters/drawing.py appears on both platforms
without a line of either changing.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path
from typing import Any

import pytest
from adapter_support import Room, td_room

import komasync.adapters as adapters_pkg
from komasync.adapters import render as render_mod
from komasync.adapters.board import board
from komasync.adapters.ccfolia.adapter import CcfoliaAdapter
from komasync.adapters.drawing import DICE, LINE, TOKEN, Drawing, Surface
from komasync.adapters.foundry.adapter import FoundryAdapter
from komasync.adapters.render import drawings, render
from komasync.adapters.subsystems import SUBSYSTEMS

ADAPTERS = Path(adapters_pkg.__file__).resolve().parent
#: The platforms, the Ccfolia exports (they draw for Ccfolia too) and the vocabulary itself.
PLATFORM_FILES = sorted([*(ADAPTERS / "ccfolia").glob("*.py"), *(ADAPTERS / "foundry").glob("*.py"),
                         ADAPTERS / "exports.py", ADAPTERS / "drawing.py"])
EXAMPLES = ("tower_defense.yaml", "demo_table.yaml", "base_battle.yaml", "mass_combat.yaml",
            "engagement.yaml", "seamless_combat.yaml")

#: Words of the generic table that are every VTT's own words too, allowed in platform
#: prose and names (never as a string literal naming a kind, checked below):
GENERIC = {
    "table": "the table projection, and the VTT's table itself",
    "piece": "the VTT's word for what stands on a square",
    "marker": "Ccfolia's marker panel: a platform object type",
    "grid": "the platform's square grid (Foundry's scene.grid, the table's field size)",
}
#: String literals that are a platform's own, though a kind has the same name.
PLATFORM_LITERALS = {"marker": "Ccfolia's marker panel (`PlatformObject('marker', …)`)"}
#: Platform identifiers that happen to contain a subsystem word.
PLATFORM_WORDS = {"actorLink": "a Foundry Token field"}


@functools.cache
def _rooms() -> tuple[dict[str, Any], ...]:
    """Every example as it starts, and the tower defense with its first enemies."""
    return (*(Room.build(name).tree for name in EXAMPLES), td_room().tree)


@functools.cache
def _kinds_and_prefixes() -> frozenset[str]:
    """Every subsystem name (and its parts), every kind the registry or a rendered example
    shows, every stable-id prefix."""
    words: set[str] = set()
    for s in SUBSYSTEMS:
        words |= {s.name, *s.name.split("_")}
        words |= set(s.stack) | set(s.prefixes) | set(s.prefixes.values()) | set(s.owners)
        words |= set(s.moves) | set(s.draw) | set(s.board_kinds)
    for tree in _rooms():
        for oid, o in render(tree).items():
            words |= {o["kind"], oid.split("-")[1]}
    return frozenset(words)


@functools.cache
def _drawn_words() -> frozenset[str]:
    """Labels and captions the subsystems draw, and the board's labels."""
    words: set[str] = set()
    for tree in _rooms():
        objs = render(tree)
        for o in objs.values():
            if o.get("cell") is None:
                continue
            for d in drawings(o, Surface(CcfoliaAdapter(tree).settings, dice=True)):
                words |= {b["label"] for b in d.get("bars", [])}  # type: ignore[union-attr]
                words |= {p["label"] for p in d.get("params", [])}  # type: ignore[union-attr]
                words |= {d["caption"]} if d.get("caption") else set()  # type: ignore[typeddict-item]
        b = board(objs)
        words |= {x["label"] for x in b.params} | {x["label"] for x in b.bars}
    return frozenset(w for w in words if w and not re.fullmatch(r"[\w ]*", w, re.ASCII))  # CJK


def _literals(text: str) -> list[str]:
    """The values of every string literal in a module (docstrings included)."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and not tok.string.lstrip("rbuRBU").startswith("f"):
            value = ast.literal_eval(tok.string)
            if isinstance(value, str):
                out.append(value)
    return out


@pytest.mark.parametrize("path", PLATFORM_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_platform_adapters_name_no_subsystem(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    prose = text
    for word in PLATFORM_WORDS:
        prose = prose.replace(word, "")
    kinds = _kinds_and_prefixes()
    found = []
    for word in sorted(kinds - set(GENERIC)):
        # long words anywhere (`forts_as` names a fort), short ones as a word of their own
        pattern = re.escape(word) if len(word) >= 4 else rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])"
        found += [f"{word!r} at line {text[:m.start()].count(chr(10)) + 1}"
                  for m in re.finditer(pattern, prose, re.IGNORECASE)]
    found += [f"string literal {v!r}" for v in _literals(text)
              if v in kinds and v not in PLATFORM_LITERALS]
    found += [f"drawn word {w!r}" for w in sorted(_drawn_words()) if w in text]
    assert not found, f"{path.name} names subsystem things: {found}"


def test_the_checks_see_what_they_look_for() -> None:
    # the lists above are not empty by accident: the registry's kinds and drawn words
    kinds, drawn = _kinds_and_prefixes(), _drawn_words()
    assert {"tower_defense", "fort", "group", "pc", "link", "mass_unit", "td", "dir"} <= kinds
    assert {"耐久力", "個体数", "砦", "戦力"} <= drawn


# -- a new kind, drawn with the vocabulary alone -------------------------------------------


def _beacon(o: Any, surface: Surface) -> list[Drawing]:
    """A made-up subsystem's thing: dice where they can be shown, a fixed token, and for
    a second object a line."""
    if o["ref"] == "b2":
        return [{"draw": LINE, "text": "b1⇔b2", "cell": o["cell"], "from": {"x": 0, "y": 0},
                 "to": {"x": 2, "y": 0}, "color": "#123456"}]
    out: list[Drawing] = []
    if surface.dice:
        out.append({"draw": DICE, "cell": o["cell"], "value": 7, "max": 8, "faces": 4})
    out.append({"draw": TOKEN, "name": "灯台", "cell": o["cell"], "fixed": True, "color": "#abcdef",
                "bars": [{"label": "光", "value": 7, "max": 8}], "caption": "点灯"})
    return out


def test_a_new_kind_is_drawn_on_both_platforms_without_touching_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(render_mod.DRAW, "beacon", _beacon)
    tree = Room.build("demo_table.yaml").tree
    objs = {"ks-beacon-b1": {"kind": "beacon", "ref": "b1", "cell": {"x": 3, "y": 4}, "slot": 0},
            "ks-beacon-b2": {"kind": "beacon", "ref": "b2", "cell": {"x": 1, "y": 0}, "slot": 0}}
    ccfolia, foundry = CcfoliaAdapter(tree), FoundryAdapter(tree)
    cc = ccfolia._objects(objs, tree)
    # Ccfolia: two d4 (4 and 3) left of the square, the token as a character, the line's text
    dice = [(k, o.data["value"], o.ref["kind"]) for k, o in cc.items() if o.type == "dice"]
    assert dice == [("ks-beacon-b1-die1", 4, "beacon_die"), ("ks-beacon-b1-die2", 3, "beacon_die")]
    character = cc["ks-beacon-b1"]
    assert character.type == "character" and character.data["status"] == [
        {"label": "光", "value": 7, "max": 8}] and character.data["color"] == "#abcdef"
    assert cc["ks-beacon-b2"].type == "marker" and cc["ks-beacon-b2"].data["text"] == "b1⇔b2"
    # Foundry: the fixed token as a panel with its bar and caption, the line as a polygon
    fd = foundry._objects(objs, tree)
    panel = fd["ks-beacon-b1"]
    assert panel.type == "Drawing" and panel.data["text"] == "灯台\n光 7/8\n点灯"
    assert panel.data["fillColor"] == "#abcdef"
    line = fd["ks-beacon-b2"].data
    assert line["shape"]["type"] == "p" and line["strokeColor"] == "#123456"
    assert not any(k.endswith("-die1") for k in fd)  # Foundry shows no dice symbols
