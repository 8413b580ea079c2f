"""Helpers of the replay tests (issue 34): make a room's replay page with `komasync
replay`, read its data, and check it against the engine's own replay of the log.

Used by test_replay.py (the recorded sessions' rooms) and test_replay_sessions.py (the
other demo rooms' scripted sessions)."""

from __future__ import annotations

import itertools
import json
import re
import zipfile
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from recording import UNTHROTTLED, Session
from test_hidden_leaks import hidden_from, strings_of

from conftest import EXAMPLES, ON_REDIS, open_store, start_server, store_args
from komasync.engine.registry import ROUND_OF
from komasync.engine.state import RoomState
from komasync.engine.views import GM, Audience, project
from komasync.server.cli import main
from komasync.server.replay import LogReader, state_at

TABLE = Audience("table")
AUDIENCE = {"players": TABLE, "gm": GM}


Script = Callable[[Session], Awaitable[None]]


async def play_rooms(folder: Path, rooms: Mapping[str, tuple[str, str, Script]]) -> None:
    """Each scripted demo room (example file, dice seed, script) played on its own server,
    its store left in `folder` as `<room>.sqlite3`."""
    for room, (scenario, seed, script) in rooms.items():
        r = await start_server(folder / f"{room}.sqlite3", EXAMPLES / scenario, UNTHROTTLED,
                               room_id=room, secret=f"{room}-gm-secret", seed=seed)
        s = Session(r)
        try:
            await s.connect_gm()
            await script(s)
        finally:
            await s.close()
            await r.runner.cleanup()


def logs_scope(fixture_name: str, config: pytest.Config) -> str:
    """A played-logs fixture's scope: Redis databases are emptied after each test, so there
    every test plays its own logs."""
    return "function" if ON_REDIS else "module"


def replay(logs: Path, room: str, audience: str, tmp: Path) -> Path:
    out = tmp / f"{room}-{audience}"
    assert main(["replay", room, *store_args(logs / f"{room}.sqlite3"), "--audience", audience,
                 "--out", str(out)]) == 0
    return out


def page_data(folder: Path) -> dict[str, Any]:
    html = (folder / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html,
                      re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def projected(store: LogReader, room: str, version: int, audience: Audience) -> dict[str, Any]:
    tree: dict[str, Any] = project(RoomState.model_validate(state_at(store, room, version)),
                                   audience)
    tree.pop("rng", None)
    return json.loads(json.dumps(tree))


def round_key(state: RoomState) -> list[tuple[str, int]]:
    return [(n, m.number) for n, fn in ROUND_OF.items()
            if (part := getattr(state, n, None)) is not None and (m := fn(part)) is not None]


def check_rounds(logs: Path, room: str, audience: str, folder: Path) -> list[dict[str, Any]]:
    """Every chapter of the page in `folder` is the engine's own replay at its last version,
    projected for `audience`, with its picture; chapters end exactly where the round (by
    the subsystems' own hooks) changes. The chapters, for more checks."""
    data = page_data(folder)
    store = open_store(logs / f"{room}.sqlite3")
    last = store.actions(room, 0)[-1].version
    rounds: list[dict[str, Any]] = data["rounds"]
    assert data["actions"] == last and rounds[0]["last"] == 0 and rounds[-1]["last"] == last
    for i, r in enumerate(rounds):
        assert r["state"] == projected(store, room, r["last"], AUDIENCE[audience]), (room, i)
        assert (folder / r["picture"]).read_text().startswith("<svg")
    keys = [round_key(RoomState.model_validate(state_at(store, room, v)))
            for v in range(last + 1)]
    for before, after in itertools.pairwise(rounds[1:]):
        assert keys[before["last"]] != keys[before["last"] + 1] == keys[after["last"]]
    assert zipfile.ZipFile(folder.with_name(folder.name + ".zip")).namelist()[0].endswith(
        "/index.html")
    return rounds


def canaries(store: LogReader, room: str, inside_told: bool = False) -> set[str]:
    """What the GM's projection held and the table's never did, at any version (a hidden
    thing revealed later is the table's from then on): the leak test's `hidden_from`.
    `inside_told`: also not a value the table was shown inside a longer text — a public
    log line or a shown string (a player's prompt choice `LPで1点`, the table told
    `ボリスがLPで1点受けた` once it was answered)."""
    records = store.actions(room, 0)
    hidden: set[str] = set()
    shown: set[str] = set()
    for v in range(records[-1].version + 1):
        state = RoomState.model_validate(state_at(store, room, v))
        hidden |= hidden_from(state, TABLE)
        shown |= strings_of(project(state, TABLE))
    # short ASCII values (`1`, `gm`, `done`: a field's words) are not telling on their own
    found = {s for s in hidden - shown if (not s.isascii() and len(s) >= 2) or len(s) >= 5}
    if not inside_told:
        return found
    told = "\n".join([*shown, *(line[lang] for r in records for line in r.log
                                if line.get("chat") for lang in ("ja", "en"))])
    return {s for s in found if not holds(told, s)}


def holds(text: str, value: str) -> bool:
    """`value` in `text`; an ASCII one as a whole token (`condition` is not `gp_conditions`)."""
    if not value.isascii():
        return value in text
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(value)}(?![A-Za-z0-9_])", text) is not None


def files_text(folder: Path) -> str:
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())]
    archive = zipfile.ZipFile(folder.with_name(folder.name + ".zip"))
    texts += [archive.read(n).decode("utf-8") for n in archive.namelist()]
    return "\n".join(texts)
