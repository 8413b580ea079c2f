"""`_serve.py` with the komasync server's stages of each one-action batch timed (for
`latency.py --stages`): where the time between receiving an action and answering it
goes. Timing wraps the server's own methods from outside; the server code is unchanged.

Stages (µs, medians over one-action batches): receive → room (parse, validate, the hop
to the room's task), engine, record (the log row), projection, → commit start (hand-over;
~0 on the loop thread, a thread wake-up on the storage thread), commit (the transaction
and its fsync), → answer (the way back: a thread hop and a loop turn, or none), answer
(acks and fan-out until every socket is written), redraw (the bridges' table, after).
Written as one JSON object to the file named by KOMASYNC_STAGES_OUT when the server exits.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _serve

ORDER = ["recv", "room", "engine0", "engine1", "project0", "project1", "submit", "commit0",
         "commit1", "answer0", "released", "answer1"]
NAMES = {"room": "receive->room", "engine0": "room->engine", "engine1": "engine",
         "project0": "record", "project1": "projection", "submit": "->submit",
         "commit0": "->commit start", "commit1": "commit", "answer0": "->answer",
         "released": "answer (fan-out)", "answer1": "redraw"}


def _wrap(cls: Any, name: str, before: str | None, after: str | None,
          stamps: dict[str, float]) -> None:
    real = getattr(cls, name)
    clock = time.perf_counter

    if _is_async(real):
        @functools.wraps(real)
        async def timed_async(*args: Any, **kw: Any) -> Any:
            if before:
                stamps[before] = clock()
            result = await real(*args, **kw)
            if after:
                stamps[after] = clock()
            return result
        setattr(cls, name, timed_async)
    else:
        @functools.wraps(real)
        def timed(*args: Any, **kw: Any) -> Any:
            if before:
                stamps[before] = clock()
            result = real(*args, **kw)
            if after:
                stamps[after] = clock()
            return result
        setattr(cls, name, timed)


def _is_async(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn)


def instrument(out: str) -> None:
    from komasync.server import connection, room, session, storage

    stamps: dict[str, float] = {}
    rows: list[dict[str, float]] = []
    _wrap(session.Session, "handle", "recv", None, stamps)
    _wrap(room.Room, "_process", "room", None, stamps)
    _wrap(room.Engine, "apply", "engine0", "engine1", stamps)
    _wrap(room.Audiences, "project", "project0", "project1", stamps)
    _wrap(storage.AsyncStorage, "submit", "submit", None, stamps)
    _wrap(storage.AsyncStorage, "_append", "commit0", "commit1", stamps)
    # the fan-out ends with the last connection's batch written (the bridges' table may
    # have been drawn before, while the batch committed on the storage thread)
    _wrap(connection.Connection, "release", None, "released", stamps)
    real_answer = room.Room._answer

    async def answer(self: Any, applied: list[Any], *rest: Any) -> None:
        stamps["answer0"] = time.perf_counter()
        await real_answer(self, applied, *rest)
        stamps["answer1"] = time.perf_counter()
        if len(applied) == 1 and all(k in stamps for k in ORDER):
            rows.append(dict(stamps))
        stamps.clear()

    room.Room._answer = answer  # type: ignore[method-assign]
    real_exit = os._exit

    def write_then_exit(code: int) -> None:
        medians = {NAMES[b]: round(statistics.median(r[b] - r[a] for r in rows) * 1e6)
                   for a, b in itertools.pairwise(ORDER)} if rows else {}
        if rows:
            medians["total"] = round(statistics.median(r["answer1"] - r["recv"]
                                                       for r in rows) * 1e6)
        Path(out).write_bytes(orjson.dumps({"n": len(rows), "us": medians}))
        real_exit(code)

    os._exit = write_then_exit


if __name__ == "__main__":
    if sys.argv[1] == "komasync" and os.environ.get("KOMASYNC_STAGES_OUT"):
        instrument(os.environ["KOMASYNC_STAGES_OUT"])
    _serve.main()
