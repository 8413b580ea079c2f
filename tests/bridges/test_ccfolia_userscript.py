"""The Ccfolia userscript (adapters/ccfolia/komasync-ccfolia.user.js) in Debian's chromium.

A fake Ccfolia room page (tests/bridges/fake_ccfolia, its README names the source of every
shape: real React 18 with a store Provider, mouse-dragged pieces, a React-controlled chat
form, the data layer — window.webpackChunkccfolia with a Firestore-like module) is served
by this test; the userscript is injected as a manager does with `@grant none` (the page's
own world) and connects to a REAL `komasync serve` process with a bridge invite.

- the loop the Node suites play: the data layer draws the room, a player's legal drag
  round-trips, an illegal one snaps back with its reason in that player's private line
  of the panel (never the public chat), a BCDice line typed in the chat box becomes a
  `td.attack`, and a dropped socket and a server restart lose nothing;
- a missing data-layer hook: the panel and the GM console say so loudly, status bars
  follow through the chat commands;
- installing from the server: the served URL is read the way a userscript manager reads
  it (usermanager.js: the metadata block, @match against the page), the header's fields
  are checked, and the installed script connects with only a room and a token typed in.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import CHROMIUM, CHROMIUM_ARGS, stop_process, store_args

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "adapters"
USERSCRIPT = ADAPTERS / "ccfolia" / "komasync-ccfolia.user.js"
FAKE = Path(__file__).resolve().parent / "fake_ccfolia"
FIRESTORE = ADAPTERS / "test" / "fakes" / "firestore.js"
MANAGER = Path(__file__).resolve().parent / "usermanager.js"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
REACT = ADAPTERS / "node_modules" / "react" / "umd" / "react.production.min.js"
REACT_DOM = ADAPTERS / "node_modules" / "react-dom" / "umd" / "react-dom.production.min.js"
ENTRY = "import sys; from komasync.server.cli import main; sys.exit(main(sys.argv[1:]))"
ROOM = "ccf"
HARD_80 = "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 30 ＞ 30 ＞ ハード成功"
REGULAR_60 = "(1D100<=60) ボーナス・ペナルティダイス[0] ＞ 41 ＞ 41 ＞ レギュラー成功"

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) is "
                       "missing; scripts/setup.sh installs it"),
    pytest.mark.skipif(not REACT.exists(), reason="adapters/node_modules is missing: run `npm ci` "
                       "in adapters/ (scripts/setup.sh does)"),
]


# -- a real server ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`komasync serve --port 0` on a fresh database; restartable on the same port. With
    `public`, it is told its public address (`--public-url http://localhost:<port>`)."""

    def __init__(self, tmp: Path, public: bool = False) -> None:
        self.db = tmp / "room.sqlite3"
        self.secret = "gm-secret-ccfolia-chromium"
        self.port = free_port() if public else 0
        self.public = f"http://localhost:{self.port}" if public else ""
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.cli("room", "create", str(ROOT / "examples" / "tower_defense.yaml"),
                 *store_args(self.db), "--id", ROOM, "--secret", self.secret)

    @staticmethod
    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-c", ENTRY, *args], check=True, text=True,
                              capture_output=True, cwd=ROOT, timeout=60).stdout

    def start(self) -> None:
        extra = ["--public-url", self.public] if self.public else []
        self.proc = subprocess.Popen(
            [sys.executable, "-c", ENTRY, "serve", "--port", str(self.port), *store_args(self.db),
             "--log", "text", *extra], cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        lines: queue.Queue[str] = queue.Queue()
        proc = self.proc

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                assert proc.poll() is None, "the server exited"
                continue
            m = re.search(r"^komasync: ws://[\d.]+:(\d+)/ws", line)
            if m:
                self.url = m.group(0).removeprefix("komasync: ")
                self.port = int(m.group(1))
                return
        raise AssertionError("the server did not print its URL")

    def invite(self) -> str:
        out = self.cli("invite", ROOM, "bridge", *store_args(self.db))
        m = re.search(r"token[^:]*:\s*(\S+)", out)
        assert m, out
        return m.group(1)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc)
        self.proc = None


