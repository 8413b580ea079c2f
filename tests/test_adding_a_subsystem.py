"""docs/architecture.md "Adding a subsystem", kept true (issue 27).

Every registered subsystem has its place in each layer — engine package, engine tests,
adapter module and its tests, console panel, player controls, docs page, demo scenario —
and one line in each layer's registry. Outside those places no product code names it: no
other module imports its package, and none spells one of its action or query kinds.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from functools import cache
from pathlib import Path

import pytest

from komasync.adapters.subsystems import SUBSYSTEMS as TABLE_SUBSYSTEMS
from komasync.engine.registry import SUBSYSTEMS
from komasync.engine.registry_types import Subsystem
from komasync.engine.scenario import Scenario, build_room, load_scenario_file
from komasync.engine.scenario_file import part_model
from komasync.engine.state import RoomState
from komasync.examples import DEMOS

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = ROOT / "server/console/js"
#: The one registry per layer, where every subsystem is named once.
REGISTRIES = frozenset({
    "engine/registry.py", "engine/state.py", "engine/scenario.py",
    "adapters/subsystems/__init__.py", "server/console/js/panels/index.js",
    "server/console/js/player/index.js", "examples/__init__.py",
})
#: The generic table is the board every other subsystem stands on (their pieces and
#: counters are its pieces and counters), so the others name it; it is checked for its
#: places like any subsystem, but not for being named elsewhere.
FOUNDATION = "table"
#: Room-level actions (engine/control.py: override, undo, answers) belong to the core.
CORE = "room"
NAMES = [s.name for s in SUBSYSTEMS if s.name != CORE]


def subsystem(name: str) -> Subsystem:
    return next(s for s in SUBSYSTEMS if s.name == name)


def own_places(name: str) -> tuple[str, ...]:
    """Where a subsystem lives, one folder or module per layer (paths from the root)."""
    return (f"engine/{name}/", f"tests/engine/{name}/", f"adapters/subsystems/{name}.py",
            f"tests/adapters/subsystems/test_adapter_{name}.py",
            f"server/console/js/panels/{name}.js", f"server/console/js/panels/{name}_",
            f"server/console/js/player/{name}.js", f"server/console/js/player/{name}/",
            f"docs/{name}.md")


@pytest.mark.parametrize("name", NAMES)
def test_each_subsystem_has_its_place_in_every_layer(name: str) -> None:
    # engine: the package declaring the registered SUBSYSTEM, a state and a scenario part
    package = ROOT / "engine" / name / "__init__.py"
    assert package.is_file(), f"engine/{name}/__init__.py"
    assert "SUBSYSTEM" in package.read_text(encoding="utf-8")
    assert name in RoomState.model_fields and name in Scenario.model_fields
    if name != "table":  # `scenario check` finds the part's model by PARTS alone
        assert (part_model(frozenset({name})).model_fields[name].annotation
                == Scenario.model_fields[name].annotation)
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    assert f"komasync.engine.{name}" in packages
    assert list((ROOT / "tests/engine" / name).glob("test_*.py")), f"tests/engine/{name}/"
    # adapters: the table-rendering module, listed, with its tests
    assert (ROOT / "adapters/subsystems" / f"{name}.py").is_file()
    assert name in {s.name for s in TABLE_SUBSYSTEMS}
    assert (ROOT / "tests/adapters/subsystems" / f"test_adapter_{name}.py").is_file()
    # console: its panel and the player's controls, each imported once by its index
    assert (CONSOLE / "panels" / f"{name}.js").is_file()
    assert _imports(CONSOLE / "panels/index.js").count(f"./{name}.js") == 1
    player = {f"./{name}.js", f"./{name}/controls.js"}
    assert len([i for i in _imports(CONSOLE / "player/index.js") if i in player]) == 1
    # docs and a demo room that plays it
    assert (ROOT / "docs" / f"{name}.md").is_file(), f"docs/{name}.md"
    (demo,) = [d for d in DEMOS if d.subsystem == name]
    state = build_room(load_scenario_file(ROOT / "examples" / demo.example), "seed")
    assert getattr(state, name) is not None, f"{demo.example} does not play {name}"


def test_every_subsystem_is_registered_in_every_layer() -> None:
    engine = set(NAMES)
    assert {s.name for s in TABLE_SUBSYSTEMS} == engine
    assert {d.subsystem for d in DEMOS} == engine
    assert set(RoomState.model_fields) - {"meta", "rng", "prompts"} == engine


@pytest.mark.parametrize("name", [n for n in NAMES if n != FOUNDATION])
def test_nothing_outside_its_places_names_a_subsystem(name: str) -> None:
    marks = _marks(name)
    allowed = own_places(name)
    found = [f"{path}:{n}: {line.strip()[:90]}"
             for path, n, line in _product_code()
             if not path.startswith(allowed) and path not in REGISTRIES and marks.search(line)]
    assert not found, f"{name} is named outside its places:\n" + "\n".join(found)


def test_the_check_sees_a_subsystem_named_elsewhere() -> None:
    # what the check looks for, on lines a careless change could write
    assert _marks("mass").search('action = {"kind": "mass.deploy", "unit": u}')
    assert _marks("grid").search("from ..grid.model import GridState")
    assert _marks("tower_defense").search("from komasync.engine.tower_defense import td")
    assert not _marks("grid").search('grid = tree.get("table", {}).get("grid")')


def _marks(name: str) -> re.Pattern[str]:
    """What names subsystem `name` in code: one of its action or query kinds as a string,
    or an import of its engine package."""
    s = subsystem(name)
    kinds = sorted({a.model_fields["kind"].default for a in s.actions}
                   | {q.model_fields["kind"].default for q in s.queries})
    spelled = "|".join(re.escape(k) for k in kinds)
    return re.compile(rf"[\"'`]({spelled})[\"'`]|\b(engine\.|from \.+){name}\b")


@cache
def _product_code() -> list[tuple[str, int, str]]:
    """Every code line (comments dropped) of the shipped packages: engine, server,
    adapters, client — not their tests, nor the generated userscript."""
    listed = subprocess.run(["git", "ls-files", "engine", "server", "adapters", "client"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    lines = []
    for path in listed:
        if not re.search(r"\.(py|js|mjs)$", path) or path.startswith("adapters/test/") \
                or path.endswith(".user.js") or "node_modules" in path:
            continue
        for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1):
            code = re.sub(r"(^|\s)(#|//).*$", "", line)
            if code.strip():
                lines.append((path, n, code))
    return lines


def _imports(index: Path) -> list[str]:
    return re.findall(r'^import "([^"]+)";', index.read_text(encoding="utf-8"), re.M)
