"""The shared board (server/console/js/board.js) in Debian's chromium (issue 31).

For random squares the engine says a piece may reach (`grid.legal`, asked by a separate GM
WebSocket client), a click-then-click, a drag and the keyboard move the piece to exactly that
square, as the server's state (read by that client, never from the page) shows: at 1024, 1440
and 1920 px, device scale factor 1 and 2, and in a touch-emulated context; a drop on a square
it may not reach is refused with the server's words beside the piece and the piece back
(GRID-MV-1). The same on the player page for the player's own piece, and a 100×100 map with
40 pieces: the time from drag start to lit squares is printed. Square centres come from each
square's own box (getBoundingClientRect), not from the code under test.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_console import Console
from test_player import GM

from conftest import CHROMIUM, EXAMPLES, ROOT, SHOTS, Demo, serve_demo, stop

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the board's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Page
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Page = Any

ROOM = "demo"
BIG = ROOT / "tests" / "data" / "board_100.yaml"
Cell = tuple[int, int]


def serve(tmp_path: Path, scenario: Path) -> Iterator[Demo]:
    d = serve_demo(tmp_path / "b.sqlite3", scenario)
    try:
        yield d
    finally:
        stop(d)


@pytest.fixture
def chapel(tmp_path: Path) -> Iterator[Demo]:
    """The demo room playing the chapel (examples/seamless_combat.yaml)."""
    yield from serve(tmp_path, EXAMPLES / "seamless_combat.yaml")


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[Demo]:
    """The demo room on a 100×100 map with 40 pieces (tests/data/board_100.yaml)."""
    yield from serve(tmp_path, BIG)


async def context(browser: Browser, width: int, dsf: int, *, touch: bool = False) -> Page:
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=dsf,
                                    locale="ja-JP", has_touch=touch, is_mobile=touch)
    return await ctx.new_page()


async def open_gm(browser: Browser, demo: Demo, width: int, dsf: int, *, touch: bool = False) -> Console:
    page = await context(browser, width, dsf, touch=touch)
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector(".grid-map")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    return con


async def open_as_player(browser: Browser, demo: Demo, token: str, width: int, dsf: int) -> Console:
    page = await context(browser, width, dsf)
    con = Console(page)
    await page.goto(f"{demo.url}#room={ROOM}&invite={token}")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await page.wait_for_selector(".grid-map")
    return con


ASKED = iter(range(1, 1_000_000))


async def legal(gm: GM, who: str) -> dict[Cell, int]:
    """The squares the engine says `who` may reach now, with their cost (grid.legal)."""
    for _ in range(5):
        qid = f"legal-{who}-{next(ASKED)}"
        await gm.c.send({"type": "query", "id": qid, "query": {"kind": "grid.legal", "combatant": who}})
        while (answer := await gm.c.recv(5.0)).get("id") != qid:
            pass
        if answer.get("code") != "busy":  # the room's query budget is shared with the page
            break
        await asyncio.sleep(float(answer["details"]["retry_after"]) + 0.01)
    assert answer["type"] == "query.result", answer
    return {(s["cell"]["x"], s["cell"]["y"]): s["cost"] for s in answer["result"]["squares"]}


def cell_of(gm: GM, who: str) -> Cell:
    c = gm.state["table"]["pieces"][gm.state["grid"]["combatants"][who]["piece"]]["cell"]
    return (c["x"], c["y"])


async def lands(gm: GM, who: str, to: Cell, page: Page | None = None) -> None:
    """The server has `who` on `to` (and the page has drawn it there, when given)."""
    await gm.wait(lambda s: cell_of(gm, who) == to, f"{who} on {to}")
    if page is not None:
        g = page.locator(f".grid-map .grid-piece[data-combatant={who}]")
        await pw_expect(g).to_have_attribute("data-x", str(to[0]))
        await pw_expect(g).to_have_attribute("data-y", str(to[1]))


async def centre(page: Page, selector: str) -> tuple[float, float]:
    """The centre of the element's own box (re-read if a re-render replaced it meanwhile)."""
    for _ in range(5):
        loc = page.locator(selector).first
        try:
            await loc.scroll_into_view_if_needed(timeout=2000)
            box = await loc.bounding_box(timeout=2000)
        except Exception:  # detached by a re-render: read the new one
            continue
        if box is not None:
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    raise AssertionError(f"no box for {selector}")


def square(c: Cell) -> str:
    return f".grid-map .grid-cell[data-x='{c[0]}'][data-y='{c[1]}']"