class GMClient:
    """The GM over a real WebSocket: the state from snapshot + changes, actions with answers."""

    def __init__(self, url: str, secret: str) -> None:
        from websockets.sync.client import connect

        self.ws = connect(url).__enter__()  # websockets ≥ 16 wants the context-manager form
        self.state: dict[str, Any] = {}
        self.version = -1
        self.answers: dict[str, dict[str, Any]] = {}
        self.changes: list[dict[str, Any]] = []
        self.notices: list[dict[str, Any]] = []
        self.lock = threading.Condition()
        self.seq = 0
        self.ws.send(json.dumps({"type": "auth", "room": ROOM, "secret": secret}))
        threading.Thread(target=self._read, daemon=True).start()
        self.until(lambda: self.version >= 0, "snapshot")

    def _read(self) -> None:
        with contextlib.suppress(Exception):
            for raw in self.ws:
                f = json.loads(raw)
                with self.lock:
                    if f["type"] == "snapshot":
                        self.state, self.version = f["state"], f["version"]
                    elif f["type"] == "change":
                        for op in f["ops"]:
                            _apply(self.state, op)
                        self.version = f["to_version"]
                        self.changes.append(f)
                    elif f["type"] == "notice":
                        self.notices.append(f)
                    elif f["type"] in ("ack", "reject", "error") and f.get("id"):
                        self.answers[f["id"]] = f
                    self.lock.notify_all()

    def until(self, test: Callable[[], bool], what: str, timeout: float = 15) -> None:
        with self.lock:
            assert self.lock.wait_for(test, timeout), f"GM: timed out waiting for {what}"

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        self.seq += 1
        mid = f"gm-{self.seq}"
        self.ws.send(json.dumps({"type": "action", "id": mid, "action": action}))
        self.until(lambda: mid in self.answers, f"answer to {action['kind']}")
        answer = self.answers[mid]
        assert answer["type"] == "ack", answer
        self.until(lambda: self.version >= answer["version"], "the change")
        return answer

    def get(self, *path: str) -> Any:
        node: Any = self.state
        for k in path:
            node = node[k]
        return node

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


def _apply(tree: dict[str, Any], op: dict[str, Any]) -> None:
    *parents, last = op["path"]
    node = tree
    for k in parents:
        node = node.setdefault(k, {})
    if op["op"] == "set":
        node[last] = op["value"]
    else:
        node.pop(last, None)


# -- the fake Ccfolia page, served locally ----------------------------------------------------


ROUTES: dict[str, Path] = {"/static/react.js": REACT, "/static/react-dom.js": REACT_DOM,
                           "/static/app.js": FAKE / "app.js", "/static/firestore.js": FIRESTORE}


def fake_file(path: str) -> Path | None:
    """The fake page's file for a request path (any /rooms/… is the room page)."""
    path = path.split("?")[0]
    return FAKE / "index.html" if path.startswith("/rooms/") else ROUTES.get(path)


class _Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        file = fake_file(self.path)
        if file is None:
            self.send_error(404)
            return
        body = file.read_bytes()
        self.send_response(200)
        kind = "text/html" if file.suffix == ".html" else "text/javascript"
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def site() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _wait(page: Any, expr: str, what: str, timeout: float = 15000) -> Any:
    safe = f"(() => {{ try {{ return ({expr}); }} catch (e) {{ return false; }} }})()"
    try:
        page.wait_for_function(safe, timeout=timeout)
    except Exception as e:  # pragma: no cover - the message says what was awaited
        info = page.evaluate("(() => { try { const b = window.komasync.bridge; return JSON.stringify("
                             "{info: b.info, reported: b.reported.slice(-3)}); } catch (e) { "
                             "return String(e); } })()")
        raise AssertionError(f"timed out waiting for {what}: {expr}\nbridge: {info}") from e
    return page.evaluate(expr)


def _drag(page: Any, cid: str, to: tuple[float, float], steps: int = 30) -> None:
    """Drag a piece with the mouse so that its top-left lands at Ccfolia (x, y) (squares)."""
    box = page.locator(f'[data-id="{cid}"]').bounding_box()
    origin = page.evaluate("window.__fake.origin")
    cell = page.evaluate("window.__fake.cell")
    # Grab near the bottom-right corner: stacked pieces overlap up and to the left.
    grab = (box["width"] - 3, box["height"] - 3)
    page.mouse.move(box["x"] + grab[0], box["y"] + grab[1])
    page.mouse.down()
    page.mouse.move(origin["x"] + to[0] * cell + grab[0], origin["y"] + to[1] * cell + grab[1],
                    steps=steps)
    page.mouse.up()


