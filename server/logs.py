"""Structured logs: one JSON object per line on stderr (or plain text with --log text)."""

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


def setup_logging(fmt: str = "json", level: str = "INFO") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        logging.Formatter.converter = time.gmtime
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    root = logging.getLogger("komasync")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
