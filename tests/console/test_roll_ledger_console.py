"""The bridge panel's roll ledger (server/console/js/side/connections.js, issue 29 part C)
in Debian's chromium against a real `komasync serve --demo`: a real bridge connection
delivers rolls in chat (one used for the TD-ATK-2 hit check, one komasync cannot read,
one from a speaker who is no PC) and the GM's console lists them per bridge, newest
first, in plain words — time, speaker → PC (player), the line, what became of it with
its codes beside — in Japanese at a desktop width and in English at a phone's width (a
console opened later is sent the kept rolls). Screenshots go to conftest.SHOTS."""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_console import GM, ROOM, open_console

from conftest import CHROMIUM, SHOTS, Client, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

LINE = "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 52 ＞ レギュラー成功"
GARBLED = "(1D100<=80) ＞ ？？ ＞ 成功"
USER = {"id": "u1", "name": "プレイヤー1"}


def chat(roll: str, speaker: str, text: str = "") -> dict[str, Any]:
    return {"kind": "chat", "text": text or roll, "roll": roll, "speaker": {"name": speaker},
            "user": USER}


async def bridge_rolls(demo: Demo) -> tuple[GM, Client]:
    """A Ccfolia bridge labelled ココフォリア卓, the PC attack phase, and three rolls."""
    gm = await GM.connect(demo)
    await gm.c.send({"type": "invite.create", "id": "inv-b", "role": "bridge", "label": "ココフォリア卓"})
    token = str((await gm.c.expect("invite"))["token"])
    bridge = await Client.connect(demo.ws)
    await bridge.auth(ROOM, token=token, platform="ccfolia")
    await bridge.expect("table.ops", reset=True)
    await gm.place_pcs()
    await gm.next_phase()
    await gm.answer_prompts()
    await gm.next_phase()
    await gm.next_phase()  # the PC attack phase
    for n, event in enumerate([chat(LINE, "カルロス・ベガ", "CC<=80 デザートイーグル r1-left_end"),
                               chat(GARBLED, "カルロス・ベガ"), chat(LINE, "見物人")]):
        await bridge.send({"type": "table.event", "id": f"e{n}", "event": event})
        await bridge.reply_to(f"e{n}")
    return gm, bridge


async def test_roll_ledger_in_japanese_and_english_at_two_widths(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    gm, bridge = await bridge_rolls(demo)
    await con.tab("connections")
    section = page.get_by_role("region", name="ココフォリア卓 のダイス")
    entries = section.locator("li.roll-entry")
    await pw_expect(entries).to_have_count(3)
    # newest first: the bystander's roll, the garbled line, the used one
    who = entries.nth(0).locator(".roll-who")
    await pw_expect(who).to_have_text("見物人 → （PCに結び付いていません）（プレイヤー1）")
    await pw_expect(entries.nth(0).locator(".roll-sentence")).to_contain_text("使われませんでした: ")
    await pw_expect(entries.nth(1).locator(".roll-line")).to_have_text(GARBLED)
    await pw_expect(entries.nth(1)).to_have_attribute("data-used", "no")
    await pw_expect(entries.nth(1)).to_have_attribute("data-code", "event_ignored")
    used = entries.nth(2)
    await pw_expect(used.locator(".roll-who")).to_have_text("カルロス・ベガ → カルロス・ベガ（プレイヤー1）")
    await pw_expect(used.locator(".roll-line")).to_have_text(LINE)
    await pw_expect(used.locator(".roll-sentence")).to_have_text("TD-ATK-2 の命中判定に使いました")
    await pw_expect(used).to_have_attribute("data-code", "td.attack")
    stamp = await used.locator("time").get_attribute("datetime")
    assert stamp and re.match(r"\d{4}-\d\d-\d\dT", stamp)
    await pw_expect(used.locator("time")).to_have_text(re.compile(r"\d{1,2}:\d\d:\d\d"))
    ledger = await page.locator(".roll-ledger").inner_text()
    assert "{" not in ledger and "outcome" not in ledger  # plain words, no raw JSON
    assert "td.attack" not in ledger and "event_ignored" not in ledger  # no internal codes
    SHOTS.mkdir(parents=True, exist_ok=True)
    await shot(page.locator(".roll-ledger"), "roll-ledger-ja.png")

    # a console opened later, in English on a phone's width, is sent the kept rolls
    en = await open_console(browser, demo, locale="en-US")
    await en.page.set_viewport_size({"width": 390, "height": 844})
    await en.tab("connections")
    section = en.page.get_by_role("region", name="Rolls from ココフォリア卓")
    entries = section.locator("li.roll-entry")
    await pw_expect(entries).to_have_count(3)
    who = entries.nth(0).locator(".roll-who")
    await pw_expect(who).to_have_text("見物人 → (not tied to a PC) (プレイヤー1)")
    await pw_expect(entries.nth(0).locator(".roll-sentence")).to_contain_text("not used: ")
    await pw_expect(entries.nth(2).locator(".roll-sentence")).to_have_text("used for the TD-ATK-2 hit check")
    who = entries.nth(2).locator(".roll-who")
    await pw_expect(who).to_have_text("カルロス・ベガ → カルロス・ベガ (プレイヤー1)")
    await pw_expect(en.page.locator(".roll-ledger h4")).to_have_text("Rolls the bridges received")
    fits = await en.page.locator(".roll-ledger").evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    assert fits, "the roll ledger overflows a phone's width"
    await shot(en.page.locator(".roll-ledger"), "roll-ledger-en-390.png")
    await bridge.close()
    await gm.close()
    con.check()
    en.check()


async def shot(locator: Any, name: str) -> None:
    """A screenshot of a panel the console may redraw meanwhile (a presence notice
    re-renders it): taken again from a fresh lookup when the element was replaced."""
    from playwright.async_api import Error as PlaywrightError

    for attempt in range(3):
        try:
            await locator.screenshot(path=str(SHOTS / name))
            return
        except PlaywrightError:
            if attempt == 2:
                raise
