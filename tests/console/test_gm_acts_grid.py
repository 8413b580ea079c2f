"""The GM plays an absent player's character from the console (issue 30), in Debian's
chromium, by clicks only, at 1024/1440/1920 px in Japanese and English: in seamless
combat (examples/seamless_combat.yaml) the GM moves アリス's 剣士レオ on the map and acts
with the player page's own card, marked 「GMとして」, and the timeline says it in words
with the steps the move spent (GRID-MV-1); in an engagement (examples/engagement.yaml)
the GM answers 鬼武者's melee with アリス's 剣士アヤ's defence (ENG-ACT-2, ENG-GUARD).
A separate GM WebSocket client checks what the server holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_console import Console
from test_player import GM, actions_sent

from conftest import CHROMIUM, EXAMPLES, Demo, serve_demo, stop

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

ROOM = "demo"
MATRIX = pytest.mark.parametrize(("width", "lang"),
                                 [(w, lang) for w in (1024, 1440, 1920) for lang in ("ja", "en")])

WORDS = {
    "ja": {
        "badge": "GMとして（アリスの代わり）",
        "move": "GMとして（アリスの代わり）：剣士レオが(3,4)へ移動（ムーブ1・マイナー1）",
        "act": "GMとして（アリスの代わり）：剣士レオがメジャーでアクション",
        "melee": "GMとして：鬼武者が剣士アヤに近接攻撃（DP1）",
        "defend": "GMとして（アリスの代わり）：剣士アヤが回避（DP2）",
    },
    "en": {
        "badge": "as GM (for アリス)",
        "move": "As GM (for アリス): 剣士レオ moves to (3,4) (move 1, minor 1)",
        "act": "As GM (for アリス): 剣士レオ: an action in the major",
        "melee": "As GM: 鬼武者 makes a melee attack on 剣士アヤ (DP 1)",
        "defend": "As GM (for アリス): 剣士アヤ declares evade (DP 2)",
    },
}


def one_die(face: int) -> str:
    return f"(1D6) ＞ {face}"


@pytest.fixture
def grid_demo(tmp_path: Path) -> Iterator[Demo]:
    d = serve_demo(tmp_path / "g.sqlite3", EXAMPLES / "seamless_combat.yaml")
    try:
        yield d
    finally:
        stop(d)


@pytest.fixture
def eng_demo(tmp_path: Path) -> Iterator[Demo]:
    d = serve_demo(tmp_path / "e.sqlite3", EXAMPLES / "engagement.yaml")
    try:
        yield d
    finally:
        stop(d)


async def open_gm(browser: Browser, demo: Demo, width: int, lang: str, ready: str) -> Console:
    """The GM's console at `width`, signed in, in `lang` (switched by its button if needed)."""
    ctx = await browser.new_context(viewport={"width": width, "height": 900},
                                    locale="ja-JP" if lang == "ja" else "en-US")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector(ready)
    await page.wait_for_selector('.conn-status[data-status="open"]')
    if await page.locator("html").get_attribute("lang") != lang:
        await page.click(".lang-toggle")
    await pw_expect(page.locator("html")).to_have_attribute("lang", lang)
    return con


async def history(gm: GM) -> list[dict[str, Any]]:
    await gm.c.send({"type": "history", "id": "h", "after": 0, "limit": 1000})
    return list((await gm.c.expect("history", id="h"))["entries"])


