"""Typed edits (issue 30) in Debian's chromium: the override editor is built from the state's
JSON Schema, so a mass unit's row is a 前列/後列 picker (MASS-T-1), a max strength a number
within its bounds (MASS-PREP-1); before applying, the engine's dry run shows what the edit
would bring — with the next step after it, units left at strength 0 are routed
(戦力0 → 敗走, MASS-PREP-2) — and nothing changes until Apply is clicked.

Clicks (and typing into the editor) only, at 1024, 1440 and 1920 px, in ja and en; a
separate GM WebSocket client checks the state. Room: examples/mass_combat.yaml, where the
GM set アリス隊's strength and only the max strength of ボリス隊 and カナ隊 (players absent).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_console import Console

from conftest import CHROMIUM, EXAMPLES, SHOTS, Client, Running, gm, start_server

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

WORDS = {
    "ja-JP": {"rows": ["前列", "後列"], "front": "前列", "reason": "理由（必須）", "apply": "適用",
              "routed": "「{name}」は戦力0で敗走した。", "change": "{name} › 敗走: いいえ → はい",
              "min": "0以上にしてください。", "then": "続けてGMが次へ進めると:"},
    "en-US": {"rows": ["front row", "back row"], "front": "front row", "reason": "Reason (required)",
              "apply": "Apply", "routed": "'{name}' is routed (strength 0).",
              "change": "{name} › routed: no → yes", "min": "At least 0.",
              "then": "If the GM then moves on:"},
}


async def absent_players(tmp_path: Path) -> tuple[Running, Client]:
    r = await start_server(tmp_path / "typed.sqlite3", EXAMPLES / "mass_combat.yaml", seed="typed")
    g = await gm(r)
    actions: list[dict[str, Any]] = [{"kind": "mass.strength", "unit": "alice", "value": 10}]
    actions += [{"kind": "override", "path": ["mass", "units", u, "max_strength"], "value": 9,
                 "reason": "不在"} for u in ("boris", "kana")]
    for action in actions:
        ack = await g.reply(action)
        assert ack["type"] == "ack", ack
    await g.settle(ack["version"])
    return r, g


async def synced(g: Client) -> dict[str, Any]:
    """The state as the GM client has it once every change sent before a pong is read."""
    await g.send({"type": "ping", "t": 1})
    await g.expect("pong")
    return g.state


def ov(unit: str, field: str) -> str:
    path = json.dumps(["mass", "units", unit, field]).replace(" ", "")
    return f".ms-unit[data-unit={unit}] button.ov[data-path='{path}']"


@pytest.mark.parametrize("width", [1024, 1440, 1920])
@pytest.mark.parametrize("locale", ["ja-JP", "en-US"])
async def test_typed_override_shows_the_rout_before_it_applies(
        browser: Browser, tmp_path: Path, width: int, locale: str) -> None:
    r, g = await absent_players(tmp_path)
    w = WORDS[locale]
    try:
        ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale=locale)
        page = await ctx.new_page()
        con = Console(page)
        await page.goto(r.http + "/")
        await page.fill("#secret", r.secret)
        await page.click(".signin button[type=submit]")
        await page.click(f".room-list li[data-room={r.room}] button")
        await page.wait_for_selector(".ms")
        await page.wait_for_selector('.conn-status[data-status="open"]')
        form = page.locator(".ov-form")

        # MASS-T-1: the row is a picker in the seed's words, not JSON
        await page.click(ov("boris", "row"))
        picker = form.locator("select.ov-input")
        await pw_expect(picker).to_be_visible()
        labels = [x.strip() for x in await picker.locator("option").all_inner_texts()]
        assert labels[1:] == w["rows"], labels  # after "none": the field may be unset
        await picker.select_option(label=w["front"])
        await form.get_by_label(w["reason"]).fill("不在のプレイヤーの代わり")
        await form.get_by_role("button", name=w["apply"]).click()
        await pw_expect(form).to_have_count(0)
        state = await synced(g)
        assert state["mass"]["units"]["boris"]["row"] == "front"
        version = g.version

        # MASS-PREP-1/2: a max strength with strength left at 0: the consequence first
        await page.click(ov("dean", "max_strength"))
        number = form.locator("input.ov-input[type=number]")
        assert await number.get_attribute("min") == "0"
        await number.fill("-1")  # outside the schema's bounds: said at once, nothing sent
        await pw_expect(form.locator(".ov-effects")).to_contain_text(w["min"])
        await number.fill("8")
        then = form.locator(".ov-then-list")
        await pw_expect(form.locator(".ov-then")).to_have_text(w["then"])
        for name in ("ボリス隊", "カナ隊", "ディーン隊"):
            await pw_expect(then).to_contain_text(w["routed"].format(name=name))
            await pw_expect(then).to_contain_text(w["change"].format(name=name))
        await pw_expect(then).not_to_contain_text("アリス隊")
        # only a dry run so far: the room is as it was
        state = await synced(g)
        assert g.version == version and state["mass"]["units"]["dean"]["max_strength"] is None
        if width == 1440:
            SHOTS.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(SHOTS / f"typed-override-{locale[:2]}.png"))
        await form.get_by_label(w["reason"]).fill("不在のプレイヤーの代わり")
        await form.get_by_role("button", name=w["apply"]).click()
        await pw_expect(form).to_have_count(0)
        state = await synced(g)
        dean = state["mass"]["units"]["dean"]
        assert (dean["max_strength"], dean["strength"], dean["routed"]) == (8, 0, False)
        assert g.version == version + 1 and state["mass"]["step"] == "preparation"
        sent = [json.loads(x) for x in con.sent]
        assert any(m.get("type") == "dry_run" for m in sent)
        con.check()
        await ctx.close()
    finally:
        await g.close()
        await r.runner.cleanup()
