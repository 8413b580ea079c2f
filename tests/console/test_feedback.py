"""Feedback that stays true (issue 30), in Debian's chromium against `komasync serve --demo`.

- A "done" note (反映しました) under a control goes when the room moves on and, left alone,
  after a few seconds; a refusal stays until the control is used again.
- An undo the GM makes through the console's undo dialog takes what it undid off every
  page: the move's note and its log line on the player's page (live and after a reload)
  and the log lines under the undone entry of the console's timeline (`change.undo_to`,
  history entries' `undo_to`).
- Two pieces with the same name get distinct labels on the board (board.js pieceLabels).

Each test runs at 1024, 1440 and 1920 px in ja and en; a separate GM WebSocket client
checks the room's state.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_console import Console
from test_player import GM, open_player

from conftest import CHROMIUM, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

GRID, TABLE = "demo-grid", "demo-table"
WIDTHS = (1024, 1440, 1920)
LANGS = ("ja", "en")
LOCALE = {"ja": "ja-JP", "en": "en-US"}
DONE_WAIT_MS = 20_000  # longer than player/common.js DONE_MS: the note must have gone by then
MOVED = {"ja": "へ移動", "en": "moves to"}  # engine/grid/moves.py MOVED
UNDO_NOTE = {"ja": "GMがv{v}の時点まで戻しました", "en": "The GM went back to v{v}"}

matrix = pytest.mark.parametrize(("width", "lang"), [(w, lang) for w in WIDTHS for lang in LANGS])


async def set_lang(con: Console, lang: str) -> None:
    if await con.page.get_attribute("html", "lang") != lang:
        await con.page.click(".lang-toggle")
    await pw_expect(con.page.locator("html")).to_have_attribute("lang", lang)


async def player_page(browser: Browser, demo: Demo, gm: GM, room: str, player: str, width: int,
                      lang: str) -> Console:
    con = await open_player(browser, demo, room, await gm.invite("player", player),
                            locale=LOCALE[lang], width=width, height=900)
    await set_lang(con, lang)
    return con


async def gm_console(browser: Browser, demo: Demo, room: str, width: int, lang: str) -> Console:
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale=LOCALE[lang])
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={room}] button")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await page.wait_for_selector(".tl-entry.tl-start")
    await set_lang(con, lang)
    return con


async def at_version(con: Console, version: int) -> None:
    await pw_expect(con.page.locator(".conn-status .version")).to_have_text(re.compile(rf"v{version}\b"))


async def start_fighter(gm: GM, con: Console) -> Any:
    """The round starts (GM client); the player clicks 剣士レオ's main process start."""
    await gm.act({"kind": "grid.start"})
    card = con.page.locator(".panel[data-panel=player_grid] .pg-card[data-combatant=fighter]")
    await card.locator("button[data-act='grid.process.start']").click()
    await gm.wait(lambda s: (s["grid"]["process"] or {}).get("combatant") == "fighter", "fighter in process")
    return card


@matrix
async def test_done_note_goes_and_a_refusal_stays(browser: Browser, demo: Demo, width: int,
                                                  lang: str) -> None:
    gm = await GM.connect(demo, GRID)
    con = await player_page(browser, demo, gm, GRID, "alice", width, lang)
    card = await start_fighter(gm, con)
    done = card.locator(".pl-done")
    await pw_expect(done).to_contain_text(f"v{gm.c.version}")

    # the room moves on (the GM changes something the player does not even see): the note goes
    await gm.act({"kind": "table.counter.add", "counter": "ghoul1_hp", "delta": -1})
    await pw_expect(done).to_have_count(0)

    # a refusal stays while the room moves on, until the control is used again
    await card.locator("select[name=timing]").select_option("move")
    await card.locator("select[name=what]").select_option("break_bind")
    await card.locator("button[data-act='grid.act']").click()
    refusal = card.locator(".pl-refusal[data-code=wrong_timing]")
    await pw_expect(refusal).to_contain_text("GRID-ST-3")
    await gm.act({"kind": "table.counter.add", "counter": "ghoul1_hp", "delta": -1})
    await at_version(con, gm.c.version)
    await pw_expect(refusal).to_be_visible()
    await card.locator("button[data-act='grid.step.end']").click()  # the same control, used again
    await gm.wait(lambda s: s["grid"]["process"]["step"] != "move", "the next step")
    await pw_expect(refusal).to_have_count(0)

    # left alone, the note of that action goes by itself
    await pw_expect(card.locator(".pl-done")).to_have_count(1)
    await pw_expect(card.locator(".pl-done")).to_have_count(0, timeout=DONE_WAIT_MS)
    await gm.close()
    con.check()


