"""One sign-in for a GM's rooms and invites by name (issue 30), in Debian's chromium.

Two rooms are made with `komasync room create` (each gets its own GM secret) and served by
`komasync serve`, which prints the server's GM key. The GM signs in once with that key,
opens one room, switches to the other from the room picker, and invites players picked by
name, one and "everyone" at once. Real WebSocket clients check what the console did: each
link's token opens its room as the player it names, and the rooms' GMs see it.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import (
    CHROMIUM,
    EXAMPLES,
    KOMASYNC,
    Client,
    invite,
    serve_process,
    stop_process,
    store_args,
)

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Page
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Page = Any

WIDTHS = (1024, 1440, 1920)
LOCALES = {"ja": "ja-JP", "en": "en-US"}
# The rooms: id → (scenario, {player id: name}); the engagement room's ids are not p1….
ROOMS = {"fight": ("engagement.yaml", {"alice": "アリス", "bob": "ボブ"}),
         "table": ("demo_table.yaml", {"alice": "Alice", "bob": "Bob"})}
KEY_LINE = re.compile(r"GMキー（全ルーム共通）: (\S+)")
MATRIX = pytest.mark.parametrize(("width", "lang"), [(w, lang) for w in WIDTHS for lang in LOCALES])


@dataclass
class Served:
    url: str  # the console, http://…/
    ws: str
    key: str  # the server's GM key
    secrets: dict[str, str]  # each room's own GM secret


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "k.sqlite3"
    secrets = {}
    for room, (scenario, _) in ROOMS.items():
        out = subprocess.run([*KOMASYNC, "room", "create", str(EXAMPLES / scenario), "--id", room,
                              *store_args(db)], capture_output=True, text=True, check=True).stdout
        m = re.search(r"GM秘密鍵: (\S+)", out)
        assert m, out
        secrets[room] = m.group(1)
    proc, ws = serve_process(*store_args(db))
    try:
        assert proc.stdout is not None
        key = next(m.group(1) for line in proc.stdout if (m := KEY_LINE.search(line)))
        yield Served(ws.replace("ws://", "http://", 1).removesuffix("ws"), ws, key, secrets)
    finally:
        stop_process(proc)


@pytest.fixture
async def page(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Page]:
    width, lang = request.node.callspec.params["width"], request.node.callspec.params["lang"]
    ctx = await browser.new_context(viewport={"width": width, "height": 900},
                                    locale=LOCALES[lang])
    pg = await ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    await ctx.close()
    assert not errors, errors


async def gm_client(s: Served, room: str, secret: str | None = None) -> Client:
    c = await Client.connect(s.ws)
    await c.auth(room, secret=secret or s.secrets[room])
    await c.expect("snapshot")
    return c


async def player_of(s: Served, link: str) -> tuple[str, str | None]:
    """The room and player an invite link opens, as the server tells its holder."""
    frag = parse_qs(urlsplit(link).fragment)
    c = await Client.connect(s.ws)
    try:
        welcome = await c.auth(frag["room"][0], token=frag["invite"][0])
        return frag["room"][0], welcome["player"]
    finally:
        await c.close()


def sent_auths(frames: list[str]) -> list[dict[str, Any]]:
    import json

    return [m for m in map(json.loads, frames) if m.get("type") == "auth"]


async def open_room_tab(page: Page) -> None:
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await page.click(".tabs button[data-tab=invites]")


@MATRIX
async def test_one_sign_in_opens_two_rooms_and_invites_by_name(page: Page, served: Served,
                                                               width: int, lang: str) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda p: frames.append(str(p))))
    await page.goto(served.url)
    await page.fill("#secret", served.key)
    await page.click(".signin button[type=submit]")
    for room in ROOMS:  # the key lists every room, whichever secret made it
        await pw_expect(page.locator(f".room-list li[data-room={room}]")).to_be_visible()
    await page.click(".room-list li[data-room=fight] button")
    await open_room_tab(page)

    # One player, picked by name from the room's list (no id to guess).
    picker = page.locator(".invite-form select[name=player]")
    await pw_expect(picker.locator("option")).to_have_text(list(ROOMS["fight"][1].values()))
    await picker.select_option(label="ボブ")
    await page.click(".invite-form button[type=submit]")
    created = page.locator(".invite-created").first
    await pw_expect(created).to_contain_text("ボブ")
    assert await player_of(served, await created.locator("input.invite-link").input_value()) == (
        "fight", "bob")

    # Everyone at once: one link per player, each under the player's name.
    await page.click(".invite-form button[data-invite=everyone]")
    rows = page.locator(".invite-everyone label[data-player]")
    await pw_expect(rows).to_have_count(2)
    for i, (pid, name) in enumerate(ROOMS["fight"][1].items()):
        row = rows.nth(i)
        await pw_expect(row).to_contain_text(name)
        link = await row.locator("input.invite-link").input_value()
        assert link.startswith(served.url), link  # the running server's address
        assert await player_of(served, link) == ("fight", pid)
    everyone = await page.locator(".invite-everyone").inner_text()
    assert "alice" not in everyone and "bob" not in everyone  # names, never ids

    # The other room, from the picker: no sign-in again.
    await page.locator(".room-switch").select_option("table")
    await pw_expect(page).to_have_url(re.compile(r"#room=table$"))
    await open_room_tab(page)
    assert await page.locator("#secret").count() == 0
    await page.locator(".invite-form select[name=player]").select_option(label="Alice")
    await page.click(".invite-form button[type=submit]")
    link = await page.locator(".invite-created input.invite-link").first.input_value()
    assert await player_of(served, link) == ("table", "alice")

    # What the rooms' own GMs (their per-room secrets still valid) see: the invites made.
    for room, want in (("fight", ["bob", "alice", "bob"]), ("table", ["alice"])):
        gm = await gm_client(served, room)
        await gm.send({"type": "invite.list", "id": "l"})
        listed = await gm.expect("invites")
        assert [i["player"] for i in listed["invites"]] == want
        await gm.close()
    auths = sent_auths(frames)  # one key, both rooms
    assert [(a["room"], a.get("secret")) for a in auths] == [("fight", served.key),
                                                             ("table", served.key)]


@MATRIX
async def test_an_invite_link_switches_a_tab_showing_another_room(page: Page, served: Served,
                                                                  width: int, lang: str) -> None:
    gms = {room: await gm_client(served, room, served.key) for room in ROOMS}
    fight = await invite(gms["fight"], "player", "alice")
    table = await invite(gms["table"], "player", "bob")
    await page.goto(f"{served.url}#room=fight&invite={fight}")
    await pw_expect(page.locator(".viewer-banner")).to_contain_text("アリス")
    await page.wait_for_selector('.conn-status[data-status="open"]')

    # The next link, opened in the same tab: only the fragment changes (no reload).
    await page.goto(f"{served.url}#room=table&invite={table}")
    await pw_expect(page.locator(".viewer-banner")).to_contain_text("Bob")
    await pw_expect(page.locator(".room-title")).to_contain_text("デモ卓")
    await pw_expect(page).to_have_url(re.compile(r"#room=table$"))  # the token left the URL
    while True:  # the table room's GM sees Bob's page join
        notice = await gms["table"].expect("notice", kind="presence")
        players = {c["player"] for c in notice["data"]["connections"] if c["role"] == "player"}
        if "bob" in players:
            break
    for c in gms.values():
        await c.close()
