"""The scenario editor in the GM console (issue 32), in Debian's chromium against a real
`komasync serve --demo`: opened through the file input and saved byte for byte, a room made
from it equal to `komasync room create`'s; the tower-defense demo built from the template by
clicks and typing only; the check's problems on the field and the piece they concern, in ja
and en; the player view; every control named at 1024, 1440 and 1920 px.

Rooms are compared through a separate GM WebSocket client (conftest.Client), the dice seed
aside (each room draws its own)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import CHROMIUM, EXAMPLES, KOMASYNC, SHOTS, Client, Demo, serve_demo, stop, store_args

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian chromium (/usr/bin/chromium) is missing: the console's browser tests need it "
           "(scripts/setup.sh installs it with apt)")

if CHROMIUM.exists():
    from playwright.async_api import Browser, Page
    from playwright.async_api import expect as pw_expect
else:  # pragma: no cover - the module is skipped
    Browser = Page = Any

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
#: The server, and the `room create` room (id, GM secret) of each example file by its name.
Served = tuple[Demo, dict[str, tuple[str, str]]]
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


async def until(pred: Any, what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not pred():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOMASYNC, *args], capture_output=True, text=True, timeout=60)


def jpath(path: list[Any]) -> str:
    """A data path as the editor writes it in data-* attributes (JSON.stringify)."""
    return json.dumps(path, ensure_ascii=False, separators=(",", ":"))


def attr(name: str, path: list[Any]) -> str:
    return f"[data-{name}='{jpath(path)}']"


@pytest.fixture
def editor_demo(tmp_path: Path) -> Iterator[Served]:
    """`komasync serve --demo` on a store that already holds one `room create` room per example."""
    db = tmp_path / "e.sqlite3"
    cli: dict[str, tuple[str, str]] = {}
    for path in EXAMPLE_FILES:
        room = f"cli-{path.stem.replace('_', '-')}"
        made = run("room", "create", str(path), *store_args(db), "--id", room)
        assert made.returncode == 0, made.stderr
        m = re.search(r"GM秘密鍵: (\S+)", made.stdout)
        assert m, made.stdout
        cli[path.name] = (room, m.group(1))
    d = serve_demo(db)
    try:
        yield d, cli
    finally:
        stop(d)


async def square_box(page: Page, x: int, y: int) -> Any:
    """Where the map's square (x, y) is drawn. The map is drawn again when a check answers, so a
    square found just before that is measured on the new drawing (same place, new element)."""
    for _ in range(20):
        box = await page.locator(f".ed-map rect.ed-square[data-x='{x}'][data-y='{y}']").bounding_box()
        if box:
            return box
        await asyncio.sleep(0.05)
    raise AssertionError(f"no square ({x},{y}) on the map")


class Editor:
    """The editor page, with the errors it reported."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

    def check(self) -> None:
        assert not self.errors, f"the editor reported errors: {self.errors}"

    async def checked(self) -> None:
        """Wait until the live check has answered the last edit."""
        await pw_expect(self.page.locator(".ed-problems")).to_have_attribute("data-state", "done")

    async def open_file(self, path: Path) -> None:
        file = self.page.locator("input.ed-file").first
        await file.set_input_files(str(path))
        await pw_expect(self.page.locator(".ed-layout")).to_be_visible()
        await pw_expect(self.page.locator(".ed-form")).to_be_visible()

    async def square(self, x: int, y: int) -> None:
        """Click the map's square (x, y) where it is drawn (whatever stands on it)."""
        box = await square_box(self.page, x, y)
        await self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)

    async def enter(self, path: list[Any], value: Any) -> None:
        """Enter `value` at `path` as a GM does: add items, type, pick, place and draw on the map."""
        page = self.page
        here = attr("path", path)
        cell = isinstance(value, dict) and set(value) == {"x", "y"}
        if cell and await page.locator(f".ed-cell{here}").count():
            await page.click(f"button{attr('place', path)}")
            await self.square(value["x"], value["y"])
            await pw_expect(page.locator(f"input{attr('path', [*path, 'x'])}")).to_have_value(str(value["x"]))
        elif isinstance(value, dict) and await page.locator(f".ed-dict{here}").count():
            for key, v in value.items():
                await page.fill(f"input{attr('new-key', path)}", str(key))
                await page.click(f"button{attr('add-key', path)}")
                await self.enter([*path, str(key)], v)
        elif isinstance(value, dict):
            add = page.locator(f"button{attr('add', path)}")
            if await add.count():  # a part not there yet (a nullable object)
                await add.click()
            for key, v in value.items():
                await self.enter([*path, key], v)
        elif isinstance(value, list) and await page.locator(f".ed-squares{here}").count():
            await page.click(f"button{attr('draw', path)}")
            for c in value:
                await self.square(c["x"], c["y"])
            await page.click(f"button{attr('draw', path)}")
            words = " → ".join(f"({c['x']},{c['y']})" for c in value)
            await pw_expect(page.locator(f".ed-squares{here} .ed-cells-words")).to_contain_text(words)
        elif isinstance(value, list):
            while await page.locator(f"button{attr('remove', [*path, 0])}").count():  # the template's own
                await page.click(f"button{attr('remove', [*path, 0])}")
            for i, item in enumerate(value):
                await page.click(f"button.ed-add{attr('add', path)}")
                await self.enter([*path, i], item)
        else:
            await self.scalar(path, value)

    async def scalar(self, path: list[Any], value: Any) -> None:
        el = self.page.locator(f"{attr('path', path)}:is(input, select, textarea)")
        kind = await el.evaluate("e => e.tagName + ':' + (e.type || '')")
        if kind.startswith("SELECT"):
            option = el.locator(f"option[data-value='{json.dumps(value, ensure_ascii=False)}']")
            await el.select_option(await option.get_attribute("value"))
        elif kind == "INPUT:checkbox":
            await el.set_checked(bool(value))
        else:
            await el.fill("" if value is None else str(value))

    async def save(self) -> bytes:
        """Save, then download: the file's bytes."""
        await self.page.click("button.ed-save-btn")
        download = self.page.locator("button.ed-download")
        await pw_expect(download).to_be_enabled()
        async with self.page.expect_download() as info:
            await download.click()
        saved = await (await info.value).path()
        return Path(saved).read_bytes()

    async def create_room(self) -> dict[str, Any]:
        """Create a room by clicking; the console then shows it."""
        async with self.page.expect_response(lambda r: r.url.endswith("/api/scenario/room")) as info:
            await self.page.click("button.ed-create-room")
        reply = await (await info.value).json()
        assert "room" in reply, reply
        await pw_expect(self.page.locator('.conn-status[data-status="open"]')).to_be_visible()
        return dict(reply)