@matrix
async def test_undo_takes_the_move_off_every_page(browser: Browser, demo: Demo, width: int,
                                                  lang: str) -> None:
    gm = await GM.connect(demo, GRID)
    player = await player_page(browser, demo, gm, GRID, "alice", width, lang)
    console = await gm_console(browser, demo, GRID, width, lang)
    await start_fighter(gm, player)
    page = player.page

    # the player moves 剣士レオ by clicking a legal square: the note and the log say so
    main = page.locator(".panel[data-panel=grid]")
    square = main.locator(".grid-legal-sq[data-x='3'][data-y='4']")
    await square.locator("rect").click()
    await gm.wait(lambda s: s["table"]["pieces"]["fighter"]["cell"] == {"x": 3, "y": 4}, "fighter moved")
    moved = gm.c.version
    note = main.locator(".pl-done")
    await pw_expect(note).to_contain_text(MOVED[lang])
    feed = page.locator(".viewer-log")
    await pw_expect(feed.locator(f"li[data-version='{moved}']")).to_contain_text(MOVED[lang])
    entry = console.page.locator(f".tl-entry[data-version='{moved}']")
    await pw_expect(entry).to_contain_text(MOVED[lang])
    await pw_expect(entry).not_to_have_attribute("data-undone", "1")

    # the GM goes back to before the move through the timeline's undo dialog
    await console.page.locator(f".tl-entry[data-version='{moved - 1}'] button.tl-undo").click()
    dialog = console.page.locator(".popover")
    await pw_expect(dialog.locator(f".undo-list li[data-version='{moved}']")).to_be_visible()
    await dialog.locator("button.primary").click()
    await gm.wait(lambda s: s["table"]["pieces"]["fighter"]["cell"] == {"x": 1, "y": 4}, "move undone")
    assert gm.c.version == moved + 1

    # the player's page: no note, no line of the move; the feed says the GM went back
    await at_version(player, moved + 1)
    await pw_expect(page.locator(".pl-done")).to_have_count(0)
    await pw_expect(feed.locator(f"li[data-version='{moved}']")).to_have_count(0)
    await pw_expect(feed.locator(f"li[data-version='{moved + 1}']")).to_contain_text(
        UNDO_NOTE[lang].format(v=moved - 1))
    assert MOVED[lang] not in await feed.inner_text()
    # the console: the entry stays in the history (the GM may go back to it), marked undone,
    # its lines, rolls and warnings dropped; the undo dialog no longer lists it as undoable
    await pw_expect(entry).to_have_attribute("data-undone", "1")
    await pw_expect(entry.locator(".tl-undone-badge")).to_be_visible()
    await pw_expect(entry.locator(".tl-log, .tl-rolls, .tl-warnings")).to_have_count(0)
    await console.page.locator(".tl-entry.tl-start button.tl-undo").click()
    await pw_expect(dialog.locator(".undo-list li")).to_have_count(3)  # the undo, process start, grid start
    await pw_expect(dialog.locator(f".undo-list li[data-version='{moved}']")).to_have_count(0)
    await dialog.locator("button:not(.primary)").click()
    await pw_expect(dialog).to_have_count(0)
    # a fresh load of the player's page reads the same from the history
    await page.reload()
    await at_version(player, moved + 1)
    await pw_expect(feed.locator(f"li[data-version='{moved + 1}']")).to_be_visible()
    await pw_expect(feed.locator(f"li[data-version='{moved}']")).to_have_count(0)
    await gm.close()
    player.check()
    console.check()