CAUGHT_UP = ("(() => {{ const c = window.komasync.bridge.client; return c.state === 'live' && "
             "c.applied === {v} && c.pending.size === 0 && window.komasync.bridge.settler.size === 0; }})()")


def _open_fake(pw: Any, site: str, settings: dict[str, Any], query: str = "") -> tuple[Any, Any, list[str]]:
    """Chromium on the fake room page, the bridge settings stored, the userscript injected."""
    browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site}/rooms/room123{query}")
    page.wait_for_selector('textarea[name="text"]')
    page.wait_for_function("!!window.__fake")
    page.evaluate("s => localStorage.setItem('komasync.ccfolia', JSON.stringify(s))", settings)
    page.add_script_tag(path=str(USERSCRIPT))  # as a @grant-none userscript runs
    return browser, page, errors


def test_userscript_plays_the_loop_in_chromium(site: str, server: Server) -> None:
    from playwright.sync_api import sync_playwright

    gm = GMClient(server.url, server.secret)
    gm.act({"kind": "override", "path": ["meta", "platforms", "ccfolia"],
            "value": {"users": {"uidP1": "p1", "uidGM0001": "gm"}}, "reason": "who is who"})
    # Every user of this table is matched, so the GM lets the table decide for the GM's
    # side (step 4: the GM's chat roll for the NPC); by default it would only move pieces.
    gm.act({"kind": "room.uncredited", "mode": "gm_side"})
    settings = {"serverUrl": server.url, "room": ROOM, "token": server.invite(),
                "directWrite": True, "gm": True, "userName": "GM", "userId": "uidGM0001"}
    with sync_playwright() as pw:
        browser, page, errors = _open_fake(pw, site, settings)
        try:
            _wait(page, CAUGHT_UP.format(v=gm.version), "the bridge drew the room")
            selftest = page.evaluate("window.komasync.bridge.selftest")
            assert selftest["ok"] and selftest["missing"] == [], selftest
            assert selftest["can"]["dataLayer"] is True
            assert page.locator('[data-komasync="hooks"] li[data-found="yes"]').count() == 16
            assert page.locator('[data-komasync="hooks"] li[data-found="no"]').count() == 0
            _wait(page, "window.__fake.firestore.inFlight === 0", "the writes")
            assert page.evaluate("Object.keys(window.__fake.characters())").count("ks-pc-pc1") == 1
            assert page.evaluate("Object.keys(window.__fake.markers())").count("ks-dir-left_end") == 1
            assert page.locator('[data-die="ks-fort-f_left-die1"]').inner_text() == "6"
            assert page.evaluate("window.__fake.firestore.writes.every(w => w.op === 'delete' || "
                                 "w.options.merge === true)")
            state = page.locator('[data-komasync="state"]')
            assert "接続中" in state.inner_text() or "connected" in state.inner_text()
            assert page.locator('[data-komasync="uncalibrated"]').is_visible()
            assert not page.locator('[data-komasync="fallback"]').is_visible()
            assert page.evaluate("window.__fake.store.listenerCount()") >= 2  # React + bridge

            # 1. a player's legal drag (setup phase: a PC dropped on a fort picks it, TD-PRE-1)
            page.evaluate("window.__fake.setOwner('ks-pc-pc1', 'uidP1')")
            fort = page.evaluate("window.__fake.characters()['ks-fort-f_left']")
            version = gm.version
            _drag(page, "ks-pc-pc1", (fort["x"] + 0.1, fort["y"]))
            gm.until(lambda: gm.get("tower_defense", "pcs", "pc1", "fort") == "f_left", "pc1 placed")
            assert gm.version == version + 1
            assert gm.changes[-1]["info"]["action"]["by"] == "p1"
            _wait(page, CAUGHT_UP.format(v=gm.version), "the bridge applied it")
            moves = page.evaluate("window.komasync.bridge.reported.filter(e => e.kind === 'move')")
            # Drags are throttled: one report, or on a loaded machine an intermediate one
            # too — but the last is the drop, and only the drop became an action (above).
            assert 1 <= len(moves) <= 3 and abs(moves[-1]["x"] - (fort["x"] + 0.1)) < 0.1, moves
            assert all(m["user"] == {"id": "uidP1", "name": ""} for m in moves)
            _wait(page, f"window.__fake.characters()['ks-pc-pc1'].x === {fort['x']} + 0.25",
                  "stacked on the fort by the data layer")

            # 2. the GM plays to the PC attack phase: groups appear through the data layer
            for pc_id, fort_id in {"pc2": "f_center_left", "pc3": "f_center_right", "pc4": "m_left",
                                   "pc5": "final", "pc6": "m_right", "npc1": "f_right"}.items():
                gm.act({"kind": "td.pc.place", "pc": pc_id, "fort": fort_id})
            for _ in range(3):
                gm.act({"kind": "td.next_phase", "expect": gm.get("tower_defense", "phase")})
                for prompt in list(gm.state.get("prompts", {})):
                    gm.act({"kind": "answer", "prompt": prompt, "choice": "done"})
            assert gm.get("tower_defense", "phase") == "pc_attack"
            _wait(page, CAUGHT_UP.format(v=gm.version), "groups drawn")
            _wait(page, "!!window.__fake.characters()['ks-group-r1-left_end']", "a group on the board")
            assert page.locator('[data-id="ks-group-r1-left_end"]').is_visible()

            # 3. an illegal drag (not adjacent, TD-ATK-1): snapped back, the reason only in
            #    the panel's private line for that player
            version = gm.version
            home = page.evaluate("window.__fake.characters()['ks-pc-pc1']")
            final = page.evaluate("window.__fake.characters()['ks-fort-final']")
            _drag(page, "ks-pc-pc1", (final["x"], final["y"]))
            _wait(page, "(() => { const r = window.komasync.bridge.client.lastRefusal; "
                        "return r && r.rule === 'TD-ATK-1'; })()", "the refusal")
            _wait(page, f"window.__fake.characters()['ks-pc-pc1'].x === {home['x']} && "
                        f"window.__fake.characters()['ks-pc-pc1'].y === {home['y']}", "snap-back")
            private = page.locator('[data-komasync="private"] [data-to="uidP1"]')
            private.wait_for()
            assert "動かせませんでした" in private.inner_text() and "最終砦" in private.inner_text()
            assert "プレイヤー1" in private.inner_text()
            page.wait_for_timeout(300)  # anything typed would have landed by now
            assert not page.evaluate("window.__fake.messages().some(m => "
                                     "/動かせませんでした|could not move/.test(m.text))")
            assert gm.version == version
            refusal = page.locator('[data-komasync="refusal"]').inner_text()
            assert "最終砦" in refusal, refusal

            # 4. a BCDice line typed in the chat box becomes the attack result (this page's
            # user is the GM, who acts as the table: for the NPC, which no player owns, in a
            # room that lets the table decide for the GM's side)
            count = gm.get("tower_defense", "groups", "r1-right_end", "count")
            page.evaluate("line => window.__fake.rolls.push(line)", REGULAR_60)
            page.fill('input[name="name"]', "猟師ウォルト")
            page.fill('textarea[name="text"]', "CC<=60 消防斧 r1-right_end")
            page.click('button[type="submit"]')
            gm.until(lambda: gm.get("tower_defense", "groups", "r1-right_end", "count")
                     == count - 1, "one coyote removed")
            assert gm.changes[-1]["info"]["action"]["kind"] == "td.melee"  # an axe
            assert gm.changes[-1]["info"]["action"]["result"] == REGULAR_60
            _wait(page, CAUGHT_UP.format(v=gm.version), "the count on the page")
            _wait(page, "window.__fake.characters()['ks-group-r1-right_end'].status[0].value === "
                        f"{count - 1}", "the 個体数 bar")
            assert not page.evaluate("window.__fake.messages().some(m => m.text.startsWith(':'))")

            # 5. the socket drops: the GM's change meanwhile arrives by the reset
            page.evaluate("window.komasync.bridge.client.ws.close()")
            gm.act({"kind": "td.group.add", "name": "はぐれコヨーテ", "count": 3,
                    "direction": "right_end"})
            _wait(page, CAUGHT_UP.format(v=gm.version), "reconnected and caught up")
            _wait(page, "Object.values(window.__fake.characters())"
                        ".some(c => c.name === 'はぐれコヨーテ')", "the new group")

            # 6. the server restarts: a roll made while it is down (by player 1, whose
            # message reaches this page with their uid) is delivered once
            count = gm.get("tower_defense", "groups", "r1-left_end", "count")
            gm.close()
            server.stop()
            _wait(page, "window.komasync.bridge.client.state !== 'live'", "the bridge noticed")
            page.evaluate("line => window.__fake.rolls.push(line)", HARD_80)
            page.evaluate("window.__fake.say('CC<=80 デザートイーグル', 'カルロス・ベガ', "
                          "'uidP1')")
            assert page.evaluate("window.komasync.bridge.client.pending.size") == 1  # queued
            server.start()
            gm = GMClient(server.url, server.secret)
            gm.until(lambda: gm.get("tower_defense", "groups", "r1-left_end", "count") == count - 1,
                     "the queued roll applied")
            _wait(page, CAUGHT_UP.format(v=gm.version), "caught up after the restart", 30000)
            assert gm.get("tower_defense", "groups", "r1-left_end", "count") == count - 1
            assert page.evaluate("window.komasync.bridge.client.connects") >= 3
            assert errors == [], errors
        finally:
            browser.close()
    gm.close()


