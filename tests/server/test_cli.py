"""The command line: scenario check, room create, invite, schema, bilingual help."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import EXAMPLES, KOMASYNC, Client, Demo, Running, store_args


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOMASYNC, *args], capture_output=True, text=True, timeout=60)


def test_scenario_check_accepts_every_example() -> None:
    for path in sorted(EXAMPLES.glob("*.yaml")):
        result = run("scenario", "check", str(path))
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("OK")


def test_scenario_check_names_file_line_and_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("room: {name: x}\ntable:\n  grid: {width: -1, height: 5}\n  surprise: 1\n")
    result = run("scenario", "check", str(bad))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert any(line.startswith(f"{bad}:3: table.grid.width:") for line in lines), lines
    assert any(line.startswith(f"{bad}:4: table.surprise:") for line in lines), lines
    assert "問題" in result.stderr and "problem" in result.stderr


def test_scenario_check_refuses_what_breaks_the_table(tmp_path: Path) -> None:
    """Issue 32: a file of the right shape that the table cannot play — a piece off the
    map, a misspelt counter, a PC on an obstacle — fails with file:line, ja and en."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("""\
table:
  grid: {width: 10, height: 8}
  pieces:
    - {id: hero, name: H, cell: {x: 2, y: 2}}
    - {id: goblin, name: G, cell: {x: 12, y: 3}}
  counters:
    - {id: goblin_hp, name: HP, value: 8}
""", encoding="utf-8")
    result = run("scenario", "check", str(bad))
    assert result.returncode == 1
    assert f"{bad}:5: table: 駒 goblin: x=12 y=3 は盤面 10×8 の外です（TABLE-MV-2） / piece " \
           "goblin: x=12 y=3 is outside the 10×8 board (TABLE-MV-2)" in result.stderr.splitlines()
    bad.write_text(bad.read_text(encoding="utf-8").replace("x: 12", "x: 5") + """\
grid:
  obstacles:
    - {x: 2, y: 2}
  combatants:
    - {id: hero, side: pc}
    - {id: goblin, side: enemy, counters: {HP: gobln_hp}}
""", encoding="utf-8")
    result = run("scenario", "check", str(bad))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert any(line.startswith(f"{bad}:12: grid: 戦闘者 hero: x=2 y=2 は障害物です")
               and "GRID-MV-3" in line for line in lines), lines
    assert any(line.startswith(f"{bad}:13: grid: 戦闘者 goblin: HP のカウンター gobln_hp")
               and "is not in table.counters" in line for line in lines), lines
    assert "2件の問題 / 2 problem(s)" in result.stderr


def test_every_subsystem_with_a_part_of_the_room_has_its_demo_room() -> None:
    """Issue 27: the demo rooms are the examples' declarations of the registered
    subsystems; one with a part of the room's state and no demo fails, named. The ids
    stay what users' databases and the README know, `demo` first."""
    from komasync.engine.registry import SUBSYSTEMS
    from komasync.engine.scenario import build_room, load_scenario_file
    from komasync.engine.state import RoomState
    from komasync.examples import DEMOS
    from komasync.server.cli import DEMO_ROOM, DEMO_ROOMS

    with_parts = {s.name for s in SUBSYSTEMS} & set(RoomState.model_fields)
    missing = with_parts - {d.subsystem for d in DEMOS}
    assert not missing, f"subsystems with no demo room: {sorted(missing)}"
    assert DEMO_ROOM == "demo"
    assert DEMO_ROOMS == {"demo": "tower_defense.yaml", "demo-bases": "base_battle.yaml",
                          "demo-table": "demo_table.yaml", "demo-grid": "seamless_combat.yaml",
                          "demo-mass": "mass_combat.yaml", "demo-engagement": "engagement.yaml"}
    assert list(DEMO_ROOMS) == [d.room for d in DEMOS]  # the order they are printed in
    for d in DEMOS:  # each demo plays its subsystem
        state = build_room(load_scenario_file(EXAMPLES / d.example), seed="demo")
        assert getattr(state, d.subsystem) is not None, d