GOBLIN = "ゴブリン / Goblin"
EXPECTED = {"ja": ("ゴブ1", "ゴブ2", "グ"), "en": ("Go1", "Go2", "Gh")}


@matrix
async def test_two_goblins_get_distinct_labels(browser: Browser, demo: Demo, width: int,
                                               lang: str) -> None:
    gm = await GM.connect(demo, TABLE)
    for pid, x in (("goblin1", 5), ("goblin2", 6)):
        await gm.act({"kind": "table.piece.place",
                      "piece": {"id": pid, "name": GOBLIN, "cell": {"x": x, "y": 4}}})
    assert [gm.state["table"]["pieces"][p]["name"] for p in ("goblin1", "goblin2")] == [GOBLIN, GOBLIN]
    console = await gm_console(browser, demo, TABLE, width, lang)
    player = await player_page(browser, demo, gm, TABLE, "alice", width, lang)
    one, two, ghoul = EXPECTED[lang]
    for con in (console, player):
        for pid, label in (("goblin1", one), ("goblin2", two), ("ghoul", ghoul)):
            pieces = con.page.locator(f"svg g[data-id={pid}]")
            await pw_expect(pieces.first).to_have_attribute("data-label", label)
            assert await pieces.count() >= 1
            for i in range(await pieces.count()):
                await pw_expect(pieces.nth(i).locator("text")).to_have_text(label)
        labels = await con.page.locator("svg g[data-label]").evaluate_all(
            "els => els.map(e => e.closest('svg').getAttribute('class') + ':' + e.dataset.label)")
        per_board: dict[str, list[str]] = {}
        for item in labels:
            board, label = item.split(":", 1)
            per_board.setdefault(board, []).append(label)
        for board, shown in per_board.items():
            assert len(shown) == len(set(shown)), (board, shown)
            assert not any(re.fullmatch(r"ゴ|G", s) for s in shown), shown  # no bare first character
    await gm.close()
    console.check()
    player.check()


BY_GM = {"ja": "GM", "en": "GM"}
BY_GM_TITLE = {"ja": "GMが行った変更です", "en": "a change the GM made"}


@pytest.mark.parametrize(("width", "lang"), [(1024, "ja"), (1920, "en")])
async def test_a_players_log_marks_what_the_gm_did(browser: Browser, demo: Demo, width: int,
                                                  lang: str) -> None:
    """The GM's changes (its own, and for her PC) are marked in the player's log, live and
    after a reload from the public history; her own are not (`change.by_gm`)."""
    gm = await GM.connect(demo, GRID)
    player = await player_page(browser, demo, gm, GRID, "alice", width, lang)
    page = player.page
    await start_fighter(gm, player)  # the GM starts the round; she starts 剣士レオ's process
    started, hers = gm.c.version - 1, gm.c.version
    await gm.act({"kind": "grid.move", "combatant": "fighter", "to": {"x": 3, "y": 4}})  # for her PC
    for_her = gm.c.version
    feed = page.locator(".viewer-log")

    async def marks() -> None:
        for version, by_gm in ((started, True), (hers, False), (for_her, True)):
            lines = feed.locator(f"li[data-version='{version}']")
            await pw_expect(lines.first).to_be_visible()
            badge = lines.first.locator(".feed-gm")
            if by_gm:
                await pw_expect(badge).to_have_text(BY_GM[lang])
                await pw_expect(badge).to_have_attribute("title", BY_GM_TITLE[lang])
            else:
                await pw_expect(badge).to_have_count(0)

    await at_version(player, for_her)
    await marks()
    await page.reload()
    await at_version(player, for_her)
    await marks()
    await gm.close()
    player.check()
