"""The player page (server/console/js/player/*) in Debian's chromium against a real server.

`komasync serve --demo` holds three rooms (demo = tower defense, demo-bases, demo-table).
A GM WebSocket client mints the invites and drives the GM's side (phases, prompts); the
player opens the invite link and acts from the page. What the page received over its
WebSocket is checked for anything GM-only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from test_console import (
    FUTURE_WAVE_NAMES,
    Console,
    Demo,
)

from conftest import CHROMIUM, SHOTS, Client

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the player page's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Page
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Page = Any

TD_ROOM, BASES_ROOM, TABLE_ROOM = "demo", "demo-bases", "demo-table"
OTHER_FORTS = {"pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
               "pc5": "m_left", "pc6": "m_right", "npc1": "final"}
ATTACK_LINE = "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 42 ＞ 42 ＞ レギュラー成功"
TRAP_LINE = "(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 12 ＞ ハード成功"


class GM:
    """A GM WebSocket client for any demo room; `wait` reads until the state fits."""

    def __init__(self, client: Client) -> None:
        self.c = client

    @classmethod
    async def connect(cls, demo: Demo, room: str) -> GM:
        c = await Client.connect(demo.ws)
        await c.auth(room, secret=demo.secret, client="test GM")
        await c.expect("snapshot")
        return cls(c)

    @property
    def state(self) -> dict[str, Any]:
        return self.c.state

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        reply = await self.c.reply_to(await self.c.act(action))
        assert reply["type"] == "ack", reply
        await self.c.settle(reply["version"])
        return reply

    async def invite(self, role: str, player: str | None = None) -> str:
        msg: dict[str, Any] = {"type": "invite.create", "id": f"inv-{role}-{player}", "role": role}
        if player:
            msg["player"] = player
        await self.c.send(msg)
        return str((await self.c.expect("invite"))["token"])

    async def sync(self) -> None:
        """Every change sent before the pong has been read once the pong arrives."""
        await self.c.send({"type": "ping", "t": 1})
        await self.c.expect("pong")

    async def wait(self, pred: Callable[[dict[str, Any]], bool], what: str, timeout: float = 5.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            await self.sync()
            if pred(self.c.state):
                return
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        await self.c.close()


async def open_player(browser: Browser, demo: Demo, room: str, token: str, *, locale: str = "ja-JP",
                      width: int = 1024, height: int = 768) -> Console:
    ctx = await browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(f"{demo.url}#room={room}&invite={token}")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await pw_expect(page.locator(".console")).to_have_attribute("data-role", "player")
    assert token not in page.url
    return con


def actions_sent(con: Console, kind: str) -> list[dict[str, Any]]:
    return [m["action"] for m in con.sent_json() if m.get("type") == "action" and m["action"]["kind"] == kind]


def received(con: Console) -> str:
    return "\n".join(con.received)


# -- tower defense -----------------------------------------------------------------------------


async def test_player_places_attacks_and_sees_refusals(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, TD_ROOM)
    con = await open_player(browser, demo, TD_ROOM, await gm.invite("player", "p1"))
    page = con.page
    await pw_expect(page.locator(".viewer-banner")).to_contain_text("プレイヤー1")
    card = page.locator(".pl-card[data-pc=pc1]")
    await pw_expect(card.locator(".pl-pc-name")).to_have_text("カルロス・ベガ")
    await pw_expect(page.locator(".pl-card")).to_have_count(1)  # only their own PC
    gm_controls = "button.ov, button.command, .tabs button[data-tab=invites], details.panel[data-panel=state]"
    assert await page.locator(gm_controls).count() == 0

    # Setup (TD-PRE-1): the starting fort, one tap.
    await card.locator(".pl-place button[data-fort=f_left]").click()
    await pw_expect(card.locator(".pl-place .pl-done")).to_contain_text("カルロス・ベガは左端砦に陣取る")
    await pw_expect(card.locator(".pl-pc-fort")).to_have_text("左端砦")
    placed = card.locator(".pl-place button[data-fort=f_left]")
    await pw_expect(placed).to_have_attribute("aria-pressed", "true")
    await pw_expect(page.locator(".td-map g.td-fort[data-id=f_left] .td-pcs.mine")).to_be_visible()
    await pw_expect(page.locator(".td-pcs-table tr.mine[data-pc=pc1] .badge.me")).to_be_visible()
    await gm.wait(lambda s: s["tower_defense"]["pcs"]["pc1"]["fort"] == "f_left", "pc1 at f_left")
    assert actions_sent(con, "td.pc.place") == [{"kind": "td.pc.place", "pc": "pc1", "fort": "f_left"}]

    # Typed dice results count only once the GM allows them (issue 13 finding 7).
    trap = card.locator(".pl-trap")
    await pw_expect(trap.locator("input[type=radio][value=paste]")).to_be_disabled()
    await pw_expect(trap.locator(".pl-paste-off")).to_contain_text("GMの設定")
    assert (await gm.act({"kind": "room.player_rolls", "mode": "allow"}))["type"] == "ack"
    await pw_expect(trap.locator("input[type=radio][value=paste]")).to_be_enabled()
    await pw_expect(trap.locator(".pl-paste-off")).to_have_count(0)

    # A trap, with a pasted BCDice line (手さばき 50: 12 is a hard success).
    await trap.locator("select[name=passage]").select_option("in_left")
    await trap.locator("select[name=kind]").select_option("snare")
    await trap.locator("input[type=radio][value=paste]").check()
    # Copied out of a Foundry chat (issue 29): zero-width characters the page drops.
    await trap.locator("textarea.pl-lines").fill(
        "\ufeff" + TRAP_LINE.replace(" ", " \u200b").replace("＞", "＞\u2060") + "\u200c\n\u200d")
    await trap.locator("button[data-act=trap]").click()
    await pw_expect(trap.locator(".pl-done")).to_contain_text("足止めトラップを仕掛けた")
    await pw_expect(trap).to_contain_text("設置済みの罠 1/2")
    assert actions_sent(con, "td.trap.set")[-1] == {
        "kind": "td.trap.set", "pc": "pc1", "passage": "in_left", "trap": "snare", "skill": "手さばき",
        "result": TRAP_LINE}

    # The GM places the others and moves on to the PC attack phase.
    for pc, fort in OTHER_FORTS.items():
        await gm.act({"kind": "td.pc.place", "pc": pc, "fort": fort})
    await gm.act({"kind": "td.next_phase"})
    await pw_expect(card.locator(".pl-wait")).to_contain_text("敵増援フェイズ")
    for pid in list(gm.state["prompts"]):
        await gm.act({"kind": "answer", "prompt": pid, "choice": "done"})
    await gm.act({"kind": "td.next_phase"})
    await gm.act({"kind": "td.next_phase"})
    await gm.act({"kind": "override", "path": ["tower_defense", "pcs", "pc1", "skills", "射撃（拳銃）"],
                  "value": 99, "reason": "test: every shot hits"})
    await pw_expect(page.locator(".headline")).to_contain_text("PC攻撃フェイズ")

    # Attack with komasync's dice: the target list puts the groups in range first.
    attack = card.locator(".pl-attack")
    await pw_expect(attack.locator("optgroup").first).to_have_attribute("label", "射程内（目安）")
    in_range = await attack.locator("optgroup").first.locator("option").evaluate_all(
        "os => os.map(o => o.value)")
    assert in_range == ["r1-left_end"]
    await attack.locator("select[name=target]").select_option("r1-left_end")
    await attack.locator("input[name=shots]").fill("3")
    count = page.locator(".td-groups-table tr[data-group='r1-left_end'] td.num")
    await pw_expect(count).to_have_text("5")
    await attack.locator("button[data-act=attack]").click()
    await pw_expect(attack.locator(".pl-done")).to_contain_text("デザートイーグル")
    await page.wait_for_function("""() => {
      const row = document.querySelector(".td-groups-table tr[data-group='r1-left_end'] td.num");
      return !row || Number(row.textContent) < 5;
    }""")
    await gm.wait(lambda s: s["tower_defense"]["groups"].get("r1-left_end", {"count": 0})["count"] < 5,
                  "the GM to see the group shrink")
    assert actions_sent(con, "td.attack")[-1] == {
        "kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle", "group": "r1-left_end", "shots": 3}
    await pw_expect(page.locator(".viewer-log li").first).to_contain_text("カルロス・ベガ")
    await pw_expect(page.locator(".viewer-log")).to_contain_text("デザートイーグル")
    await pw_expect(card.locator(".pl-acted")).to_contain_text("射撃")

    # Illegal: moving after shooting (TD-ATK-3) — the refusal sits under the move buttons.
    await card.locator(".pl-move button[data-fort=f_center_left]").click()
    refusal = card.locator(".pl-move .pl-refusal")
    await pw_expect(refusal).to_have_attribute("data-rule", "TD-ATK-3")
    await pw_expect(refusal).to_contain_text("TD-ATK-3")
    await pw_expect(refusal).to_contain_text("このフェイズには射撃済みです。")
    await pw_expect(refusal).to_have_attribute("data-code", "already_acted")
    # Illegal: a group the hint lists as out of range, with a pasted BCDice line (TD-ATK-4).
    far = attack.locator("optgroup[label='射程外かも（サーバーが判定）'] option[value='r1-center_left']")
    await pw_expect(far).to_have_count(1)
    await attack.locator("select[name=target]").select_option("r1-center_left")
    await attack.locator("input[type=radio][value=paste]").check()
    await attack.locator("textarea.pl-lines").fill(ATTACK_LINE + "\n")
    await attack.locator("button[data-act=attack]").click()
    out_of_range = attack.locator(".pl-refusal[data-code=out_of_range]")
    await pw_expect(out_of_range).to_contain_text("TD-ATK-4")
    await pw_expect(out_of_range).to_contain_text("デザートイーグルの射程外です。")
    sent = actions_sent(con, "td.attack")[-1]
    assert sent["results"] == [ATTACK_LINE] and "shots" not in sent and sent["group"] == "r1-center_left"
    await pw_expect(card.locator(".pl-move .pl-refusal")).to_be_visible()  # still beside its control
    assert gm.state["tower_defense"]["pcs"]["pc1"]["fort"] == "f_left"

    # Nothing GM-only ever reached the page.
    raw = received(con)
    for text in (*FUTURE_WAVE_NAMES, '"waves"', "SANチェックを行ってください", '"resume"', "test GM"):
        assert text not in raw, f"GM-only {text!r} reached the player page"

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "player-ja.png"))
    await page.click(".lang-toggle")
    await pw_expect(page.locator("html")).to_have_attribute("lang", "en")
    await pw_expect(refusal).to_contain_text("Already shot this phase.")
    await pw_expect(card.locator(".pl-attack .pl-form-title")).to_have_text("Shoot")
    await pw_expect(page.locator(".panel[data-panel=player_td] .panel-title")).to_have_text("Your PCs")
    await page.screenshot(path=str(SHOTS / "player-en.png"))
    await gm.close()
    con.check()


# -- base battle --------------------------------------------------------------------------------


async def test_player_triggers_and_answers_the_base_choice(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, BASES_ROOM)
    token = await gm.invite("player", "p1")
    await gm.act({"kind": "bases.round"})
    con = await open_player(browser, demo, BASES_ROOM, token)
    page = con.page
    panel = page.locator(".panel[data-panel=player_bases]")
    await pw_expect(panel.locator("select[name=character]")).to_have_value("アリス")
    await pw_expect(panel.locator(".pl-status")).to_have_text("戦闘空間上")
    item = panel.locator("li.pl-trigger[data-event='stake.ev1']")
    await pw_expect(item).to_contain_text("結界強化")
    await pw_expect(item).to_contain_text("発動 0/3")

    # 【能動誘発】（味方キャラクター/発動タイミングを放棄する）: アリス abandons her timing.
    await item.locator("button[data-trigger='stake.ev1']").click()
    assert actions_sent(con, "bases.trigger") == [{
        "kind": "bases.trigger", "event": "stake.ev1", "character": "アリス",
        "action": "発動タイミングを放棄する"}]
    await pw_expect(item).to_contain_text("発動 1/3")
    # BASE-CHOICE: the effect asks the players for one allied base.
    prompt = page.locator(".panel[data-panel=prompts] .prompt")
    await pw_expect(page.locator(".panel[data-panel=prompts] .panel-title")).to_have_text("あなたへの問い")
    await pw_expect(prompt).to_contain_text("拠点を選んでください")
    choices = await prompt.locator("button[data-choice]").evaluate_all("bs => bs.map(b => b.dataset.choice)")
    assert sorted(choices) == ["camp", "stake"]
    await prompt.locator("button[data-choice=camp]").click()
    await pw_expect(page.locator(".prompt")).to_have_count(0)
    await gm.wait(lambda s: s["bases"]["bases"]["camp"]["gp"] == 6, "前線拠点 GP 4 → 6")
    assert not gm.state["prompts"]
    answers = [m for m in con.sent_json() if m.get("type") == "answer"]
    assert len(answers) == 1 and answers[0]["choice"] == "camp"

    # Report a happening for the character: incapacitated.
    await panel.locator("select[name=happening]").select_option("character.incapacitated")
    await panel.locator("button[data-act=report]").click()
    await pw_expect(panel.locator(".pl-report .pl-done")).to_be_visible()
    await gm.wait(lambda s: s["bases"]["characters"]["アリス"]["status"] == "incapacitated", "アリス down")
    await pw_expect(panel.locator(".pl-status")).to_have_text("戦闘不能")
    # Damage taken carries the amount.
    await panel.locator("select[name=happening]").select_option("character.damaged")
    await panel.locator("input[name=amount]").fill("3")
    await panel.locator("button[data-act=report]").click()
    await pw_expect(panel.locator(".pl-report .pl-done")).to_be_visible()
    assert actions_sent(con, "bases.report")[-1] == {"kind": "bases.report", "happening": "character.damaged",
                                                    "character": "アリス", "amount": 3}

    # The GM's console shows the result of the players' choice.
    gctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="ja-JP")
    gpage = await gctx.new_page()
    await gpage.goto(demo.url)
    await gpage.fill("#secret", demo.secret)
    await gpage.click(".signin button[type=submit]")
    await gpage.click(f".room-list li[data-room={BASES_ROOM}] button")
    camp = gpage.locator(".base-card[data-base=camp]")
    await pw_expect(camp.locator(".base-stats button.ov").first).to_have_text("6")

    raw = received(con)
    for text in ("隠し砲台", '"battery"', "結界杭のGPを1減らす", '"notes"', '"resume"'):
        assert text not in raw, f"GM-only {text!r} reached the player page"
    await gm.close()
    con.check()


# -- generic table ------------------------------------------------------------------------------


async def test_player_moves_own_pieces_and_counters(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, TABLE_ROOM)
    con = await open_player(browser, demo, TABLE_ROOM, await gm.invite("player", "alice"))
    page = con.page
    panel = page.locator(".panel[data-panel=player_table]")
    await pw_expect(panel.locator("li.pl-piece")).to_have_count(1)  # the knight; not Bob's archer
    knight = panel.locator("li.pl-piece[data-piece=knight]")
    await pw_expect(page.locator(".table-map g.table-piece.mine[data-id=knight]")).to_have_count(1)

    # Click a square on the grid.
    await panel.locator("rect.pl-cell[data-x='4'][data-y='3']").click()
    await gm.wait(lambda s: s["table"]["pieces"]["knight"]["cell"] == {"x": 4, "y": 3}, "knight at (4,3)")
    await pw_expect(knight).to_contain_text("(4, 3)")
    # Type the square.
    await knight.locator("input[name=x]").fill("6")
    await knight.locator("input[name=y]").fill("5")
    await knight.locator("button[data-act=move]").click()
    await gm.wait(lambda s: s["table"]["pieces"]["knight"]["cell"] == {"x": 6, "y": 5}, "knight at (6,5)")
    await pw_expect(knight).to_contain_text("(6, 5)")
    # Off the grid (TABLE-MV-2): refused, beside the piece.
    await knight.locator("input[name=x]").fill("40")
    await knight.locator("button[data-act=move]").click()
    await pw_expect(knight.locator(".pl-refusal")).to_have_attribute("data-rule", "TABLE-MV-2")
    await pw_expect(knight.locator("input[name=x]")).to_have_value("40")  # kept, to correct it

    # Their own counter: −1, then a value past the maximum is clamped (TABLE-CT-1).
    hp = panel.locator("li.pl-counter[data-counter=alice_hp]")
    await hp.locator("button[data-delta='-1']").click()
    await pw_expect(hp.locator(".pl-counter-value")).to_have_text("11")
    await hp.locator("input[name=value]").fill("99")
    await hp.locator("button[data-act=set]").click()
    await pw_expect(hp.locator(".pl-counter-value")).to_have_text("12")
    await gm.wait(lambda s: s["table"]["counters"]["alice_hp"]["value"] == 12, "HP 12")
    await pw_expect(panel.locator("li.pl-counter")).to_have_count(1)  # not the clock (GM's)
    raw = received(con)
    for text in ("暗殺者", "落とし穴", "破滅", '"doom"'):
        assert text not in raw, f"GM-only {text!r} reached the player page"
    await gm.close()
    con.check()


# -- read-only roles, phones ------------------------------------------------------------------


async def test_observer_keeps_the_read_only_view(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, TD_ROOM)
    token = await gm.invite("observer")
    ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale="ja-JP")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(f"{demo.url}#room={TD_ROOM}&invite={token}")
    await page.wait_for_selector(".td-map")
    await pw_expect(page.locator(".console")).to_have_attribute("data-role", "viewer")
    await pw_expect(page.locator(".viewer-banner")).to_contain_text("招待で閲覧中（観戦者）")
    assert await page.locator(".pl-card, .pl-form, .panel[data-panel^=player_], button.ov").count() == 0
    await gm.close()
    con.check()


async def test_player_page_fits_a_phone(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, TD_ROOM)
    con = await open_player(browser, demo, TD_ROOM, await gm.invite("player", "p6"), width=375, height=740)
    page = con.page
    card = page.locator(".pl-card[data-pc=pc6]")
    await pw_expect(card.locator(".pl-pc-name")).to_have_text("白峰しずく")
    assert await page.evaluate("document.scrollingElement.scrollWidth") <= 375
    await card.locator(".pl-place button[data-fort=final]").click()
    await gm.wait(lambda s: s["tower_defense"]["pcs"]["pc6"]["fort"] == "final", "pc6 at the final fort")
    assert await page.evaluate("document.scrollingElement.scrollWidth") <= 375
    await gm.close()
    con.check()


async def test_a_dead_invite_link_says_what_to_ask_the_gm_for(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, TD_ROOM)
    token = await gm.invite("observer")
    await gm.c.send({"type": "invite.revoke", "id": "r1", "invite": await _last_invite(gm)})
    revoked = await gm.c.expect("invites", id="r1")
    assert revoked["invites"][-1]["revoked"] is True
    for locale, title, ask in (("ja-JP", "この招待リンクは使えません", "GMに新しい招待リンク"),
                               ("en-US", "This invite link no longer works", "Ask your GM")):
        ctx = await browser.new_context(viewport={"width": 1024, "height": 768}, locale=locale)
        page = await ctx.new_page()
        con = Console(page)
        await page.goto(f"{demo.url}#room={TD_ROOM}&invite={token}")
        card = page.locator(".dead-invite")
        await pw_expect(card.locator("h1")).to_have_text(title)
        await pw_expect(card).to_contain_text(ask)
        await page.screenshot(path=str(SHOTS / f"dead-invite-{locale[:2]}.png"))
        con.errors.clear()  # the refused socket is logged by the browser itself
        await ctx.close()
    await gm.close()


async def _last_invite(gm: GM) -> str:
    await gm.c.send({"type": "invite.list", "id": "l2"})
    return str((await gm.c.expect("invites"))["invites"][-1]["invite"])
