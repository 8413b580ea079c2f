"""Issue 28: how fast the command line starts, beside `python -c pass` in the same run.

Three commands, each a fresh process: `python -c pass` (the floor: the interpreter and its
site-packages), `komasync --help` and `komasync scenario check examples/<demo>.yaml`. They
run in alternating blocks (A B C, C B A, …) so drift in the machine's load hits all alike;
printed per command: median, min and max over every run, the spread of the per-block
medians, and the median over the floor. Target: ≤ 0.25 s for both komasync commands.

Bytecode is cached in a temporary PYTHONPYCACHEPREFIX (as an installed package has its
.pyc files) even if PYTHONDONTWRITEBYTECODE is set, and one untimed run of each command
comes first. Asserts nothing.

    python bench/startup.py [--blocks 6] [--runs 5] [--example tower_defense.yaml]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.25


def komasync() -> list[str]:
    """The installed `komasync` script beside this interpreter, else the same entry point."""
    script = Path(sys.executable).parent / "komasync"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from komasync.server.cli import main; raise SystemExit(main())"]


def wall(cmd: list[str], env: dict[str, str]) -> float:
    """Seconds from spawn to exit. The wait blocks in waitpid: `subprocess.run(timeout=…)`
    polls with sleeps of up to 50 ms, which rounded every figure up by as much."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        code = proc.wait()
    finally:
        watchdog.cancel()
    elapsed = time.perf_counter() - start
    if code != 0:
        raise subprocess.CalledProcessError(code, cmd)
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=6, help="alternating blocks")
    ap.add_argument("--runs", type=int, default=5, help="runs of each command per block")
    ap.add_argument("--example", default="tower_defense.yaml", help="scenario in examples/ to check")
    a = ap.parse_args()

    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "komasync --help": [*komasync(), "--help"],
        f"komasync scenario check examples/{a.example}": [*komasync(), "scenario", "check",
                                                          str(ROOT / "examples" / a.example)],
    }
    with tempfile.TemporaryDirectory(prefix="komasync-pyc-") as pyc:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pyc
        for cmd in commands.values():  # untimed: writes the bytecode cache
            wall(cmd, env)
        runs: dict[str, list[list[float]]] = {name: [] for name in commands}
        for block in range(a.blocks):
            order = list(commands) if block % 2 == 0 else list(reversed(commands))
            for name in order:
                runs[name].append([wall(commands[name], env) for _ in range(a.runs)])
    report(runs, a)


def report(runs: dict[str, list[list[float]]], a: argparse.Namespace) -> None:
    floor = statistics.median(t for block in runs["python -c pass"] for t in block)
    print(f"startup, {a.blocks} alternating blocks × {a.runs} runs, wall seconds "
          f"(target ≤ {TARGET:.2f} s for the komasync commands; {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f})")
    print(f"{'command':58} {'median':>7} {'min':>7} {'max':>7}  {'block medians':>15}  {'over pass':>9}")
    for name, blocks in runs.items():
        every = [t for block in blocks for t in block]
        medians = [statistics.median(block) for block in blocks]
        med = statistics.median(every)
        over = "" if name.startswith("python") else f"{med - floor:+.3f}"
        held = "" if name.startswith("python") else ("  held" if med <= TARGET else "  NOT held")
        print(f"{name:58} {med:7.3f} {min(every):7.3f} {max(every):7.3f}  "
              f"{min(medians):.3f}–{max(medians):.3f}  {over:>9}{held}")


if __name__ == "__main__":
    main()