async def open_editor(browser: Browser, demo: Demo, width: int = 1440, locale: str = "ja-JP") -> Editor:
    ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale=locale,
                                    accept_downloads=True)
    page = await ctx.new_page()
    ed = Editor(page)
    await page.goto(demo.url)
    await page.fill("#secret", demo.secret)
    await page.click(".signin button[type=submit]")
    await page.click("button.open-editor")
    await pw_expect(page.locator("button.ed-template").first).to_be_visible()
    return ed


async def room_state(demo: Demo, room: str, secret: str) -> dict[str, Any]:
    """The room's state as a GM client receives it, without the dice (each room has its own seed)."""
    c = await Client.connect(demo.ws)
    try:
        await c.auth(room, secret=secret, client="editor test")
        snap = await c.expect("snapshot")
    finally:
        await c.close()
    state = dict(snap["state"])
    state.pop("rng", None)
    return state


# -- (a) every example: open, save byte for byte, create a room -----------------------------------


async def test_every_example_opens_saves_byte_for_byte_and_makes_the_cli_room(
        browser: Browser, editor_demo: Served) -> None:
    demo, cli = editor_demo
    ed = await open_editor(browser, demo)
    page = ed.page
    for path in EXAMPLE_FILES:
        await ed.open_file(path)
        assert await ed.save() == path.read_bytes(), path.name
        made = await ed.create_room()
        mine = await room_state(demo, made["room"], made["secret"])
        assert mine == await room_state(demo, *cli[path.name]), path.name
        await page.click(".top-buttons button.open-editor")  # back to the editor for the next file
        await pw_expect(page.locator("button.ed-template").first).to_be_visible()
    ed.check()


# -- (b) the tower-defense demo, built from the template by clicks and typing -----------------------


