"""Issue 34: `komasync replay ROOM` — the battle's story as a static page, from the log.

Each demo room's scripted session (recording.py, the recorded sessions) is played over
real sockets into a SQLite log; the command then replays that log. Every round's board
in the page's data must be the engine's own replay (`state_at` at that round's last
version) projected for the audience; the players' version holds no value the table was
never shown (the leak test's way of finding them, plus its canaries on its own secret
rooms); the GM's version holds them, marked.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from recording import ROOMS
from replay_support import (
    canaries,
    check_rounds,
    files_text,
    holds,
    logs_scope,
    page_data,
    play_rooms,
    replay,
)
from test_cli_errors import create, one_line, run
from test_cli_startup import heavy, imported
from test_hidden_leaks import SECRET_NUMBERS, SECRET_WORDS, strings_of

from conftest import EXAMPLES, ROOT, gm, open_store, start_server, store_args

HIDDEN_ROOMS = {"hidden_bases": "hidden_bases.yaml", "hidden_td": "hidden_td.yaml"}


async def _play(folder: Path) -> None:
    await play_rooms(folder, ROOMS)
    for room, scenario in HIDDEN_ROOMS.items():  # the leak test's rooms of secrets
        r = await start_server(folder / f"{room}.sqlite3", ROOT / "tests/data" / scenario,
                               room_id=room, seed="replay")
        g = await gm(r)
        try:
            for action in HIDDEN_SCRIPTS[room]:
                if action["kind"] == "answer":  # the GM's SAN prompt: its id from the room
                    room_state = (await r.server.room(room)).engine.state  # type: ignore[union-attr]
                    action = {**action, "prompt": next(iter(room_state.prompts))}
                reply = await g.reply_to(await g.act(action))
                assert reply["type"] == "ack", reply
        finally:
            await g.close()
            await r.runner.cleanup()


HIDDEN_SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "hidden_bases": [{"kind": "bases.round"}, {"kind": "bases.round"}, {"kind": "bases.round"}],
    "hidden_td": [{"kind": "td.pc.place", "pc": "pc1", "fort": "a"},
                  {"kind": "td.pc.place", "pc": "pc2", "fort": "d"},
                  {"kind": "td.next_phase", "expect": "setup"},
                  {"kind": "answer", "choice": "done"},
                  {"kind": "td.next_phase", "expect": "reinforcement"},
                  {"kind": "td.next_phase", "expect": "advance"}],
}


@pytest.fixture(scope=logs_scope)  # type: ignore[arg-type]
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The rooms' logs, played once for the module (once per test on Redis)."""
    folder = tmp_path_factory.mktemp("replay")
    asyncio.run(_play(folder))
    return folder


@pytest.mark.parametrize("audience", ["players", "gm"])
@pytest.mark.parametrize("room", list(ROOMS))
def test_every_round_is_the_engines_own_replay(logs: Path, tmp_path: Path, room: str,
                                               audience: str, capsys: pytest.CaptureFixture[str]
                                               ) -> None:
    folder = replay(logs, room, audience, tmp_path)
    said = capsys.readouterr().out
    assert re.search(r"\d+件の操作・\d+章を[\d.]+秒で", said) and "actions in" in said, said
    rounds = check_rounds(logs, room, audience, folder)
    if room != "table":  # the generic table counts no rounds: its story is one chapter
        assert len(rounds) >= 3


@pytest.mark.parametrize("room", [*ROOMS, *HIDDEN_ROOMS])
def test_the_players_version_holds_no_hidden_value(logs: Path, tmp_path: Path, room: str
                                                   ) -> None:
    store = open_store(logs / f"{room}.sqlite3")
    secret = canaries(store, room)
    if room in HIDDEN_ROOMS:
        secret |= {w for w in SECRET_WORDS if len(w) >= 5 or not w.isascii()}
    assert secret, room  # every room here has something hidden from the table
    players = files_text(replay(logs, room, "players", tmp_path))
    leaked = sorted(s for s in secret if holds(players, s))
    leaked += [str(n) for n in SECRET_NUMBERS if re.search(rf"(?<![\d.]){n}(?![\d.])", players)]
    assert not leaked, f"{room}: hidden values in the players' replay: {leaked}"


