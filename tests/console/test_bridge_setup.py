"""Bridge set-up by clicking (issue 30; server/console/js/side/bridge_setup.js) in Debian's
chromium against a real `komasync serve --demo`, at 1024, 1440 and 1920 px in Japanese and
English. Two fake bridges connect over real WebSockets and report what the set-up needs
(`bridge.status` tokens/users, docs/bridges.md): a Foundry one its scene's pieces and
users, a Ccfolia one a page check with the data layer missing. The GM, through clicks
only, calibrates by picking two VTT pieces by name and clicking their squares on the
room's board, and matches a VTT user to a player from two lists; a separate GM WebSocket
client sees both saved in `meta.platforms.foundry`. The Ccfolia check says in words what
works and what to do; the hook ids (react_root, webpack_chunks) appear only inside the
folded technical details."""

from __future__ import annotations

from typing import Any

import pytest
from test_console import GM, ROOM, Recorder, open_console, until

from conftest import CHROMIUM, Client, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Locator
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Locator = Any

# Two pieces the GM put on the VTT: 目印A on square (1, 1), 目印B on square (4, 3), 100 px
# squares, square (0, 0)'s top-left at (550, 350).
TOKENS = [{"name": "目印A", "left": 650, "top": 450}, {"name": "目印B", "left": 950, "top": 650},
          {"name": "カルロス・ベガ", "left": 800, "top": 800, "id": "ks-pc-pc1"}]
USERS = [{"id": "uAlice0001", "name": "アリス", "gm": False},
         {"id": "uGM000001", "name": "ゲームマスター", "gm": True}]
CALIBRATION = {"units": "px", "cell_size": 100, "origin_x": 550, "origin_y": 350}
MISSING = ["webpack_chunks", "webpack_require", "firestore_db", "setDoc", "doc", "collection",
           "deleteDoc", "deleteField", "references"]
PAGE = {"version": "ccfolia-page/2026.1", "missing": MISSING, "data_layer": "fallback",
        "can": {"observe": True, "chat": True, "statusCommands": True, "dataLayer": False}}
DETAIL = ("ccfolia 0.1.0 ccfolia-page/2026.1 | !! データ層なし→チャットコマンド / NO DATA LAYER → "
          "chat commands (missing: webpack_chunks, webpack_require) | page missing: react_root")
DEVELOPER_WORDS = ("react_root", "webpack_chunks", "webpack", "setDoc", "NO DATA LAYER")

WORDS = {
    "ja-JP": {
        "foundry": "Foundry卓 の設定", "ccfolia": "ココフォリア卓 の設定",
        "result": "1マス = 100ピクセル、マス(0, 0)の左上 = VTTの (550, 350)",
        "now": "今の設定: 1マス = 100ピクセル",
        "save": "キャリブレーションを保存", "as": "「アリス」をプレイヤー2にする", "is": "→ プレイヤー2",
        "fallback": "駒を直接動かせないので、チャットコマンドで代わりに動かしています。",
        "works": "駒の動きとチャットのダイスを読めます。", "todo": "すること: ",
        "details": "技術的な詳細", "short": "ページの確認: 一部使えません（下を参照）",
    },
    "en-US": {
        "foundry": "Set-up of Foundry卓", "ccfolia": "Set-up of ココフォリア卓",
        "result": "1 square = 100 pixels; the top-left of square (0, 0) = (550, 350) on the VTT",
        "now": "Now: 1 square = 100 pixels",
        "save": "Save the calibration", "as": "Make “アリス” プレイヤー2", "is": "→ プレイヤー2",
        "fallback": "komasync cannot move pieces itself, so it uses chat commands instead.",
        "works": "Reads piece moves and dice in chat.", "todo": "What to do: ",
        "details": "Technical details", "short": "Page check: some things do not work (see below)",
    },
}

#: Text outside every <details>: what the GM reads without unfolding anything.
UNFOLDED = ("el => { const c = el.cloneNode(true); "
            "c.querySelectorAll('details').forEach(d => d.remove()); return c.textContent; }")


async def bridge(demo: Demo, gm: GM, label: str, status: dict[str, Any]) -> Client:
    """A bridge of the room (an invite the GM minted) that reports `status`."""
    await gm.c.send({"type": "invite.create", "id": f"inv-{label}", "role": "bridge", "label": label})
    token = str((await gm.c.expect("invite"))["token"])
    c = await Client.connect(demo.ws)
    await c.auth(ROOM, token=token, platform=status["platform"])
    await c.expect("table.ops", reset=True)
    await c.send({"type": "bridge.status", "version": 0, **status})
    return c


