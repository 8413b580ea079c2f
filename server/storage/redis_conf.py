"""The `redis-server` settings komasync relies on, and `komasync redis-conf` which prints them.

An ack means "survives a Redis restart" only with the append-only file fsynced before the
reply: `appendfsync always`. Redis writes and fsyncs the AOF in the same event-loop turn,
before it sends that turn's replies, so one fsync covers every command of the turn (a group
commit across all rooms and processes). The cost is one disk flush per turn: on a slow disk
the append rate is bounded by fsync latency, as with SQLite's `synchronous=FULL`.
`everysec` would be ~10× faster but can lose the last second of acked actions on a crash.
"""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["redis_conf", "run"]


def redis_conf(directory: str | Path, port: int, host: str = "127.0.0.1") -> str:
    """A complete redis.conf: loopback only, AOF with fsync before every reply, no RDB saves."""
    lines = [
        f"bind {host}",
        f"port {port}",
        f'dir "{Path(directory).resolve()}"',
        "appendonly yes",
        "appendfsync always",  # an ack is on disk (see the module docstring for the cost)
        'appendfilename "komasync.aof"',
        "aof-use-rdb-preamble yes",  # rewrites stay compact; the tail is still fsynced per turn
        "aof-load-truncated yes",  # a torn last command (crash mid-write) was never acked
        'save ""',  # the AOF is the durable copy; periodic RDB forks would only add latency
        "protected-mode yes",
        "daemonize no",
        "loglevel warning",
        'logfile ""',
    ]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Print the settings; `komasync redis-conf --dir D | redis-server -` starts Redis with them."""
    print(redis_conf(args.dir, args.port, args.host), end="")
    return 0