def piece(who: str) -> str:
    return f".grid-map .grid-piece[data-combatant={who}] circle"


async def begin(gm: GM, page: Page, who: str) -> dict[Cell, int]:
    """Open `who`'s main process; wait until the page shows it; the squares it may reach."""
    await gm.act({"kind": "grid.process.start", "combatant": who})
    await pw_expect(page.locator(f".grid-map .grid-piece.active[data-combatant={who}]")).to_have_count(1)
    movable = page.locator(f".grid-map .grid-piece.board-movable[data-combatant={who}]")
    await pw_expect(movable).to_have_count(1)
    squares = await legal(gm, who)
    squares.pop(cell_of(gm, who), None)
    assert squares
    return squares


async def click_click(page: Page, who: str, to: Cell, *, tap: bool = False) -> None:
    x, y = await centre(page, piece(who))
    await (page.touchscreen.tap(x, y) if tap else page.mouse.click(x, y))
    await pw_expect(page.locator(f"svg.grid-map[data-reach={who}]")).to_have_count(1)
    x, y = await centre(page, square(to))
    await (page.touchscreen.tap(x, y) if tap else page.mouse.click(x, y))


async def both(page: Page, a: str, b: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """The centres of two elements, read after both were scrolled into view (one may scroll the other)."""
    await centre(page, b)
    first = await centre(page, a)
    return first, await centre(page, b)


async def drag(page: Page, who: str, to: Cell) -> None:
    (x0, y0), (x1, y1) = await both(page, piece(who), square(to))
    await page.mouse.move(x0, y0)
    await page.mouse.down()
    await page.mouse.move(x0 + 8, y0 + 3, steps=2)
    await pw_expect(page.locator(f"svg.grid-map[data-reach={who}]")).to_have_count(1)  # lit while dragging
    await page.mouse.move(x1, y1, steps=6)
    await page.mouse.up()


async def touch_drag(page: Page, who: str, to: Cell) -> None:
    """A finger drag through the browser's own touch input (CDP), as a tablet sends it."""
    (x0, y0), (x1, y1) = await both(page, piece(who), square(to))
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 9):
        f = i / 8
        point = {"x": x0 + (x1 - x0) * f, "y": y0 + (y1 - y0) * f}
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


async def keys(page: Page, to: Cell) -> None:
    svg = page.locator("svg.grid-map.board-svg")
    await svg.focus()
    cursor = await svg.get_attribute("data-cursor")
    assert cursor
    cx, cy = (int(v) for v in cursor.split(","))
    await page.keyboard.press("Enter")
    await pw_expect(svg).to_have_attribute("data-reach", re.compile(r".+"))
    await page.keyboard.press("Escape")  # cancels: nothing held, nothing lit
    await pw_expect(svg).not_to_have_attribute("data-reach", re.compile(r".*"))
    await page.keyboard.press("Enter")
    await pw_expect(svg).to_have_attribute("data-reach", re.compile(r".+"))
    for _ in range(abs(to[0] - cx)):
        await page.keyboard.press("ArrowRight" if to[0] > cx else "ArrowLeft")
    for _ in range(abs(to[1] - cy)):
        await page.keyboard.press("ArrowDown" if to[1] > cy else "ArrowUp")
    await pw_expect(svg).to_have_attribute("data-cursor", f"{to[0]},{to[1]}")
    await page.keyboard.press("Enter")


async def refused_beside(gm: GM, page: Page, who: str, unreachable: Cell) -> None:
    """Drop `who` where it may not go: the server's words beside it, the piece back."""
    start = cell_of(gm, who)
    to = {"x": unreachable[0], "y": unreachable[1]}
    action = {"kind": "grid.move", "combatant": who, "to": to}
    await gm.c.send({"type": "action", "id": "probe", "action": action})
    probe = await gm.c.reply_to("probe")
    assert probe["type"] == "reject", probe
    await drag(page, who, unreachable)
    note = page.locator(f".board-refusal[data-piece={who}]")
    await pw_expect(note).to_contain_text(probe["reason"]["ja"])
    await pw_expect(note).to_have_attribute("data-code", probe["code"])
    g = page.locator(f".grid-map .grid-piece[data-combatant={who}]")
    await pw_expect(g).to_have_attribute("data-x", str(start[0]))
    await pw_expect(g).to_have_attribute("data-y", str(start[1]))
    await pw_expect(g).to_have_attribute("aria-label", re.compile(rf"^\({start[0]},{start[1]}\) "))
    nb, pb = await note.bounding_box(), await page.locator(piece(who)).bounding_box()
    assert nb and pb
    assert abs(nb["x"] - (pb["x"] + pb["width"])) < 40 and abs(nb["y"] - pb["y"]) < 40, (nb, pb)  # beside it
    await gm.sync()
    assert cell_of(gm, who) == start