def test_room_create_and_invite(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    created = run("room", "create", str(EXAMPLES / "demo_table.yaml"), *store_args(db),
                  "--id", "r9", "--secret", "a-long-enough-gm-secret")
    assert created.returncode == 0 and "room: r9" in created.stdout
    inv = run("invite", "r9", "player", "--player", "alice", *store_args(db))
    assert inv.returncode == 0 and "token" in inv.stdout
    missing = run("invite", "nope", "observer", *store_args(db))
    assert missing.returncode == 1 and "no room" in missing.stderr


def test_room_create_refuses_a_short_secret(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    for weak in ("abc", "x" * 15, " " * 20):
        result = run("room", "create", str(EXAMPLES / "demo_table.yaml"), *store_args(db),
                     "--id", "weak", "--secret", weak)
        assert result.returncode == 2, (weak, result.stdout)
        assert "16" in result.stderr and "秘密鍵" in result.stderr and "secret" in result.stderr
        assert "room:" not in result.stdout
    assert not db.exists() or run("invite", "weak", "observer", *store_args(db)).returncode == 1


def test_schema_is_json_schema_for_both_directions() -> None:
    result = run("schema")
    schema = json.loads(result.stdout)
    assert {"ClientMessage", "ServerMessage"} <= set(schema["$defs"])


def test_help_is_japanese_and_english() -> None:
    for args in ([], ["serve"], ["room", "create"], ["invite"], ["scenario", "check"]):
        out = run(*args, "--help").stdout
        assert "/" in out
        assert any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in out), args


async def test_serve_demo_prints_what_the_gm_needs(demo: Demo) -> None:
    """README command 1: the demo starts, prints the console URL and a GM secret that
    opens the demo rooms (listed through POST, never in a URL)."""
    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.get(demo.url + "healthz") as resp:
            assert (await resp.json())["ok"] is True
        async with session.post(demo.url + "api/rooms", json={"secret": demo.secret}) as resp:
            rooms = {r["id"] for r in (await resp.json())["rooms"]}
        assert rooms == {"demo", "demo-bases", "demo-table", "demo-grid", "demo-mass",
                         "demo-engagement"}
        async with session.get(demo.url) as resp:
            assert resp.status == 200 and "<html" in (await resp.text()).lower()
    g = await Client.connect(demo.ws)
    await g.auth("demo", secret=demo.secret)
    snap = await g.expect("snapshot")
    assert snap["state"]["tower_defense"]["phase"] == "setup"
    await g.close()


def test_export_writes_a_ccfolia_room_zip_and_clipboard_json(tmp_path: Path) -> None:
    import zipfile

    db = tmp_path / "k.sqlite3"
    run("room", "create", str(EXAMPLES / "tower_defense.yaml"), *store_args(db), "--id", "td")
    out = tmp_path / "room.zip"
    result = run("export", "td", *store_args(db), "--out", str(out))
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(out) as zf:
        data = json.loads(zf.read("__data.json"))
    assert data["meta"]["version"] == "1.1.0"
    names = {c["name"] for c in data["entities"]["characters"].values()}
    assert any("最終砦" in n for n in names)
    # issue 14: without calibration, the export says so (stderr) and in its own output
    assert "キャリブレーションがありません" in result.stderr
    assert "no Ccfolia calibration" in result.stderr
    clipped = run("export", "td", *store_args(db), "--format", "clipboard")
    clip = clipped.stdout.splitlines()
    head, *pieces = [json.loads(line) for line in clip]
    assert head["komasync"]["calibrated"] is False and head["komasync"]["warning"]["ja"]
    assert "キャリブレーションがありません" in clipped.stderr
    assert pieces and all(p["kind"] == "character" for p in pieces)
    assert "waves" not in "".join(clip)  # the table's view only: no future waves


async def test_server_hands_out_the_foundry_module(running: Running) -> None:
    import io
    import zipfile

    import aiohttp

    async with aiohttp.ClientSession() as session:
        async with session.get(running.http + "/foundry/module.json") as resp:
            manifest = await resp.json()
        assert manifest["manifest"] == running.http + "/foundry/module.json"
        # issue 14: no verified version (none was run), no socket (not used)
        assert manifest["compatibility"] == {"minimum": "12"}
        assert "socket" not in manifest
        for key in ("url", "bugs", "changelog"):
            assert manifest[key].startswith(running.http + "/foundry/"), key
            async with session.get(manifest[key]) as resp:
                assert resp.status == 200 and (await resp.text()).startswith("# komasync")
        assert manifest["license"] == "LICENSE"
        async with session.get(manifest["download"]) as resp:
            body = await resp.read()
        async with session.get(running.http + "/foundry/secret.txt") as resp:
            assert resp.status == 404
    with zipfile.ZipFile(io.BytesIO(body)) as zf:
        assert json.loads(zf.read("module.json"))["download"] == manifest["download"]
        assert zf.read("LICENSE").startswith(b"MIT License")
        for module in manifest["esmodules"]:
            assert module in zf.namelist()


async def test_console_export_endpoint_needs_the_gm_secret(running: Running) -> None:
    import io
    import zipfile

    import aiohttp

    url = running.http + "/api/export"
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json={"secret": "wrong", "room": running.room}) as resp:
            assert resp.status == 403 and (await resp.json())["code"] == "auth_failed"
        async with session.post(url, json={"secret": running.secret, "room": running.room}) as resp:
            assert resp.status == 200 and resp.content_type == "application/zip"
            body = await resp.read()
        async with session.post(url, json={"secret": running.secret, "room": running.room,
                                           "format": "clipboard"}) as resp:
            assert resp.headers["X-Komasync-Calibrated"] == "no"
            document = await resp.json()
    pieces = document["characters"]
    assert document["komasync"]["calibrated"] is False and document["komasync"]["warning"]
    with zipfile.ZipFile(io.BytesIO(body)) as zf:
        data = zf.read("__data.json").decode()
    assert "騎士" in data and "暗殺者" not in data  # the table's view: no hidden pieces
    assert all(p["kind"] == "character" for p in pieces)
    assert not any("暗殺者" in p["data"]["name"] for p in pieces)
