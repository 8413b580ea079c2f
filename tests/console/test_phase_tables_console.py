"""The console's panels order and label phases from the tables the welcome carries
(issue 27), not from copies of their own: the browser's WebSocket is routed through
Playwright, which renames the tower defense phases in the welcome it passes on, and the
panel and the header name the current phase, and the next-phase button the phase after
it, as renamed (TD-RND)."""

from __future__ import annotations

import json
from typing import Any

from test_console import (
    ROOM,
    Browser,
    Console,
    pw_expect,
    pytestmark,  # noqa: F401 - skipped like it when chromium is missing
)

from conftest import CHROMIUM, Demo

if CHROMIUM.exists():
    from playwright.async_api import WebSocketRoute
else:  # pragma: no cover - the module is skipped
    WebSocketRoute = Any


def renamed(frame: str | bytes) -> str | bytes:
    """The welcome with every tower defense phase's names marked 「表」/ (table)."""
    if isinstance(frame, bytes) or '"welcome"' not in frame:
        return frame
    msg = json.loads(frame)
    for p in msg["tables"]["tower_defense"]["phases"]:
        p["ja"], p["en"] = f"{p['ja']}「表」", f"{p['en']} (table)"
    return json.dumps(msg, ensure_ascii=False)


async def test_the_panels_name_phases_from_the_welcome_tables(browser: Browser, demo: Demo) -> None:
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="ja-JP")
    welcomes: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)

        def down(frame: str | bytes) -> None:
            out = renamed(frame)
            if out is not frame:
                welcomes.append(json.loads(out))
            ws.send(out)
        server.on_message(down)

    page = await ctx.new_page()
    con = Console(page)
    await page.route_web_socket("**/ws", route)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector(".td-map")
    assert welcomes and welcomes[0]["role"] == "gm"

    await pw_expect(page.locator(".headline")).to_contain_text("準備「表」")
    await pw_expect(page.locator(".td-phase")).to_contain_text("準備「表」")
    nxt = page.locator("button.command[data-command='td.next_phase']")
    await pw_expect(nxt).to_contain_text("次へ: 敵増援フェイズ「表」")
    con.check()
