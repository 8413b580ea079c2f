"""The GM plays any mass-combat unit from the console (issue 30, "the GM acts for any
actor"; server/console/js/panels/mass_act.js drawing player/mass.js's unit card).

In the mass demo room (`serve --demo`, demo-mass) with no player connected, the GM plays
its own unit 魔狼騎兵 (the odd point at deployment, its formation, its attack on the
battle step it opens: MASS-T-1..3, MASS-DMG-1) and the absent player アリス's unit (its
row, its odd point asked and answered, its defence), through clicks only, each card marked
「GMとして」; a separate GM WebSocket client sees every result, the history records the
GM as the actor, and the timeline says 「GMとして：…」. At 1024, 1440 and 1920 px, ja and en.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_console import Console, wait_version
from test_player import GM

from conftest import CHROMIUM, SHOTS, Client, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Locator
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Locator = Any

ROOM = "demo-mass"
STRENGTH = {"alice": 15, "boris": 12, "kana": 13, "dean": 10}
WORDS = {
    "ja": {"badge": "GMとして", "npc": "GMの部隊", "player": "プレイヤー: アリス",
           "turn": "GMとして：「魔狼騎兵」の行動です", "alice_turn": "GMとして：「アリス隊」の行動です",
           "attack": "GMとして：「魔狼騎兵」が「ボリス隊」を攻撃",
           "defend": "GMとして（アリスの代わり）：「アリス隊」が防御",
           "deploy": "GMとして：「魔狼騎兵」を前列へ",
           "for_alice": "GMとして（アリスの代わり）", "answered": "GMとして（アリスの代わり）：",
           "title": "GMとして部隊を動かす"},
    "en": {"badge": "as GM", "npc": "the GM's unit", "player": "player: アリス",
           "turn": "As GM: “魔狼騎兵” acts now", "alice_turn": "As GM: “アリス隊” acts now",
           "attack": "As GM: “魔狼騎兵” attacked “ボリス隊”",
           "defend": "As GM (for アリス): “アリス隊” defended",
           "deploy": "As GM: put “魔狼騎兵” in the Front row",
           "for_alice": "as GM (for アリス)", "answered": "As GM (for アリス): ",
           "title": "Play a unit as GM"},
}


async def open_gm(browser: Browser, demo: Demo, width: int, lang: str) -> Console:
    """The console signed in as GM on the mass demo room, in `lang`, `width` px wide."""
    ctx = await browser.new_context(viewport={"width": width, "height": 900},
                                    locale="ja-JP" if lang == "ja" else "en-US")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector(".ms")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await pw_expect(page.locator("html")).to_have_attribute("lang", lang)
    return con


async def answer_prompts(page: Any, gm: GM, done: Any, what: str) -> None:
    """Answer, by clicks in the console's prompts panel, every question (reactions pass,
    LP 0) until `done(state)`."""
    for _ in range(8):
        await gm.sync()
        if done(gm.state):
            return
        if gm.state["prompts"]:
            prompt = page.locator(".prompt").first
            await pw_expect(prompt).to_be_visible()
            pid = await prompt.get_attribute("data-prompt")
            for choice in ("pass", "0"):
                button = prompt.locator(f"button[data-choice='{choice}']")
                if await button.count():
                    await button.click()
                    break
            else:
                await prompt.locator(".prompt-choices button").first.click()
            await gm.wait(lambda s, pid=pid: pid not in s["prompts"], "the prompt answered")
        else:
            await gm.wait(lambda s: bool(s["prompts"]) or done(s), what)
    await gm.wait(done, what)


async def history(c: Client) -> list[dict[str, Any]]:
    """The room's history as a GM client reads it."""
    await c.send({"type": "history", "id": "h", "after": 0, "limit": 100})
    return list((await c.expect("history"))["entries"])


async def pick_unit(panel: Locator, unit: str) -> Locator:
    """Choose the unit the GM plays in the panel's picker; its card."""
    await panel.locator("select[name=unit]").select_option(unit)
    card = panel.locator(f".pms-card[data-unit={unit}]")
    await pw_expect(card).to_be_visible()
    return card