@MATRIX
async def test_gm_plays_an_absent_players_pc_in_seamless_combat(
        browser: Browser, grid_demo: Demo, width: int, lang: str) -> None:  # GRID-MV-1, GRID-RND-2
    w = WORDS[lang]
    gm = await GM.connect(grid_demo, ROOM)
    con = await open_gm(browser, grid_demo, width, lang, ".grid-map")
    page = con.page
    panel = page.locator(".panel[data-panel=grid]")
    await panel.locator("button[data-act='grid.start']").click()
    await panel.locator("tr[data-combatant=fighter] button[data-declare=fighter]").click()

    # アリス is not here: the GM plays her 剣士レオ with the player's card, marked as the GM's
    mine = panel.locator(".grid-as-gm[data-combatant=fighter]")
    await pw_expect(mine.locator(".badge.as-gm")).to_have_text(w["badge"])
    card = mine.locator(".pg-card[data-combatant=fighter]")
    await pw_expect(card.locator("button[data-act='grid.act']")).to_be_visible()
    await panel.locator(".grid-legal-sq[data-x='3'][data-y='4'] rect").click()
    await gm.wait(lambda s: s["table"]["pieces"]["fighter"]["cell"] == {"x": 3, "y": 4}, "レオ moved")
    moved = {"kind": "grid.move", "combatant": "fighter", "to": {"x": 3, "y": 4}}
    assert actions_sent(con, "grid.move")[-1] == moved  # a click on the map, nothing typed
    await pw_expect(card.locator(".grid-step[data-step=minor]")).to_have_attribute("data-spent", "move")
    await card.locator("button[data-act='grid.step.end']").click()
    await pw_expect(mine).to_have_attribute("data-step", "major")
    await card.locator("button[data-act='grid.act']").click()
    await gm.wait(lambda s: "fighter" in s["grid"]["acted"]
                  or ((s["grid"]["process"] or {}).get("spent") or {}).get("major") == "action", "レオ acted")
    acted = [e for e in await history(gm) if e["action"]["kind"] == "grid.act"]
    assert acted[-1]["action"]["timing"] == "major" and acted[-1]["actor"]["role"] == "gm"

    # the timeline says it in words: who for, where to and the squares of each step
    await page.click(".tabs button[data-tab=timeline]")
    tl = page.locator(".timeline")
    await pw_expect(tl.locator(".tl-entry[data-kind='grid.move'] .tl-sentence")).to_have_text(w["move"])
    await pw_expect(tl.locator(".tl-entry[data-kind='grid.act'] .tl-sentence")).to_have_text(w["act"])
    await pw_expect(tl.locator(".tl-entry[data-kind='grid.move'] .tl-log")).to_have_count(0)  # not said twice
    # the undo dialog lists the same sentences (then the GM thinks better of it)
    await tl.locator(".tl-entry[data-kind='grid.process.start'] .tl-undo").click()
    await pw_expect(page.locator(".pop-form .undo-list li").filter(has_text=w["move"])).to_have_count(1)
    await page.locator(".pop-form .pop-buttons button[type=button]").click()
    await pw_expect(page.locator(".pop-form")).to_have_count(0)
    assert gm.state["table"]["pieces"]["fighter"]["cell"] == {"x": 3, "y": 4}
    await gm.close()
    con.check()


@MATRIX
async def test_gm_plays_an_absent_players_defence_in_an_engagement(
        browser: Browser, eng_demo: Demo, width: int, lang: str) -> None:  # ENG-ACT-2, ENG-GUARD
    w = WORDS[lang]
    gm = await GM.connect(eng_demo, ROOM)
    await gm.act({"kind": "engagement.start"})
    await gm.act({"kind": "engagement.phase"})
    await gm.act({"kind": "engagement.link", "a": "oni", "b": "aya"})
    await gm.act({"kind": "engagement.melee", "combatant": "oni", "target": "aya", "dp": 1,
                  "result": one_die(2)})
    con = await open_gm(browser, eng_demo, width, lang, ".eng-graph")
    page = con.page
    panel = page.locator(".panel[data-panel=engagement]")

    # the attack waits for アヤ: the GM's "as GM" card is hers, with the player's defence form
    mine = panel.locator(".eng-as-gm[data-as-gm=aya]")
    await pw_expect(mine.locator(".badge.as-gm")).to_have_text(w["badge"])
    defend = mine.locator(".pe-card[data-combatant=aya] .pe-form[data-form=defend]")
    await defend.locator("button[data-act='engagement.defend']").click()
    await gm.wait(lambda s: (s["engagement"]["exchange"] or {}).get("defence") is not None
                  or s["engagement"]["exchange"] is None, "アヤ's defence is in")
    sent = [e for e in await history(gm) if e["action"]["kind"] == "engagement.defend"]
    assert sent[-1]["action"]["combatant"] == "aya" and sent[-1]["action"]["defence"] == "evade"
    assert sent[-1]["actor"]["role"] == "gm"

    await page.click(".tabs button[data-tab=timeline]")
    tl = page.locator(".timeline")
    said = ".tl-entry[data-kind='engagement.{}'] .tl-sentence"
    await pw_expect(tl.locator(said.format("melee"))).to_have_text(w["melee"])
    await pw_expect(tl.locator(said.format("defend"))).to_have_text(w["defend"])
    await gm.close()
    con.check()
