"""`komasync caddyfile`: a Caddyfile putting Caddy's HTTPS in front of komasync.

For a domain Caddy gets a public certificate by itself (ACME); on a LAN it signs one
with its own CA (`tls internal`), whose root each player's device must trust. Caddy's
`reverse_proxy` passes WebSocket upgrades through and sets `X-Forwarded-For`, which
`komasync serve --behind-proxy` then believes from that proxy only (forwarded.py).
"""

from __future__ import annotations

import argparse
import contextlib
import socket

from ..engine.errors import Text
from .cli_common import CliError

__all__ = ["caddyfile", "lan_address", "run"]

# Debian's caddy.service runs as the user caddy, whose HOME is /var/lib/caddy.
ROOT_CA = "/var/lib/caddy/.local/share/caddy/pki/authorities/local/root.crt"
NEED_ONE = Text("--domain か --lan のどちらかを指定してください。", "Give either --domain or --lan.")

DOMAIN_NOTES = (
    "# komasync を HTTPS で公開（{domain} の証明書は Caddy が自動で取得・更新）",
    "# komasync over HTTPS ({domain}'s certificate is obtained and renewed by Caddy)",
    "#   1. DNS: {domain} → このPCのグローバルIP / this PC's public IP; "
    "ports 80 and 443 forwarded here",
    "#   2. sudo cp Caddyfile /etc/caddy/Caddyfile && sudo systemctl reload caddy",
    "#   3. komasync serve --port {port} --behind-proxy --public-url {url}",
)
LAN_NOTES = (
    "# komasync を LAN 内で HTTPS 化（Caddy の内部認証局 `tls internal` が証明書を発行）",
    "# komasync over HTTPS on a LAN (Caddy's internal CA, `tls internal`, signs the certificate)",
    "#   1. sudo cp Caddyfile /etc/caddy/Caddyfile && sudo systemctl reload caddy",
    "#   2. komasync serve --port {port} --behind-proxy --public-url {url}",
    "#   3. プレイヤーの端末に Caddy のルート証明書を信頼させる / have each player's device",
    "#      trust Caddy's root certificate: " + ROOT_CA,
)


def lan_address() -> str:
    """This PC's address on its LAN: the one it would send from (no packet is sent)."""
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_DGRAM)) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: a route is looked up, nothing is sent
            return str(s.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def _site(host: str, https_port: int) -> str:
    """The site address Caddy serves (the port only when it is not HTTPS's own)."""
    host = f"[{host}]" if ":" in host else host
    return host if https_port == 443 else f"{host}:{https_port}"


def caddyfile(*, domain: str | None = None, lan_host: str | None = None, port: int = 8750,
              https_port: int = 443) -> str:
    """The Caddyfile for `domain` (public certificate) or else for `lan_host` (internal CA)."""
    site = _site(domain or lan_host or "127.0.0.1", https_port)
    url = f"https://{site}"
    notes = DOMAIN_NOTES if domain else LAN_NOTES
    lines = [n.format(domain=domain, port=port, url=url) for n in notes]
    lines += ["", f"{site} {{"]
    if not domain:
        lines.append("\ttls internal")
    lines += [f"\treverse_proxy 127.0.0.1:{port}", "}", ""]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if bool(args.domain) == bool(args.lan):
        raise CliError(NEED_ONE, 2)
    host = None if args.domain else (args.host or lan_address())
    print(caddyfile(domain=args.domain, lan_host=host, port=args.port,
                    https_port=args.https_port), end="")
    return 0