def unreachable_for(gm: GM, squares: dict[Cell, int], who: str) -> Cell:
    g = gm.state["grid"]
    w, h = gm.state["table"]["grid"]["width"], gm.state["table"]["grid"]["height"]
    busy = {(o["x"], o["y"]) for o in g.get("obstacles", [])} | {cell_of(gm, c) for c in g["combatants"]}
    x0, y0 = cell_of(gm, who)
    far = [(x, y) for x in range(w) for y in range(h - 1)
           if (x, y) not in squares and (x, y) not in busy and abs(x - x0) + abs(y - y0) > 4]
    return far[0]


@pytest.mark.parametrize("dsf", [1, 2])
@pytest.mark.parametrize("width", [1024, 1440, 1920])
async def test_click_drag_and_keys_land_on_the_square(
        browser: Browser, chapel: Demo, width: int, dsf: int) -> None:
    # GRID-MV-1: each way of moving reaches exactly the chosen legal square; a bad drop is refused
    rng = random.Random(width * 10 + dsf)
    gm = await GM.connect(chapel, ROOM)
    con = await open_gm(browser, chapel, width, dsf)
    page = con.page
    leo = page.locator(".grid-map .grid-piece[data-combatant=fighter]")
    await pw_expect(leo).to_have_attribute("aria-label", "(1,4) 剣士レオ")
    await pw_expect(page.locator(square((1, 4)))).to_have_attribute("aria-label", "(1,4) 剣士レオ")
    await pw_expect(page.locator(square((3, 3)))).to_have_attribute("aria-label", "(3,3)")
    await gm.act({"kind": "grid.start"})
    for who, how in (("fighter", "click"), ("mage", "drag"), ("archer", "keys")):
        squares = await begin(gm, page, who)
        to = rng.choice(sorted(squares))
        if how == "click":
            await click_click(page, who, to)
        elif how == "drag":
            await drag(page, who, to)
        else:
            await keys(page, to)
        await lands(gm, who, to, page)
        if gm.state["grid"].get("process"):  # a long move may have spent every step
            await gm.act({"kind": "grid.process.end", "combatant": who})
    squares = await begin(gm, page, "priest")
    await refused_beside(gm, page, "priest", unreachable_for(gm, squares, "priest"))
    await gm.close()
    con.check()


async def test_touch_tap_tap_and_finger_drag(browser: Browser, chapel: Demo) -> None:
    # GRID-MV-1 on a tablet: taps and a finger drag (touch-action: none) land exactly
    rng = random.Random(7)
    gm = await GM.connect(chapel, ROOM)
    con = await open_gm(browser, chapel, 1024, 2, touch=True)
    page = con.page
    assert await page.evaluate("navigator.maxTouchPoints") > 0
    await gm.act({"kind": "grid.start"})
    squares = await begin(gm, page, "fighter")
    to = rng.choice(sorted(squares))
    await click_click(page, "fighter", to, tap=True)
    await lands(gm, "fighter", to, page)
    if gm.state["grid"].get("process"):
        await gm.act({"kind": "grid.process.end", "combatant": "fighter"})
    squares = await begin(gm, page, "mage")
    to = rng.choice(sorted(squares))
    await touch_drag(page, "mage", to)
    await lands(gm, "mage", to)
    selected = await page.evaluate("String(window.getSelection())")
    assert selected == ""  # dragging selects no text
    await gm.close()
    con.check()


