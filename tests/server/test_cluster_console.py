"""The GM console in Debian's chromium, loaded from a process that does not own the room.

Its socket is relayed to the owner; when the owner is killed (kill -9) the console is told
the room moved, reconnects to the same process by itself, which takes the room over, and
resumes with `since` (changes, no snapshot). Nothing in the console knows about processes.
"""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest
from cluster_support import Resuming, create_room, start_node
from redis_support import RedisProc, needs_redis, redis_server

from conftest import CHROMIUM, EXAMPLES

pytestmark = [needs_redis, pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) is missing; "
                                  "scripts/setup.sh installs it")]
__all__ = ["redis_server"]

SECRET = "s3cret-long-enough-for-gm"
FORTS = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
         "pc5": "m_left", "pc6": "m_right", "npc1": "final"}


async def test_console_on_another_process_survives_the_owner_dying(
        tmp_path: Path, redis_server: RedisProc, browser: Any) -> None:
    from playwright.async_api import expect

    create_room(redis_server.url, "demo", EXAMPLES / "tower_defense.yaml", SECRET, "console")
    nodes = [start_node(redis_server.url, tmp_path / f"node{i}.log") for i in range(2)]
    try:
        gm = Resuming("script", nodes, "demo", {"secret": SECRET}, home=0)
        await gm.connect()  # node 0 owns the room
        page = await (await browser.new_context(locale="en-US")).new_page()
        sent: list[str] = []
        received: list[str] = []
        page.on("websocket", lambda ws: (ws.on("framesent", lambda p: sent.append(str(p))),
                                         ws.on("framereceived", lambda p: received.append(str(p)))))
        await page.goto(nodes[1].http + "/")
        await page.fill("#secret", SECRET)
        await page.click(".signin button[type=submit]")
        await page.click(".room-list li[data-room=demo] button")
        await page.wait_for_selector(".td-map")
        status = page.locator('.conn-status[data-status="open"]')
        await expect(status).to_have_count(1)
        assert await nodes[0].owned() == ["demo"] and await nodes[1].owned() == []
        seen = 0
        for pc, fort in FORTS.items():
            seen = await gm.act(f"place-{pc}", {"kind": "td.pc.place", "pc": pc, "fort": fort})
        version = page.locator(".conn-status .version")
        await expect(version).to_have_text(re.compile(rf"v{seen}\b"))
        received.clear()
        os.kill(nodes[0].proc.pid, signal.SIGKILL)
        nodes[0].dead = True
        await expect(version).to_have_text(re.compile(rf"v{seen}\b"))
        after = await gm.act("next", {"kind": "td.next_phase"})  # on node 1 now
        await expect(version).to_have_text(re.compile(rf"v{after}\b"), timeout=15_000)
        await expect(status).to_have_count(1)
        assert await nodes[1].owned() == ["demo"]
        frames = [json.loads(r) for r in received]
        assert any(f["type"] == "bye" and f["code"] == "room_moved" for f in frames)
        assert "snapshot" not in [f["type"] for f in frames]
        auths = [json.loads(s) for s in sent if '"auth"' in s]
        assert auths[-1]["since"] == seen  # resumed where it was
        await gm.close()
    finally:
        for n in nodes:
            n.stop()