@pytest.mark.parametrize("hook", ["webpack_chunks", "setDoc", "references"])
def test_a_missing_hook_is_said_loudly_and_chat_commands_take_over(
        site: str, server: Server, hook: str) -> None:
    from playwright.sync_api import sync_playwright

    gm = GMClient(server.url, server.secret)
    fort = dict(gm.get("tower_defense", "forts", "m_left"))  # a copy: the GM's view changes
    settings = {"serverUrl": server.url, "room": ROOM, "token": server.invite(),
                "directWrite": True, "gm": True, "userName": "GM"}
    with sync_playwright() as pw:
        browser, page, errors = _open_fake(pw, site, settings, f"?break={hook}")
        try:
            # the GM pasted the fort's clipboard JSON (the data layer cannot create it)
            page.evaluate("f => window.__fake.addCharacter({name: f.name, status: [{label: '耐久力', "
                          "value: f.durability, max: f.max}]})", fort)
            _wait(page, CAUGHT_UP.format(v=gm.version), "joined")
            banner = page.locator('[data-komasync="fallback"]')
            assert banner.is_visible()
            text = banner.inner_text()
            assert "データ層が使えません" in text and "チャットコマンドで代わりに動かします" in text
            assert "Falling back to chat commands" in text and hook in text
            assert page.locator(f'[data-komasync="hooks"] li[data-hook="{hook}"][data-found="no"]'
                                ).count() == 1
            detail = page.evaluate("window.komasync.bridge._detail()")
            assert "NO DATA LAYER → chat commands" in detail and hook in detail
            gm.until(lambda: any(c["kind"] == "bridge"
                                 and hook in c["data"].get("detail", "") for c in gm.notices),
                     "the GM console told")
            gm.act({"kind": "override", "path": ["tower_defense", "forts", "m_left", "durability"],
                    "value": fort["durability"] - 4, "reason": "fallback test"})
            _wait(page, CAUGHT_UP.format(v=gm.version), "applied")
            _wait(page, "Object.values(window.__fake.characters()).find(c => c.name === "
                        f"{json.dumps(fort['name'])}).status[0].value === {fort['durability'] - 4}",
                  "the bar followed the chat command")
            assert page.evaluate("window.__fake.messages().some(m => m.text === "
                                 f"':耐久力={fort['durability'] - 4}')")
            assert page.evaluate("window.__fake.firestore.writes.length") == 0
            assert errors == [], errors
        finally:
            browser.close()
    gm.close()