@pytest.mark.parametrize("dsf", [1, 2])
async def test_player_drags_own_piece_and_sees_the_refusal(browser: Browser, chapel: Demo, dsf: int) -> None:
    # GRID-MV-1 on the player page: alice drags her own fighter; a bad drop is refused beside it
    rng = random.Random(dsf)
    gm = await GM.connect(chapel, ROOM)
    con = await open_as_player(browser, chapel, await gm.invite("player", "alice"), 1440, dsf)
    page = con.page
    await gm.act({"kind": "grid.start"})
    squares = await begin(gm, page, "fighter")
    assert await page.locator(".grid-map .grid-piece.board-movable").count() == 1  # only her piece in process
    cheapest = min(squares.values())  # so that steps are left for the refused drop after it
    to = rng.choice(sorted(c for c, cost in squares.items() if cost == cheapest))
    await drag(page, "fighter", to)
    await lands(gm, "fighter", to, page)
    squares = await legal(gm, "fighter")
    await refused_beside(gm, page, "fighter", unreachable_for(gm, squares, "fighter"))
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / f"board-player-refusal-dsf{dsf}.png"))
    await page.click(".lang-toggle")  # the same refusal, in English: the server's own words
    await pw_expect(page.locator(".board-refusal[data-piece=fighter]")).to_contain_text("squares")
    await gm.close()
    con.check()


async def test_large_map_zoomed_with_distinct_labels_and_timing(browser: Browser, plain: Demo) -> None:
    # a 100×100 map with 40 pieces: opens zoomed in, labels differ, a drag lands exactly; time printed
    gm = await GM.connect(plain, ROOM)
    con = await open_gm(browser, plain, 1440, 1)
    page = con.page
    board = page.locator(".board[data-board=grid]")
    assert float(await board.get_attribute("data-zoom") or 1) > 1
    labels = await page.locator(".grid-map .grid-piece").evaluate_all("els => els.map(e => e.dataset.label)")
    assert len(labels) == 40 and len(set(labels)) == 40, labels
    box = await page.locator(piece("p1")).bounding_box()
    assert box and box["width"] >= 24  # readable: a piece is drawn at least 24 px wide
    await gm.act({"kind": "grid.start"})
    squares = await begin(gm, page, "p1")
    x0, y0 = await centre(page, piece("p1"))
    await page.mouse.move(x0, y0)
    await page.mouse.down()
    await page.mouse.move(x0 + 8, y0 + 2, steps=2)
    svg = page.locator("svg.grid-map.board-svg")
    await pw_expect(svg).to_have_attribute("data-reach-ms", re.compile(r"\d"))
    ms = float(await svg.get_attribute("data-reach-ms") or "nan")
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "board-100x100-drag.png"))
    print(f"\n100x100 map, 40 pieces: drag start to lit squares {ms:.1f} ms (performance.now, first frame)")
    assert await page.locator(".board-reach-sq").count() == len(await legal(gm, "p1"))  # the engine's squares
    to = sorted(squares)[len(squares) // 2]
    x1, y1 = await centre(page, square(to))
    await page.mouse.move(x1, y1, steps=5)
    await page.mouse.up()
    await lands(gm, "p1", to)
    await gm.close()
    con.check()


async def test_table_pieces_drag_on_both_maps(browser: Browser, demo: Demo) -> None:
    # TABLE-MV-1: alice drags her own knight on her grid and on the table map; names in both languages
    rng = random.Random(3)
    gm = await GM.connect(demo, "demo-table")
    page = await context(browser, 1440, 2)
    con = Console(page)
    await page.goto(f"{demo.url}#room=demo-table&invite={await gm.invite('player', 'alice')}")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    mine = page.locator(".pl-grid .pl-token.board-movable")
    await pw_expect(mine).to_have_count(1)
    await pw_expect(mine).to_have_attribute("aria-label", "(1,1) 騎士")
    for where, token in ((".pl-grid", "pl-token"), (".table-map", "table-piece")):
        to = (rng.randrange(3, 12), rng.randrange(2, 8))
        (x0, y0), (x1, y1) = await both(page, f"{where} g.{token}[data-id=knight] circle",
                                        f"{where} rect[data-x='{to[0]}'][data-y='{to[1]}']")
        await page.mouse.move(x0, y0)
        await page.mouse.down()
        await page.mouse.move(x1, y1, steps=6)
        await page.mouse.up()
        want = {"x": to[0], "y": to[1]}
        await gm.wait(lambda s, w=want: s["table"]["pieces"]["knight"]["cell"] == w, f"knight on {to}")
        knight = page.locator(f"{where} g.{token}[data-id=knight]")
        await pw_expect(knight).to_have_attribute("data-x", str(to[0]))
    assert await page.locator(".table-map g.table-piece.board-movable").count() == 1  # not Bob's archer
    await page.click(".lang-toggle")
    await pw_expect(page.locator(".pl-grid .pl-token[data-id=knight]")).to_have_attribute(
        "aria-label", re.compile(r"^\(\d+,\d+\) Knight$"))
    await gm.close()
    con.check()
