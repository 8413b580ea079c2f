"""Server settings from flags and the environment (`KOMASYNC_HOST`, `KOMASYNC_PORT`, …).

A flag given on the command line wins over the environment, which wins over the default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from .forwarded import TrustedProxies

__all__ = ["DEFAULT_DB", "Settings", "invite_link", "load_settings"]

DEFAULT_DB = "komasync.sqlite3"


class Settings(BaseSettings):
    """Everything `komasync serve` can be told; each is also `KOMASYNC_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="KOMASYNC_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(8750, ge=0, le=65535)
    db: str = DEFAULT_DB
    store: str | None = None  # redis://HOST:PORT/DB selects the Redis log instead of `db`
    lease_ms: int = Field(10_000, ge=500)  # how long a room stays owned without renewal (Redis)
    cluster_url: str | None = None  # ws://… the other processes reach this one at (Redis)
    operator_token: str | None = None  # opens /healthz?rooms=1 (KOMASYNC_OPERATOR_TOKEN only)
    public_url: str | None = None
    # Trusted reverse proxies (forwarded.py): None = none, X-Forwarded-For is ignored.
    behind_proxy: str | None = None
    durability: Literal["full", "normal"] = "full"
    snapshot_every: int = Field(200, ge=1)
    max_frame: int = Field(64 * 1024, ge=1024)
    rate: float = Field(40.0, gt=0)
    outbox_bytes: int = Field(4 * 1024 * 1024, ge=64 * 1024)
    connections_per_address: int = Field(64, ge=1)
    auth_failures_per_address: int = Field(10, ge=0)
    auth_failures_per_room: int = Field(30, ge=0)
    invite_connections: int = Field(4, ge=0)  # per player/observer invite (0: no cap)
    bridge_connections: int = Field(8, ge=0)  # per bridge invite (0: no cap)
    invite_rate: float = Field(40.0, gt=0)  # messages/s of all a player/observer invite's sockets
    bridge_rate: float = Field(120.0, gt=0)  # messages/s of all a bridge invite's sockets
    query_share: float = Field(0.1, gt=0, le=1)  # of the loop, one room's queries
    log: Literal["auto", "json", "text"] = "auto"

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        """An http(s) address players reach (checked here, so a typo is one clear error)."""
        from .distribution import check_public_url

        return check_public_url(value) if value else None

    @field_validator("behind_proxy")
    @classmethod
    def _behind_proxy(cls, value: str | None) -> str | None:
        """Addresses or networks of the proxies (a yes-word: loopback; a no-word: off)."""
        if value is None or value.strip().lower() in ("0", "false", "no", "off"):
            return None
        from .forwarded import parse_proxies

        parse_proxies(value)  # a typo is one clear error at start
        return value

    def proxies(self) -> TrustedProxies | None:
        """The trusted proxies, None when not behind one."""
        from .forwarded import parse_proxies

        return parse_proxies(self.behind_proxy) if self.behind_proxy is not None else None

    def base_url(self) -> str:
        """Where players reach this server: `public_url`, else the bound address."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{self.port}"


def load_settings(**flags: Any) -> Settings:
    """Settings with the flags that were given (None = not given) over the environment."""
    return Settings(**{k: v for k, v in flags.items() if v is not None})


def invite_link(base_url: str, room: str, token: str) -> str:
    """The link a player opens: the console's page with the room and invite in the fragment."""
    return f"{base_url.rstrip('/')}/#room={quote(room, safe='')}&invite={quote(token, safe='')}"
