"""The engagement panel (server/console/js/panels/engagement.js) and the player's cards
(player/engagement.js) in Debian's chromium against `komasync serve --demo
--demo-scenario examples/engagement.yaml`: the relation graph, who may still melee at
the setup, pending handover questions, the attack being resolved; a player declares an
approach and a melee, reports a roll, answers a handover and covers an ally (ENG-1,
ENG-IN-1, ENG-EF-2, ENG-HAND-1, ENG-ACT-1/2, ENG-COVER). Screenshots in Japanese and
English go to conftest.SHOTS."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_console import open_console, wait_version
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


def dice(*faces: int) -> str:
    if len(faces) == 1:
        return f"(1D6) ＞ {faces[0]}"
    return f"({len(faces)}D6) ＞ {sum(faces)}[{','.join(map(str, faces))}] ＞ {sum(faces)}"


@pytest.fixture
def eng_demo(tmp_path: Path) -> Iterator[Demo]:
    """The demo room playing the shrine steps (examples/engagement.yaml)."""
    d = serve_demo(tmp_path / "e.sqlite3", EXAMPLES / "engagement.yaml")
    try:
        yield d
    finally:
        stop(d)


async def test_eng_panel_graph_setup_melee_and_handovers(browser: Browser, eng_demo: Demo) -> None:
    # ENG-1, ENG-IN-1, ENG-EF-2, ENG-HAND-1
    gm = await GM.connect(eng_demo, ROOM)
    con = await open_console(browser, eng_demo, ready=".eng-graph")
    page = con.page
    panel = page.locator(".panel[data-panel=engagement]")
    await pw_expect(panel.locator(".eng-head b")).to_have_text("戦闘前")
    await panel.locator("button[data-act='engagement.start']").click()
    await pw_expect(page.locator(".headline")).to_contain_text("ターン1 · セットアップ")
    await panel.locator("button[data-act='engagement.phase']").click()
    await pw_expect(page.locator(".headline")).to_contain_text("ターン1 · イニシアチブ／メインフェイズ")

    # the GM declares the oni's approach on アヤ with a pasted BCDice line
    form = panel.locator(".eng-form").filter(has=page.locator("button[data-act='engagement.declare']"))
    await form.locator("select[name=who]").select_option("oni")
    await form.locator("select[name=action]").select_option("approach")
    await form.locator("select[name=target]").select_option("aya")
    await form.locator("input[name=dp]").fill("4")
    await form.locator("select[name=roll]").select_option("paste")
    await form.locator("input[name=line]").fill(dice(5, 5, 5, 5))
    await form.locator("button[data-act='engagement.declare']").click()
    box = panel.locator(".eng-exchange")
    await pw_expect(box).to_have_attribute("data-stage", "cover")  # ゴウ stands in front
    # what the attack waits for and from whom, as the server says (ENG-COVER): ゴウ, アヤ deciding
    await pw_expect(box).to_have_attribute("data-awaiting", "cover")
    await pw_expect(box.locator(".eng-stage")).to_have_attribute("data-decides", "aya")
    await pw_expect(box.locator(".eng-stage")).to_contain_text("カバー待ち（盾役ゴウ）")
    await pw_expect(box).to_contain_text("目標値 21")  # the GM sees the target number
    assert actions_sent(con, "engagement.approach")[-1]["result"] == dice(5, 5, 5, 5)
    defence = panel.locator(".eng-form").filter(has=page.locator("button[data-act='engagement.defend']"))
    await defence.locator("select[name=defender]").select_option("aya")
    await defence.locator("select[name=defence]").select_option("none")
    await defence.locator("button[data-act='engagement.defend']").click()
    await pw_expect(panel.locator("g.eng-edge[data-pair='aya|oni']")).to_have_count(1)
    await pw_expect(panel.locator("tr[data-combatant=aya] .eng-partners")).to_have_text("鬼武者")

    # an ability engages the fox with アヤ: the oni (the fox's ally on アヤ) is asked, via the GM
    await gm.act({"kind": "engagement.link", "a": "fox", "b": "aya", "note": "[妖術]"})
    offer = panel.locator(".eng-offer[data-leaver=oni]")
    await pw_expect(offer).to_contain_text("「鬼武者」は「剣士アヤ」との接近状態から離脱できます")
    await pw_expect(offer).to_contain_text("回答: gm")
    await pw_expect(panel.locator("g.eng-edge")).to_have_count(2)
    await offer.locator("button[data-choice=stay]").click()
    await pw_expect(panel.locator(".eng-offer")).to_have_count(0)

    # turn 2's setup: who may still melee, and the engagements that end with it (dashed)
    await panel.locator("button[data-act='engagement.phase']").click()
    await panel.locator("button[data-act='engagement.phase']").click()
    await pw_expect(page.locator(".headline")).to_contain_text("ターン2 · セットアップ")
    setup = panel.locator(".eng-setup")
    await pw_expect(setup.locator("li[data-combatant=aya]")).to_contain_text("剣士アヤ → 鬼武者・妖狐")
    await pw_expect(panel.locator("g.eng-edge[data-expiring=true]")).to_have_count(2)
    await gm.act({"kind": "engagement.melee", "combatant": "oni", "target": "aya", "dp": 1,
                  "result": dice(1)})
    await gm.act({"kind": "engagement.defend", "combatant": "aya", "defence": "none"})
    await pw_expect(setup.locator("li[data-combatant=oni]")).to_have_attribute("data-used", "true")
    await gm.sync()
    await wait_version(con, gm.c.version)

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "engagement-console-ja.png"), full_page=True)
    await page.click(".lang-toggle")
    await pw_expect(page.locator(".headline")).to_contain_text("Turn 2 · setup")
    await pw_expect(setup.locator("li[data-combatant=oni]")).to_contain_text("鬼武者 (used)")
    await page.screenshot(path=str(SHOTS / "engagement-console-en.png"), full_page=True)
    await panel.locator("button[data-act='engagement.phase']").click()
    await pw_expect(panel.locator("g.eng-edge")).to_have_count(0)  # ENG-EF-3
    await gm.close()
    con.check()


async def test_eng_player_declares_reports_answers_and_covers(browser: Browser, eng_demo: Demo) -> None:
    # ENG-ACT-1, ENG-ACT-2, ENG-HAND-1, ENG-COVER
    gm = await GM.connect(eng_demo, ROOM)
    con = await open_player(browser, eng_demo, ROOM, await gm.invite("player", "alice"))
    page = con.page
    cards = page.locator(".panel[data-panel=player_engagement]")
    await pw_expect(cards.locator(".pe-card")).to_have_count(2)  # アヤ and ミオ only
    await gm.act({"kind": "room.player_rolls", "mode": "allow"})  # lines typed here count
    await gm.act({"kind": "engagement.start"})
    await gm.act({"kind": "engagement.phase"})
    aya = cards.locator(".pe-card[data-combatant=aya]")

    # approach with a pasted line; the GM lets it come (the fox could have covered)
    approach = aya.locator(".pe-form[data-form=approach]")
    await approach.locator("select[name=target]").select_option("oni")
    await approach.locator("input[name=dp]").fill("4")
    await approach.locator("select[name=roll]").select_option("paste")
    await approach.locator("input[name=line]").fill(dice(6, 6, 6, 6))
    await approach.locator("button[data-act='engagement.approach']").click()
    await gm.wait(lambda s: s["engagement"]["exchange"] is not None, "the approach is declared")
    await gm.act({"kind": "engagement.defend", "combatant": "oni", "defence": "none"})
    await pw_expect(aya.locator(".pe-partners")).to_contain_text("鬼武者")

    # melee, rolled in the VTT chat: the card asks for the line, then for the damage
    melee = aya.locator(".pe-form[data-form=melee]")
    await melee.locator("select[name=dp]").select_option("3")
    await melee.locator("select[name=roll]").select_option("vtt")
    await melee.locator("button[data-act='engagement.melee']").click()
    roll = aya.locator(".pe-roll")
    await pw_expect(roll).to_contain_text("判定の結果を待っています（4D6+7）")
    await roll.locator("input[name=line]").fill(dice(4, 4, 4, 4))
    await roll.locator("button[data-act='engagement.roll']").click()
    await gm.wait(lambda s: s["engagement"]["exchange"]["stage"] == "defence", "the hit check is in")
    await gm.act({"kind": "engagement.defend", "combatant": "oni", "defence": "evade", "dp": 1,
                  "result": dice(1)})
    await pw_expect(roll).to_contain_text("ダメージの結果を待っています（2D6+7）")
    await roll.locator("input[name=line]").fill(dice(3, 4))
    await roll.locator("button[data-act='engagement.roll']").click()
    await gm.wait(lambda s: s["table"]["counters"]["oni_hp"]["value"] == 40 - 14, "the oni takes 14")

    # a refusal is shown under the control with its rule: no approach while engaged
    await approach.locator("select[name=roll]").select_option("engine")
    await approach.locator("button[data-act='engagement.approach']").click()
    refusal = approach.locator(".pl-refusal[data-code=already_engaged]")
    await pw_expect(refusal).to_contain_text("ENG-ACT-1")
    await pw_expect(refusal).to_contain_text("接近状態なので接近できません")

    # ENG-HAND-1: ミオ is engaged with the oni by an ability; アリス is asked about アヤ
    await gm.act({"kind": "engagement.link", "a": "mio", "b": "oni", "note": "[呪縛]"})
    handover = aya.locator(".pe-handover")
    await pw_expect(handover).to_contain_text("「鬼武者」と新しい接近状態ができました")
    await handover.locator("button[data-choice=leave]").click()
    await pw_expect(aya.locator(".pe-partners")).to_have_text("接近状態なし")

    # ENG-COVER: the fox engages and melees ミオ; アヤ (front row, free again) covers her
    await gm.act({"kind": "engagement.link", "a": "fox", "b": "mio"})
    await gm.act({"kind": "engagement.melee", "combatant": "fox", "target": "mio", "dp": 1,
                  "result": dice(2)})
    cover = aya.locator(".pe-form[data-form=defend]")
    await pw_expect(cover).to_contain_text("「妖狐」の近接攻撃が「術師ミオ」に来ています")
    await cover.locator("select[name=defence]").select_option("cover")
    await cover.locator("input[name=dp]").fill("3")
    await cover.locator("select[name=roll]").select_option("paste")
    await cover.locator("input[name=line]").fill(dice(6, 6, 6))
    await cover.locator("button[data-act='engagement.defend']").click()
    await gm.wait(lambda s: "aya|fox" in s["engagement"]["pairs"], "アヤ takes the engagement over")
    await pw_expect(aya.locator(".pe-partners")).to_contain_text("妖狐")
    assert '"goal"' not in received(con)  # the approach's target number is the GM's

    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "engagement-player-ja.png"), full_page=True)
    await page.click(".lang-toggle")
    await pw_expect(aya.locator(".pe-partners")).to_contain_text("engaged with: 妖狐")
    await pw_expect(refusal).to_contain_text("cannot approach")
    await page.screenshot(path=str(SHOTS / "engagement-player-en.png"), full_page=True)
    await gm.close()
    con.check()
