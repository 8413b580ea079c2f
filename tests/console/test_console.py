"""The GM console (server/console) in Debian's chromium against a real `komasync serve --demo`.

Each test starts the server as a user does (`komasync serve --demo --port 0 --db …`), reads
the printed URL and GM secret, and drives the console with Playwright. Players and bridges
are real WebSocket clients (conftest.Client: every frame is validated against the protocol
schema) authenticated with invites the console minted; their raw frames are checked for
anything the console shows as GM-only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import zipfile
from collections.abc import Callable
from typing import Any

import pytest

from conftest import CHROMIUM, SHOTS, Client, Demo

ROOM = "demo"
FORTS = {"pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
         "pc5": "m_left", "pc6": "m_right", "npc1": "final"}
# Wave entries of rounds 2-5 of examples/tower_defense.yaml that never appear in round 1.
FUTURE_WAVE_NAMES = ("吹雪の古の戦士たち", "吹雪のなれ果て", "凍てつくもの", "ノフケー")

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Page
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Page = Any


# -- helpers -----------------------------------------------------------------------------------


async def until(pred: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not pred():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Recorder:
    """A non-GM client reading every frame in the background (state kept by conftest.Client)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                await self.client.recv(timeout=3600)

    @property
    def state(self) -> dict[str, Any]:
        return self.client.state

    @property
    def raw(self) -> str:
        return "\n".join(self.client.raw)

    def td(self) -> dict[str, Any]:
        return self.client.state["tower_defense"]

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task
        with contextlib.suppress(Exception):
            await self.client.close()


async def join(demo: Demo, token: str) -> Recorder:
    c = await Client.connect(demo.ws)
    await c.auth(ROOM, token=token)
    await c.expect("snapshot")
    return Recorder(c)


class GM:
    """A second GM connection used to set a scene up quickly (the console sees it live)."""

    def __init__(self, client: Client) -> None:
        self.c = client

    @classmethod
    async def connect(cls, demo: Demo) -> GM:
        c = await Client.connect(demo.ws)
        await c.auth(ROOM, secret=demo.secret, client="setup script")
        await c.expect("snapshot")
        return cls(c)

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        msg_id = await self.c.act(action)
        reply = await self.c.reply_to(msg_id)
        assert reply["type"] == "ack", reply
        await self.c.settle(reply["version"])
        return reply

    async def answer_prompts(self) -> None:
        for pid in list(self.c.state["prompts"]):
            await self.act({"kind": "answer", "prompt": pid, "choice": "done"})

    async def place_pcs(self) -> None:
        for pc, fort in FORTS.items():
            await self.act({"kind": "td.pc.place", "pc": pc, "fort": fort})

    async def next_phase(self) -> None:
        await self.act({"kind": "td.next_phase"})

    async def invite(self, role: str, player: str | None = None) -> str:
        msg: dict[str, Any] = {"type": "invite.create", "id": f"inv-{role}-{player}", "role": role}
        if player:
            msg["player"] = player
        await self.c.send(msg)
        return str((await self.c.expect("invite"))["token"])

    async def close(self) -> None:
        await self.c.close()


