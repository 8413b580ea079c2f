"""The tower defense map on the shared board (issue 31) in Debian's chromium.

A PC dragged, or clicked then its fort clicked, lands on that fort as the server's state
(read by a separate GM WebSocket client, never from the page) shows: `td.pc.place` in setup
(TD-PRE-1), `td.move` to a fort one passage away in the PC attack phase (TD-ATK-1); the
forts lit while holding are the ones the engine's adjacency gives; a drop on a fort the PC
may not reach is refused with the server's words beside the piece and the piece back. At
1024 and 1920 px, device scale factor 1 and 2; the same for a player's own PC on the
player page. Drop points are each fort box's own centre (getBoundingClientRect).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_board import centre, context
from test_console import Console
from test_player import GM, OTHER_FORTS, TD_ROOM

from conftest import CHROMIUM, SHOTS, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the board's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Page
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Page = Any

MAP = "svg.td-map.board-svg"


def fort_of(gm: GM, pc: str) -> str | None:
    fort: str | None = gm.state["tower_defense"]["pcs"][pc]["fort"]
    return fort


def cell(gm: GM, fort: str) -> tuple[int, int]:
    c = gm.state["tower_defense"]["forts"][fort]["cell"]
    return c["x"], c["y"]


def piece(pc: str) -> str:
    return f".td-map g.td-pc[data-pc={pc}] circle"


def fort_box(fort: str) -> str:
    return f".td-map g.td-fort[data-id={fort}] rect.td-fort-box"


async def place_all(gm: GM, pc1: str) -> None:
    await gm.act({"kind": "td.pc.place", "pc": "pc1", "fort": pc1})
    for pc, fort in OTHER_FORTS.items():
        await gm.act({"kind": "td.pc.place", "pc": pc, "fort": fort})


async def to_pc_attack(gm: GM) -> None:
    """Setup → reinforcement (its SAN prompts answered) → advance → PC attack."""
    await gm.act({"kind": "td.next_phase"})
    for pid in list(gm.state["prompts"]):
        await gm.act({"kind": "answer", "prompt": pid, "choice": "done"})
    await gm.act({"kind": "td.next_phase"})
    await gm.act({"kind": "td.next_phase"})
    assert gm.state["tower_defense"]["phase"] == "pc_attack"


async def at_fort(gm: GM, page: Page, pc: str, fort: str) -> None:
    """The server has `pc` at `fort`, and the page draws its piece on that fort's square."""
    await gm.wait(lambda s: s["tower_defense"]["pcs"][pc]["fort"] == fort, f"{pc} at {fort}")
    x, y = cell(gm, fort)
    g = page.locator(f".td-map g.td-pc[data-pc={pc}]")
    await pw_expect(g).to_have_attribute("data-x", str(x))
    await pw_expect(g).to_have_attribute("data-y", str(y))
    name = gm.state["tower_defense"]["pcs"][pc]["name"]
    await pw_expect(g).to_have_attribute("aria-label", f"({x},{y}) {name}")


async def drag(page: Page, pc: str, fort: str) -> None:
    await centre(page, fort_box(fort))
    x0, y0 = await centre(page, piece(pc))
    x1, y1 = await centre(page, fort_box(fort))
    await page.mouse.move(x0, y0)
    await page.mouse.down()
    await page.mouse.move(x0 + 8, y0 + 3, steps=2)
    await pw_expect(page.locator(f"{MAP}[data-reach={pc}]")).to_have_count(1)  # lit while dragging
    await page.mouse.move(x1, y1, steps=6)
    await page.mouse.up()


async def click_click(page: Page, pc: str, fort: str) -> None:
    x, y = await centre(page, piece(pc))
    await page.mouse.click(x, y)
    await pw_expect(page.locator(f"{MAP}[data-reach={pc}]")).to_have_count(1)
    x, y = await centre(page, fort_box(fort))
    await page.mouse.click(x, y)


async def lit(page: Page) -> set[tuple[int, int]]:
    squares = await page.locator(".td-map .board-reach-sq").evaluate_all(
        "els => els.map(e => [Number(e.dataset.x), Number(e.dataset.y)])")
    return {(x, y) for x, y in squares}


async def refused_beside(gm: GM, page: Page, pc: str, fort: str) -> None:
    """Drop `pc` on a fort it may not reach: the server's words beside it, the piece back."""
    start = fort_of(gm, pc)
    assert start
    await gm.c.send({"type": "action", "id": "probe", "action": {"kind": "td.move", "pc": pc, "to": fort}})
    probe = await gm.c.reply_to("probe")
    assert probe["type"] == "reject", probe
    await drag(page, pc, fort)
    note = page.locator(f".board-refusal[data-piece={pc}]")
    await pw_expect(note).to_contain_text(probe["reason"]["ja"])
    await pw_expect(note).to_have_attribute("data-code", probe["code"])
    await pw_expect(note).to_contain_text(probe["rule"])
    x, y = cell(gm, start)
    g = page.locator(f".td-map g.td-pc[data-pc={pc}]")
    await pw_expect(g).to_have_attribute("data-x", str(x))
    await pw_expect(g).to_have_attribute("data-y", str(y))
    nb, pb = await note.bounding_box(), await page.locator(piece(pc)).bounding_box()
    assert nb and pb
    assert abs(nb["x"] - (pb["x"] + pb["width"])) < 40 and abs(nb["y"] - pb["y"]) < 40, (nb, pb)  # beside it
    await gm.sync()
    assert fort_of(gm, pc) == start