async def test_the_tower_defense_demo_built_by_clicks_checks_ok_and_plays_like_the_example(
        browser: Browser, editor_demo: Served, tmp_path: Path) -> None:
    demo, cli = editor_demo
    example = EXAMPLES / "tower_defense.yaml"
    data = yaml.safe_load(example.read_text(encoding="utf-8"))
    ed = await open_editor(browser, demo)
    page = ed.page
    await page.click("button.ed-template[data-template=tower_defense]")
    await pw_expect(page.locator(".ed-form")).to_be_visible()
    for key, value in data.items():  # room, players, table, then every part of tower_defense
        await ed.enter([key], value)
    await ed.checked()
    await pw_expect(page.locator(".ed-problems")).to_have_attribute("data-count", "0")

    # A reference is picked by the thing's name, never its id.
    outer = page.locator(f"select{attr('path', ['tower_defense', 'passages', 0, 'outer'])} option:checked")
    await pw_expect(outer).to_have_text("左端")
    # Every fort, direction and the passages' squares are on the map.
    things = len(data["tower_defense"]["forts"]) + len(data["tower_defense"]["directions"])
    await pw_expect(page.locator(".ed-map g.ed-piece")).to_have_count(things)
    await pw_expect(page.locator(".ed-map g.ed-path")).to_have_count(len(data["tower_defense"]["passages"]))

    saved = tmp_path / "built.yaml"
    saved.write_bytes(await ed.save())
    checked = run("scenario", "check", str(saved))
    assert checked.returncode == 0 and checked.stdout.startswith("OK"), checked.stdout + checked.stderr
    made = await ed.create_room()
    assert await room_state(demo, made["room"], made["secret"]) == await room_state(demo, *cli[example.name])
    ed.check()


# -- (c) the live check: on the field, on the piece and in the list, ja and en ----------------------


async def problem_shown(ed: Editor, field: str, lang: str, answers: list[dict[str, Any]]) -> str:
    """The server's sentence for the problem at `field` shows beside it and in the list."""
    page = ed.page
    mine: list[dict[str, Any]] = []

    def found() -> bool:
        mine[:] = [p for a in answers[::-1] for p in a["problems"] if jpath(p["path"]).startswith(field[:-1])]
        return bool(mine)
    await until(found, f"a problem at {field}")
    words = mine[0][lang]
    wrap = page.locator(f".ed-form .ed-field{attr('path', json.loads(field))}")
    await pw_expect(wrap).to_have_class(re.compile(r"\bed-invalid\b"))
    await pw_expect(wrap.locator("[aria-invalid=true]")).to_have_count(1)
    await pw_expect(wrap.locator(".ed-problem")).to_be_visible()
    await pw_expect(wrap.locator(".ed-problem")).to_contain_text(words)
    item = page.locator(".ed-problem-item").filter(has_text=words)
    await pw_expect(item).to_have_count(1)
    return str(words)


