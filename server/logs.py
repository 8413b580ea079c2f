"""Logs on stderr: one JSON object per line, or readable text lines on a terminal."""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

__all__ = ["setup_logging"]

_STANDARD = set(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3), "level": record.levelname.lower(),
            "logger": record.name, "msg": record.getMessage(),
        }
        data.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(data, default=str).decode()


class TextFormatter(logging.Formatter):
    """One readable line; the record's extras (room, code, version…) follow as key=value."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")
        self.converter = time.gmtime

    def format(self, record: logging.LogRecord) -> str:
        extras = " ".join(f"{k}={v}" for k, v in vars(record).items() if k not in _STANDARD)
        line = super().format(record)
        return f"{line} {extras}" if extras else line


def setup_logging(fmt: str = "auto", level: str = "INFO") -> None:
    """`auto`: text on a terminal, JSON lines otherwise (collectors read those)."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "auto":
        fmt = "text" if sys.stderr.isatty() else "json"
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger("komasync")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