async def open_gm(browser: Browser, demo: Demo, width: int, dsf: int) -> Console:
    page = await context(browser, width, dsf)
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={TD_ROOM}] button")
    await page.wait_for_selector(MAP)
    await page.wait_for_selector('.conn-status[data-status="open"]')
    return con


@pytest.mark.parametrize("dsf", [1, 2])
@pytest.mark.parametrize("width", [1024, 1920])
async def test_gm_drags_and_clicks_pcs_fort_to_fort(
        browser: Browser, demo: Demo, width: int, dsf: int) -> None:
    # TD-PRE-1 (setup: any fort), TD-ATK-1 (one passage away), its refusal beside the piece
    gm = await GM.connect(demo, TD_ROOM)
    con = await open_gm(browser, demo, width, dsf)
    page = con.page
    await place_all(gm, "final")
    fort = page.locator(".td-map g.td-fort[data-id=f_left]")
    await pw_expect(fort).to_have_attribute("aria-label", "(2,4) 左端砦")
    square = page.locator(".td-map rect.td-cell[data-x='3'][data-y='3']")
    await pw_expect(square).to_have_attribute("aria-label", "(3,3)")
    await at_fort(gm, page, "pc1", "final")
    assert await page.locator(".td-map g.td-pc.board-movable").count() == 7  # the GM: every PC
    assert await page.locator(".td-map g.td-group.board-movable, .td-map g.td-group[data-piece]").count() == 0

    await drag(page, "pc1", "f_left")  # setup: any fort (td.pc.place)
    await at_fort(gm, page, "pc1", "f_left")

    await to_pc_attack(gm)
    x, y = await centre(page, piece("pc2"))
    await page.mouse.click(x, y)
    await pw_expect(page.locator(f"{MAP}[data-reach=pc2]")).to_have_count(1)
    want = {cell(gm, f) for f in ("f_left", "f_center_right", "m_left")}  # f_center_left's passages
    await pw_expect(page.locator(".td-map .board-reach-sq")).to_have_count(len(want))
    assert await lit(page) == want
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"board-td-lit-{width}-dsf{dsf}.png"))
    x, y = await centre(page, fort_box("m_left"))
    await page.mouse.click(x, y)
    await at_fort(gm, page, "pc2", "m_left")

    await refused_beside(gm, page, "pc1", "final")  # not one passage away (TD-ATK-1)
    await drag(page, "pc1", "f_center_left")
    await at_fort(gm, page, "pc1", "f_center_left")
    await pw_expect(page.locator(".board-refusal")).to_have_count(0)
    await gm.close()
    con.check()


@pytest.mark.parametrize("dsf", [1, 2])
@pytest.mark.parametrize("width", [1024, 1920])
async def test_player_moves_only_their_own_pc(browser: Browser, demo: Demo, width: int, dsf: int) -> None:
    # TD-ATK-1 on the player page: p1 moves カルロス only; a far fort and a second move (TD-ATK-3) refused
    gm = await GM.connect(demo, TD_ROOM)
    page = await context(browser, width, dsf)
    con = Console(page)
    await page.goto(f"{demo.url}#room={TD_ROOM}&invite={await gm.invite('player', 'p1')}")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await place_all(gm, "f_left")
    await to_pc_attack(gm)
    mine = page.locator(".td-map g.td-pc.board-movable")
    await pw_expect(mine).to_have_count(1)
    await pw_expect(mine).to_have_attribute("data-pc", "pc1")
    await pw_expect(mine).to_have_attribute("aria-label", "(2,4) カルロス・ベガ")
    await refused_beside(gm, page, "pc1", "m_right")
    await click_click(page, "pc1", "f_center_left")
    await at_fort(gm, page, "pc1", "f_center_left")
    await pw_expect(page.locator(f"{MAP}[data-reach]")).to_have_count(0)
    # Moved this phase: nothing is lit, and the server's TD-ATK-3 words come back beside it.
    await refused_beside(gm, page, "pc1", "f_left")
    assert re.search("TD-ATK-3", await page.locator(".board-refusal[data-piece=pc1]").inner_text())
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"board-td-player-refusal-{width}-dsf{dsf}.png"))
    await gm.close()
    con.check()
