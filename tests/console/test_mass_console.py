"""Mass combat in the browser (server/console/js/panels/mass.js, player/mass.js), Debian's
chromium against `komasync serve --demo` (room demo-mass = examples/mass_combat.yaml).

The GM's panel shows both sides' front and back rows with each unit's strength bar,
attack/defence and formation, the turn and step, the battle order with the unit to act,
the pending attack, active strategies and uses left (MASS-T-1..3, MASS-DATA). The
player's card drives a unit through preparation, deployment, tactics and battle, and
shows refusals with their rule ID; the odd-point and LP prompts reach the player's page.
Screenshots in Japanese and English.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_console import Console
from test_player import GM, open_player, received

from conftest import CHROMIUM, SHOTS, Demo

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

ROOM = "demo-mass"
STRENGTH = {"alice": 15, "boris": 12, "kana": 13, "dean": 10}
ROWS = {"alice": "back", "boris": "front", "kana": "front", "dean": "back"}
FORMATIONS = {"wolves": "疾風陣", "orcs": "強撃陣", "kana": "三波状陣"}


async def open_gm(browser: Browser, demo: Demo, locale: str = "ja-JP") -> Console:
    ctx = await browser.new_context(viewport={"width": 1024, "height": 900}, locale=locale)
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={ROOM}] button")
    await page.wait_for_selector(".ms")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    return con


async def answer_gm_prompts(gm: GM, choice: str = "attack") -> None:
    for pid, p in list(gm.state["prompts"].items()):
        if p["to"] == "gm":
            ids = [c["id"] for c in p["choices"]]
            await gm.act({"kind": "answer", "prompt": pid, "choice": choice if choice in ids else ids[0]})


async def test_mass_panel_rows_order_strategies_and_prompts(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, ROOM)
    for uid, value in STRENGTH.items():
        await gm.act({"kind": "mass.strength", "unit": uid, "value": value})
    await gm.act({"kind": "mass.pick", "unit": "kana", "skill": "知力", "formations": ["三波状陣"],
                  "strategies": ["情報操作", "前進攻撃"]})
    await gm.act({"kind": "mass.pick", "unit": "alice", "skill": "知力", "strategies": ["統率回復"]})
    con = await open_gm(browser, demo)
    page = con.page
    panel = page.locator(".panel[data-panel=mass]")
    await pw_expect(page.locator(".headline")).to_contain_text("戦争準備フェイズ")

    # MASS-T-3 the GM's step button: preparation → deployment.
    step = page.locator("button.command[data-command='mass.next_step']")
    await pw_expect(step).to_contain_text("次へ: 戦力配置")
    await step.click()
    await pw_expect(page.locator(".headline")).to_contain_text("第1ターン · 戦力配置")

    # MASS-T-1 rows; alice (15) leaves its odd point open: the prompt goes to p1, the GM
    # answers the enemy units' odd points from the console.
    for uid, row in ROWS.items():
        action: dict[str, Any] = {"kind": "mass.deploy", "unit": uid, "row": row}
        if uid != "alice":
            action["odd"] = "attack"
        await gm.act(action)
    await step.click()
    await pw_expect(page.locator(".prompt")).to_have_count(4)
    await pw_expect(page.locator(".prompt").filter(has_text="アリス隊")).to_contain_text("宛先: アリス")
    for unit in ("オーク軍団", "魔狼騎兵", "ゴブリン投石隊"):
        await page.locator(".prompt").filter(has_text=unit).locator("button[data-choice=attack]").click()
    await page.locator(".prompt").filter(has_text="アリス隊").locator("button[data-choice=defence]").click()
    await pw_expect(page.locator(".headline")).to_contain_text("戦術決定")
    kingdom = panel.locator(".ms-side[data-side=kingdom]")
    await pw_expect(kingdom.locator(".ms-row[data-row=front] .ms-unit")).to_have_count(2)
    await pw_expect(kingdom.locator(".ms-row[data-row=back] .ms-unit[data-unit=alice]")).to_be_visible()
    alice = kingdom.locator(".ms-unit[data-unit=alice]")
    await pw_expect(alice.locator(".ms-def b")).to_have_text("8")  # 15 → 7/8
    await pw_expect(alice.locator(".ms-commander")).to_have_text("総大将")
    await pw_expect(alice.locator(".ms-strength")).to_have_attribute("data-strength", "15")

    # MASS-T-2 formations, then the battle order: 疾風陣 (魔狼騎兵) first.
    for uid, fid in FORMATIONS.items():
        await gm.act({"kind": "mass.formation", "unit": uid, "formation": fid})
    await step.click()
    await pw_expect(page.locator(".headline")).to_contain_text("戦闘")
    order = panel.locator(".ms-order li")
    await pw_expect(order.first).to_have_attribute("data-unit", "wolves")
    await pw_expect(panel.locator(".ms-order li.current")).to_contain_text("魔狼騎兵")
    await pw_expect(panel.locator(".ms-unit[data-unit=wolves].acting")).to_be_visible()
    await pw_expect(panel.locator(".ms-unit[data-unit=orcs] .ms-atk b")).to_have_text("11")  # 7 + 4

    # MASS-STRAT-1: a strategy shows as active with its uses left.
    await gm.act({"kind": "mass.strategy", "unit": "alice", "strategy": "統率回復"})
    use = panel.locator(".ms-strategies tr[data-unit=alice] .ms-use[data-strategy=統率回復]")
    await pw_expect(use).to_contain_text("2")
    await pw_expect(use).to_have_class("ms-use active")
    # A GM-run unit's picks and uses are the GM's alone: badged so on the GM's screen.
    gm_row = panel.locator(".ms-strategies tr[data-unit=demon_lord]")
    await pw_expect(gm_row.locator(".badge.gm-only")).to_be_visible()
    await pw_expect(panel.locator(".ms-strategies tr[data-unit=alice] .badge.gm-only")).to_have_count(0)

    # MASS-DMG-1: wolves → boris (front vs front); kana may make it reroll (情報操作):
    # the pending attack and the prompt to p3 show; the GM passes for p3 from the console.
    await gm.act({"kind": "mass.attack", "unit": "wolves", "target": "boris", "result": "(1D6) ＞ 6"})
    await pw_expect(panel.locator(".ms-pending")).to_contain_text("魔狼騎兵 → ボリス隊")
    await pw_expect(panel.locator(".ms-pending")).to_contain_text("ダイス6")
    react = page.locator(".prompt").filter(has_text="情報操作")
    await pw_expect(react).to_contain_text("宛先: カナ")
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "mass-console-ja.png"), full_page=True)
    await react.locator("button[data-choice=pass]").click()
    # MASS-DMG-2: boris's leader is asked about LP (p2); the GM answers 0 for them.
    lp = page.locator(".prompt").filter(has_text="LP")
    await pw_expect(lp).to_contain_text("宛先: ボリス")
    await lp.locator("button[data-choice='0']").click()
    await pw_expect(panel.locator(".ms-pending")).to_have_count(0)
    await gm.wait(lambda s: not s["prompts"] and s["mass"]["attack"] is None, "the damage")
    boris = gm.state["mass"]["units"]["boris"]
    await pw_expect(panel.locator(".ms-unit[data-unit=boris] .ms-strength")).to_have_attribute(
        "data-strength", str(boris["strength"]))
    assert boris["strength"] < 12
    await pw_expect(panel.locator(".ms-order li[data-unit=wolves]")).to_have_class("acted")

    # The timeline tells each step in words, with the units' names.
    await pw_expect(page.locator(".tl-list")).to_contain_text("「魔狼騎兵」が「ボリス隊」を攻撃")
    await page.click(".lang-toggle")
    await pw_expect(page.locator("html")).to_have_attribute("lang", "en")
    await pw_expect(page.locator(".headline")).to_contain_text("Turn 1 · battle")
    await pw_expect(step).to_contain_text("End the turn")
    await pw_expect(kingdom.locator(".ms-row[data-row=front] .ms-row-label")).to_have_text("Front row")
    await pw_expect(panel.locator(".ms-strategies thead")).to_contain_text("Strategies and uses left")
    await page.screenshot(path=str(SHOTS / "mass-console-en.png"), full_page=True)
    con.check()
    await gm.close()


async def test_mass_player_controls_from_preparation_to_battle(browser: Browser, demo: Demo) -> None:
    gm = await GM.connect(demo, ROOM)
    await gm.act({"kind": "room.player_rolls", "mode": "allow"})  # pasted BCDice lines count
    con = await open_player(browser, demo, ROOM, await gm.invite("player", "p1"), width=1024,
                            height=900)
    page = con.page
    card = page.locator(".pl-card[data-unit=alice]")
    await pw_expect(card.locator(".pl-pc-name")).to_have_text("アリス隊")

    # MASS-PREP-1: a pasted BCDice line (3D6 + 魅力 4: the commander-in-chief's check).
    strength = card.locator(".pms-strength")
    await strength.locator("input[type=radio][value=paste]").check()
    await strength.locator("textarea.pl-lines").fill("(3D6+4) ＞ 11[3,4,4]+4 ＞ 15")
    await strength.locator("button[data-act=strength]").click()
    await pw_expect(strength).to_contain_text("最大戦力 15")
    await gm.wait(lambda s: s["mass"]["units"]["alice"]["max_strength"] == 15, "alice's strength")

    # MASS-PREP-3: (メンタル 4 + 知力 2) ÷ 2 = 3 picks; four are refused with the rule ID.
    picks = card.locator(".pms-picks")
    for pid in ("攻撃の波陣", "疾風陣", "統率回復", "偽りの白旗"):
        await picks.locator(f"label[data-pick='{pid}'] input").check()
    await pw_expect(picks.locator(".pms-over")).to_contain_text("取得できる数: 3（選択中 4）")
    await picks.locator("button[data-act=pick]").click()
    refusal = picks.locator(".pl-refusal[data-code=too_many_picks]")
    await pw_expect(refusal).to_contain_text("MASS-PREP-3")
    await pw_expect(refusal).to_contain_text("取得できるのは3個までです")
    await picks.locator("label[data-pick='疾風陣'] input").uncheck()
    await picks.locator("button[data-act=pick]").click()
    await gm.wait(lambda s: s["mass"]["units"]["alice"]["picked"], "alice's picks")
    assert gm.state["mass"]["units"]["alice"]["strategies"] == ["全軍退却", "統率回復", "偽りの白旗"]

    for uid, value in STRENGTH.items():
        if uid != "alice":
            await gm.act({"kind": "mass.strength", "unit": uid, "value": value})
    await gm.act({"kind": "mass.next_step", "expect": "preparation"})

    # MASS-T-1: the row from the page; the odd point is asked of p1 on their page.
    front = card.locator(".pms-deploy button[data-row=front]")
    await front.click()
    await pw_expect(front).to_have_attribute("aria-pressed", "true")
    for uid, row in ROWS.items():
        if uid != "alice":
            await gm.act({"kind": "mass.deploy", "unit": uid, "row": row, "odd": "attack"})
    await gm.act({"kind": "mass.next_step", "expect": "deployment"})
    await answer_gm_prompts(gm)
    odd = page.locator(".prompt").filter(has_text="奇数")
    await pw_expect(odd).to_have_count(1)
    await odd.locator("button[data-choice=attack]").click()
    await gm.wait(lambda s: s["mass"]["step"] == "tactics", "tactics")

    # MASS-T-2: the formation from the page.
    await card.locator(".pms-formation button[data-formation=攻撃の波陣]").click()
    await gm.wait(lambda s: s["mass"]["units"]["alice"]["formation"] == "攻撃の波陣", "formation")
    await gm.act({"kind": "mass.formation", "unit": "wolves", "formation": "疾風陣"})
    await gm.act({"kind": "mass.next_step", "expect": "tactics"})

    # MASS-T-3: the enemy acts first; alice waits, then attacks from the page.
    await pw_expect(card.locator(".pms-wait")).to_contain_text("魔狼騎兵")
    while gm.state["mass"]["current"] != "alice":
        cur = gm.state["mass"]["current"]
        owner = gm.state["mass"]["units"][cur]["player"]
        if owner is None:
            await gm.act({"kind": "mass.defend", "unit": cur, "result": "(1D6) ＞ 1"})
        else:
            await gm.act({"kind": "mass.delay", "unit": cur})
    battle = card.locator(".pms-battle")
    await pw_expect(battle).to_contain_text("あなたの部隊の行動です")
    await battle.locator("select[name=target]").select_option("orcs")
    await battle.locator("input[type=radio][value=paste]").check()
    await battle.locator("textarea.pl-lines").fill("(2D6) ＞ 7[3,4] ＞ 7")
    await battle.locator("button[data-act=attack]").click()
    wrong = battle.locator(".pl-refusal[data-code=result_mismatch]")
    await pw_expect(wrong).to_contain_text("MASS-DATA")
    await battle.locator("textarea.pl-lines").fill("(1D6) ＞ 5")
    before = gm.state["mass"]["units"]["orcs"]["strength"]
    await battle.locator("button[data-act=attack]").click()
    # the GM is asked at each reaction window, whatever its units hold (issue 26): it passes
    for _ in range(2):
        await gm.wait(lambda s: any(p["to"] == "gm" for p in s["prompts"].values()), "a window")
        await answer_gm_prompts(gm, "pass")
    await gm.wait(lambda s: s["mass"]["units"]["orcs"]["strength"] < before, "the attack")
    await pw_expect(card.locator(".pms-acted")).to_be_visible()

    # MASS-DMG-2: an enemy hits alice; p1 is asked on their page how much LP to take.
    while gm.state["mass"]["current"] and gm.state["mass"]["units"][gm.state["mass"]["current"]]["player"]:
        await gm.act({"kind": "mass.delay", "unit": gm.state["mass"]["current"]})
    await gm.act({"kind": "mass.attack", "unit": gm.state["mass"]["current"], "target": "alice"})
    await answer_gm_prompts(gm, "pass")
    lp = page.locator(".prompt").filter(has_text="LP")
    await pw_expect(lp).to_have_count(1)
    hp, lp_before = (gm.state["mass"]["units"]["alice"][k] for k in ("strength", "lp"))
    await lp.locator("button[data-choice='1']").click()
    await gm.wait(lambda s: s["mass"]["units"]["alice"]["lp"] == lp_before - 1, "LP taken")
    await pw_expect(card.locator(".pms-strength-now")).to_have_text(
        f"{gm.state['mass']['units']['alice']['strength']}/15")
    assert gm.state["mass"]["units"]["alice"]["strength"] <= hp

    # Nothing GM-only reached the page: the GM's own prompts and the enemy units' picks.
    raw = received(con)
    for text in ("戦力13は奇数", '"resume"', '"context"'):
        assert text not in raw, f"GM-only {text!r} reached the player page"
    snapshot = next(json.loads(f) for f in con.received if '"type":"snapshot"' in f)
    orcs = snapshot["state"]["mass"]["units"]["orcs"]
    assert "uses" not in orcs and "strategies" not in orcs and orcs["strength"] == 13
    assert "uses" in snapshot["state"]["mass"]["units"]["alice"]

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "mass-player-ja.png"), full_page=True)
    await page.click(".lang-toggle")
    await pw_expect(page.locator("html")).to_have_attribute("lang", "en")
    await pw_expect(page.locator(".panel[data-panel=player_mass] .panel-title")).to_have_text("Your units")
    await pw_expect(card.locator(".pms-strategy .pl-form-title")).to_have_text("Strategy (no action spent)")
    await page.screenshot(path=str(SHOTS / "mass-player-en.png"), full_page=True)
    con.check()
    await gm.close()