async def click_square(board: Locator, x: int, y: int) -> None:
    await board.locator(f'rect.setup-cell[data-x="{x}"][data-y="{y}"]').click()


@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
@pytest.mark.parametrize("width", [1024, 1440, 1920])
async def test_calibrate_match_users_and_read_the_page_check_by_clicking(
        browser: Browser, demo: Demo, width: int, locale: str) -> None:
    w = WORDS[locale]
    con = await open_console(browser, demo, locale=locale)
    page = con.page
    await page.set_viewport_size({"width": width, "height": 1000})
    setup = await GM.connect(demo)
    watcher = Recorder((await GM.connect(demo)).c)  # a separate GM client: what was saved
    foundry = await bridge(demo, setup, "Foundry卓", {"platform": "foundry", "detail": "foundry v13",
                                                       "tokens": TOKENS, "users": USERS})
    ccfolia = await bridge(demo, setup, "ココフォリア卓", {"platform": "ccfolia", "detail": DETAIL,
                                                         "page": PAGE})
    await con.tab("connections")

    # (1) calibration: pick 目印A by its name, click square (1, 1); 目印B, square (4, 3)
    section = page.get_by_role("region", name=w["foundry"])
    await pw_expect(section.locator(".setup-tokens button")).to_have_count(3)
    board = section.locator(".setup-board")
    marker_a = section.locator(".setup-tokens button", has_text="目印A")
    await marker_a.click()
    await pw_expect(marker_a).to_have_attribute("aria-pressed", "true")
    await click_square(board, 1, 1)
    await pw_expect(section.locator(".setup-pairs li")).to_have_count(1)
    await section.locator(".setup-tokens button", has_text="目印B").click()
    await click_square(board, 4, 3)
    await pw_expect(section.locator(".setup-pairs li")).to_have_count(2)
    await pw_expect(section.locator(".setup-cal-words")).to_have_text(w["result"])
    await section.get_by_role("button", name=w["save"]).click()
    await until(lambda: watcher.state["meta"]["platforms"].get("foundry") == CALIBRATION,
                "the calibration saved in the room, seen by another GM")
    await pw_expect(section.locator(".setup-current")).to_contain_text(w["now"])

    # (2) a VTT user matched to a player from the two lists
    await section.locator('.setup-users li[data-user="uAlice0001"] button').click()  # left list
    await section.get_by_role("button", name=w["as"]).click()
    expected = {**CALIBRATION, "users": {"uAlice0001": "p2"}}
    await until(lambda: watcher.state["meta"]["platforms"].get("foundry") == expected,
                "the user matched to プレイヤー2, the calibration kept")
    alice = section.locator('.setup-users li[data-user="uAlice0001"]')
    await pw_expect(alice.locator(".setup-user-is")).to_have_text(w["is"])
    fits = await section.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    assert fits, f"the set-up overflows the side column at {width} px"

    # (3) the Ccfolia page check in words; the hook ids only in the folded details
    check = page.get_by_role("region", name=w["ccfolia"])
    await pw_expect(check.locator(".setup-page")).to_contain_text(w["fallback"])
    await pw_expect(check.locator(".setup-page")).to_contain_text(w["works"])
    await pw_expect(check.locator(".setup-page")).to_contain_text(w["todo"])
    row = page.locator(".bridge-table tr.online", has_text="ココフォリア卓")
    await pw_expect(row.locator(".bridge-detail")).to_contain_text(w["short"])
    unfolded = await page.locator(".connections").evaluate(UNFOLDED)
    for word in DEVELOPER_WORDS:
        assert word not in unfolded, f"{word!r} shown outside the technical details: {unfolded}"
    details = check.locator("details.setup-page-details")
    await pw_expect(details.locator("li", has_text="webpack_chunks").first).to_be_hidden()
    await details.locator("summary", has_text=w["details"]).click()
    await pw_expect(details.locator("li", has_text="webpack_chunks").first).to_be_visible()

    for c in (foundry, ccfolia):
        await c.close()
    await watcher.close()
    await setup.close()
    con.check()
