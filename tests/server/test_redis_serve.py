"""`komasync serve --store redis://…` (one process) against a real redis-server: kill -9 of the
server mid-stream loses no acked action; the restarted process takes the room's lease once
it lapses and resumes gapless; SIGTERM releases the lease."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
from pathlib import Path

from redis_support import RedisProc, needs_redis, redis_server

from conftest import KOMASYNC, ROOT, Client, serve_process, stop_process
from komasync.server.storage import RedisStorage

pytestmark = needs_redis
__all__ = ["redis_server"]

SECRET = "s3cret-long-enough-for-gm"


def serve(url: str) -> tuple[subprocess.Popen[str], str]:
    return serve_process("--store", url, "--lease-ms", "1500", "--snapshot-every", "25",
                         "--rate", "100000")


async def gm_until_owned(url: str, tries: int = 200) -> tuple[Client, dict[str, object]]:
    """The GM's join, retried while the dead owner's lease has not lapsed yet."""
    for _ in range(tries):
        g = await Client.connect(url)
        with contextlib.suppress(Exception):  # refused (auth_failed) while another owns it
            await g.auth("r1", secret=SECRET)
            msg = await g.recv()
            if msg["type"] == "snapshot":
                return g, msg
        await g.close()
        await asyncio.sleep(0.05)
    raise AssertionError("the room was never taken over")


async def test_serve_on_redis_survives_kill9_and_hands_the_lease_back(
        tmp_path: Path, redis_server: RedisProc) -> None:
    db = tmp_path / "seed.sqlite3"
    subprocess.run([*KOMASYNC, "room", "create", str(ROOT / "tests/data/counters.yaml"), "--db", str(db),
                    "--id", "r1", "--secret", SECRET], check=True, capture_output=True)
    subprocess.run([*KOMASYNC, "migrate", "--from", f"sqlite:{db}", "--to", redis_server.url],
                   check=True, capture_output=True)
    proc, url = serve(redis_server.url)
    acked: dict[str, int] = {}
    try:
        g, _ = await gm_until_owned(url)

        async def stream() -> None:
            for i in range(1000):
                await g.act({"kind": "table.counter.add", "counter": "tally", "delta": 1}, id=f"x{i}")
                if i % 20 == 0:
                    await asyncio.sleep(0)

        async def read() -> None:
            while True:
                msg = await g.recv()
                if msg["type"] == "ack":
                    acked[msg["id"]] = msg["version"]
                    if len(acked) == 150:
                        os.kill(proc.pid, signal.SIGKILL)

        sender = asyncio.create_task(stream())
        with contextlib.suppress(Exception):
            await asyncio.wait_for(read(), 30)
        sender.cancel()
    finally:
        proc.kill()
        proc.wait()
    assert len(acked) >= 150
    red = RedisStorage(redis_server.url)
    assert red.holder("r1") is not None  # the killed owner's lease, until it lapses

    proc, url = serve(redis_server.url)
    try:
        g, snap = await gm_until_owned(url)
        version = int(snap["version"])  # type: ignore[call-overload]
        assert version >= max(acked.values())
        assert snap["state"]["table"]["counters"]["tally"]["value"] == version  # type: ignore[index]
        assert [r.version for r in red.actions("r1", 0)] == list(range(1, version + 1))
        retry = await g.act({"kind": "table.counter.add", "counter": "tally", "delta": 1}, id="x0")
        dup = await g.reply_to(retry)  # a retry of an acked action is not applied twice
        assert dup["type"] == "ack" and dup.get("duplicate") is True and dup["version"] == acked["x0"]
        mid = await g.act({"kind": "table.counter.add", "counter": "tally", "delta": 1}, id="after")
        assert (await g.reply_to(mid))["version"] == version + 1
        await g.close()
        holder = red.holder("r1")
        assert holder is not None and holder.split(":")[1].split("/")[1] == str(proc.pid)
    finally:
        stop_process(proc)  # SIGTERM: a graceful stop lets go of the room at once
    assert red.holder("r1") is None
    red.close()
