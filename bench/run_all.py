"""Run every komasync benchmark (figures 1–5) and print one summary table.

    python bench/run_all.py [--quick]

Each figure is measured side by side with a raw aiohttp WebSocket relay in the same run;
see bench/README.md. `--quick` uses fewer samples (a smoke run, figures are noisier).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cpu
import grid
import latency
import memory
import throughput
from _lib import Row, machine_note, table
from _serve import LIMITS_NOTE


def run(quick: bool) -> list[Row]:
    scale = 5 if quick else 1
    rows: list[Row] = []
    rows += asyncio.run(latency.run(samples=500 // scale))
    print()
    rows += asyncio.run(throughput.run(actions=8000 // scale))
    print()
    rows += asyncio.run(cpu.run(actions=3000 // scale))
    print()
    rows += memory.run(rooms=200 // scale)
    print()
    rows += grid.run(samples=2000 // scale)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="fewer samples: a smoke run")
    a = p.parse_args()
    t0 = time.perf_counter()
    rows = run(a.quick)
    print("\n== Summary (komasync vs raw relay, same run) ==")
    print(machine_note())
    print(LIMITS_NOTE)
    print(table(rows))
    print(f"total bench time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
