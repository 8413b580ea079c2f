"""`komasync invite` links (issue 30, "invites by name"): the running server records its
public address in the store, and the CLI's links use it (not the default port 8750)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from conftest import EXAMPLES, KOMASYNC, serve_process, stop_process, store_args


def cli(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "KOMASYNC_PUBLIC_URL"}
    done = subprocess.run([*KOMASYNC, *args], capture_output=True, text=True, timeout=60,
                          check=True, env=env)
    return done.stdout


def link(out: str) -> str:
    m = re.search(r"link / リンク: (\S+)", out)
    assert m, out
    return m.group(1)


def test_cli_invite_uses_the_running_servers_address(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    cli("room", "create", str(EXAMPLES / "engagement.yaml"), "--id", "fight", *store_args(db))
    env = {k: v for k, v in os.environ.items() if k != "KOMASYNC_PUBLIC_URL"}
    proc, url = serve_process(*store_args(db), env=env)  # --port 0: a free port, not 8750
    try:
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert port != 8750
        got = link(cli("invite", "fight", "player", "--player", "alice", *store_args(db)))
        assert got.startswith(f"http://127.0.0.1:{port}/#room=fight&invite="), got
        # --public-url still wins: the address players reach behind a proxy
        given = link(cli("invite", "fight", "player", "--player", "bob", "--public-url",
                         "https://table.example.org", *store_args(db)))
        assert given.startswith("https://table.example.org/#room=fight&invite="), given
    finally:
        stop_process(proc)
