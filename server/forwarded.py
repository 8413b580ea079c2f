"""The client's address behind a reverse proxy (`serve --behind-proxy`).

Only a socket whose TCP peer is a trusted proxy may name another address: then the
rightmost `X-Forwarded-For` hop that is not itself a trusted proxy is the client (each
proxy appends the address it saw, so hops further left may be the client's own lies).
From any other peer the header is ignored and the peer's address counts.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["LOOPBACK", "TrustedProxies", "parse_proxies"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK = ("127.0.0.0/8", "::1/128")
# What `--behind-proxy` with no addresses (or KOMASYNC_BEHIND_PROXY=1/true/yes) means.
LOOPBACK_WORDS = frozenset({"", "1", "true", "yes", "on", "loopback"})


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An IP address from a header hop or a peer (IPv4-mapped IPv6 as IPv4), or None."""
    text = text.strip()
    if text.startswith("[") and "]" in text:  # "[::1]:443", as some proxies write it
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # "203.0.113.5:4711"
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return mapped or ip


@dataclass(frozen=True)
class TrustedProxies:
    """The proxies whose `X-Forwarded-For` is believed."""

    networks: tuple[Network, ...]

    def trusted(self, address: str) -> bool:
        ip = _address(address)
        return ip is not None and any(ip in net for net in self.networks)

    def client(self, peer: str | None, forwarded_for: Iterable[str]) -> str:
        """The client's address: `peer` unless it is a trusted proxy, else the rightmost
        forwarded hop that is not (the leftmost one if every hop is trusted)."""
        if not peer or not self.trusted(peer):
            return peer or "?"
        hops = [h.strip() for value in forwarded_for for h in value.split(",") if h.strip()]
        client = peer
        for hop in reversed(hops):
            ip = _address(hop)
            if ip is None:  # garbage left of a trusted hop: that hop is all we know
                return client
            client = str(ip)
            if not self.trusted(client):
                return client
        return client


def parse_proxies(value: str) -> TrustedProxies:
    """`127.0.0.1,10.0.0.0/8` (addresses or networks, comma-separated); a yes-word or
    nothing means the loopback addresses. ValueError names a part that is neither."""
    words = [w.strip() for w in value.split(",") if w.strip()]
    if not words or (len(words) == 1 and words[0].lower() in LOOPBACK_WORDS):
        words = list(LOOPBACK)
    networks = []
    for word in words:
        try:
            networks.append(ipaddress.ip_network(word, strict=False))
        except ValueError:
            raise ValueError(f"not an address or network: {word!r}") from None
    return TrustedProxies(tuple(networks))
