"""The GM plays tower-defense PCs from the console (issue 30), in Debian's chromium.

The GM's NPC 猟師ウォルト (npc1, no player) has the player page's own controls in the
console's 「GMとして」 panel: placed on a fort in setup (TD-PRE-1), then — the phase moved on
with the console's header button and the SAN prompt answered by a click (TD-RND, TD-REIN-1)
— a melee attack with its 消防斧 on the group at its fort, from a pasted BCDice line
(TD-ATK-2); an absent player's PC (カルロス・ベガ) shoots with komasync's dice (TD-ATK-3).
A separate GM WebSocket client sees the group's 個体数 drop and the shot spent, and the
history records the GM as the actor; the timeline says 「GMとして：猟師ウォルトが…」.
At 1024, 1440 and 1920 px, in Japanese and English; clicks only (and the pasted line).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_console import Console, wait_version
from test_player import GM, TD_ROOM

from conftest import CHROMIUM, SHOTS, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Locator
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Locator = Any

PANEL = ".panel[data-panel=tower_defense_gm]"
GROUP = "r1-left_end"  # round 1's coyotes from the left end, stopping at f_left (TD-ADV-1)
# Everyone but the NPC is placed from the GM socket (カルロス, pc1, shares the NPC's fort).
PLACED = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
          "pc5": "m_left", "pc6": "m_right"}
MELEE_LINE = "(1D100<=60) ボーナス・ペナルティダイス[0] ＞ 42 ＞ 42 ＞ レギュラー成功"
WORDS = {
    "ja": {"as_gm": "GMとして", "npc": "猟師ウォルト（NPC）", "sentence": "GMとして：猟師ウォルトが消防斧で",
           "shot": "GMとして（プレイヤー1の代わり）：カルロス・ベガが", "locale": "ja-JP"},
    "en": {"as_gm": "As GM", "npc": "猟師ウォルト (NPC)", "sentence": "As GM: 猟師ウォルト attacked",
           "shot": "As GM (for プレイヤー1): カルロス・ベガ attacked", "locale": "en-US"},
}


async def open_console(browser: Browser, demo: Demo, width: int, lang: str) -> Console:
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale=WORDS[lang]["locale"])
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={TD_ROOM}] button")
    await page.wait_for_selector(PANEL)
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await pw_expect(page.locator("html")).to_have_attribute("lang", lang)
    return con


async def next_phase(con: Console, gm: GM, want: str) -> None:
    """The console's header button; the GM socket sees `want`, the console that version."""
    await con.page.click("button.command[data-command='td.next_phase']")
    await gm.wait(lambda s: s["tower_defense"]["phase"] == want, f"phase {want}")
    await wait_version(con, gm.c.version)


async def history_actor(gm: GM, version: int) -> dict[str, Any]:
    await gm.c.send({"type": "history", "id": f"h{version}", "after": version - 1, "limit": 1})
    reply = await gm.c.expect("history")
    entry = reply["entries"][0]
    assert entry["version"] == version, entry
    actor: dict[str, Any] = entry["actor"]
    return actor