@pytest.mark.parametrize("room", ["bases", "table", "hidden_bases"])
def test_the_gm_version_holds_the_hidden_things_marked(logs: Path, tmp_path: Path,
                                                       room: str) -> None:
    store = open_store(logs / f"{room}.sqlite3")
    secret = canaries(store, room)
    folder = replay(logs, room, "gm", tmp_path)
    data = page_data(folder)
    said = [(line, step) for r in data["rounds"] for step in r["steps"] for line in step["lines"]]
    told = [s for s in secret if any(s in line["ja"] or s in line["en"] for line, _ in said)]
    for s in told:  # a line naming a hidden thing is marked: a GM-only line or hidden move
        assert all(line.get("hidden") or step["hidden"] for line, step in said
                   if s in line["ja"] or s in line["en"]), s
    drawn = re.findall(r'<g data-object="[^"]+"( data-hidden="1")?[^>]*>(.*?)</g></g>',
                       "".join(p.read_text() for p in folder.glob("*.svg")), re.S)
    for s in secret:
        assert all(mark for mark, body in drawn if s in body), s  # drawn dashed, 非公開
    if room == "bases":  # the GM's note on the hidden battery, as the GM wrote it
        assert "砲台は第2ラウンドに動く" in told
    if room == "table":  # the hidden pit marker (the fog was undone), a GM-only counter
        assert any(mark for mark, body in drawn if "落とし穴 / Pit" in body)
        assert "ks-counter-doom" in data["rounds"][-1]["hidden"]
        assert [x["text"] for x in data["rounds"][-1]["board"] if x.get("hidden")] == [
            "破滅 / Doom: 4/4", "HP: 12/12"]  # the GM-only counters, on the board too
        assert any(step["hidden"] for r in data["rounds"] for step in r["steps"])
    assert set(secret) <= set(strings_of(data)) | {s for s in secret if s in files_text(folder)}


def test_moves_are_told_as_the_console_tells_them_and_hidden_moves_only_to_the_gm(
        logs: Path, tmp_path: Path) -> None:
    """The demo table's log says no sentence for a move: the page says it from the
    audience's own view (adapters' `describe`, the console's `table.do.*` words)."""
    told = {aud: {step["version"]: [line["ja"] for line in step["lines"]]
                  for r in page_data(replay(logs, "table", aud, tmp_path))["rounds"]
                  for step in r["steps"]}
            for aud in ("players", "gm")}
    steps = {step["version"]: step for r in page_data(tmp_path / "table-gm")["rounds"]
             for step in r["steps"]}
    assert told["players"][1] == ["騎士 / Knightを(4, 3)へ移動"] == told["gm"][1]
    # The GM moved the hidden assassin at v2: not a word of it for the players; the GM's
    # version says it, marked as a hidden move.
    assert 2 not in told["players"] and told["gm"][2] == ["暗殺者 / Assassinを(3, 3)へ移動"]
    assert steps[2]["hidden"] and not steps[1]["hidden"]
    assert told["players"][6] == ["駒「暗殺者 / Assassin」の公開を変更"]  # revealed: told
    assert told["gm"][12] == ["規則の適用を「警告のみ」に変更"]  # a room setting, in words
    assert told["players"][18] == told["gm"][18] == ["v3まで取り消し（やり直し / take back）"]


def test_bad_room_and_empty_log_say_so_and_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    create(db)
    one_line(run("replay", "nope", *store_args(db)), 2, "「nope」", "no room 'nope'")
    one_line(run("replay", "r1", *store_args(db), "--out", str(tmp_path / "out")), 2,
             "まだ操作の記録がありません", "no logged action yet")
    assert not (tmp_path / "out").exists()


def test_replay_help_stays_light() -> None:
    modules = imported("replay", "--help")
    assert not heavy(modules, ("aiohttp", "pydantic", "komasync.server.replay_page",
                               "komasync.server.storage", "komasync.engine.registry"))


async def test_the_console_route_gives_the_gm_a_zip(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "base_battle.yaml")
    g = await gm(r)
    try:
        await g.reply_to(await g.act({"kind": "bases.round"}))
        async with aiohttp.ClientSession() as http:
            for audience in ("players", "gm"):
                async with http.post(f"{r.http}/api/replay", json={
                        "secret": r.secret, "room": r.room, "audience": audience}) as res:
                    assert res.status == 200
                    assert f"{r.room}-replay-{audience}.zip" in res.headers["Content-Disposition"]
                    names = zipfile.ZipFile(io.BytesIO(await res.read())).namelist()
                assert f"{r.room}-replay-{audience}/index.html" in names
                assert f"{r.room}-replay-{audience}/round-01.svg" in names
            for body in ({"secret": "wrong-secret-wrong", "room": r.room, "audience": "gm"},
                         {"secret": r.secret, "room": "nope", "audience": "gm"},
                         {"secret": r.secret, "room": r.room, "audience": "everyone"}):
                async with http.post(f"{r.http}/api/replay", json=body) as res:
                    assert res.status == 403
                    assert (await res.json())["code"] == "auth_failed"
            async with http.post(f"{r.http}/api/replay", data=b"{") as res:
                assert res.status == 400
    finally:
        await g.close()
        await r.runner.cleanup()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
