"""Screenshots of every subsystem's GM console and player page (issue 30), in ja and en.

For each demo room a GM and a player play a short scripted session over real WebSocket
clients (test_plain_words' SCRIPTS, prompts left pending); Debian's chromium then opens the
GM console and the player's page at 1440×900. Each page must show its subsystem's panel in
the UI language, with no raw JSON, audience key or named id in the panel or the history.
The PNGs go to conftest.SHOTS: the ignored test-artifacts/ folder, or docs/screenshots
when scripts/screenshots.sh sets KOMASYNC_SCREENSHOTS.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_console import Console, wait_version
from test_plain_words import SCRIPTS, findings, internal_kinds, named_ids, open_gm, refusal_codes, set_lang
from test_player import GM, open_player

from conftest import CHROMIUM, SHOTS, Client, Demo
from komasync.examples import DEMOS

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the screenshots need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

WIDTH, HEIGHT = 1440, 900
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# The player page's panel of each subsystem (js/player/<subsystem>.js registers it).
PLAYER_PANEL = {"tower_defense": "player_td"}


def shot_name(subsystem: str, page: str, lang: str) -> str:
    """The file docs/console.md embeds: session-<subsystem>-<console|player>-<lang>.png."""
    return f"session-{subsystem}-{page}-{lang}.png"


async def play(gm: GM, player: Client, script: list[tuple[str, dict[str, Any]]]) -> dict[str, int]:
    """Send the room's scripted actions; prompts stay unanswered so one shows as pending."""
    counts: dict[str, int] = {}
    for who, action in script:
        client = gm.c if who == "gm" else player
        reply = await client.reply_to(await client.act(action))
        counts[reply["type"]] = counts.get(reply["type"], 0) + 1
        if reply["type"] == "ack":
            await gm.c.settle(reply["version"])
    await gm.sync()
    return counts


def check_text(text: str, lang: str, state: dict[str, Any], where: str) -> list[str]:
    """test_plain_words' findings for one piece of the page, labelled by where it was.
    In English an id that is a plain word ("final", "battle") is also a word of the UI; a raw
    id does not translate, so the Japanese pass of the same page still catches it."""
    ids = named_ids(state)
    if lang == "en":
        ids = {i for i in ids if not i.isalpha()}
    found = findings(text, lang, ids, refusal_codes(), internal_kinds())
    return [f"[{where} {lang}] {f}" for f in found]


async def panel_text(con: Console, panel: str) -> str:
    """The panel's text as shown (ids only in tooltips, never beside their names)."""
    return str(await con.page.locator(f".panel[data-panel={panel}]").inner_text())


async def panel_title(con: Console, panel: str, lang: str) -> str:
    """The panel is on screen with a title in the UI language."""
    loc = con.page.locator(f".panel[data-panel={panel}]")
    await pw_expect(loc).to_be_visible()
    title = (await loc.locator(".panel-title").inner_text()).strip()
    assert title, f"{panel} has no title"
    assert bool(CJK.search(title)) == (lang == "ja"), f"{panel} title {title!r} is not in {lang}"
    return title


@pytest.mark.parametrize(("subsystem", "room"), [(d.subsystem, d.room) for d in DEMOS])
async def test_screenshots_of_console_and_player_page(browser: Browser, demo: Demo,
                                                      subsystem: str, room: str) -> None:
    player_id, script = SCRIPTS[room]
    gm = await GM.connect(demo, room)
    pc = await Client.connect(demo.ws)
    await pc.auth(room, token=await gm.invite("player", player_id), client="test player")
    await pc.expect("snapshot")
    counts = await play(gm, pc, script)
    assert counts.get("ack", 0) >= 2, counts

    con = await open_gm(browser, demo, room)
    await wait_version(con, gm.c.version)
    player = await open_player(browser, demo, room, await gm.invite("player", player_id),
                               locale="en-US", width=WIDTH, height=HEIGHT)
    await player.page.wait_for_selector(".viewer-log li")
    player_panel = PLAYER_PANEL.get(subsystem, f"player_{subsystem}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    titles: dict[str, tuple[str, str]] = {}
    for lang in ("ja", "en"):
        await set_lang(con, lang)
        await set_lang(player, lang)
        await con.tab("timeline")
        await pw_expect(con.page.locator(".tl-entry:not(.tl-start)").first).to_be_visible()
        titles[lang] = (await panel_title(con, subsystem, lang),
                        await panel_title(player, player_panel, lang))
        for where, text in {
            "console panel": await panel_text(con, subsystem),
            "console timeline": await con.page.locator(".timeline").inner_text(),
            "player panel": await panel_text(player, player_panel),
            "player log": await player.page.locator(".viewer-log").inner_text(),
        }.items():
            problems += check_text(text, lang, gm.state, f"{room} {where}")
        await con.page.screenshot(path=str(SHOTS / shot_name(subsystem, "console", lang)))
        await player.page.screenshot(path=str(SHOTS / shot_name(subsystem, "player", lang)))
    assert titles["ja"] != titles["en"], titles
    assert not problems, "shown where a name or words belong:\n" + "\n".join(problems)
    await pc.close()
    await gm.close()
    con.check()
    player.check()