async def test_live_check_marks_the_field_the_piece_and_the_list_in_ja_and_en(
        browser: Browser, editor_demo: Served, tmp_path: Path) -> None:
    demo, _ = editor_demo
    ed = await open_editor(browser, demo)
    page = ed.page
    answers: list[dict[str, Any]] = []

    async def keep(response: Any) -> None:
        if response.url.endswith(("/api/scenario/check", "/api/scenario/open")):
            answers.append(await response.json())
    page.on("response", keep)
    await ed.open_file(EXAMPLES / "tower_defense.yaml")
    await pw_expect(page.locator(".ed-problems .ed-ok")).to_be_visible()

    # Selecting the final fort on the map opens its form; 30 is off the 21-wide map.
    fort = ["tower_defense", "forts", 6]
    await page.locator(f".ed-map g.ed-piece{attr('thing', fort)}").click()
    await pw_expect(page.locator(f"details.ed-item{attr('path', fort)}")).to_have_attribute("open", "")
    piece = page.locator(f".ed-map g.ed-piece{attr('thing', fort)}")
    await pw_expect(piece).to_have_class(re.compile(r"\bed-selected\b"))
    # …and the other way: a field of another fort focused, its piece is the one marked.
    await page.locator(f"details.ed-item{attr('path', ['tower_defense', 'forts', 0])} > summary").click()
    await page.locator(f"input{attr('path', ['tower_defense', 'forts', 0, 'name'])}").focus()
    await pw_expect(page.locator(".ed-map g.ed-piece.ed-selected")).to_have_attribute(
        "data-thing", jpath(["tower_defense", "forts", 0]))
    await page.fill(f"input{attr('path', [*fort, 'cell', 'x'])}", "30")
    await ed.checked()
    cell = jpath([*fort, "cell"])
    ja = await problem_shown(ed, cell, "ja", answers)
    assert CJK.search(ja)
    await pw_expect(piece).to_have_class(re.compile(r"\bed-invalid\b"))
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "editor-problems-ja.png"))
    await page.click(".top-buttons .lang-toggle")
    en = await problem_shown(ed, cell, "en", answers)
    assert en != ja and not CJK.sub("", en) == ""
    await page.click(".top-buttons .lang-toggle")

    # A misspelled direction in a file: the wave's picker says so, on open, with its line.
    text = (EXAMPLES / "tower_defense.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "typo.yaml"
    wrong = "count: 10, direction: left_end, san: 0/1D4"
    bad.write_text(text.replace(wrong, wrong.replace("left_end", "left_edn")), encoding="utf-8")
    await ed.open_file(bad)
    wave = jpath(["tower_defense", "waves", "rounds", "2", 0, "direction"])
    await pw_expect(page.locator(".ed-problem-item")).not_to_have_count(0)
    await problem_shown(ed, wave, "ja", answers)
    picked = page.locator(f"select{attr('path', json.loads(wave))} option:checked")
    await pw_expect(picked).to_contain_text("left_edn")
    line = page.locator(".ed-problem-item").first
    assert int(await line.get_attribute("data-line") or 0) == text.splitlines().index(next(
        x for x in text.splitlines() if wrong in x)) + 1
    await page.click(".top-buttons .lang-toggle")
    await problem_shown(ed, wave, "en", answers)
    ed.check()


# -- (d) the player view -------------------------------------------------------------------------


async def test_player_view_hides_the_waves_and_marks_hidden_pieces(
        browser: Browser, editor_demo: Served) -> None:
    demo, _ = editor_demo
    ed = await open_editor(browser, demo)
    page = ed.page
    await ed.open_file(EXAMPLES / "tower_defense.yaml")
    await page.click("button.ed-preview")
    await pw_expect(page.locator(".ed-map-wrap .board")).to_have_attribute("data-mode", "preview")
    waves = page.locator(f".ed-hidden-list li{attr('path', ['tower_defense', 'waves'])}")
    await pw_expect(waves).to_have_count(1)
    assert CJK.search(await waves.inner_text()) and "waves" not in await waves.inner_text()
    await pw_expect(page.locator(".ed-map g.ed-piece")).to_have_count(11)  # forts and directions: seen
    await pw_expect(page.locator(".ed-map g.ed-piece.ed-hidden")).to_have_count(0)
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "editor-preview-ja.png"))
    await page.click("button.ed-preview")  # back to editing
    await pw_expect(page.locator(".ed-map-wrap .board")).to_have_attribute("data-mode", "edit")

    # The generic table: its hidden piece and marker are drawn for the GM, marked as hidden.
    await ed.open_file(EXAMPLES / "demo_table.yaml")
    await page.click("button.ed-preview")
    table = yaml.safe_load((EXAMPLES / "demo_table.yaml").read_text(encoding="utf-8"))["table"]
    secret = [["table", kind, thing["id"]] for kind in ("pieces", "markers")
              for thing in table[kind] if thing.get("hidden")]
    assert secret
    hidden = page.locator(".ed-map g.ed-piece.ed-hidden")
    await pw_expect(hidden).to_have_count(len(secret))
    for path in secret:
        await pw_expect(page.locator(f".ed-map g.ed-piece.ed-hidden{attr('thing', path)}")).to_have_count(1)
        await pw_expect(page.locator(f".ed-hidden-list li{attr('path', path)}")).to_have_count(1)
    ed.check()


# -- (e) layout and names at 1024, 1440 and 1920 px -------------------------------------------------


async def test_the_editor_fits_every_width_and_names_every_control(
        browser: Browser, editor_demo: Served) -> None:
    demo, _ = editor_demo
    for lang, locale in (("ja", "ja-JP"), ("en", "en-US")):
        ed = await open_editor(browser, demo, locale=locale)
        page = ed.page
        # the file chooser speaks the UI's language (the browser's own button would not)
        chooser = page.locator(".ed-start .ed-file-button").first
        await pw_expect(chooser).to_have_text("ファイルを選ぶ…" if lang == "ja" else "Choose a file…")
        native = await page.locator(".ed-start input.ed-file").first.bounding_box()
        assert native is not None and native["width"] <= 1
        await ed.open_file(EXAMPLES / "tower_defense.yaml")
        # a passage has no name: it is called by the things it joins, never by its id
        titles = await page.locator(".ed-item-title").all_inner_texts()
        assert "左端 → 左端砦" in titles and "左端砦 → 中央左砦" in titles, titles
        assert not {"in_left", "front_1"} & set(titles), titles
        await page.locator(f".ed-map g.ed-piece{attr('thing', ['tower_defense', 'forts', 0])}").click()
        for width in (1024, 1440, 1920):
            await page.set_viewport_size({"width": width, "height": 900})
            fits = await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            assert fits, f"the editor overflows {width} px"
            form = await page.locator(".ed-col-form").bounding_box()
            board = await page.locator(".ed-map-wrap").bounding_box()
            assert form and board and form["x"] + form["width"] <= board["x"], width  # side by side
            if width == 1440:  # docs/console.md's picture of the editor (scripts/screenshots.sh)
                SHOTS.mkdir(parents=True, exist_ok=True)
                await page.screenshot(path=str(SHOTS / f"editor-{lang}.png"))
        controls = page.locator("button, input, select, textarea")
        n = await controls.count()
        assert n > 100
        unnamed = await page.evaluate("""() => [...document.querySelectorAll(
            'button, input, select, textarea')]
          .filter((e) => !(e.getAttribute('aria-label') || '').trim()
            && !(e.labels && [...e.labels].some((l) => l.textContent.trim()))
            && !((e.tagName === 'BUTTON') && e.textContent.trim()))
          .map((e) => e.outerHTML.slice(0, 120))""")
        assert not unnamed, unnamed
        shown = page.locator(":is(button, input, select, textarea):visible")  # the browser's own names
        for i in range(await shown.count()):
            await pw_expect(shown.nth(i)).to_have_accessible_name(re.compile(r"\S"))
        ed.check()
        await page.context.close()


