"""The doctor's check-up in the console's Connections tab (issue 33: "The console shows the
same findings in its connections panel"): a click runs GET /api/doctor with the GM's
secret and shows each finding in the UI's language with what to do — the same findings,
by id and level, as the endpoint gives the same GM."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from test_console import Console

from conftest import CHROMIUM, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

WORDS = {"ja": {"run": "点検する", "ok": "OK"}, "en": {"run": "Run the check-up", "ok": "OK"}}


async def endpoint(demo: Demo) -> dict[str, Any]:
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{demo.url.rstrip('/')}/api/doctor",
                            headers={"Authorization": f"Bearer {demo.secret}"}) as r:
            assert r.status == 200
            return dict(await r.json())


@pytest.mark.parametrize(("width", "lang"), [(1024, "ja"), (1440, "en"), (1920, "ja")])
async def test_the_check_up_shows_the_doctors_findings(browser: Browser, demo: Demo,
                                                      width: int, lang: str) -> None:
    ctx = await browser.new_context(viewport={"width": width, "height": 900},
                                    locale="ja-JP" if lang == "ja" else "en-US")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(".room-list li[data-room=demo] button")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    if await page.get_attribute("html", "lang") != lang:
        await page.click(".lang-toggle")
    await con.tab("connections")
    await page.get_by_role("button", name=WORDS[lang]["run"]).click()
    findings = page.locator(".doctor-findings li")
    await pw_expect(findings.first).to_be_visible()

    want = await endpoint(demo)
    shown = [(await li.get_attribute("data-finding"), await li.get_attribute("data-level"))
             for li in await findings.all()]
    assert shown == [(f["id"], f["level"]) for f in want["findings"]]
    room = page.locator(".doctor-findings li[data-finding='room:demo']")
    await pw_expect(room).to_have_attribute("data-level", "ok")
    text = await room.locator(".doctor-text").inner_text()
    expected = next(f["text"][lang] for f in want["findings"] if f["id"] == "room:demo")
    assert text == expected
    todo = [f for f in want["findings"] if f.get("todo")]
    if todo:  # e.g. the public URL on loopback: what to do is said under the finding
        first = page.locator(f".doctor-findings li[data-finding='{todo[0]['id']}'] .doctor-todo")
        await pw_expect(first).to_contain_text(todo[0]["todo"][lang])
    con.check()