class Console:
    """The page, with the errors it reported and the WebSocket frames it sent."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.sent: list[str] = []
        self.received: list[str] = []
        self.requests: list[tuple[str, str | None]] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: self.requests.append((r.url, r.post_data)))
        page.on("websocket", self._ws)

    def _ws(self, ws: Any) -> None:
        ws.on("framesent", lambda payload: self.sent.append(str(payload)))
        ws.on("framereceived", lambda payload: self.received.append(str(payload)))

    def sent_json(self) -> list[dict[str, Any]]:
        return [json.loads(s) for s in self.sent]

    async def text(self, selector: str) -> str:
        return (await self.page.locator(selector).first.inner_text()).strip()

    async def tab(self, name: str) -> None:
        await self.page.click(f".tabs button[data-tab={name}]")

    async def press(self, key: str) -> None:
        await self.page.locator("body").press(key)

    def check(self) -> None:
        assert not self.errors, f"the console reported errors: {self.errors}"


async def open_console(browser: Browser, demo: Demo, locale: str = "ja-JP",
                       ready: str = ".td-map") -> Console:
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale=locale)
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector(ready)
    await page.wait_for_selector('.conn-status[data-status="open"]')
    return con


async def version_shown(con: Console) -> int:
    text = await con.text(".conn-status .version")
    return int(text.strip().lstrip("v"))


async def wait_version(con: Console, version: int) -> None:
    await pw_expect(con.page.locator(".conn-status .version")).to_have_text(re.compile(rf"v{version}\b"))


# -- sign in ----------------------------------------------------------------------------------


async def test_sign_in_keeps_the_secret_out_of_urls(browser: Browser, demo: Demo) -> None:
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="ja-JP")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", "not-the-secret")
    await page.click(".signin button[type=submit]")
    await pw_expect(page.locator(".signin .form-error")).to_contain_text("GM秘密鍵が違います")
    assert await page.evaluate("sessionStorage.getItem('komasync.secret')") is None

    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    room = page.locator(f".room-list li[data-room={ROOM}]")
    await pw_expect(room).to_contain_text("吹雪の山荘防衛戦")
    await room.locator("button").click()
    await page.wait_for_selector(".td-map")
    await pw_expect(page.locator(".conn-status")).to_have_attribute("data-status", "open")

    assert demo.secret not in page.url and page.url.endswith(f"#room={ROOM}")
    assert await page.evaluate("sessionStorage.getItem('komasync.secret')") == demo.secret
    assert demo.secret not in await page.evaluate("JSON.stringify(localStorage)")
    for url, body in con.requests:
        assert demo.secret not in url
        if body and demo.secret in body:
            assert url.endswith("/api/rooms"), url  # only the POST body of the room list
    auth = con.sent_json()[0]
    assert auth == {"type": "auth", "room": ROOM, "client": "komasync console", "secret": demo.secret}
    assert all(demo.secret not in s for s in con.sent[1:])

    await page.reload()  # the tab keeps the secret: straight back into the room
    await page.wait_for_selector(".td-map")
    await page.click(".top-buttons button:has-text('サインアウト')")
    await page.wait_for_selector("#secret")
    assert await page.evaluate("sessionStorage.getItem('komasync.secret')") is None
    con.check()


# -- a round of tower defense -------------------------------------------------------------


async def test_phases_move_groups_prompt_and_refusal(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    # Setup (TD-PRE-1): starting forts picked from the PC list.
    for n, (pc, fort) in enumerate(FORTS.items(), start=1):
        await page.select_option(f"select.td-place[data-pc={pc}]", fort)
        await wait_version(con, n)
        await pw_expect(page.locator(f"select.td-place[data-pc={pc}]")).to_have_value(fort)

    # Next phase (header button): reinforcement places round 1's groups at their directions.
    await page.click("button.command[data-command='td.next_phase']")
    groups = page.locator(".td-map g.td-group")
    await pw_expect(groups).to_have_count(4)
    await pw_expect(page.locator(".headline")).to_contain_text("ラウンド 1/6")
    await pw_expect(page.locator(".headline")).to_contain_text("敵増援フェイズ")
    row = page.locator(".td-groups-table tr[data-group='r1-left_end']")
    await pw_expect(row.locator(".td-where")).to_have_text("左端（出現地点）")
    marker = page.locator(".td-map g.td-group[data-id='r1-left_end']")
    before = await marker.get_attribute("transform")
    assert (await marker.get_attribute("data-y")) == "0"

    # The SAN-check prompt waits for the GM; `n` now is refused (TD-REIN-1) and shown.
    prompt = page.locator(".prompt")
    await pw_expect(prompt).to_contain_text("SANチェックを行ってください")
    await pw_expect(prompt.locator(".badge.gm-only")).to_have_text("GMのみ")
    await con.press("n")
    await pw_expect(page.locator(".tabs button[data-tab=notices] .count")).to_have_text("1")
    await con.tab("notices")
    notice = page.locator(".notice[data-rule='TD-REIN-1']")
    await pw_expect(notice).to_contain_text("SANチェックの確認が済んでいません。")
    await pw_expect(notice.locator(".notice-client")).to_have_text("GM")  # the client's name: a tooltip
    await pw_expect(notice.locator(".notice-client")).to_have_attribute("title", "komasync console")
    await pw_expect(notice).to_have_attribute("data-code", "san_pending")

    # Answer the prompt, then `n`: the advance phase walks every group to its first fort.
    await prompt.locator("button[data-choice=done]").click()
    await pw_expect(page.locator(".prompt")).to_have_count(0)
    await con.press("n")
    await pw_expect(page.locator(".headline")).to_contain_text("敵進軍フェイズ")
    await pw_expect(row.locator(".td-where")).to_have_text("左端砦")
    await pw_expect(marker).to_have_attribute("data-fort", "f_left")
    assert (await marker.get_attribute("transform")) != before
    assert (await marker.get_attribute("data-y")) == "4"
    await pw_expect(page.locator("tr[data-fort=f_left] td").nth(3)).to_contain_text(
        "イタクァに汚染されたコヨーテたち(5)")

    # PC attack, then enemy attack: each group hits its fort by its count (TD-EATK-1).
    await con.press("n")
    await pw_expect(page.locator(".headline")).to_contain_text("PC攻撃フェイズ")
    await con.press("n")
    await pw_expect(page.locator(".headline")).to_contain_text("敵攻撃フェイズ")
    fort = page.locator(".td-map g.td-fort[data-id=f_left]")
    await pw_expect(fort).to_have_attribute("data-durability", "10")

    # The timeline shows who did what, with the log lines.
    await con.tab("timeline")
    top = page.locator(".tl-entry").first
    await pw_expect(top).to_have_attribute("data-kind", "td.next_phase")
    await pw_expect(top.locator(".tl-actor")).to_have_text("GM")
    await pw_expect(top.locator(".tl-actor")).to_have_attribute("title", "komasync console")
    await pw_expect(top.locator(".tl-log")).to_contain_text("左端砦に5ダメージ")
    con.check()


async def test_override_reaches_a_player_and_undo_restores(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    # A player joins with an invite minted in the console.
    await con.tab("invites")
    await page.select_option(".invite-form select[name=role]", "player")
    await page.select_option(".invite-form select[name=player]", "p1")
    await page.fill(".invite-form input[name=label]", "Carlos")
    await page.click(".invite-form button[type=submit]")
    created = page.locator(".invite-created[data-role=player]")
    token = await created.locator("input.invite-token").input_value()
    link = await created.locator("input.invite-link").input_value()
    assert link == f"{demo.url}#room={ROOM}&invite={token}"
    await pw_expect(page.locator(".invite-table tr")).to_have_count(1)
    player = await join(demo, token)

    gm = await GM.connect(demo)
    await gm.place_pcs()
    await gm.next_phase()
    await gm.answer_prompts()
    await gm.next_phase()  # advance: groups at the tier-1 forts
    await wait_version(con, gm.c.version)

    # Override a fort's durability inline, with a reason; the rule is shown beside it.
    cell = page.locator("tr[data-fort=f_left] .td-durability button.ov").first
    await pw_expect(cell).to_have_text("15")
    await cell.click()
    pop = page.locator(".popover")
    await pw_expect(pop.locator(".rule[data-rule='TD-EATK-1']")).to_contain_text(
        "敵攻撃フェイズに、その砦にいるグループの個体数だけ耐久力が減る")
    await pw_expect(pop.locator(".ov-current")).to_have_text("15")
    await pop.locator(".ov-input").fill("7")
    await pop.locator("button.primary").click()
    await pw_expect(pop.locator(".pop-error")).to_have_text("理由を入力してください。")
    await pop.locator("input.reason").fill("補修材が届かなかった")
    await pop.locator("button.primary").click()
    await pw_expect(page.locator(".popover")).to_have_count(0)
    await pw_expect(cell).to_have_text("7")
    fort = page.locator(".td-map g.td-fort[data-id=f_left]")
    await pw_expect(fort).to_have_attribute("data-durability", "7")
    override_v = await version_shown(con)

    # The separately connected player receives it.
    await until(lambda: player.td()["forts"]["f_left"]["durability"] == 7, "the player to see durability 7")
    assert player.client.version == override_v
    change = next(json.loads(r) for r in player.client.raw if f'"to_version":{override_v}' in r)
    assert change["ops"] == [{"op": "set", "path": ["tower_defense", "forts", "f_left", "durability"],
                              "value": 7}]
    assert "info" not in change  # the actor/action details are the GM's

    # The timeline has it: who, what, why.
    await con.tab("timeline")
    entry = page.locator(f".tl-entry[data-version='{override_v}']")
    await pw_expect(entry).to_have_attribute("data-kind", "override")
    await pw_expect(entry.locator(".tl-sentence")).to_have_text(
        "左端砦 › 耐久力 を 7 に修正")  # the path by names and the schema's titles
    await pw_expect(entry.locator(".tl-why")).to_contain_text("補修材が届かなかった")

    # Undo to the point before it (timeline "back to here"), with a reason.
    await page.locator(f".tl-entry[data-version='{override_v - 1}'] button.tl-undo").click()
    await page.locator(".popover input.reason").fill("修正を取り消す")
    await page.locator(".popover input.reason").press("Enter")
    await pw_expect(cell).to_have_text("15")
    await until(lambda: player.td()["forts"]["f_left"]["durability"] == 15, "the player to see 15 again")
    undo_v = override_v + 1
    entry = page.locator(f".tl-entry[data-version='{undo_v}']")
    await pw_expect(entry).to_have_attribute("data-kind", "restore")
    await pw_expect(entry.locator(".tl-sentence")).to_have_text(f"v{override_v - 1} の状態に戻す")
    await pw_expect(entry.locator(".tl-why")).to_contain_text("修正を取り消す")
    assert player.client.version == undo_v

    # A value that is not a whole number is caught before sending…
    await cell.click()
    await page.locator(".popover .ov-input").fill("-1.5")
    await page.locator(".popover input.reason").fill("typo")
    await page.locator(".popover button.primary").click()
    await pw_expect(page.locator(".popover .pop-error")).to_have_text("整数を入力してください。")
    await con.press("Escape")
    await pw_expect(page.locator(".popover")).to_have_count(0)
    # …and one the server refuses (any value, from the whole-state tree; an enum is a
    # picker, so only the raw JSON view can say something else) shows its reason.
    await page.click("details.panel[data-panel=state] > summary")
    await page.click("""details.tree[data-path='["meta"]'] > summary""")
    await page.click("""button.ov[data-path='["meta","enforcement"]']""")
    await pw_expect(page.locator(".popover .rule-none")).to_be_visible()
    await page.locator(".popover .ov-raw-toggle").check()
    await page.locator(".popover .ov-raw-input").fill('"sometimes"')
    await page.locator(".popover input.reason").fill("typo")
    await page.locator(".popover button.primary").click()
    await pw_expect(page.locator(".popover .pop-error")).to_contain_text("は設定できません")
    await con.press("Escape")
    assert await version_shown(con) == undo_v

    await player.close()
    await gm.close()
    con.check()


async def test_timeline_rolls_and_keyboard_undo(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    gm = await GM.connect(demo)
    await gm.place_pcs()
    for _ in range(2):
        await gm.next_phase()
        await gm.answer_prompts()
    await gm.next_phase()  # PC attack phase; round-1 groups stand at the tier-1 forts
    await gm.act({"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle", "group": "r1-left_end",
                  "shots": 2})
    line = "(1D100<=60) ボーナス・ペナルティダイス[0] ＞ 50 ＞ 50 ＞ レギュラー成功"
    await gm.act({"kind": "td.attack", "pc": "pc2", "weapon": "glock17", "group": "r1-center_left",
                  "results": [line]})
    await wait_version(con, gm.c.version)

    engine = page.locator(f".tl-entry[data-version='{gm.c.version - 1}']")
    await pw_expect(engine.locator(".tl-actor")).to_have_attribute("title", "setup script")
    await pw_expect(engine.locator(".tl-roll[data-source=engine]")).to_have_count(2)
    await pw_expect(engine.locator(".tl-roll").first).to_contain_text("1D100")
    await pw_expect(engine.locator(".tl-roll").first).to_contain_text("サーバーの乱数")
    await pw_expect(engine.locator(".tl-roll").first).to_contain_text("目標値 80")
    reported = page.locator(f".tl-entry[data-version='{gm.c.version}'] .tl-roll[data-source=external]")
    await pw_expect(reported).to_contain_text("外部報告")
    await pw_expect(reported).to_contain_text(line)
    await pw_expect(reported).to_contain_text("目標値 60 · レギュラー成功")  # the level in words

    # `u` asks for a reason; Enter undoes the last step (base_version guards against a race).
    count = page.locator(".td-groups-table tr[data-group='r1-center_left'] button.ov")
    await pw_expect(count).to_have_text("4")
    last = gm.c.version
    await con.press("u")
    reason = page.locator(".popover input.reason")
    await pw_expect(reason).to_have_value("GMが取り消し")
    await reason.press("Enter")
    await pw_expect(count).to_have_text("5")
    await wait_version(con, last + 1)
    undo = [m for m in con.sent_json() if m.get("type") == "action" and m["action"]["kind"] == "undo"]
    assert undo[-1]["action"] == {"kind": "undo", "to_version": last - 1, "reason": "GMが取り消し"}
    assert undo[-1]["base_version"] == last

    # Ctrl+Z does the same; Escape cancels.
    await con.press("Control+z")
    await pw_expect(page.locator(".popover input.reason")).to_be_visible()
    await con.press("Escape")
    await pw_expect(page.locator(".popover")).to_have_count(0)
    assert await version_shown(con) == last + 1

    # History on a fresh load: the same timeline from the `history` message.
    await page.reload()
    await page.wait_for_selector(".td-map")
    await pw_expect(page.locator(f".tl-entry[data-version='{last - 1}'] .tl-roll[data-source=engine]")
                    ).to_have_count(2)
    await pw_expect(page.locator(".tl-entry[data-version='1']")).to_have_attribute("data-kind", "td.pc.place")
    await gm.close()
    con.check()


# -- GM-only data ----------------------------------------------------------------------------


async def test_gm_only_items_never_reach_a_player(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo)
    await gm.act({"kind": "table.piece.place", "piece": {
        "id": "ambusher", "name": "伏兵ウェンディゴ", "cell": {"x": 3, "y": 2}, "hidden": True}})
    await gm.act({"kind": "table.counter.place", "counter": {
        "id": "doom_clock", "name": "吹雪の破滅カウンター", "value": 3, "visibility": "gm"}})
    await gm.act({"kind": "table.marker.place", "marker": {
        "id": "pitfall", "text": "雪庇の落とし穴", "cell": {"x": 9, "y": 6}, "hidden": True}})
    token = await gm.invite("player", "p2")
    player = await join(demo, token)
    con = await open_console(browser, demo)
    page = con.page
    await gm.place_pcs()
    await gm.next_phase()  # round 1; the SAN prompt waits for the GM
    await wait_version(con, gm.c.version)

    # The console marks them GM-only…
    await pw_expect(page.locator("tr[data-piece=ambusher] .badge.gm-only")).to_have_text("GMのみ")
    await pw_expect(page.locator("tr[data-counter=doom_clock] .badge.gm-only")).to_be_visible()
    await pw_expect(page.locator("tr[data-marker=pitfall] .badge.gm-only")).to_be_visible()
    await pw_expect(page.locator(".td-waves .badge.gm-only")).to_be_visible()
    await pw_expect(page.locator(".td-waves")).to_contain_text("ノフケー")
    await pw_expect(page.locator(".prompt .badge.gm-only")).to_be_visible()
    secrets = await page.eval_on_selector_all("[data-secret]", "els => els.map(e => e.dataset.secret)")
    assert {"ambusher", "doom_clock", "pitfall"} <= set(secrets)
    prompt_ids = await page.eval_on_selector_all(".prompt[data-prompt]",
                                                 "els => els.map(e => e.dataset.prompt)")
    assert prompt_ids

    # …and none of it reached the player's connection.
    await until(lambda: player.client.version == gm.c.version, "the player to catch up")
    raw = player.raw
    for s in secrets + prompt_ids:
        assert json.dumps(s) not in raw, f"GM-only {s!r} reached a player"
    for text in ("伏兵ウェンディゴ", "吹雪の破滅カウンター", "雪庇の落とし穴", "SANチェックを行ってください",
                 *FUTURE_WAVE_NAMES, '"waves"', '"resume"'):
        assert text not in raw, f"GM-only {text!r} reached a player"

    # Revealing the piece in the console sends it to the player (the check above is live).
    await page.click("tr[data-piece=ambusher] button[data-reveal=ambusher]")
    await pw_expect(page.locator("tr[data-piece=ambusher] .badge.gm-only")).to_have_count(0)
    await until(lambda: "ambusher" in player.state["table"]["pieces"], "the revealed piece")
    assert player.state["table"]["pieces"]["ambusher"]["name"] == "伏兵ウェンディゴ"

    # The invite link opens a read-only view of what that player may see.
    view = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="ja-JP")
    vpage = await view.new_page()
    vcon = Console(vpage)
    vtoken = await gm.invite("player", "p3")
    await vpage.goto(f"{demo.url}#room={ROOM}&invite={vtoken}")
    await vpage.wait_for_selector(".td-map")
    assert vtoken not in vpage.url
    await pw_expect(vpage.locator(".viewer-banner")).to_contain_text("招待で閲覧中（プレイヤー）")
    await pw_expect(vpage.locator(".td-map g.td-group")).to_have_count(4)
    gm_things = ".td-waves, .gm-only, button.ov, .prompt, tr[data-counter=doom_clock]"
    assert await vpage.locator(gm_things).count() == 0
    assert "ノフケー" not in await vpage.content()
    await player.close()
    await gm.close()
    con.check()
    vcon.check()


async def test_rule_warnings_in_warn_mode(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    gm = await GM.connect(demo)
    await gm.act({"kind": "room.enforcement", "mode": "warn"})
    await gm.act({"kind": "td.pc.place", "pc": "pc1", "fort": "f_left"})
    await wait_version(con, gm.c.version)
    # Six PCs have no starting fort (TD-PRE-1): applied anyway, each flagged to the GM.
    await page.click("button.command[data-command='td.next_phase']")
    await pw_expect(page.locator(".headline")).to_contain_text("ラウンド 1/6")
    await con.tab("notices")
    warnings = page.locator(".notice[data-kind=warning][data-rule='TD-PRE-1']")
    await pw_expect(warnings).to_have_count(6)
    await pw_expect(warnings.first).to_contain_text("初期位置の砦が決まっていません")
    await con.tab("timeline")
    entry = page.locator(f".tl-entry[data-version='{gm.c.version + 1}']")
    await pw_expect(entry.locator(".tl-warnings li")).to_have_count(6)
    await pw_expect(entry.locator(".tl-warnings li").first).to_contain_text("TD-PRE-1")
    await gm.close()
    con.check()


# -- invites, bridges, presence ---------------------------------------------------------------


async def test_bridge_status_and_invite_revoke(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    await con.tab("invites")
    await page.select_option(".invite-form select[name=role]", "bridge")
    await pw_expect(page.locator(".invite-form select[name=player]")).to_be_disabled()
    await page.fill(".invite-form input[name=label]", "ココフォリア卓")
    await page.click(".invite-form button[type=submit]")
    created = page.locator(".invite-created[data-role=bridge]")
    token = await created.locator("input.invite-token").input_value()
    config = json.loads(await created.locator("input.invite-bridge").input_value())
    assert config == {"server": demo.ws, "room": ROOM, "token": token}
    invite_id = await created.get_attribute("data-invite")
    # issue 14: beside the bridge invite, the userscript's one-click install (served by this
    # server), the Foundry manifest URL, and what wss:// means for a remote server
    install = created.locator("a[data-install=ccfolia]")
    await pw_expect(install).to_have_attribute("href", demo.url + "ccfolia/komasync.user.js")
    await pw_expect(install).to_have_text("ココフォリア用ユーザースクリプトをインストール")
    manifest = await created.locator("input.foundry-manifest").input_value()
    assert manifest == demo.url + "foundry/module.json"
    await pw_expect(created.locator("[data-wss=ok]")).to_contain_text("wss://")
    served = await page.evaluate("u => fetch(u).then(r => r.text())", demo.url + "ccfolia/komasync.user.js")
    assert f"// @downloadURL  {demo.url}ccfolia/komasync.user.js" in served

    bridge = await Client.connect(demo.ws)
    await bridge.auth(ROOM, token=token)
    await bridge.expect("snapshot")
    gm = await GM.connect(demo)
    await gm.place_pcs()
    await bridge.send({"type": "bridge.status", "platform": "ccfolia", "version": gm.c.version - 3,
                       "detail": "tab visible"})

    await con.tab("connections")
    row = page.locator(".bridge-table tr.online")
    await pw_expect(row.locator(".bridge-platform")).to_have_text("ccfolia")
    await pw_expect(row.locator(".bridge-lag")).to_have_text("3版")
    await pw_expect(row.locator(".bridge-last")).to_contain_text("秒前")
    await pw_expect(row).to_contain_text("ココフォリア卓")
    await pw_expect(row.locator(".bridge-detail")).to_have_text("tab visible")
    await pw_expect(page.locator(".conn-list li[data-role=gm]")).to_have_count(2)

    await bridge.close()
    await pw_expect(page.locator(".bridge-table tr.offline")).to_have_count(1)

    # Revoke: the token no longer opens the room.
    await con.tab("invites")
    await page.click(f"button[data-revoke='{invite_id}']")
    revoked = page.locator(f".invite-table tr[data-invite='{invite_id}'] .badge.bad")
    await pw_expect(revoked).to_have_text("取り消し済み")
    again = await Client.connect(demo.ws)
    await again.send({"type": "auth", "room": ROOM, "token": token})
    assert (await again.expect("error"))["code"] == "invite_revoked"
    await again.close()

    # Without a bridge: the room ZIP for Ccfolia downloads from the same tab.
    async with page.expect_download() as info:
        await page.click("button[data-export=zip]")
    download = await info.value
    assert download.suggested_filename == f"{ROOM}-ccfolia.zip"
    with zipfile.ZipFile(str(await download.path())) as zf:
        data = json.loads(zf.read("__data.json"))
    assert data["meta"]["version"] == "1.1.0"
    assert "waves" not in json.dumps(data, ensure_ascii=False)
    # the demo room has no Ccfolia calibration: the ZIP and the console say so
    assert "ks-calibration" in data["entities"]["room"]["markers"]
    await pw_expect(page.locator("#toasts")).to_contain_text("キャリブレーションがありません")
    await gm.close()
    con.check()


# -- reconnecting -----------------------------------------------------------------------------


async def test_reconnect_resumes_with_since(browser: Browser, demo: Demo) -> None:
    con = await open_console(browser, demo)
    page = con.page
    gm = await GM.connect(demo)
    await gm.place_pcs()
    await wait_version(con, gm.c.version)
    seen = gm.c.version
    con.received.clear()
    await page.evaluate("window.komasync.conn.ws.close()")
    await gm.next_phase()  # happens while the console is away
    await wait_version(con, gm.c.version)
    await pw_expect(page.locator(".td-map g.td-group")).to_have_count(4)
    auths = [m for m in con.sent_json() if m["type"] == "auth"]
    assert auths[-1]["since"] == seen
    kinds = [json.loads(r)["type"] for r in con.received]
    assert "snapshot" not in kinds and kinds.count("change") >= 1
    await gm.close()
    con.check()


# -- language, screenshots ------------------------------------------------------------------


async def scene(demo: Demo) -> tuple[GM, Client]:
    """Round 2's reinforcement: round 1's groups at the forts (one fort hit), a SAN prompt,
    a hidden piece, a GM-only counter and a bridge a version behind."""
    gm = await GM.connect(demo)
    await gm.act({"kind": "table.piece.place", "piece": {
        "id": "ambusher", "name": "伏兵ウェンディゴ", "cell": {"x": 10, "y": 2}, "hidden": True}})
    await gm.act({"kind": "table.counter.place", "counter": {
        "id": "doom_clock", "name": "破滅カウンター", "value": 3, "max": 6, "visibility": "gm"}})
    await gm.place_pcs()
    await gm.next_phase()
    await gm.answer_prompts()
    await gm.next_phase()
    await gm.next_phase()
    await gm.act({"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle", "group": "r1-left_end",
                  "shots": 3})
    await gm.next_phase()
    await gm.next_phase()  # round 2 reinforcement
    bridge = await Client.connect(demo.ws)
    await bridge.auth(ROOM, token=await gm.invite("bridge"))
    await bridge.expect("snapshot")
    await bridge.send({"type": "bridge.status", "platform": "ccfolia", "version": gm.c.version - 1,
                       "detail": "ok"})
    return gm, bridge


async def test_language_switch_and_screenshots(browser: Browser, demo: Demo) -> None:
    gm, bridge = await scene(demo)
    SHOTS.mkdir(parents=True, exist_ok=True)

    con = await open_console(browser, demo, locale="ja-JP")
    page = con.page
    assert (await page.evaluate("navigator.languages[0]")).startswith("ja")
    await wait_version(con, gm.c.version)
    await pw_expect(page.locator("html")).to_have_attribute("lang", "ja")
    await pw_expect(page.locator(".headline")).to_contain_text("ラウンド 2/6 · 敵増援フェイズ")
    await pw_expect(page.locator(".tabs button[data-tab=timeline]")).to_have_text("タイムライン")
    await pw_expect(page.locator(".prompt")).to_be_visible()
    await page.screenshot(path=str(SHOTS / "console-ja.png"))

    await page.click(".lang-toggle")
    await pw_expect(page.locator("html")).to_have_attribute("lang", "en")
    await pw_expect(page.locator(".headline")).to_contain_text("Round 2/6 · reinforcement")
    await pw_expect(page.locator(".tabs button[data-tab=timeline]")).to_have_text("Timeline")
    await pw_expect(page.locator("button.command[data-command='td.next_phase']")).to_contain_text(
        "Next phase: advance")
    await pw_expect(page.locator(".prompt .badge.gm-only")).to_have_text("GM only")
    await pw_expect(page.locator(".td-waves h4")).to_contain_text("Future waves")
    assert await page.evaluate("localStorage.getItem('komasync.lang')") == "en"
    await page.screenshot(path=str(SHOTS / "console-en.png"))
    await page.keyboard.press("l")
    await pw_expect(page.locator("html")).to_have_attribute("lang", "ja")
    con.check()

    # An English browser starts in English.
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="en-US")
    epage = await ctx.new_page()
    await epage.goto(demo.url)
    await pw_expect(epage.locator(".signin h1")).to_have_text("komasync GM console")
    await pw_expect(epage.locator("label[for=secret]")).to_have_text("GM secret")
    await bridge.close()
    await gm.close()


# -- base battle ----------------------------------------------------------------------------


async def test_bases_panel_against_the_engine(browser: Browser, bases_demo: Demo) -> None:
    demo = bases_demo
    gm = await GM.connect(demo)
    player = await join(demo, await gm.invite("player", "p1"))
    con = await open_console(browser, demo, ready=".bases")
    page = con.page
    await pw_expect(page.locator(".base-card")).to_have_count(5)
    gate = page.locator(".base-card[data-base=gate]")
    await pw_expect(gate.locator(".base-name")).to_have_text("特異ゲート")
    await pw_expect(gate.locator(".badge.attr")).to_have_text("コア")
    await pw_expect(gate.locator(".badge.state-active")).to_have_text("活動")
    await pw_expect(page.locator(".base-card[data-base=erosion] .badge.attr")).to_have_text("永久")
    battery = page.locator(".base-card[data-base=battery]")
    await pw_expect(battery.locator(".base-head .badge.gm-only").first).to_have_text("GMのみ")
    await pw_expect(battery).to_contain_text("GP非公開")
    await pw_expect(battery.locator("li[data-element='battery.ev1'] .badge.gm-only")).to_be_visible()
    manual = page.locator(".bases-manual li[data-element='gate.gp3']")
    await pw_expect(manual).to_contain_text("敵がゲートに封印術を使用した時")
    for secret in ("隠し砲台", '"battery"', "結界杭のGPを1減らす"):
        assert secret not in player.raw

    # `r`: round 1 starts; 虚像召喚 fires at the start of the round.
    next_round = page.locator("button.command[data-command='bases.round']")
    await pw_expect(next_round).to_contain_text("次のラウンドへ")
    await con.press("r")
    await pw_expect(page.locator(".headline")).to_contain_text("拠点戦闘 第1ラウンド")
    await pw_expect(gate.locator("li[data-element='gate.ev1']")).to_contain_text("発動 1/∞")

    # A manual trigger: the GM fires 封印術 (GP −3, BASE-EL-1).
    await manual.locator("button[data-fire='gate.gp3']").click()
    gp = gate.locator(".base-stats button.ov").first
    await pw_expect(gp).to_have_text("7")
    await pw_expect(gate.locator("li[data-element='gate.gp3']")).to_contain_text("適用1回")
    await until(lambda: player.state["bases"]["bases"]["gate"]["gp"] == 7, "the player to see GP 7")

    # GM correction (BASE-OPT-4): an override, with the GP rules beside it.
    await gp.click()
    await pw_expect(page.locator(".popover .rule[data-rule='BASE-GP-2']")).to_contain_text(
        "GPは0未満にならない")
    await pw_expect(page.locator(".popover .rule[data-rule='BASE-GP-3']")).to_be_visible()
    await page.locator(".popover .ov-input").fill("9")
    await page.locator(".popover input.reason").fill("記述ミス")
    await page.locator(".popover input.reason").press("Enter")
    await pw_expect(gp).to_have_text("9")
    await until(lambda: player.state["bases"]["bases"]["gate"]["gp"] == 9, "the player to see GP 9")

    # Reveal the hidden base's existence: it reaches the player; its GP and event do not.
    await battery.locator("button[data-reveal=battery][data-what=base]").click()
    await pw_expect(battery.locator(".base-head > .badge.gm-only[data-secret]")).to_have_count(0)
    await pw_expect(battery.locator(".base-head > .badge.gm-only")).to_have_text("GP非公開")
    await until(lambda: "battery" in player.state["bases"]["bases"], "the revealed base")
    assert "gp" not in player.state["bases"]["bases"]["battery"]
    assert "結界杭のGPを1減らす" not in player.raw and "砲撃" not in player.raw
    # Then its GP.
    await battery.locator("button[data-reveal=battery][data-what=gp]").click()
    await until(lambda: player.state["bases"]["bases"]["battery"].get("gp") == 4, "the revealed GP")
    assert "結界杭のGPを1減らす" not in player.raw
    await con.tab("timeline")
    await pw_expect(page.locator(".tl-entry").first).to_have_attribute("data-kind", "bases.reveal")
    await player.close()
    await gm.close()
    con.check()


# -- the store, without a server round trip ------------------------------------------------


async def test_store_applies_ops_exactly(browser: Browser, demo: Demo) -> None:
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="ja-JP")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.wait_for_selector("#secret")
    result = await page.evaluate("""async () => {
      const { Store } = await import('/console/js/store.js');
      const s = new Store();
      s.applySnapshot(3, { a: { b: 1, c: [1, 2] }, d: {} });
      const out = [];
      out.push(s.applyChange({ from_version: 3, to_version: 4, ops: [
        { op: 'set', path: ['a', 'b'], value: 2 }, { op: 'set', path: ['d', 'x'], value: { y: 1 } },
        { op: 'del', path: ['a', 'c'] }, { op: 'set', path: ['d', 'x', 'y'], value: 5 }] }));
      out.push(s.applyChange({ from_version: 3, to_version: 4, ops: [] }));
      out.push(s.applyChange({ from_version: 5, to_version: 6, ops: [] }));
      out.push(JSON.stringify(s.state), s.version);
      out.push(s.applyChange({ from_version: 4, to_version: 5,
                               ops: [{ op: 'set', path: ['zz', 'q'], value: 1 }] }));
      out.push(s.version);
      return out;
    }""")
    assert result == ["ok", "repeat", "gap", '{"a":{"b":2},"d":{"x":{"y":5}}}', 4, "broken", None]
    con.check()


# -- who stands where, round progress, the timeline in sentences (issue 15 item 13) ----------


async def test_map_names_round_progress_and_timeline_sentences(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo)
    await gm.place_pcs()
    await gm.next_phase()  # round 1, reinforcement
    SHOTS.mkdir(parents=True, exist_ok=True)
    con = await open_console(browser, demo, locale="ja-JP")
    page = con.page
    await wait_version(con, gm.c.version)
    td = gm.c.state["tower_defense"]
    await pw_expect(page.locator(".headline")).to_contain_text("ラウンド 1/6 · 敵増援フェイズ")
    for fort in ("f_left", "final"):
        names = [pc["name"] for pc in td["pcs"].values() if pc["fort"] == fort]
        chip = page.locator(f".td-map g.td-fort[data-id={fort}] .td-pcs text")
        for name in names:  # the chip names who stands there (shortened past 6 characters)
            await pw_expect(chip).to_contain_text(name[:5])
        assert "PC" not in ((await chip.text_content()) or "").replace(names[0][:5], "")
    await con.tab("timeline")
    first = page.locator(".tl-entry[data-version='1'] .tl-sentence")
    pc1 = td["pcs"]["pc1"]["name"]
    # The GM placed a player's PC: the sentence says it was done as GM (issue 30).
    fort = td["forts"]["f_left"]["name"]
    await pw_expect(first).to_have_text(f"GMとして（プレイヤー1の代わり）：{pc1}を{fort}に配置")
    top = page.locator(".tl-entry").first.locator(".tl-sentence")
    await pw_expect(top).to_have_text("次のフェイズへ進める")
    await page.screenshot(path=str(SHOTS / "console-progress-ja.png"))

    await page.click(".lang-toggle")
    await pw_expect(page.locator(".headline")).to_contain_text("Round 1/6 · reinforcement")
    await pw_expect(first).to_have_text(f"As GM (for プレイヤー1): placed {pc1} at {fort}")
    await pw_expect(top).to_have_text("moved on to the next phase")
    await page.screenshot(path=str(SHOTS / "console-progress-en.png"))
    con.check()
    await gm.close()


async def test_room_settings_switch_typed_dice_results(browser: Browser, demo: Demo) -> None:
    # Issue 13 finding 7: where reported rolls may come from is a visible room setting.
    con = await open_console(browser, demo)
    page = con.page
    gm = await GM.connect(demo)
    player = await join(demo, await gm.invite("player", "p1"))
    panel = page.locator(".panel[data-panel=room]")
    await pw_expect(panel.locator(".panel-title")).to_have_text("部屋の設定")
    rolls = panel.locator("select[name=player_rolls]")
    await pw_expect(rolls).to_have_value("refuse")  # the safe default
    await pw_expect(panel.locator("select[name=enforcement]")).to_have_value("enforce")
    await pw_expect(panel).to_contain_text("ブリッジがVTTのダイス出力から読んだ結果は常に使います")
    await rolls.select_option("allow")
    await until(lambda: player.state["meta"]["player_rolls"] == "allow", "the player to see allow")
    await pw_expect(rolls).to_have_value("allow")
    await page.click(".lang-toggle")
    await pw_expect(panel.locator(".panel-title")).to_have_text("Room settings")
    await pw_expect(rolls.locator("option[value=refuse]")).to_have_text(
        "refuse (roll on the VTT or with komasync)")
    await player.close()
    await gm.close()
    con.check()


async def test_room_settings_say_what_an_uncredited_vtt_action_may_do(browser: Browser,
                                                                       demo: Demo) -> None:
    # Issue 26 finding 2: a move nobody is credited with only moves, unless the GM widens it.
    con = await open_console(browser, demo)
    page = con.page
    gm = await GM.connect(demo)
    player = await join(demo, await gm.invite("player", "p1"))
    panel = page.locator(".panel[data-panel=room]")
    uncredited = panel.get_by_label("VTT上の誰の操作か分からない操作")
    await pw_expect(uncredited).to_have_value("moves")  # the safe default
    await pw_expect(uncredited.locator("option[value=moves]")).to_have_text(
        "誰のものでもないコマを動かすだけ（判断はしない）")
    await pw_expect(panel).to_contain_text("プレイヤーのキャラクターはどちらでも動かせません")
    await uncredited.select_option("gm_side")
    await until(lambda: player.state["meta"]["uncredited"] == "gm_side", "the player to see it")
    await page.click(".lang-toggle")
    widened = panel.get_by_label("VTT actions nobody can be credited with")
    await pw_expect(widened).to_have_value("gm_side")
    await pw_expect(widened.locator("option[value=gm_side]")).to_have_text(
        "also decide for the GM's side (enemies, GM units)")
    await player.close()
    await gm.close()
    con.check()
