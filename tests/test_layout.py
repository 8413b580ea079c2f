"""The package layout holds: no import circle spans more than one folder.

The graph is built from the source with `ast` (not by importing), so it sees every
import: module level, inside functions, and under `TYPE_CHECKING`. A strongly connected
component of that graph is an import circle; one whose modules live in more than one
folder means two folders depend on each other. Run `python tests/test_layout.py` for
the whole report.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Installed package → source folder (pyproject's package-dir).
PACKAGES = {"komasync.engine": "engine", "komasync.server": "server", "komasync.client": "client",
            "komasync.adapters": "adapters"}

Graph = dict[str, set[str]]


@cache
def modules() -> dict[str, Path]:
    """Every Python module of the installed packages, by dotted name."""
    found: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _targets(node: ast.AST, name: str, is_package: bool) -> Iterator[str]:
    """The dotted names an import statement in module `name` may refer to."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            here = name.split(".") if is_package else name.split(".")[:-1]
            here = here[: len(here) - (node.level - 1)]
            base = ".".join([*here, node.module] if node.module else here)
        else:
            base = node.module or ""
        yield base
        yield from (f"{base}.{a.name}" for a in node.names)


@cache
def graph() -> Graph:
    """module → the project modules it imports (anywhere in its source)."""
    mods = modules()
    edges: Graph = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        deps: set[str] = set()
        for node in ast.walk(tree):
            for target in _targets(node, name, is_package):
                if target in mods and target != name:
                    deps.add(target)
        edges[name] = deps
    return edges


def circles(edges: Graph) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def folder_of(module: str) -> str:
    """The folder a module's file sits in (a package's `__init__` is in its own folder)."""
    path = modules()[module]
    return str(path.parent.relative_to(ROOT))


def cross_folder(edges: Graph) -> list[list[str]]:
    return [c for c in circles(edges) if len({folder_of(m) for m in c}) > 1]


def test_the_graph_sees_the_packages() -> None:
    edges = graph()
    assert "komasync.engine.core" in edges and "komasync.server.room" in edges
    assert "komasync.engine.tx" in edges["komasync.engine.core"]


def test_no_import_circle_spans_more_than_one_folder() -> None:
    assert cross_folder(graph()) == []


#: The engine modules that may name subsystems: the registry lists them, RoomState and
#: Scenario have one field each, scenario_file.PARTS one entry each.
COMPOSERS = frozenset({"registry", "state", "scenario", "scenario_file"})
#: `table` is also an audience's name (views.Audience("table")), so only its models count.
AUDIENCE_WORDS = frozenset({"table"})


def subsystems() -> dict[str, set[str]]:
    """Each engine subsystem package → the words that name it (its name, its exports)."""
    found: dict[str, set[str]] = {}
    for init in sorted((ROOT / "engine").glob("*/__init__.py")):
        name = init.parent.name
        words = {name} - AUDIENCE_WORDS
        for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                words |= set(ast.literal_eval(node.value)) - {"SUBSYSTEM"}
        found[name] = words
    return found


def test_the_engine_core_names_no_subsystem() -> None:
    """Issue 9: outside engine/<subsystem>/, only the registry, state.py and scenario.py
    import or mention a subsystem or its models."""
    subs = subsystems()
    assert {"table", "tower_defense", "bases"} <= subs.keys()
    for path in sorted((ROOT / "engine").glob("*.py")):
        module = f"komasync.engine.{path.stem}"
        if path.stem in COMPOSERS or path.stem == "__init__":
            continue
        imported = {d.split(".")[2] for d in graph()[module] if d.count(".") >= 2}
        assert not imported & subs.keys(), f"{path.name} imports {imported & subs.keys()}"
        text = path.read_text(encoding="utf-8")
        for sub, words in subs.items():
            named = sorted(w for w in words if re.search(rf"\b{re.escape(w)}\b", text))
            assert not named, f"{path.name} names {sub}: {named}"


def test_pyproject_ships_every_package() -> None:
    """A non-editable install carries every package folder (pyproject lists them)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {name for name, path in modules().items() if path.name == "__init__.py"}
    assert folders <= listed, f"missing from pyproject: {sorted(folders - listed)}"


if __name__ == "__main__":
    all_circles = circles(graph())
    for component in all_circles:
        folders = sorted({folder_of(m) for m in component})
        print(f"{len(component)} modules in {folders}:")
        for member in component:
            print(f"  {member}")
    print(f"{len(all_circles)} circles, {len(cross_folder(graph()))} across folders")
    sys.exit(1 if cross_folder(graph()) else 0)


#: The adapters' neutral machinery: issue 9 asks render/events/chat to name no subsystem
#: but the generic table; board, replies, objects and common keep to the same rule.
NEUTRAL_ADAPTERS = ("render", "events", "chat", "board", "replies", "objects", "common")


def adapter_words() -> dict[str, set[str]]:
    """Each adapter subsystem but the generic table → the words that name it: its name,
    its exports, and every object kind it renders for the example scenarios."""
    from conftest import EXAMPLES
    from komasync.adapters import subsystems
    from komasync.engine.scenario import build_room, load_scenario_file
    from komasync.engine.table import TableState
    from komasync.engine.views import Audience, View

    trees = [View(Audience("table"), build_room(load_scenario_file(path), "seed")).tree
             for path in sorted(EXAMPLES.glob("*.yaml"))]
    found: dict[str, set[str]] = {}
    for sub in subsystems.SUBSYSTEMS:
        module = getattr(subsystems, sub.name)
        words = {sub.name, *module.__all__, *sub.stack, *sub.prefixes, *sub.owners, *sub.moves}
        for tree in trees:
            objs: dict[str, dict[str, object]] = {}
            sub.render(tree, objs)
            words |= {str(o["kind"]) for o in objs.values()}
        found[sub.name] = words - {"SUBSYSTEM"}
    # The generic table's own vocabulary (its object kinds, its state's parts: `grid`,
    # `pieces`…) is everyone's: a subsystem drawing a generic marker, or named like the
    # table's grid, does not make those words its own.
    generic = found.pop("table") | set(TableState.model_fields)
    return {name: words - generic for name, words in found.items()}


def test_the_neutral_adapters_name_no_subsystem() -> None:
    """Issue 9: each subsystem's table knowledge is in adapters/subsystems/<name>.py only."""
    subs = adapter_words()
    assert {"fort", "group", "pc", "base"} <= subs["tower_defense"] | subs["bases"]
    for name in NEUTRAL_ADAPTERS:
        text = (ROOT / "adapters" / f"{name}.py").read_text(encoding="utf-8")
        text = text.replace("from .base import", "")  # base.py: the adapter interface
        for sub, words in subs.items():
            named = sorted(w for w in words
                           if re.search(rf"(?<![\w.]){re.escape(w)}(?!\w)", text, re.IGNORECASE))
            assert not named, f"adapters/{name}.py names {sub}: {named}"
