"""The seamless-combat panel (server/console/js/panels/grid.js) and the player's cards
(player/grid.js) in Debian's chromium against `komasync serve --demo --demo-scenario
examples/seamless_combat.yaml` (GRID-RND-1/2, GRID-MV-1, GRID-RNG-1, GRID-ST-1/3).
Screenshots in Japanese and English go to conftest.SHOTS."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_console import Console, open_console, wait_version
from test_player import GM, actions_sent, open_player, received

from conftest import CHROMIUM, EXAMPLES, SHOTS, Demo, serve_demo, stop

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

ROOM = "demo"


@pytest.fixture
def grid_demo(tmp_path: Path) -> Iterator[Demo]:
    """The demo room playing the chapel (examples/seamless_combat.yaml)."""
    d = serve_demo(tmp_path / "g.sqlite3", EXAMPLES / "seamless_combat.yaml")
    try:
        yield d
    finally:
        stop(d)


async def click_square(con: Console, x: int, y: int) -> None:
    await con.page.locator(f".grid-legal-sq[data-x='{x}'][data-y='{y}'] rect").click()


async def test_grid_panel_runs_a_process_with_overlays(browser: Browser, grid_demo: Demo) -> None:
    # GRID-RND-1, GRID-MV-1, GRID-RNG-1, GRID-ST-1
    gm = await GM.connect(grid_demo, ROOM)
    con = await open_console(browser, grid_demo, ready=".grid-map")
    page = con.page
    panel = page.locator(".panel[data-panel=grid]")
    await pw_expect(panel.locator(".grid-head b")).to_have_text("戦闘前（コマは自由に動かせます）")
    await panel.locator("button[data-act='grid.start']").click()
    await pw_expect(page.locator(".headline")).to_contain_text("第1ラウンド · プレイヤーラウンド")
    await panel.locator("tr[data-combatant=fighter] button[data-declare=fighter]").click()
    await pw_expect(panel.locator(".grid-process")).to_contain_text("メインプロセス: 剣士レオ")
    legal = panel.locator(".grid-legal-sq")
    await pw_expect(legal.first).to_be_visible()
    ask = {"kind": "grid.legal", "combatant": "fighter"}
    await gm.c.send({"type": "query", "id": "legal1", "query": ask})
    answer = await gm.c.expect("query.result", id="legal1")
    assert await legal.count() == len(answer["result"]["squares"]) > 0  # the engine's own squares
    square = panel.locator(".grid-legal-sq[data-x='3'][data-y='4']")
    await pw_expect(square).to_have_attribute("data-cost", "2")
    await click_square(con, 3, 4)
    await gm.wait(lambda s: s["table"]["pieces"]["fighter"]["cell"] == {"x": 3, "y": 4}, "fighter moved")
    await pw_expect(panel.locator("tr[data-combatant=fighter]")).to_contain_text("(3, 4)")
    await pw_expect(panel.locator(".grid-step[data-step=minor]")).to_contain_text("残り1マス")
    assert actions_sent(con, "grid.move")[-1]["to"] == {"x": 3, "y": 4}

    # overlays on hover come from the server's queries: range 1 around the fighter
    await panel.locator(".grid-overlay-bar select").select_option("range")
    box = await panel.locator("svg.grid-map").bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    await pw_expect(panel.locator(".grid-overlay .grid-ov")).to_have_count(9)
    await panel.locator(".grid-overlay-bar select").select_option("scene")
    await page.mouse.move(box["x"] + box["width"] * (10.5 / 16), box["y"] + box["height"] * (6.5 / 12))
    await pw_expect(panel.locator(".grid-overlay .grid-ov")).to_have_count(25)
    assert any(m.get("type") == "query" and m["query"]["kind"] == "grid.area" for m in con.sent_json())

    # the GM adds poison; it strikes as the archer's process starts
    form = panel.locator(".grid-status-form")
    await form.locator("select[name='st.who']").select_option("archer")
    await form.locator("select[name='st.kind']").select_option("poison")
    await form.locator("input[name='st.value']").fill("3")
    await form.locator("button[data-act='grid.status.add']").click()
    poison = panel.locator("tr[data-combatant=archer] .grid-status[data-kind=poison]")
    await pw_expect(poison).to_contain_text("[毒] 3")
    await panel.locator(".grid-process button[data-act='grid.process.end']").click()
    await panel.locator("tr[data-combatant=archer] button[data-declare=archer]").click()
    await pw_expect(panel.locator("tr[data-combatant=archer]")).to_contain_text("HP 23")
    await gm.sync()
    await wait_version(con, gm.c.version)

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "grid-console-ja.png"))
    await page.click(".lang-toggle")
    await pw_expect(page.locator(".headline")).to_contain_text("Round 1 · player round")
    await pw_expect(panel.locator(".grid-process")).to_contain_text("Main process: 弓手カイ")
    await page.screenshot(path=str(SHOTS / "grid-console-en.png"))
    await gm.close()
    con.check()


async def test_grid_player_page_moves_own_character_on_legal_squares(
        browser: Browser, grid_demo: Demo) -> None:  # GRID-RND-2, GRID-MV-1, GRID-ST-3
    gm = await GM.connect(grid_demo, ROOM)
    con = await open_player(browser, grid_demo, ROOM, await gm.invite("player", "alice"))
    page = con.page
    cards = page.locator(".panel[data-panel=player_grid]")
    await pw_expect(cards.locator(".pg-card")).to_have_count(2)  # 剣士レオ and 魔術師ミナ only
    await gm.act({"kind": "grid.start"})
    fighter = cards.locator(".pg-card[data-combatant=fighter]")
    await fighter.locator("button[data-act='grid.process.start']").click()
    await pw_expect(fighter.locator(".pg-process")).to_be_visible()
    main = page.locator(".panel[data-panel=grid]")
    await pw_expect(main.locator(".grid-legal-sq").first).to_be_visible()
    await click_square(con, 2, 4)
    await gm.wait(lambda s: s["table"]["pieces"]["fighter"]["cell"] == {"x": 2, "y": 4}, "fighter moved")

    # a refusal is shown beside the control with its rule and reason
    await fighter.locator("select[name=timing]").select_option("move")
    await fighter.locator("select[name=what]").select_option("break_bind")
    await fighter.locator("button[data-act='grid.act']").click()
    refusal = fighter.locator(".pl-refusal[data-code=wrong_timing]")
    await pw_expect(refusal).to_contain_text("GRID-ST-3")
    await pw_expect(refusal).to_contain_text("この行動はメジャーで行います")

    # another player's character: no legal squares, no controls
    await gm.act({"kind": "grid.process.end", "combatant": "fighter"})
    await gm.act({"kind": "grid.process.start", "combatant": "archer"})
    await pw_expect(main.locator(".grid-process")).to_contain_text("弓手カイ")
    await pw_expect(main.locator(".grid-legal-sq")).to_have_count(0)
    await pw_expect(main.locator(".grid-process button")).to_have_count(0)
    raw = received(con)
    for secret in ("結界強度", "魔法防御", '"profile"'):
        assert secret not in raw, f"GM-only {secret!r} reached the player page"

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "grid-player-ja.png"))
    await page.click(".lang-toggle")
    await pw_expect(cards.locator(".panel-title, h3").first).to_be_visible()
    await pw_expect(refusal).to_contain_text("This is done in the major")
    await page.screenshot(path=str(SHOTS / "grid-player-en.png"))
    await gm.close()
    con.check()
