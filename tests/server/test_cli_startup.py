"""Issue 28: the command line imports a subcommand's modules only when it runs.

What `komasync --help` and `komasync scenario check` import is read from `sys.modules` in a
fresh process (never a wall-clock time; bench/startup.py prints those).
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import EXAMPLES

SUBSYSTEMS = ("table", "tower_defense", "bases", "grid", "combatants", "mass", "engagement")
PROBE = """
import json, sys
from komasync.server.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def imported(*args: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                         check=True, timeout=60)
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["code"] in (0, None), out.stderr
    return set(result["modules"])


def heavy(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The modules that are one of `packages` or inside one."""
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_help_imports_no_server_no_subsystem_no_pydantic() -> None:
    for args in (["--help"], ["serve", "--help"], ["scenario", "check", "--help"]):
        modules = imported(*args)
        assert not heavy(modules, ("aiohttp", "pydantic", "redis", "yaml", "komasync.server.app",
                                   "komasync.server.storage", "komasync.engine.registry",
                                   *(f"komasync.engine.{s}" for s in SUBSYSTEMS))), args
        assert "komasync.server.cli" in modules


def test_scenario_check_imports_the_engine_but_no_server() -> None:
    modules = imported("scenario", "check", str(EXAMPLES / "tower_defense.yaml"))
    assert "komasync.engine.scenario_file" in modules  # it did check
    assert not heavy(modules, ("aiohttp", "redis", "websockets", "komasync.server.app",
                               "komasync.server.room", "komasync.server.storage",
                               "komasync.server.settings", "komasync.engine.registry"))


def test_scenario_check_imports_only_the_subsystems_the_file_has() -> None:
    modules = imported("scenario", "check", str(EXAMPLES / "tower_defense.yaml"))
    assert "komasync.engine.tower_defense.model" in modules
    others = [s for s in SUBSYSTEMS if s not in ("table", "tower_defense")]
    assert not heavy(modules, tuple(f"komasync.engine.{s}" for s in others)), others
    assert "komasync.engine.state" not in modules  # no room state: every part is built alone


FREEZE_PROBE = """
import gc, sys
from komasync.server.cli import script
sys.argv[1:] = ["scenario", "check", sys.argv[1]]
code = script()
print(code, gc.get_freeze_count())
"""


def test_the_console_script_freezes_the_heap_before_exit() -> None:
    """The installed `komasync` runs `script`: main, then the heap frozen, so the
    interpreter's final collection does not walk what the check built."""
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "komasync"]
    assert ep.value == "komasync.server.cli:script"
    out = subprocess.run([sys.executable, "-c", FREEZE_PROBE, str(EXAMPLES / "tower_defense.yaml")],
                         capture_output=True, text=True, check=True, timeout=60)
    code, frozen = out.stdout.split()[-2:]
    assert code == "0" and int(frozen) > 10_000, out.stdout
