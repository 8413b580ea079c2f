"""The history in plain words (issue 30): every demo room's timeline, notices and prompts
on the GM console and the log on a player's page, after a scripted session, in ja and en.

A GM and a player drive each room over real WebSocket clients (a few of its subsystem's
actions, a prompt answered where the room asks one, a refusal, an undo); Debian's chromium
then renders the console and the player page. The rendered text must hold no raw JSON, no
declared refusal code (engine/registry.py REFUSALS, server/errors.py SERVER), no audience
key, no id of a piece, combatant, unit or player that has a name, and in the Japanese UI
no date or time in a US or ISO form (the browser's locale is en-US: times follow the UI).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_console import Console
from test_player import GM, open_player

from conftest import CHROMIUM, Client, Demo
from komasync.engine.registry import ACTIONS, REFUSALS
from komasync.examples import DEMOS
from komasync.server.errors import SERVER

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Any

Act = tuple[str, dict[str, Any]]  # who ("gm" or "player"), the action

# Each room's session: the GM's and the player's actions (some are refused on purpose).
SCRIPTS: dict[str, tuple[str, list[Act]]] = {
    "demo": ("p1", [
        *[("gm", {"kind": "td.pc.place", "pc": pc, "fort": fort}) for pc, fort in {
            "pc1": "f_left", "pc2": "f_center_left", "pc3": "f_center_right", "pc4": "f_right",
            "pc5": "m_left", "pc6": "m_right", "npc1": "final"}.items()],
        ("player", {"kind": "td.pc.place", "pc": "pc2", "fort": "f_left"}),
        ("gm", {"kind": "override", "path": ["tower_defense", "forts", "f_left", "durability"],
                "value": 7, "reason": "補修材が届かなかった"}),
        ("gm", {"kind": "td.next_phase"}),
    ]),
    "demo-bases": ("p1", [
        ("gm", {"kind": "bases.round"}),
        ("gm", {"kind": "bases.fire", "element": "gate.gp3"}),
        ("gm", {"kind": "bases.report", "happening": "character.damaged", "character": "アリス",
                "side": "pc", "amount": 3}),
        ("player", {"kind": "bases.round"}),
    ]),
    "demo-table": ("alice", [
        ("player", {"kind": "table.move", "piece": "knight", "to": {"x": 4, "y": 3}}),
        ("gm", {"kind": "table.move", "piece": "ghoul", "to": {"x": 8, "y": 5}}),
        ("player", {"kind": "table.move", "piece": "archer", "to": {"x": 5, "y": 5}}),
        ("gm", {"kind": "table.counter.add", "counter": "clock", "delta": 1}),
    ]),
    "demo-grid": ("alice", [
        ("gm", {"kind": "grid.start"}),
        ("player", {"kind": "grid.process.start", "combatant": "fighter"}),
        ("player", {"kind": "grid.move", "combatant": "fighter", "to": {"x": 4, "y": 4}}),
        ("player", {"kind": "grid.move", "combatant": "archer", "to": {"x": 3, "y": 5}}),
        ("gm", {"kind": "grid.check.ask", "combatant": "fighter", "check": "命中判定"}),
    ]),
    "demo-mass": ("p1", [
        *[("gm", {"kind": "mass.strength", "unit": u, "value": v})
          for u, v in {"alice": 15, "boris": 12, "kana": 13}.items()],
        ("gm", {"kind": "mass.strength", "unit": "dean"}),  # rolled: the roll's purpose in words
        ("gm", {"kind": "mass.next_step", "expect": "preparation"}),
        *[("gm", {"kind": "mass.deploy", "unit": u, "row": r, **({} if u == "alice" else {"odd": "attack"})})
          for u, r in {"alice": "back", "boris": "front", "kana": "front", "dean": "back"}.items()],
        ("player", {"kind": "mass.deploy", "unit": "boris", "row": "back"}),
        ("gm", {"kind": "mass.next_step", "expect": "deployment"}),
    ]),
    "demo-engagement": ("alice", [
        ("gm", {"kind": "engagement.start"}),
        ("gm", {"kind": "engagement.link", "a": "fox", "b": "mio", "note": "[妖術]"}),
        ("gm", {"kind": "engagement.phase"}),
        ("player", {"kind": "engagement.phase"}),
    ]),
}

DATE_US = re.compile(r"\b\d{1,2}/\d{1,2}/\d{4}\b|\b\d{1,2}:\d{2}(:\d{2})?\s?[AP]M\b")
ENGLISH_CHECK = re.compile(r"\b(?:approach|hit|evasion|guard|cover) check\b|"
                           r"\b(?:regular|hard|extreme) success\b")
DATE_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}(T\d{2}:\d{2})?")
WHERE = {"timeline": ".timeline", "notices": ".notices", "prompts": ".panel[data-panel=prompts]"}


def refusal_codes() -> set[str]:
    """Every declared refusal code: the engine's groups and the server's."""
    return {c.code for group in (*REFUSALS, SERVER) for c in group}


def internal_kinds() -> set[str]:
    """Action kinds and the prompts' kinds: `grid.move`, `answer`, `mass.odd_point`…"""
    return set(ACTIONS) | {"choice", "td.san", "bases.choose", "grid.check_range", "grid.hindrance",
                           "mass.odd_point", "mass.lp", "mass.reaction", "mass.rebalance",
                           "engagement.handover"}


def named_ids(state: dict[str, Any]) -> set[str]:
    """Ids of the room's players, pieces, combatants and units that have a name."""
    ids = {pid for pid, p in state["meta"]["players"].items() if p.get("name") and p["name"] != pid}
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, dict) and isinstance(value.get("name"), str) and value.get("name") \
                        and value.get("id", key) == key and value["name"] != key:
                    found.add(key)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for part in ("table", "grid", "mass", "engagement", "tower_defense", "bases"):
        walk(state.get(part))
    return ids | found


