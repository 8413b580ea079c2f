"""Figure 4: memory per idle room (RSS and tracemalloc), vs the bare relay process.

A SQLite file gets 2×N+1 rooms from a small scenario (examples/demo_table.yaml; also
examples/tower_defense.yaml). A fresh child process opens it with `Komasync`, loads one
room to warm up, then loads N rooms with `Komasync.room(id)` and reads the RSS delta
(/proc/self/status), then starts tracemalloc and loads N more rooms for the traced
delta. Idle = loaded (engine state, room task), nobody connected.
Baseline: the RSS of the bare relay process, next to the RSS of a komasync server process
with no room loaded (both `bench/_serve.py`, idle, listening).

    python bench/memory.py [--rooms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import aiohttp
import orjson

from komasync.engine.scenario import build_room, load_scenario_file
from komasync.server.storage import Storage

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _lib import Row, ServerProc, table, tmpdir
from _serve import bench_limits, rss_bytes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCENARIOS = ("demo_table.yaml", "tower_defense.yaml")
MIB = 1024 * 1024
TOP = 5


def prepare(db: Path, scenario_file: Path, rooms: int) -> int:
    """Create 2×rooms+1 rooms; returns the size of one room's state as JSON."""
    store = Storage(db, "normal")
    sc = load_scenario_file(scenario_file)
    size = 0
    for i in range(2 * rooms + 1):
        state = build_room(sc, seed=f"s{i}").model_dump(mode="json")
        size = len(orjson.dumps(state))
        store.create_room(f"r{i}", sc.room.name, "bench-secret", state)
    store.close()
    return size


def _short(filename: str) -> str:
    parts = Path(filename).parts
    return "/".join(parts[-2:])


async def child(db: str, rooms: int) -> dict[str, Any]:
    """Runs in a fresh process: load rooms, measure RSS and traced deltas per room."""
    from komasync.server.app import Komasync

    server = Komasync(db, bench_limits(), "normal")
    await server.room("r0")
    gc.collect()
    rss0 = rss_bytes()
    for i in range(1, rooms + 1):
        await server.room(f"r{i}")
    gc.collect()
    rss1 = rss_bytes()
    tracemalloc.start()
    gc.collect()
    traced0 = tracemalloc.get_traced_memory()[0]
    for i in range(rooms + 1, 2 * rooms + 1):
        await server.room(f"r{i}")
    gc.collect()
    traced1 = tracemalloc.get_traced_memory()[0]
    top = tracemalloc.take_snapshot().statistics("filename")[:TOP]
    tracemalloc.stop()
    assert len(server.rooms) == 2 * rooms + 1
    await server.close()
    return {"rss_per_room": (rss1 - rss0) / rooms, "traced_per_room": (traced1 - traced0) / rooms,
            "rss_loaded": rss1,
            "top": [(_short(str(t.traceback[0].filename)), t.size / rooms) for t in top]}


def measure_rooms(scenario_file: Path, rooms: int) -> tuple[dict[str, Any], int]:
    with tmpdir() as d:
        db = Path(d) / "mem.sqlite3"
        state_size = prepare(db, scenario_file, rooms)
        out = subprocess.run([sys.executable, __file__, "--child", str(db), "--rooms", str(rooms)],
                             check=True, capture_output=True, text=True, timeout=120).stdout
    return orjson.loads(out.strip().splitlines()[-1]), state_size


async def process_rss() -> tuple[float, float]:
    """RSS of an idle komasync server (no room) and of the idle relay, both listening."""
    async with aiohttp.ClientSession() as session:
        with tmpdir() as d:
            with ServerProc("komasync", "--db", str(Path(d) / "empty.sqlite3")) as srv:
                kom = (await srv.stats(session))["rss"]
        with ServerProc("relay") as srv:
            relay = (await srv.stats(session))["rss"]
    return kom, relay


def run(rooms: int = 200) -> list[Row]:
    print("== Figure 4: memory per idle room ==")
    kom, relay = asyncio.run(process_rss())
    print(f"  idle process RSS: komasync (0 rooms) {kom / MIB:.1f} MiB   "
          f"relay {relay / MIB:.1f} MiB")
    rows = [Row("4 memory", "idle server process, 0 rooms", kom / MIB, relay / MIB, "MiB")]
    for name in SCENARIOS:
        res, state_size = measure_rooms(EXAMPLES / name, rooms)
        print(f"  {name:20} x{rooms}: RSS {res['rss_per_room'] / 1024:6.1f} KiB/room   "
              f"tracemalloc {res['traced_per_room'] / 1024:6.1f} KiB/room   "
              f"(state JSON {state_size / 1024:.1f} KiB; process RSS with "
              f"{rooms + 1} rooms {res['rss_loaded'] / MIB:.1f} MiB)")
        print("    largest traced allocators per room: " + ", ".join(
            f"{f} {size / 1024:.1f} KiB" for f, size in res["top"]))
        rows.append(Row("4 memory", f"RSS per idle room ({name})",
                        res["rss_per_room"] / 1024, None, "KiB"))
        rows.append(Row("4 memory", f"tracemalloc per idle room ({name})",
                        res["traced_per_room"] / 1024, None, "KiB"))
        rows.append(Row("4 memory", f"process RSS, {rooms + 1} idle rooms ({name})",
                        res["rss_loaded"] / MIB, relay / MIB, "MiB"))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rooms", type=int, default=200)
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        print(orjson.dumps(asyncio.run(child(a.child, a.rooms))).decode())
        return
    rows = run(a.rooms)
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
