"""The Ccfolia userscript (adapters/ccfolia/komasync-ccfolia.user.js) in Debian's chromium.

A fake Ccfolia room page (tests/bridges/fake_ccfolia: real React 18 with a store Provider,
mouse-dragged pieces, a React-controlled chat form, a data layer for direct write) is
served by this test; the userscript is injected as Tampermonkey would (`@grant none`:
the page's own world) and connects to a REAL `komasync serve` process with a bridge
invite. The test then plays the loop the Node suites play: a legal drag round-trips, an
illegal one snaps back with its reason, a BCDice line typed in the chat box becomes the
attack's result, and a dropped socket and a server restart lose nothing.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from conftest import CHROMIUM, CHROMIUM_ARGS, stop_process

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "adapters"
USERSCRIPT = ADAPTERS / "ccfolia" / "komasync-ccfolia.user.js"
FAKE = Path(__file__).resolve().parent / "fake_ccfolia"
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


class Server:
    """`komasync serve --port 0` on a fresh database; restartable on the same port."""

    def __init__(self, tmp: Path) -> None:
        self.db = tmp / "room.sqlite3"
        self.secret = "gm-secret-ccfolia-chromium"
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.cli("room", "create", str(ROOT / "examples" / "tower_defense.yaml"), "--db",
                 str(self.db), "--id", ROOM, "--secret", self.secret)

    @staticmethod
    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-c", ENTRY, *args], check=True, text=True,
                              capture_output=True, cwd=ROOT, timeout=60).stdout

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", ENTRY, "serve", "--port", str(self.port), "--db", str(self.db),
             "--log", "text"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
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
            m = re.search(r"ws://[\d.]+:(\d+)/ws", line)
            if m:
                self.url = m.group(0)
                self.port = int(m.group(1))
                return
        raise AssertionError("the server did not print its URL")

    def invite(self) -> str:
        out = self.cli("invite", ROOM, "bridge", "--db", str(self.db))
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


class _Handler(http.server.SimpleHTTPRequestHandler):
    ROUTES: ClassVar[dict[str, Path]] = {"/static/react.js": REACT, "/static/react-dom.js": REACT_DOM,
                                         "/static/app.js": FAKE / "app.js"}

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        file = FAKE / "index.html" if path.startswith("/rooms/") else self.ROUTES.get(path)
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
    """Drag a piece with the mouse so that its top-left lands at Ccfolia (x, y)."""
    box = page.locator(f'[data-id="{cid}"]').bounding_box()
    origin = page.evaluate("window.__fake.origin")
    # Grab near the bottom-right corner: stacked pieces overlap up and to the left.
    grab = (box["width"] - 3, box["height"] - 3)
    page.mouse.move(box["x"] + grab[0], box["y"] + grab[1])
    page.mouse.down()
    page.mouse.move(origin["x"] + to[0] + grab[0], origin["y"] + to[1] + grab[1], steps=steps)
    page.mouse.up()


CAUGHT_UP = ("(() => {{ const c = window.komasync.bridge.client; return c.state === 'live' && "
             "c.applied === {v} && c.pending.size === 0 && window.komasync.bridge.settler.size === 0; }})()")


def test_userscript_plays_the_loop_in_chromium(site: str, server: Server) -> None:
    from playwright.sync_api import sync_playwright

    gm = GMClient(server.url, server.secret)
    gm.act({"kind": "override", "path": ["meta", "platforms", "ccfolia"],
            "value": {"users": {"uidP1": "p1", "uidGM0001": "gm"}}, "reason": "who is who"})
    settings = {"serverUrl": server.url, "room": ROOM, "token": server.invite(),
                "directWrite": True, "gm": True, "userName": "GM"}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{site}/rooms/room123")
            page.wait_for_selector('textarea[name="text"]')
            page.evaluate("s => localStorage.setItem('komasync.ccfolia', JSON.stringify(s))",
                          settings)
            page.add_script_tag(path=str(USERSCRIPT))  # as a @grant-none userscript runs
            _wait(page, CAUGHT_UP.format(v=gm.version), "the bridge drew the room")
            selftest = page.evaluate("window.komasync.bridge.selftest")
            assert selftest["ok"] and selftest["missing"] == [], selftest
            assert page.evaluate("Object.keys(window.__fake.characters())").count("ks-pc-pc1") == 1
            state = page.locator('[data-komasync="state"]')
            assert "接続中" in state.inner_text() or "connected" in state.inner_text()
            assert page.evaluate("window.__fake.store.listenerCount()") >= 2  # React + bridge

            # 1. a legal drag (setup phase: a PC dropped on a fort picks it, TD-PRE-1)
            page.evaluate("window.__fake.setOwner('ks-pc-pc1', 'uidP1')")
            fort = page.evaluate("window.__fake.characters()['ks-fort-f_left']")
            version = gm.version
            _drag(page, "ks-pc-pc1", (fort["x"] + 2, fort["y"] - 1))
            gm.until(lambda: gm.get("tower_defense", "pcs", "pc1", "fort") == "f_left", "pc1 placed")
            assert gm.version == version + 1
            _wait(page, CAUGHT_UP.format(v=gm.version), "the bridge applied it")
            moves = page.evaluate("window.komasync.bridge.reported.filter(e => e.kind === 'move')")
            assert len(moves) == 1, moves
            assert moves[0]["user"] == {"id": "uidP1", "name": ""}
            pc = page.evaluate("window.__fake.characters()['ks-pc-pc1']")
            assert (pc["x"], pc["y"]) == (fort["x"] + 6, fort["y"] + 6)  # stacked on the fort

            # 2. the GM plays to the PC attack phase
            for pc_id, fort_id in {"pc2": "f_center_left", "pc3": "f_center_right", "pc4": "m_left",
                                   "pc5": "final", "pc6": "m_right", "npc1": "f_right"}.items():
                gm.act({"kind": "td.pc.place", "pc": pc_id, "fort": fort_id})
            for _ in range(3):
                gm.act({"kind": "td.next_phase", "expect": gm.get("tower_defense", "phase")})
                for prompt in list(gm.state.get("prompts", {})):
                    gm.act({"kind": "answer", "prompt": prompt, "choice": "done"})
            assert gm.get("tower_defense", "phase") == "pc_attack"
            _wait(page, CAUGHT_UP.format(v=gm.version), "groups drawn")
            assert page.evaluate("!!window.__fake.characters()['ks-group-r1-left_end']")

            # 3. an illegal drag (not adjacent, TD-ATK-1): snapped back, the reason posted
            version = gm.version
            home = page.evaluate("window.__fake.characters()['ks-pc-pc1']")
            final = page.evaluate("window.__fake.characters()['ks-fort-final']")
            _drag(page, "ks-pc-pc1", (final["x"], final["y"]))
            _wait(page, "(() => { const r = window.komasync.bridge.client.lastRefusal; "
                        "return r && r.rule === 'TD-ATK-1'; })()", "the refusal")
            _wait(page, f"window.__fake.characters()['ks-pc-pc1'].x === {home['x']} && "
                        f"window.__fake.characters()['ks-pc-pc1'].y === {home['y']}", "snap-back")
            _wait(page, "window.__fake.messages().some(m => m.name === 'komasync' && "
                        "/動かせませんでした/.test(m.text))", "the reason in chat")
            assert gm.version == version
            refusal = page.locator('[data-komasync="refusal"]').inner_text()
            assert "最終砦" in refusal, refusal

            # 4. a BCDice line typed in the chat box becomes the attack result (this page's
            # user is the GM, who acts as the table: for the NPC, which no player owns)
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
            status = page.evaluate("window.__fake.characters()['ks-group-r1-right_end'].status")
            assert status[0]["value"] == count - 1

            # 5. the socket drops: the GM's change meanwhile arrives by the reset
            page.evaluate("window.komasync.bridge.client.ws.close()")
            gm.act({"kind": "td.group.add", "name": "はぐれコヨーテ", "count": 3,
                    "direction": "right_end"})
            _wait(page, CAUGHT_UP.format(v=gm.version), "reconnected and caught up")
            assert page.evaluate("Object.values(window.__fake.characters())"
                                 ".some(c => c.name === 'はぐれコヨーテ')")

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