@pytest.mark.parametrize("lang", ["ja", "en"])
@pytest.mark.parametrize("width", [1024, 1440, 1920])
async def test_gm_plays_its_unit_and_an_absent_players_unit(browser: Browser, demo: Demo,
                                                            width: int, lang: str) -> None:
    w = WORDS[lang]
    gm = await GM.connect(demo, ROOM)
    for uid, value in STRENGTH.items():
        await gm.act({"kind": "mass.strength", "unit": uid, "value": value})
    await gm.act({"kind": "mass.next_step", "expect": "preparation"})
    for uid in ("boris", "kana", "dean", "orcs", "goblins"):
        row = gm.state["mass"]["units"][uid]["row"] or ("back" if uid == "dean" else "front")
        await gm.act({"kind": "mass.deploy", "unit": uid, "row": row, "odd": "attack"})

    con = await open_gm(browser, demo, width, lang)
    page = con.page
    panel = page.locator(".panel[data-panel=mass_act]")
    await pw_expect(panel.locator(".panel-title")).to_have_text(w["title"])

    # MASS-T-1 the GM's own unit (strength 11): its row and where its odd point goes.
    wolves = await pick_unit(panel, "wolves")
    await pw_expect(wolves.locator(".pl-card-head .badge.as-gm")).to_have_text(w["badge"])
    await pw_expect(wolves.locator(".pms-lead")).to_have_text(w["npc"])
    await wolves.locator("select[name=odd]").select_option("attack")
    await wolves.locator(".pms-deploy button[data-row=front]").click()
    await gm.wait(lambda s: s["mass"]["units"]["wolves"]["odd"] == "attack", "wolves' odd point")
    await pw_expect(wolves.locator(".pl-done")).to_be_visible()

    # The absent player's unit (strength 15): its row, its odd point left to ask.
    alice = await pick_unit(panel, "alice")
    await pw_expect(alice.locator(".pl-card-head .badge.as-gm")).to_have_text(w["badge"])
    await pw_expect(alice.locator(".pms-lead")).to_have_text(w["player"])
    await alice.locator(".pms-deploy button[data-row=back]").click()
    await gm.wait(lambda s: s["mass"]["units"]["alice"]["row"] == "back", "alice's row")

    # Next step: alice's odd point is asked of p1, who is away: the GM answers it.
    step = page.locator("button.command[data-command='mass.next_step']")
    await step.click()
    await gm.wait(lambda s: any(p["to"] == "player:p1" for p in s["prompts"].values()), "alice's odd point")
    odd = page.locator(".prompt").filter(has_text="アリス隊")
    await pw_expect(odd.locator(".prompt-as-gm .badge.as-gm")).to_have_text(w["for_alice"])
    await odd.locator("button[data-choice=defence]").click()
    await gm.wait(lambda s: s["mass"]["step"] == "tactics", "the tactics step")
    await wait_version(con, gm.c.version)  # the console has the new step: its picker reset is done
    assert gm.state["mass"]["units"]["alice"]["defence"] == 8  # 15 → 7 / 8 (MASS-T-2)

    # MASS-T-2 the GM's unit's formation, then the battle: 魔狼騎兵 opens it.
    wolves = await pick_unit(panel, "wolves")
    await wolves.locator(".pms-formation button[data-formation=疾風陣]").click()
    await gm.wait(lambda s: s["mass"]["units"]["wolves"]["formation"] == "疾風陣", "wolves' formation")
    await step.click()
    await gm.wait(lambda s: s["mass"]["step"] == "battle", "the battle step")
    await wait_version(con, gm.c.version)
    assert gm.state["mass"]["current"] == "wolves"

    # MASS-DMG-1 the picker follows the acting unit: 魔狼騎兵 attacks ボリス隊 with a pasted
    # BCDice line (the GM's results count whatever `player_rolls` says).
    card = panel.locator(".pms-card[data-unit=wolves]")
    battle = card.locator(".pms-battle")
    await pw_expect(battle.locator(".pl-form-title b")).to_have_text(w["turn"])
    await battle.locator("select[name=target]").select_option("boris")
    before = gm.state["mass"]["units"]["boris"]["strength"]
    await battle.locator("input[type=radio][value=paste]").check()
    await battle.locator("textarea.pl-lines").fill("(1D6) ＞ 6")
    await battle.locator("button[data-act=attack]").click()
    await answer_prompts(page, gm, lambda s: s["mass"]["attack"] is None and not s["prompts"]
                         and s["mass"]["units"]["wolves"]["acted"], "the attack")
    assert gm.state["mass"]["units"]["boris"]["strength"] < before
    attack = [r for e in await history(gm.c) if e["action"]["kind"] == "mass.attack" for r in e["rolls"]]
    assert [r["total"] for r in attack] == [6] and attack[0]["source"] != "engine", attack

    # The absent player's unit acts next: the GM defends with it.
    assert gm.state["mass"]["current"] == "alice"
    card = panel.locator(".pms-card[data-unit=alice]")
    await pw_expect(card.locator(".pms-battle .pl-form-title b")).to_have_text(w["alice_turn"])
    await pw_expect(card.locator(".badge.as-gm")).to_have_text(w["badge"])
    await card.locator("button[data-act=defend]").click()
    await gm.wait(lambda s: s["mass"]["units"]["alice"]["acted"], "alice's defence")

    # A separate GM client sees the results, and the history says the GM did it.
    other = await Client.connect(demo.ws)
    await other.auth(ROOM, secret=demo.secret, client="test GM 2")
    seen = (await other.expect("snapshot"))["state"]["mass"]
    assert seen["units"]["boris"]["strength"] == gm.state["mass"]["units"]["boris"]["strength"] < before
    assert seen["units"]["wolves"]["acted"] and seen["units"]["alice"]["acted"]
    assert seen["units"]["wolves"]["odd"] == "attack" and seen["units"]["alice"]["row"] == "back"
    entries = await history(other)
    played = {(e["action"]["kind"], e["action"].get("unit")): e["actor"]["role"] for e in entries}
    assert played[("mass.attack", "wolves")] == "gm"
    assert played[("mass.defend", "alice")] == "gm"
    await other.close()

    # The timeline's sentences say the GM played those units.
    timeline = page.locator(".tl-list")
    for key in ("deploy", "attack", "defend"):
        await pw_expect(timeline).to_contain_text(w[key])
    # the odd point the GM chose for アリス's unit reads as answered for her
    answered = timeline.locator(".tl-entry[data-kind=answer] .tl-sentence").last
    await pw_expect(answered).to_contain_text(w["answered"])

    if width == 1440:
        SHOTS.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(SHOTS / f"mass-gm-acts-{lang}.png"), full_page=True)
    con.check()
    await gm.close()
