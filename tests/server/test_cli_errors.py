"""Errors a person can act on: one ja/en line and an exit code, never a traceback.

Also the room commands (list, delete, reset, export), invite links, settings from the
environment and the scenario JSON Schema.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
from pathlib import Path

import jsonschema
import yaml

from conftest import EXAMPLES, KOMASYNC, Running, gm, store_args, store_url

SECRET = "a-long-enough-gm-secret"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOMASYNC, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


def one_line(result: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The command failed with `code` and said so in one ja/en line holding `words`."""
    assert result.returncode == code, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    line = lines[0]
    assert line.startswith("komasync: ") and " / " in line, line
    assert any("\u3040" <= ch <= "\u9fff" for ch in line.split(" / ")[0]), line  # Japanese first
    for word in words:
        assert word in line, (word, line)
    return line


def create(db: Path, room: str = "r1", example: str = "demo_table.yaml") -> None:
    made = run("room", "create", str(EXAMPLES / example), *store_args(db), "--id", room,
               "--secret", SECRET)
    assert made.returncode == 0, made.stderr


def test_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "--port", str(port), "--db", str(tmp_path / "k.sqlite3"))
    one_line(result, 1, f"ポート {port}", f"Port {port} is already in use", "--port")


def test_duplicate_room_id_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    create(db)
    again = run("room", "create", str(EXAMPLES / "demo_table.yaml"), *store_args(db), "--id", "r1")
    one_line(again, 1, "「r1」は既に使われています", "Room id 'r1' is taken", "room delete r1")