def test_userscript_installs_from_the_served_url(tmp_path: Path) -> None:
    """The GM clicks the console's install link: a manager reads the served script's
    header, installs it for ccfolia.com rooms, and it connects to the server that served it."""
    from playwright.sync_api import Route, sync_playwright

    server = Server(tmp_path, public=True)
    server.start()
    gm = GMClient(server.url, server.secret)
    token = server.invite()
    served = f"http://127.0.0.1:{server.port}/ccfolia/komasync.user.js"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            context = browser.new_context()
            context.add_init_script(path=str(MANAGER))

            def ccfolia(route: Route) -> None:  # ccfolia.com is our fake room page
                file = fake_file(route.request.url.split("ccfolia.com", 1)[1])
                if file is None:
                    route.fulfill(status=404)
                    return
                kind = "text/html" if file.suffix == ".html" else "text/javascript"
                route.fulfill(body=file.read_bytes(), content_type=f"{kind}; charset=utf-8")

            context.route("https://ccfolia.com/**", ccfolia)
            try:
                tab = context.new_page()
                # 1. the install link: the manager fetches the script and reads its header
                response = tab.goto(served)
                assert response is not None and response.ok
                assert response.headers["content-type"].startswith("text/javascript")
                script = response.text()
                parsed = tab.evaluate("t => window.__manager.parseMeta(t)", script)
                assert parsed["ok"], parsed
                meta = parsed["meta"]
                assert meta["name"] == ["komasync bridge for Ccfolia"]
                assert meta["name:ja"] == ["komasync ブリッジ（ココフォリア）"]
                assert meta["version"] == [VERSION]
                assert meta["license"] == ["MIT"]
                assert meta["author"] == ["komasync contributors"]
                assert meta["match"] == ["https://ccfolia.com/rooms/*"]
                assert meta["grant"] == ["none"]
                # built from the configured public address, not the address we asked
                assert meta["downloadURL"] == [f"{server.public}/ccfolia/komasync.user.js"]
                assert meta["updateURL"] == [f"{server.public}/ccfolia/komasync.meta.js"]
                # 2. the update check: the meta file carries the same header
                update = tab.goto(meta["updateURL"][0])
                assert update is not None and update.ok
                again = tab.evaluate("t => window.__manager.parseMeta(t)", update.text())
                assert again["ok"] and again["meta"] == meta
                # 3. the page it runs on: @match decides
                tab.goto("https://ccfolia.com/rooms/room123")
                tab.wait_for_function("!!window.__fake")
                for url, runs in [("https://ccfolia.com/rooms/room123", True),
                                  ("https://ccfolia.com/", False),
                                  ("http://ccfolia.com/rooms/room123", False),
                                  ("https://ccfolia.com.example.org/rooms/x", False)]:
                    assert tab.evaluate("([p, u]) => window.__manager.matches(p, u)",
                                        [meta["match"][0], url]) is runs, url
                assert tab.evaluate("p => window.__manager.matches(p, location.href)",
                                    meta["match"][0])
                # Chromium ≥ 147 asks before a public site's page opens a WebSocket to this
                # computer (Local Network Access); until the GM allows it, it is blocked.
                probe = ("u => new Promise(res => { const w = new WebSocket(u); w.onopen = () => "
                         "{ w.close(); res('open'); }; w.onerror = () => res('blocked'); })")
                ws_url = f"ws://localhost:{server.port}/ws"
                assert tab.evaluate(probe, ws_url) == "blocked"
                tab.add_script_tag(content=script)  # @grant none: injected into the page
                # 4. the GM types only the room and the token: the server is already there
                tab.locator("#komasync-panel details:has(input[name=komasync-room]) > summary").click()
                url_field = tab.locator('input[name="komasync-serverUrl"]')
                assert url_field.input_value() == ws_url
                tab.fill('input[name="komasync-room"]', ROOM)
                tab.fill('input[name="komasync-token"]', token)
                tab.click('[data-komasync="save"]')
                hint = tab.locator('[data-komasync="lna"]')
                hint.wait_for(state="visible")  # the panel says what to allow
                assert "local network" in hint.inner_text() or "ローカル" in hint.inner_text()
                context.grant_permissions(["local-network-access"], origin="https://ccfolia.com")
                _wait(tab, CAUGHT_UP.format(v=gm.version), "connected to the serving server", 30000)
                assert not hint.is_visible()
                assert tab.evaluate("location.protocol") == "https:"
                # the data layer stays off until the GM turns it on
                assert tab.evaluate("window.__fake.firestore.writes.length") == 0
                assert tab.evaluate("window.komasync.bridge.directWrite") is False
                tab.click('[data-komasync="direct"]')
                _wait(tab, "!!window.__fake.characters()['ks-fort-final']", "drawn once turned on")
            finally:
                browser.close()
    finally:
        gm.close()
        server.stop()