def findings(text: str, lang: str, ids: set[str], codes: set[str], kinds: set[str]) -> list[str]:
    """What the text shows that a person should not have to read."""
    out = [f"raw JSON {m.group(0)!r}" for m in re.finditer(r'\{"|":', text)]
    out += [f"audience key {m.group(0)!r}" for m in re.finditer(r"\bplayer:\w+", text)]
    words = set(re.findall(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9_]", text))
    out += [f"refusal code {c!r}" for c in sorted(codes & words)
            if "_" in c or lang == "ja"]  # one-word codes ("left") are English words too
    out += [f"id {i!r}" for i in sorted(ids & words)]
    out += [f"internal kind {k!r}" for k in sorted(kinds & words) if "." in k or lang == "ja"]
    if lang == "ja":
        out += [f"English {m.group(0)!r}" for m in ENGLISH_CHECK.finditer(text)]
        out += [f"date {m.group(0)!r}" for m in (*DATE_US.finditer(text), *DATE_ISO.finditer(text))]
    return out


async def run_script(gm: GM, player: Client, script: list[Act]) -> dict[str, int]:
    """Play the room's session; count what was accepted and refused."""
    counts = {"ack": 0, "reject": 0, "answered": 0}
    for who, action in script:
        client = gm.c if who == "gm" else player
        reply = await client.reply_to(await client.act(action))
        counts[reply["type"]] = counts.get(reply["type"], 0) + 1
        if reply["type"] == "ack":
            await gm.c.settle(reply["version"])
    # a refusal every room gives: a player may not undo
    reply = await player.reply_to(await player.act({"kind": "undo", "to_version": 0, "reason": "x"}))
    counts[reply["type"]] += 1
    for pid, p in list(gm.state["prompts"].items())[:2]:
        choice = "8" if p.get("free") else p["choices"][0]["id"]
        reply = await gm.c.reply_to(await gm.c.act({"kind": "answer", "prompt": pid, "choice": choice}))
        if reply["type"] == "ack":
            counts["answered"] += 1
            await gm.c.settle(reply["version"])
    return counts


async def undo_last(gm: GM) -> None:
    reply = await gm.c.reply_to(await gm.c.act({"kind": "undo", "to_version": gm.c.version - 1,
                                                "reason": "やり直し"}))
    assert reply["type"] == "ack", reply
    await gm.c.settle(reply["version"])


async def open_gm(browser: Browser, demo: Demo, room: str) -> Console:
    # The browser's locale is en-US on purpose: dates and times must follow the UI language.
    ctx = await browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US")
    page = await ctx.new_page()
    con = Console(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click(f".room-list li[data-room={room}] button")
    await page.wait_for_selector('.conn-status[data-status="open"]')
    await page.wait_for_selector(".tl-entry.tl-start")
    return con


async def set_lang(con: Console, lang: str) -> None:
    if await con.page.get_attribute("html", "lang") != lang:
        await con.page.click(".lang-toggle")
    await pw_expect(con.page.locator("html")).to_have_attribute("lang", lang)


@pytest.mark.parametrize("room", [d.room for d in DEMOS])
async def test_history_notices_and_prompts_in_plain_words(browser: Browser, demo: Demo, room: str) -> None:
    player_id, script = SCRIPTS[room]
    gm = await GM.connect(demo, room)
    pc = await Client.connect(demo.ws)
    await pc.auth(room, token=await gm.invite("player", player_id), client="test player")
    await pc.expect("snapshot")
    con = await open_gm(browser, demo, room)
    counts = await run_script(gm, pc, script)
    await undo_last(gm)
    assert counts["ack"] >= 2 and counts["reject"] >= 1, counts
    await gm.sync()

    player_page = await open_player(browser, demo, room, await gm.invite("player", player_id),
                                    locale="en-US")
    await player_page.page.wait_for_selector(".viewer-log li")
    codes, kinds = refusal_codes(), internal_kinds()
    ids = named_ids(gm.state)
    problems: list[str] = []
    page = con.page
    for lang in ("ja", "en"):
        await set_lang(con, lang)
        await set_lang(player_page, lang)
        await con.tab("timeline")
        await pw_expect(page.locator(".tl-entry:not(.tl-start)").first).to_be_visible()
        texts = {"timeline": await page.locator(".timeline").inner_text()}
        await con.tab("notices")
        await pw_expect(page.locator(".notices .notice").first).to_be_visible()
        texts["notices"] = await page.locator(".notices").inner_text()
        prompts = page.locator(".panel[data-panel=prompts]")
        texts["prompts"] = await prompts.inner_text() if await prompts.count() else ""
        texts["undo dialog"] = await undo_dialog(con)
        texts["player log"] = await player_page.page.locator(".viewer-log").inner_text()
        for where, text in texts.items():
            for f in findings(text, lang, ids, codes, kinds):
                problems.append(f"[{room} {lang} {where}] {f}")
        print("\n".join(f"--- {room} {lang} {w} ---\n{t}" for w, t in texts.items()))
    assert not problems, "shown where a name or words belong:\n" + "\n".join(problems)
    await pc.close()
    await gm.close()
    con.check()
    player_page.check()


async def undo_dialog(con: Console) -> str:
    """Open the undo dialog of the oldest entry (it lists what would be undone), read, close."""
    page = con.page
    await con.tab("timeline")
    await page.locator(".tl-start .tl-undo").click()
    pop = page.locator(".popover")
    await pw_expect(pop).to_be_visible()
    text = await pop.inner_text()
    await page.keyboard.press("Escape")
    await pw_expect(pop).to_have_count(0)
    return text
