"""Issue 34: the replay page in Debian's chromium, from disk, with no network at all.

The GM plays a few phases of the demo tower defense, presses 「リプレイを書き出す」's
buttons in the console and gets both ZIPs; each is unpacked and its index.html opened
from file:// at 1024, 1440 and 1920 px. Every request the page makes is recorded and
must be a file:// one; the ja/en switch and stepping through the rounds are clicked.
Screenshots go to conftest.SHOTS (docs/console.md, scripts/screenshots.sh).
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from test_console import FORTS, FUTURE_WAVE_NAMES, GM, open_console

from conftest import CHROMIUM, SHOTS, Demo

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is missing")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

WIDTHS = (1024, 1440, 1920)


async def play_a_round(demo: Demo) -> None:
    """Set-up and round 1 up to the enemies' attack (the SAN prompts answered)."""
    gm = await GM.connect(demo)
    await gm.place_pcs()
    for _ in range(4):
        await gm.next_phase()
        await gm.answer_prompts()
        td = gm.c.state["tower_defense"]
        if td["phase"] == "pc_attack":  # カルロス shoots the coyotes at his fort: dice rolled
            group = next(g for g, v in td["groups"].items() if v["fort"] == FORTS["pc1"])
            weapon = next(iter(td["pcs"]["pc1"]["weapons"]))
            await gm.act({"kind": "td.attack", "pc": "pc1", "weapon": weapon, "group": group})
    await gm.close()


async def download_replays(browser: Browser, demo: Demo, into: Path) -> dict[str, Path]:
    """Both versions through the console's buttons, unpacked: audience → folder."""
    con = await open_console(browser, demo)
    await con.tab("invites")
    section = con.page.locator("section[data-section=replay]")
    await pw_expect(section.locator("h4")).to_have_text("リプレイを書き出す")
    folders = {}
    for audience in ("players", "gm"):
        async with con.page.expect_download() as info:
            await section.locator(f"button[data-replay={audience}]").click()
        download = await info.value
        assert download.suggested_filename == f"demo-replay-{audience}.zip"
        with zipfile.ZipFile(str(await download.path())) as zf:
            zf.extractall(into)
        folders[audience] = into / f"demo-replay-{audience}"
    con.check()
    await con.page.context.close()
    return folders


async def open_page(browser: Browser, folder: Path, width: int) -> tuple[Any, list[str], list[str]]:
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale="ja-JP")
    page = await ctx.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto((folder / "index.html").as_uri())
    await pw_expect(page.locator("#picture")).to_have_attribute("src", "round-00.svg")
    return page, requests, errors


async def test_the_console_exports_a_replay_that_opens_from_disk(browser: Browser, demo: Demo,
                                                                 tmp_path: Path) -> None:
    await play_a_round(demo)
    folders = await download_replays(browser, demo, tmp_path)
    players = "".join(p.read_text(encoding="utf-8") for p in folders["players"].iterdir())
    assert not [w for w in FUTURE_WAVE_NAMES if w in players]  # hidden waves stay hidden
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in WIDTHS:
        page, requests, errors = await open_page(browser, folders["players"], width)
        await pw_expect(page.locator("#audience")).to_contain_text("プレイヤー版")
        rounds = await page.locator("#round option").count()
        assert rounds >= 3
        await pw_expect(page.locator("#prev")).to_be_disabled()
        for n in range(1, rounds):  # step through every round with the button
            await page.click("#next")
            await pw_expect(page.locator("#picture")).to_have_attribute("src", f"round-{n:02d}.svg")
            await pw_expect(page.locator("#where")).to_contain_text(f"{n + 1} / {rounds}")
        await pw_expect(page.locator("#next")).to_be_disabled()
        await pw_expect(page.locator("#outcome")).to_be_visible()
        await page.select_option("#round", "2")
        await pw_expect(page.locator("#picture-title")).to_have_text("第1ラウンドの終わりの盤面")
        assert await page.locator("#steps li").count() > 1
        loaded = await page.locator("#picture").evaluate("img => img.naturalWidth")
        assert loaded > 0  # the SVG beside it was read from disk
        if width == 1440:
            await page.screenshot(path=str(SHOTS / "replay-players-ja.png"), full_page=True)
        await page.click("#lang")
        await pw_expect(page.locator("html")).to_have_attribute("lang", "en")
        await pw_expect(page.locator("#picture-title")).to_have_text("The board at the end of Round 1")
        await pw_expect(page.locator("#next")).to_have_text("Next round →")
        await page.click("#lang")
        await pw_expect(page.locator("#next")).to_have_text("次のラウンド →")
        assert requests and all(u.startswith("file://") for u in requests), requests
        assert not errors, errors
        await page.context.close()


async def test_the_gm_replay_marks_what_was_hidden(browser: Browser, demo: Demo,
                                                   tmp_path: Path) -> None:
    await play_a_round(demo)
    folders = await download_replays(browser, demo, tmp_path)
    page, requests, errors = await open_page(browser, folders["gm"], 1440)
    await pw_expect(page.locator("#audience")).to_contain_text("GM版")
    await page.select_option("#round", "2")
    # the SAN prompt was the GM's alone: its line is marked, in both languages
    marked = page.locator("#steps .hidden-line .mark")
    await pw_expect(marked.first).to_have_text("GMのみ")
    await pw_expect(page.locator("#steps .die").first).to_be_visible()  # the dice rolled
    await page.click("#lang")
    await pw_expect(marked.first).to_have_text("GM only")
    await page.screenshot(path=str(SHOTS / "replay-gm-en.png"), full_page=True)
    assert all(u.startswith("file://") for u in requests), requests
    assert not errors, errors
    await page.context.close()
