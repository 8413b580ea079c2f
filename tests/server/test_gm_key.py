"""The server's GM key (issue 30, "one sign-in for a GM's rooms"): `komasync serve` prints
one key that opens every room as GM, kept in the store across restarts; the rooms' own GM
secrets stay valid; a wrong key is refused and throttled like a wrong room secret."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import aiohttp

from conftest import (
    EXAMPLES,
    KOMASYNC,
    Client,
    serve_process,
    start_server,
    stop_process,
    store_args,
)
from komasync.server.connection import Limits
from komasync.server.gm_key import ensure_gm_key

KEY_LINE = re.compile(r"GMキー（全ルーム共通）: (\S+)")


def cli(*args: str) -> str:
    done = subprocess.run([*KOMASYNC, *args], capture_output=True, text=True, timeout=60,
                          check=True)
    return done.stdout


def create_room(db: Path, room: str, scenario: str) -> str:
    """`komasync room create`; returns the room's own GM secret."""
    out = cli("room", "create", str(EXAMPLES / scenario), "--id", room, *store_args(db))
    m = re.search(r"GM秘密鍵: (\S+)", out)
    assert m, out
    return m.group(1)


def serve_with_key(db: Path) -> tuple[subprocess.Popen[str], str, str]:
    """`komasync serve`: the process, its ws:// URL and the GM key it printed."""
    proc, url = serve_process(*store_args(db))
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := KEY_LINE.search(line):
            return proc, url, m.group(1)
    stop_process(proc)
    raise AssertionError("komasync serve did not print its GM key")


async def auth(url: str, room: str, secret: str) -> dict[str, Any]:
    """The first frame answering an `auth` with `secret` (welcome or error)."""
    c = await Client.connect(url)
    try:
        await c.send({"type": "auth", "room": room, "secret": secret})
        return await c.recv()
    finally:
        await c.close()


async def rooms_for(http: str, secret: str) -> tuple[int, dict[str, Any]]:
    async with aiohttp.ClientSession() as s, s.post(f"{http}/api/rooms",
                                                    json={"secret": secret}) as res:
        return res.status, await res.json()


async def test_the_gm_key_opens_every_room_and_room_secrets_still_work(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    fight = create_room(db, "fight", "engagement.yaml")
    table = create_room(db, "table", "demo_table.yaml")
    proc, url, key = serve_with_key(db)
    http = url.replace("ws://", "http://").removesuffix("/ws")
    try:
        for room in ("fight", "table"):  # one key, every room, as GM
            welcome = await auth(url, room, key)
            assert welcome["type"] == "welcome" and welcome["role"] == "gm", welcome
        assert (await auth(url, "fight", fight))["role"] == "gm"  # the room's own secret
        assert (await auth(url, "table", table))["role"] == "gm"
        refused = await auth(url, "table", fight)  # a room's secret opens only its room
        assert refused["type"] == "error" and refused["code"] == "auth_failed"

        status, body = await rooms_for(http, key)  # the console's one sign-in lists them all
        assert status == 200 and [r["id"] for r in body["rooms"]] == ["fight", "table"]
        status, body = await rooms_for(http, fight)
        assert status == 200 and [r["id"] for r in body["rooms"]] == ["fight"]
    finally:
        stop_process(proc)


async def test_a_wrong_key_is_refused_and_throttled(tmp_path: Path) -> None:
    limits = Limits(auth_failures_per_address=3)
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "demo_table.yaml", limits)
    try:
        key = await r.server.storage.call(ensure_gm_key, r.server.storage.storage)
        wrong = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
        for _ in range(2):
            frame = await auth(r.url, r.room, wrong)
            assert frame["type"] == "error" and frame["code"] == "auth_failed", frame
        status, body = await rooms_for(r.http, wrong)  # the sign-in page's guess counts too
        assert status == 200 and body["rooms"] == []
        throttled = await auth(r.url, r.room, key)  # past the limit nothing is looked up
        assert throttled["code"] == "auth_throttled" and throttled["details"]["retry_after"] >= 1
        status, body = await rooms_for(r.http, key)
        assert status == 429 and body["code"] == "auth_throttled"
        r.server.throttle.failures.clear()  # the window passed
        assert (await auth(r.url, r.room, key))["role"] == "gm"
    finally:
        await r.runner.cleanup()


async def test_the_key_survives_a_restart_and_rotates_from_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "k.sqlite3"
    create_room(db, "fight", "engagement.yaml")
    proc, url, key = serve_with_key(db)
    stop_process(proc)
    proc, url, again = serve_with_key(db)
    try:
        assert again == key
        assert key in cli("gm-key", *store_args(db))  # shown from the CLI, unchanged
        assert (await auth(url, "fight", key))["role"] == "gm"

        new = KEY_LINE.search(cli("gm-key", "--rotate", *store_args(db)))
        assert new and new.group(1) != key
        old = await auth(url, "fight", key)  # the running server follows the store
        assert old["type"] == "error" and old["code"] == "auth_failed"
        assert (await auth(url, "fight", new.group(1)))["role"] == "gm"
    finally:
        stop_process(proc)
