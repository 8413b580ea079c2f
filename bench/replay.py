"""Issue 34: a replay page of a 500-action battle, beside the bare engine replay of the same log.

The log is written straight into a SQLite file (the engine applies each action as a room
would and the record is appended as the room appends it). The room is the demo table
with the demo base battle beside it: its pieces moved square by square, its counters
changed, a hidden piece revealed and hidden again, an undo every 100 actions (a
`restore` carrying its whole target state) and a new base-battle round every 20 (so the
page has a chapter, and a picture, every 20 actions). Three things are timed
in alternating blocks (B P G, G P B, …) so drift in the machine's load hits all alike:

- baseline: `server/replay.py rebuild` — the engine replaying the log alone;
- players: `replay_page.build` + `page_files` for the players (the table's projection
  after every action through `Audiences.project`, one SVG per chapter, index.html);
- gm: the same for the GM's version.

Printed per figure: median, min, max, the spread of the per-block medians and the median
over the baseline. Goal: a 500-action battle in seconds. Asserts nothing.

    python bench/replay.py [--blocks 6] [--runs 3] [--actions 500]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic_core import to_jsonable_python

from komasync.engine.core import Engine, change_ops
from komasync.engine.registry import parse_action
from komasync.engine.scenario import Scenario, build_room
from komasync.engine.tx import Actor
from komasync.server.replay import logged_action, rebuild, state_at
from komasync.server.replay_page import build, page_files
from komasync.server.storage import ActionRecord, Storage
from komasync.server.storage.base import encode

ROOT = Path(__file__).resolve().parents[1]
ROOM = "bench"
GM = Actor(role="gm", label="GM")


def actions(n: int) -> list[dict[str, Any]]:
    """The battle: moves, counters, a reveal and its taking back, and an undo every 100."""
    out: list[dict[str, Any]] = []
    pieces = ("knight", "archer", "ghoul", "assassin")
    while len(out) < n:
        i = len(out)
        if i % 20 == 0:
            out.append({"kind": "bases.round"})
        elif i % 100 == 99:
            out.append({"kind": "undo", "to_version": i - 10, "reason": "やり直し / take back"})
        elif i % 10 == 3:
            out.append({"kind": "table.counter.add", "counter": "clock" if i % 20 else "doom",
                        "delta": 1 if i % 40 < 20 else -1})
        elif i % 50 == 7:
            out.append({"kind": "table.piece.reveal", "piece": "assassin", "hidden": i % 100 > 50})
        else:
            out.append({"kind": "table.move", "piece": pieces[i % 4],
                        "to": {"x": (i // 4) % 12, "y": (i % 4) + (i // 48) % 4}})
    return out


def battle() -> Scenario:
    """The demo table and the demo base battle in one room."""
    table = yaml.safe_load((ROOT / "examples/demo_table.yaml").read_text(encoding="utf-8"))
    bases = yaml.safe_load((ROOT / "examples/base_battle.yaml").read_text(encoding="utf-8"))
    table["bases"] = bases["bases"]
    table["players"] = [*bases["players"], *table["players"]]
    return Scenario.model_validate(table)


def write_log(db: Path, n: int) -> None:
    store = Storage(str(db), "normal")
    state = build_room(battle(), "bench")
    store.create_room(ROOM, "bench replay", "bench-gm-secret-bench", state.model_dump(mode="json"))
    engine = Engine(state, 0)
    rows = []
    for data in actions(n):
        if data["kind"] == "undo":  # the server's expansion: restore with the target state
            store.append(ROOM, rows)  # (rebuilt from the log written so far)
            rows = []
            data = {"kind": "restore", "to_version": data["to_version"], "reason": data["reason"],
                    "target": state_at(store, ROOM, data["to_version"])}
            action = logged_action(data)
        else:
            action = parse_action(data)
        outcome = engine.apply(action, GM)
        tx = outcome.tx
        rows.append(encode(ActionRecord(
            version=outcome.version, client_key=None, actor=GM.model_dump(mode="json"),
            action=action.model_dump(mode="json"), ops=change_ops(tx),
            rolls=to_jsonable_python(tx.rolls), log=to_jsonable_python(tx.log),
            warnings=to_jsonable_python(tx.warnings), at=0.0)))
        if len(rows) >= 50:
            store.append(ROOM, rows)
            rows = []
    if rows:
        store.append(ROOM, rows)
    store.close()


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=6, help="alternating blocks")
    ap.add_argument("--runs", type=int, default=3, help="runs of each figure per block")
    ap.add_argument("--actions", type=int, default=500, help="actions in the battle's log")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="komasync-replay-") as tmp:
        db = Path(tmp) / "replay.sqlite3"
        write_log(db, a.actions)
        store = Storage(str(db), "normal")
        figures: dict[str, Callable[[], object]] = {
            "baseline: engine replay (rebuild)": lambda: rebuild(store, ROOM),
            "players: replay page": lambda: page_files(build(store, ROOM, "players")),
            "gm: replay page": lambda: page_files(build(store, ROOM, "gm")),
        }
        for fn in figures.values():  # untimed: imports, caches
            fn()
        runs: dict[str, list[list[float]]] = {name: [] for name in figures}
        for block in range(a.blocks):
            order = list(figures) if block % 2 == 0 else list(reversed(figures))
            for name in order:
                runs[name].append([timed(figures[name]) for _ in range(a.runs)])
        chapters = len(build(store, ROOM, "players").chapters)
        store.close()
    report(runs, a, chapters)


def report(runs: dict[str, list[list[float]]], a: argparse.Namespace, chapters: int) -> None:
    base_name = next(iter(runs))
    base = statistics.median(t for block in runs[base_name] for t in block)
    print(f"replay of a {a.actions}-action battle ({chapters} chapters), {a.blocks} alternating "
          f"blocks × {a.runs} runs, wall seconds ({os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}); goal: seconds")
    print(f"{'figure':36} {'median':>7} {'min':>7} {'max':>7}  {'block medians':>15}  {'× baseline':>10}")
    for name, blocks in runs.items():
        every = [t for block in blocks for t in block]
        medians = [statistics.median(block) for block in blocks]
        med = statistics.median(every)
        over = "" if name == base_name else f"{med / base:.1f}×"
        print(f"{name:36} {med:7.3f} {min(every):7.3f} {max(every):7.3f}  "
              f"{min(medians):.3f}–{max(medians):.3f}  {over:>10}")


if __name__ == "__main__":
    main()
