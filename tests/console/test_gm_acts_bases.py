"""The GM plays any base-battle character from the console (issue 30, "the GM acts for any
actor"; server/console/js/panels/bases_act.js drawing player/bases.js's controls).

In the base-battle demo (demo-bases) with no player connected, the GM picks the absent
player ボブ's character in 「GMとして…」 and reports, by clicks only, that it was
incapacitated (BASE-COND-5: the roster's count on the field follows the report); the
panel is marked 「GMとして（ボブの代わり）」, a separate GM WebSocket client sees the report
in the history sent by the GM and ボブ off the field, and the timeline says so as GM. At
1024, 1440 and 1920 px, ja and en.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_console import Console
from test_player import GM

from conftest import CHROMIUM, Client, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

ROOM = "demo-bases"
WORDS = {
    "ja": {"title": "GMとしてキャラクターを動かす（拠点戦闘）", "badge": "GMとして（ボブの代わり）",
           "happening": "戦闘不能になった", "send": "報告する", "said": "GMとして（ボブの代わり）："},
    "en": {"title": "Play a character as GM (base battle)", "badge": "as GM (for ボブ)",
           "happening": "was incapacitated", "send": "Report", "said": "As GM (for ボブ): "},
}


async def history(c: Client) -> list[dict[str, Any]]:
    await c.send({"type": "history", "id": "h", "after": 0, "limit": 100})
    return list((await c.expect("history"))["entries"])


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("width", [1024, 1440, 1920])
async def test_gm_reports_for_an_absent_players_character(browser: Browser, demo: Demo,
                                                          width: int, lang: str) -> None:
    w = WORDS[lang]
    gm = await GM.connect(demo, ROOM)
    ctx = await browser.new_context(viewport={"width": width, "height": 900},
                                    locale="ja-JP" if lang == "ja" else "en-US")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    if await page.get_attribute("html", "lang") != lang:
        await page.click(".lang-toggle")
    await pw_expect(page.locator("html")).to_have_attribute("lang", lang)

    panel = page.locator(".panel[data-panel=bases_act]")
    await pw_expect(panel.locator(".panel-title")).to_contain_text(w["title"])
    await panel.locator("select[name=character]").select_option("ボブ")
    await pw_expect(panel.locator(".badge.as-gm")).to_have_text(w["badge"])
    await panel.locator("select[name=happening]").select_option(label=w["happening"])
    await panel.get_by_role("button", name=w["send"]).click()

    await gm.wait(lambda s: s["bases"]["characters"]["ボブ"]["status"] == "incapacitated",
                  "ボブ is off the field")
    sent = [e for e in await history(gm.c) if e["action"]["kind"] == "bases.report"]
    assert sent[-1]["action"]["character"] == "ボブ"
    assert sent[-1]["action"]["happening"] == "character.incapacitated"
    assert sent[-1]["actor"]["role"] == "gm"

    await page.click(".tabs button[data-tab=timeline]")
    said = page.locator(".timeline .tl-entry[data-kind='bases.report'] .tl-sentence").first
    await pw_expect(said).to_contain_text(w["said"])
    await pw_expect(said).to_contain_text("ボブ")
    await gm.close()
    con.check()
