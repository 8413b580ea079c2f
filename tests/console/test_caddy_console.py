"""Issue 33: the GM console over https:// through Caddy's internal CA, in Debian's chromium.

Chromium checks certificates for real (`ignore_https_errors=False`): it trusts Caddy's
root because the root is in the NSS database of the browser's own temporary HOME
(`certutil`, libnss3-tools), as a GM's or player's PC would after importing root.crt.
A separate GM client over wss:// sees what the console did.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from caddy_support import CADDY, Front, caddy_front

from conftest import CHROMIUM, CHROMIUM_ARGS, Client

CERTUTIL = shutil.which("certutil")
pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium (/usr/bin/chromium) is "
                       "missing (scripts/setup.sh installs it with apt)"),
    pytest.mark.skipif(CADDY is None, reason="caddy is not installed (scripts/setup.sh "
                       "installs Debian's caddy)"),
    pytest.mark.skipif(CERTUTIL is None, reason="certutil (libnss3-tools) is missing: "
                       "chromium cannot be told to trust Caddy's root without it")]


@pytest.fixture
def front(tmp_path: Path) -> Iterator[Front]:
    with caddy_front(tmp_path) as f:
        yield f


def trusting_home(tmp_path: Path, root: Path) -> Path:
    """A HOME whose NSS database (where chromium on Linux looks) trusts `root` for TLS."""
    assert CERTUTIL is not None
    home = tmp_path / "browser-home"
    db = home / ".pki" / "nssdb"
    db.mkdir(parents=True)
    subprocess.run([CERTUTIL, "-N", "-d", f"sql:{db}", "--empty-password"], check=True)
    subprocess.run([CERTUTIL, "-A", "-d", f"sql:{db}", "-t", "C,,", "-n", "caddy-local-root",
                    "-i", str(root)], check=True)
    return home


async def launch(home: Path) -> tuple[Any, Any]:
    from playwright.async_api import async_playwright

    pw = await async_playwright().start()
    browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                       env={"HOME": str(home), "PATH": "/usr/bin:/bin"})
    return pw, browser


@pytest.mark.parametrize(("width", "locale"), [(1024, "ja-JP"), (1920, "en-US")])
async def test_the_console_signs_in_and_acts_over_https_through_caddy(
        tmp_path: Path, front: Front, width: int, locale: str) -> None:
    from playwright.async_api import expect as pw_expect

    watcher = await Client.connect(front.wss, ssl=front.ssl())
    await watcher.auth("demo", secret=front.demo.secret, client="watcher")
    await watcher.expect("snapshot")
    pw, browser = await launch(trusting_home(tmp_path, front.root))
    try:
        ctx = await browser.new_context(viewport={"width": width, "height": 900}, locale=locale,
                                        ignore_https_errors=False)
        page = await ctx.new_page()
        sockets: list[str] = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        await page.goto(front.https + "/")  # a certificate error would fail this load
        await page.fill("#secret", front.demo.secret)
        await page.click(".signin button[type=submit]")
        await page.click(".room-list li[data-room=demo] button")
        await page.wait_for_selector('.conn-status[data-status="open"]')
        assert sockets and all(url.startswith(front.wss) for url in sockets), sockets
        # TD-PRE-1 the GM seats a PC from the console; the other GM socket sees it.
        await page.select_option("select.td-place[data-pc=pc1]", "f_left")
        await pw_expect(page.locator("select.td-place[data-pc=pc1]")).to_have_value("f_left")
        change = await watcher.expect("change")
        assert watcher.version == change["to_version"]
        assert watcher.state["tower_defense"]["pcs"]["pc1"]["fort"] == "f_left"
    finally:
        await browser.close()
        await pw.stop()
        await watcher.close()