def card(con: Console, pc: str) -> Locator:
    return con.page.locator(f"{PANEL} .pl-card[data-pc={pc}]")


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("width", [1024, 1440, 1920])
async def test_gm_plays_the_npc_and_an_absent_players_pc(
        browser: Browser, demo: Demo, width: int, lang: str) -> None:
    words = WORDS[lang]
    gm = await GM.connect(demo, TD_ROOM)
    for pc, fort in PLACED.items():
        await gm.act({"kind": "td.pc.place", "pc": pc, "fort": fort})
    con = await open_console(browser, demo, width, lang)
    page = con.page
    await wait_version(con, gm.c.version)

    # Setup (TD-PRE-1): the NPC is picked by name and placed with the player page's buttons.
    npc = page.locator(f"{PANEL} button.tdgm-pc[data-pc=npc1]")
    await pw_expect(npc).to_contain_text("猟師ウォルト")
    await pw_expect(npc).to_have_attribute("aria-label", words["npc"])
    await npc.click()
    await pw_expect(npc).to_have_attribute("aria-pressed", "true")
    walt = card(con, "npc1")
    await pw_expect(walt.locator(".pl-as-gm")).to_contain_text(words["as_gm"])
    await pw_expect(walt.locator(".pl-place .pl-form-title")).to_contain_text(words["as_gm"])
    await walt.locator(".pl-place button[data-fort=f_left]").click()
    await gm.wait(lambda s: s["tower_defense"]["pcs"]["npc1"]["fort"] == "f_left", "npc1 at f_left")
    assert (await history_actor(gm, gm.c.version))["role"] == "gm"
    placed = walt.locator(".pl-place button[data-fort=f_left]")
    await pw_expect(placed).to_have_attribute("aria-pressed", "true")

    # The console's phase control: reinforcement (its SAN prompt answered), advance, PC attack.
    await next_phase(con, gm, "reinforcement")
    await page.locator(".prompt button[data-choice=done]").click()
    await gm.wait(lambda s: not s["prompts"], "the SAN prompt answered")
    await next_phase(con, gm, "advance")
    await next_phase(con, gm, "pc_attack")
    assert gm.state["tower_defense"]["groups"][GROUP]["fort"] == "f_left"
    before = gm.state["tower_defense"]["groups"][GROUP]["count"]

    # Melee with the NPC's 消防斧 on the group at its fort, from a pasted BCDice line (TD-ATK-2).
    melee = walt.locator(".pl-melee")
    await pw_expect(melee.locator("select[name=target]")).to_have_value(GROUP)  # in reach: listed first
    await melee.locator("input[type=radio][value=paste]").click()
    await melee.locator("textarea.pl-lines").fill(MELEE_LINE)
    go = melee.locator("button[data-act=melee]")
    await pw_expect(go).to_contain_text(words["as_gm"])
    await go.click()
    await pw_expect(melee.locator(".pl-done")).to_be_visible()
    await gm.wait(lambda s: s["tower_defense"]["groups"].get(GROUP, {"count": 0})["count"] < before,
                  "the group's 個体数 to drop")
    assert "melee" in gm.state["tower_defense"]["pcs"]["npc1"]["acted"]
    melee_version = gm.c.version
    assert (await history_actor(gm, melee_version))["role"] == "gm"
    await pw_expect(walt.locator(".pl-acted")).to_be_visible()

    # An absent player's PC: カルロス shoots with komasync's dice; the shot is spent whatever the roll.
    await page.locator(f"{PANEL} button.tdgm-pc[data-pc=pc1]").click()
    carlos = card(con, "pc1")
    await pw_expect(carlos.locator(".pl-as-gm")).to_be_visible()
    shoot = carlos.locator(".pl-attack")
    await pw_expect(shoot.locator("select[name=target]")).to_have_value(GROUP)
    await shoot.locator("button[data-act=attack]").click()
    await gm.wait(lambda s: "attack" in s["tower_defense"]["pcs"]["pc1"]["acted"], "カルロス to have shot")
    assert gm.state["tower_defense"]["pcs"]["pc1"]["weapons"]["desert_eagle"]["used"] == 1
    assert (await history_actor(gm, gm.c.version))["role"] == "gm"

    # The timeline says the GM did it, for whom, with names.
    await con.tab("timeline")
    shot = page.locator(".tl-entry[data-kind='td.attack']").first
    await pw_expect(shot.locator(".tl-sentence")).to_contain_text(words["shot"])
    entry = page.locator(f".tl-entry[data-version='{melee_version}']")
    await pw_expect(entry).to_have_attribute("data-kind", "td.melee")
    await pw_expect(entry.locator(".tl-sentence")).to_contain_text(words["sentence"])
    await pw_expect(entry.locator(".tl-actor")).to_have_text("GM")
    next_entry = page.locator(".tl-entry[data-kind='td.next_phase']").first
    await pw_expect(next_entry.locator(".tl-sentence")).not_to_contain_text(words["as_gm"])  # a GM's own act

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.locator(PANEL).screenshot(path=str(SHOTS / f"gm-acts-td-{width}-{lang}.png"))
    await gm.close()
    con.check()
