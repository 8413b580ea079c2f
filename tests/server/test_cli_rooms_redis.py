"""`komasync room create | list | invite | export | delete | reset` with `--store redis://…`
against a real redis-server: the same commands and ja/en messages as on SQLite; a room a
server owns is not reset or deleted under it; an unreachable or mistyped store is one line."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path
from unittest import mock

from redis_support import RedisProc, needs_redis, redis_server

from conftest import EXAMPLES, Client, free_port, serve_process, stop_process
from komasync.server.cli import main
from komasync.server.storage import RedisStorage

pytestmark = needs_redis
__all__ = ["redis_server"]

SECRET = "a-long-enough-gm-secret"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`komasync ARGS` in this process (the command line's own code, its output and exit
    code, with `env` set meanwhile): a subprocess per command would only add start-up time."""
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.dict(os.environ, env or {}), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["komasync", *args], code, out.getvalue(), err.getvalue())


def one_line(result: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """Failed with `code`, saying so in one ja/en line that holds `words`."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    ja, _, en = lines[0].removeprefix("komasync: ").partition(" / ")
    assert any("\u3040" <= ch <= "\u9fff" for ch in ja) and en, lines[0]
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def test_room_commands_on_redis(tmp_path: Path, redis_server: RedisProc) -> None:
    store = ["--store", redis_server.url]
    made = run("room", "create", str(EXAMPLES / "tower_defense.yaml"), *store, "--id", "td",
               "--secret", SECRET)
    assert made.returncode == 0 and "room: td" in made.stdout, made.stderr
    one_line(run("room", "create", str(EXAMPLES / "demo_table.yaml"), *store, "--id", "td"), 1,
             "「td」は既に使われています", "Room id 'td' is taken")
    # KOMASYNC_STORE names the store as --store does; --db is not looked at then.
    env = {"KOMASYNC_STORE": redis_server.url, "KOMASYNC_DB": str(tmp_path / "unused.sqlite3")}
    assert run("room", "create", str(EXAMPLES / "demo_table.yaml"), "--id", "tb", env=env).returncode == 0
    assert not (tmp_path / "unused.sqlite3").exists()
    listed = json.loads(run("room", "list", "--json", *store).stdout)
    assert [(r["id"], r["version"], r["scenario"]) for r in listed] == [
        ("td", 0, "tower_defense.yaml"), ("tb", 0, "demo_table.yaml")]
    assert "td\tv0" in run("room", "list", env=env).stdout

    one_line(run("invite", "td", "player", "--player", "p99", *store), 1, "「p99」はいません",
             "no player 'p99'")
    one_line(run("invite", "nope", "observer", *store), 1, "「nope」", "no room 'nope'",
             redis_server.url)
    invited = json.loads(run("invite", "td", "player", "--player", "p1", *store, "--json").stdout)
    red = RedisStorage(redis_server.url)
    found = red.invite_for_token("td", invited["token"])
    assert found is not None and found.player == "p1" and found.role == "player"

    out = tmp_path / "td.zip"
    exported = run("room", "export", "td", *store, "--out", str(out))
    assert exported.returncode == 0 and out.stat().st_size > 0, exported.stderr

    one_line(run("room", "reset", "td", *store), 2, "--yes")
    reset = run("room", "reset", "td", *store, "--yes")
    assert reset.returncode == 0 and "（0件の操作を削除）" in reset.stdout, reset.stderr
    assert red.invite_for_token("td", invited["token"]) is not None  # invites stay
    deleted = run("room", "delete", "tb", *store, "--yes")
    assert deleted.returncode == 0 and "room tb deleted" in deleted.stdout
    assert red.room_ids() == ["td"] and red.holder("td") is None and red.holder("tb") is None
    assert "ルームはありません / no rooms" not in run("room", "list", *store).stdout
    red.close()


def serve(url: str) -> tuple[subprocess.Popen[str], str]:
    return serve_process("--store", url, "--log", "text")


async def test_a_served_room_is_not_reset_or_deleted_under_its_server(
        redis_server: RedisProc) -> None:
    store = ["--store", redis_server.url]
    run("room", "create", str(EXAMPLES / "demo_table.yaml"), *store, "--id", "r1", "--secret", SECRET)
    token = json.loads(run("invite", "r1", "observer", *store, "--json").stdout)["token"]
    proc, ws = serve(redis_server.url)
    try:
        g = await Client.connect(ws)  # the server finds the room and the invite the CLI made
        await g.auth("r1", secret=SECRET)
        await g.expect("snapshot")
        ack = await g.reply_to(await g.act({"kind": "table.counter.add", "counter": "clock",
                                            "delta": 1}))
        assert ack["type"] == "ack" and ack["version"] == 1
        watcher = await Client.connect(ws)
        await watcher.auth("r1", token=token)
        assert (await watcher.expect("snapshot"))["version"] == 1
        for cmd in ("reset", "delete"):
            line = one_line(run("room", cmd, "r1", *store, "--yes"), 1, "「r1」は今サーバー",
                            "in use by a server")
            assert str(proc.pid) in line  # says which server
        assert json.loads(run("room", "list", "--json", *store).stdout)[0]["version"] == 1
        await g.close()
        await watcher.close()
    finally:
        stop_process(proc)  # a graceful stop lets go of the room
    reset = run("room", "reset", "r1", *store, "--yes")
    assert reset.returncode == 0 and "1 actions removed" in reset.stdout, reset.stderr
    assert json.loads(run("room", "list", "--json", *store).stdout)[0]["version"] == 0


def test_an_unreachable_or_mistyped_store_is_one_line(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    url = f"redis://:hunter2-password@127.0.0.1:{port}/0"
    for args in (("room", "list"), ("room", "create", str(EXAMPLES / "demo_table.yaml")),
                 ("invite", "r1", "observer")):
        line = one_line(run(*args, "--store", url), 1, "に接続できません", "Cannot reach Redis")
        assert "hunter2" not in line and f"127.0.0.1:{port}" in line
    line = one_line(run("room", "list", "--store", "mysql://127.0.0.1/k"), 1,
                    "保存先 mysql://127.0.0.1/k が分かりません", "redis://HOST:PORT/DB")
    db = tmp_path / "k.sqlite3"  # `sqlite:PATH` is the SQLite file, as `migrate` names it
    made = run("room", "create", str(EXAMPLES / "demo_table.yaml"), "--store", f"sqlite:{db}",
               "--id", "s1", "--secret", SECRET)
    assert made.returncode == 0 and db.exists(), made.stderr
    assert "s1\tv0" in run("room", "list", "--db", str(db)).stdout
