"""Caddy (Debian's package) with its internal CA on loopback in front of `komasync serve
--demo --behind-proxy`, as docs/remote.md tells a GM to run them (issue 33).

Caddy keeps its CA and certificates in the test's temporary folder (`storage`, HOME and
XDG_* point there) and is told not to install its root anywhere (`skip_install_trust`),
so nothing outside the test changes; the clients trust only that root.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import KOMASYNC, Demo, serve_demo, stop, stop_process

CADDY = shutil.which("caddy")
needs_caddy = pytest.mark.skipif(
    CADDY is None, reason="caddy is not installed (scripts/setup.sh installs Debian's caddy)")
PROXY = "127.0.0.1"  # where Caddy reaches komasync from; the test's clients use 127.0.0.2…


@dataclass
class Front:
    """komasync behind Caddy: the demo, Caddy's https:// and wss:// addresses, its root CA."""

    demo: Demo
    https: str
    wss: str
    root: Path

    def ssl(self) -> ssl.SSLContext:
        """A client context trusting Caddy's root only (not the system's CAs)."""
        return ssl.create_default_context(cafile=str(self.root))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def caddyfile(komasync_port: int, https_port: int, http_port: int, storage: Path) -> str:
    """`komasync caddyfile --lan` for loopback, after the test's global options."""
    site = subprocess.run([*KOMASYNC, "caddyfile", "--lan", "--host", "127.0.0.1",
                           "--port", str(komasync_port), "--https-port", str(https_port)],
                          check=True, capture_output=True, text=True).stdout
    glob = (f"{{\n\tadmin off\n\tskip_install_trust\n\thttp_port {http_port}\n"
            f"\tstorage file_system {storage}\n}}\n")
    return glob + site


def _wait_https(front: Front, caddy: subprocess.Popen[str], timeout: float = 30.0) -> None:
    """Until Caddy answers /healthz over TLS with its internal CA's certificate."""
    deadline = time.monotonic() + timeout
    port = int(front.https.rsplit(":", 1)[1])
    while time.monotonic() < deadline:
        if caddy.poll() is not None:
            raise AssertionError(f"caddy exited with {caddy.returncode}")
        if front.root.exists():
            try:
                with socket.create_connection(("127.0.0.1", port), 2) as raw, \
                        front.ssl().wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                    tls.sendall(b"GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                    if b"200" in tls.recv(64):
                        return
            except (OSError, ssl.SSLError):
                pass
        time.sleep(0.2)
    raise AssertionError("caddy did not serve komasync over https")


@contextmanager
def caddy_front(tmp_path: Path, *serve_args: str) -> Iterator[Front]:
    """komasync (`serve --demo --behind-proxy 127.0.0.1 ARGS`) behind a running Caddy."""
    https_port, http_port = free_port(), free_port()
    https = f"https://127.0.0.1:{https_port}"
    demo = serve_demo(tmp_path / "k.sqlite3", None, "--behind-proxy", PROXY,
                      "--public-url", https, *serve_args)
    home = tmp_path / "caddy-home"
    storage = home / "storage"
    config = tmp_path / "Caddyfile"
    port = int(demo.url.rstrip("/").rsplit(":", 1)[1])
    config.write_text(caddyfile(port, https_port, http_port, storage), "utf-8")
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config"), "PATH": "/usr/bin:/bin"}
    assert CADDY is not None
    with (tmp_path / "caddy.log").open("w") as log:  # Caddy's own words, if it fails
        caddy = subprocess.Popen([CADDY, "run", "--config", str(config), "--adapter",
                                  "caddyfile"], env=env, stdout=log, stderr=log, text=True)
    front = Front(demo, https, f"wss://127.0.0.1:{https_port}/ws",
                  storage / "pki" / "authorities" / "local" / "root.crt")
    try:
        _wait_https(front, caddy)
        yield front
    finally:
        stop_process(caddy)
        stop(demo)