def test_unreadable_database_file(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_bytes(b"this is not a database\n" * 100)
    one_line(run("room", "list", "--db", str(junk)), 1, "SQLite", "cannot be read as an SQLite")
    assert junk.read_bytes().startswith(b"this is not")  # left as it was


def test_foreign_database_file(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE songs (title TEXT)")
    one_line(run("room", "create", str(EXAMPLES / "demo_table.yaml"), "--db", str(other)), 1,
             "komasync のデータベースではありません", "not a komasync database")
    with sqlite3.connect(other) as db:  # nothing of ours was written into it
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"songs"}


def test_missing_database_for_a_room_command(tmp_path: Path) -> None:
    one_line(run("room", "list", "--db", str(tmp_path / "none.sqlite3")), 1,
             "データベース", "There is no database")


def test_missing_scenario_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    for args in (("room", "create", str(missing), "--db", str(tmp_path / "k.sqlite3")),
                 ("scenario", "check", str(missing))):
        one_line(run(*args), 1, "見つかりません", "not found", str(missing))


def test_unknown_room(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    create(db)
    one_line(run("invite", "nope", "observer", *store_args(db)), 1, "「nope」", "no room 'nope'")


def test_player_invite_for_a_player_that_does_not_exist(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    create(db, example="tower_defense.yaml")
    one_line(run("invite", "r1", "player", "--player", "p99", *store_args(db)), 1,
             "「p99」はいません", "no player 'p99'", "p1")
    ok = run("invite", "r1", "player", "--player", "p1", *store_args(db))
    assert ok.returncode == 0, ok.stderr


def test_short_gm_secret_is_refused(tmp_path: Path) -> None:
    result = run("room", "create", str(EXAMPLES / "demo_table.yaml"), "--db",
                 str(tmp_path / "k.sqlite3"), "--secret", "abc")
    one_line(result, 2, "16文字以上", "at least 16 characters")


def test_bad_setting_from_the_environment(tmp_path: Path) -> None:
    result = run("serve", "--db", str(tmp_path / "k.sqlite3"), env={"KOMASYNC_PORT": "eighty"})
    one_line(result, 2, "port")


def test_invite_prints_the_full_link_and_json(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    create(db, example="tower_defense.yaml")
    text = run("invite", "r1", "player", "--player", "p1", *store_args(db),
               "--public-url", "https://table.example.org/")
    assert text.returncode == 0, text.stderr
    token = text.stdout.split("token / トークン: ")[1].split()[0]
    assert f"link / リンク: https://table.example.org/#room=r1&invite={token}" in text.stdout
    as_json = run("invite", "r1", "observer", *store_args(db), "--json",
                  env={"KOMASYNC_PUBLIC_URL": "http://10.0.0.5:8750"})
    data = json.loads(as_json.stdout)
    assert data["role"] == "observer" and data["room"] == "r1"
    assert data["link"] == f"http://10.0.0.5:8750/#room=r1&invite={data['token']}"


def test_room_list_delete_reset_export_with_db_from_the_environment(tmp_path: Path) -> None:
    db = tmp_path / "env.sqlite3"
    url = store_url(db)  # the Redis pass names its store the same way: KOMASYNC_STORE
    env = {"KOMASYNC_DB": str(db), **({"KOMASYNC_STORE": url} if url else {})}
    for room in ("a1", "b2"):
        made = run("room", "create", str(EXAMPLES / "tower_defense.yaml"), "--id", room, env=env)
        assert made.returncode == 0, made.stderr
    listed = json.loads(run("room", "list", "--json", env=env).stdout)
    assert [r["id"] for r in listed] == ["a1", "b2"] and listed[0]["version"] == 0
    assert "a1\tv0" in run("room", "list", env=env).stdout
    unconfirmed = run("room", "delete", "a1", env=env)
    one_line(unconfirmed, 2, "--yes")
    assert run("room", "delete", "a1", "--yes", env=env).returncode == 0
    assert [r["id"] for r in json.loads(run("room", "list", "--json", env=env).stdout)] == ["b2"]
    out = tmp_path / "b2.zip"
    exported = run("room", "export", "b2", "--out", str(out), env=env)
    assert exported.returncode == 0 and out.stat().st_size > 0, exported.stderr
    reset = run("room", "reset", "b2", "--yes", env=env)
    assert reset.returncode == 0 and "0" in reset.stdout, reset.stderr


def test_scenario_schema_accepts_every_example() -> None:
    result = run("scenario", "schema")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(EXAMPLES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        errors = list(validator.iter_errors(data))
        assert not errors, (path.name, errors[0].message)
    assert list(validator.iter_errors({"room": {"nmae": "typo"}}))  # unknown keys are caught


async def test_public_url_reaches_the_console(tmp_path: Path) -> None:
    import aiohttp

    from conftest import serve_demo, stop

    demo = serve_demo(tmp_path / "k.sqlite3", None, "--public-url", "https://table.example.org/")
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(demo.url + "api/links") as resp:
                links = await resp.json()
        assert links["public_url"] == "https://table.example.org" and links["configured"] is True
        assert links["ws"] == "wss://table.example.org/ws"
    finally:
        stop(demo)


def test_scenario_errors_name_the_id_its_line_and_say_it_in_both_languages(tmp_path: Path) -> None:
    text = (EXAMPLES / "tower_defense.yaml").read_text(encoding="utf-8")
    line = next(n for n, s in enumerate(text.splitlines(), 1) if "id: pc2," in s)
    bad = tmp_path / "td.yaml"
    bad.write_text(text.replace("weapons: [glock17]", "weapons: [glock99]"), encoding="utf-8")
    result = run("scenario", "check", str(bad))
    assert result.returncode == 1
    assert f"{bad}:{line}: tower_defense: PC pc2: 武器 glock99 はありません / " \
           "pc pc2: unknown weapon glock99" in result.stderr


def test_scenario_errors_number_items_from_one_or_name_them(tmp_path: Path) -> None:
    bad = tmp_path / "p.yaml"
    bad.write_text("players:\n  - {id: alice, name: A}\n  - {name: B}\n  - {id: carol, nmae: C}\n")
    result = run("scenario", "check", str(bad))
    assert result.returncode == 1
    assert f"{bad}:3: players[#2].id: 必須の項目がありません / this field is required" in result.stderr
    assert f"{bad}:4: players[carol].nmae: この名前の項目はありません" in result.stderr


def test_a_yaml_indentation_error_says_what_yaml_expected(tmp_path: Path) -> None:
    bad = tmp_path / "i.yaml"
    bad.write_text("room:\n  name: x\n   seed: abc\n")
    result = run("scenario", "check", str(bad))
    assert result.returncode == 1
    assert f"{bad}:3: yaml: ここに「キー: 値」は書けません" in result.stderr
    assert "check that the indentation matches the lines above" in result.stderr


async def test_the_console_cannot_invite_a_player_who_does_not_exist(running: Running) -> None:
    # issue 15 item 7: an invite never adds a player by surprise
    g = await gm(running)
    await g.send({"type": "invite.create", "id": "i1", "role": "player", "player": "zed"})
    reply = await g.expect("error", id="i1")
    assert reply["code"] == "unknown_player"
    assert "「zed」" in reply["reason"]["ja"] and "'zed'" in reply["reason"]["en"]
    assert "zed" not in g.state["meta"]["players"]
    await g.send({"type": "invite.create", "id": "i2", "role": "player", "player": "alice"})
    assert (await g.expect("invite", id="i2"))["player"] == "alice"
    await g.close()


def test_argparse_speaks_japanese_and_english_too() -> None:
    """A mistyped command line (argparse's own errors) and every --help say their words in
    ja and en: usage, the argument groups, -h, and each error, English kept after it."""
    cases = [
        (["room", "create"], "次の引数が必要です: file", "the following arguments are required: file"),
        (["nosuch"], "引数 COMMAND に 'nosuch' は選べません", "invalid choice: 'nosuch'"),
        (["replay", "demo", "--audience", "x"], "引数 --audience に 'x' は選べません", "(choose from"),
        (["serve", "--port", "abc"], "引数 --port の値 'abc' は整数として読めません", "invalid int value"),
        (["room", "list", "--bogus"], "知らない引数です: --bogus", "unrecognized arguments: --bogus"),
    ]
    for args, ja, en in cases:
        out = run(*args)
        assert out.returncode == 2, (args, out.stderr)
        usage, *rest = out.stderr.strip().splitlines()
        assert usage.startswith("使い方 / usage: komasync"), out.stderr
        said = rest[-1]
        assert ja in said and en in said and said.index(ja) < said.index(en), said
        assert "Traceback" not in out.stderr
    for args in (["--help"], ["room", "create", "--help"], ["scenario", "check", "--help"]):
        text = run(*args).stdout
        assert text.startswith("使い方 / usage: komasync"), text
        assert "引数 / arguments:" in text and "オプション / options:" in text, text
        assert "このヘルプを表示して終了 / show this help and exit" in text
        assert "positional arguments:" not in text and "show this help message" not in text
