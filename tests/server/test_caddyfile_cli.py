"""Issue 33: `komasync caddyfile` prints a Caddyfile Caddy accepts — for a domain with a
public certificate (no `tls internal`), for a LAN with Caddy's internal CA — proxying to
the komasync port; without --domain or --lan it says so in Japanese and English."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from caddy_support import CADDY, needs_caddy

from conftest import KOMASYNC


def komasync(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KOMASYNC, "caddyfile", *args], capture_output=True, text=True,
                          timeout=60)


def adapted(tmp_path: Path, text: str) -> dict[str, Any]:
    """Caddy's own reading of the Caddyfile (`caddy adapt`: parsed, nothing started)."""
    assert CADDY is not None
    path = tmp_path / "Caddyfile"
    path.write_text(text, "utf-8")
    out = subprocess.run([CADDY, "adapt", "--config", str(path), "--adapter", "caddyfile"],
                         capture_output=True, text=True, check=True, timeout=60)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_the_domain_caddyfile_proxies_with_a_public_certificate() -> None:
    out = komasync("--domain", "table.example.org", "--port", "9000")
    assert out.returncode == 0, out.stderr
    assert "table.example.org {" in out.stdout
    assert "\treverse_proxy 127.0.0.1:9000" in out.stdout and "tls internal" not in out.stdout
    assert "--behind-proxy --public-url https://table.example.org" in out.stdout


def test_the_lan_caddyfile_uses_the_internal_ca_on_the_given_address() -> None:
    out = komasync("--lan", "--host", "192.168.1.10")
    assert out.returncode == 0, out.stderr
    assert "192.168.1.10 {\n\ttls internal\n\treverse_proxy 127.0.0.1:8750\n}" in out.stdout
    assert "root.crt" in out.stdout  # where the root each player's device must trust is


def test_neither_domain_nor_lan_is_one_clear_error() -> None:
    out = komasync()
    assert out.returncode == 2 and out.stdout == ""
    assert "--domain か --lan" in out.stderr and "Give either --domain or --lan" in out.stderr


@needs_caddy
@pytest.mark.parametrize("args", [("--domain", "table.example.org"),
                                  ("--lan", "--host", "192.168.1.10", "--https-port", "8443")])
def test_caddy_accepts_what_komasync_prints(tmp_path: Path, args: tuple[str, ...]) -> None:
    config = adapted(tmp_path, komasync(*args).stdout)
    server = next(iter(config["apps"]["http"]["servers"].values()))
    assert server["listen"] == [":8443" if "--lan" in args else ":443"]
    handlers = json.dumps(server["routes"])
    assert '"dial": "127.0.0.1:8750"' in handlers and '"reverse_proxy"' in handlers
    issuers = json.dumps(config["apps"].get("tls", {}))
    assert ('"module": "internal"' in issuers) == ("--lan" in args)