# -- areas: squares toggled by clicking and by dragging; the editor is the GM's only ----------------


async def drag(ed: Editor, cells: list[tuple[int, int]]) -> None:
    page = ed.page
    boxes = [await square_box(page, x, y) for x, y in cells]
    centres = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in boxes]
    await page.mouse.move(*centres[0])
    await page.mouse.down()
    for c in centres[1:]:
        await page.mouse.move(*c, steps=4)
    await page.mouse.up()


async def test_an_area_is_drawn_by_clicking_and_dragging_squares(
        browser: Browser, editor_demo: Served) -> None:
    demo, _ = editor_demo
    ed = await open_editor(browser, demo)
    page = ed.page
    example = EXAMPLES / "seamless_combat.yaml"
    await ed.open_file(example)
    part = next(k for k, v in yaml.safe_load(example.read_text(encoding="utf-8")).items()
                if isinstance(v, dict) and "obstacles" in v)
    where = [part, "obstacles"]
    words = page.locator(f".ed-squares{attr('path', where)} .ed-cells-words")
    await pw_expect(words).to_contain_text("(8,5) (8,6) (11,2) (11,9)")
    # A character whose piece is left empty (its id) is listed by that piece's name.
    titles = await page.locator(".ed-item-title").all_inner_texts()
    assert "剣士レオ" in titles and "fighter" not in titles, titles
    await page.click(f"button{attr('draw', where)}")
    await pw_expect(page.locator(".ed-map-wrap .board")).to_have_attribute("data-mode", "draw")
    await ed.square(8, 6)  # an obstacle there: gone
    await ed.square(3, 3)  # none there: added
    await pw_expect(words).to_contain_text("(8,5) (11,2) (11,9) (3,3)")
    await drag(ed, [(2, 8), (3, 8), (4, 8)])
    await pw_expect(words).to_contain_text("(8,5) (11,2) (11,9) (3,3) (2,8) (3,8) (4,8)")
    await page.click(f"button{attr('undo-square', where)}")
    await pw_expect(words).to_contain_text("(8,5) (11,2) (11,9) (3,3) (2,8) (3,8)")
    # From the keyboard: the board's cursor, Enter on a square.
    await page.locator(".ed-map").focus()
    for key in ("ArrowRight", "ArrowDown", "Enter"):
        await page.keyboard.press(key)
    await pw_expect(words).to_contain_text("(3,3) (2,8) (3,8) (1,1)")
    await pw_expect(page.locator(".ed-map")).to_be_focused()
    SHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(SHOTS / "editor-area-ja.png"))
    await page.click(f"button{attr('draw', where)}")
    await pw_expect(page.locator(".ed-map-wrap .board")).to_have_attribute("data-mode", "edit")
    await ed.checked()
    ed.check()


async def test_a_player_page_has_no_editor(browser: Browser, editor_demo: Served) -> None:
    demo, _ = editor_demo
    gm = await Client.connect(demo.ws)
    await gm.auth("demo", secret=demo.secret, client="editor test")
    await gm.send({"type": "invite.create", "id": "inv-p1", "role": "player", "player": "p1"})
    token = (await gm.expect("invite"))["token"]
    await gm.close()
    ctx = await browser.new_context(viewport={"width": 1440, "height": 900}, locale="ja-JP")
    page = await ctx.new_page()
    await page.goto(f"{demo.url}#room=demo&invite={token}")
    await pw_expect(page.locator('.conn-status[data-status="open"]')).to_be_visible()
    await pw_expect(page.locator(".console[data-role=player]")).to_be_visible()
    await pw_expect(page.locator("button.open-editor")).to_have_count(0)
    await ctx.close()
