"""Room ownership on Redis: a lease with a fencing token, and the fenced append script.

A process owns a room while its lease key holds `<token>:<owner>`. Acquiring increments the
room's fence counter (never reset, not even by deleting the room), so every holder ever has a
distinct, growing token. The append script checks, inside Redis and atomically with the
write, that the lease key still holds the caller's exact holder string — so a former owner
that was paused (GC, SIGSTOP, a VM freeze) and wakes after its lease expired is refused,
whether or not someone else took the room meanwhile — and that the batch starts at the next
version, so the log stays gapless.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

__all__ = ["FIELDS", "Lease", "LeaseHeld", "LeaseLost", "LogConflict", "Scripts"]

# Per logged action, in this order, after the version (which is the stream entry id).
FIELDS = ("k", "actor", "action", "ops", "rolls", "log", "warnings", "at")

ACQUIRE = """
local cur = redis.call('GET', KEYS[1])
if cur then return {0, cur} end
local token = redis.call('INCR', KEYS[2])
local holder = token .. ':' .. ARGV[1]
redis.call('SET', KEYS[1], holder, 'PX', ARGV[2])
return {token, holder}
"""

RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])
"""

RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""

# KEYS: lease, log (stream), client keys (hash), snapshot versions (zset), snapshots (hash)
# ARGV: holder, first version, row count, 8 fields per row, snapshot version ('' = none), state
APPEND = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return redis.error_reply('LEASE_LOST') end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local at = 0
if #last > 0 then at = tonumber(string.match(last[1][1], '^(%d+)')) end
local first = tonumber(ARGV[2])
if first ~= at + 1 then return redis.error_reply('LOG_CONFLICT next is ' .. (at + 1)) end
local n = tonumber(ARGV[3])
local seen = {}
for i = 0, n - 1 do
  local k = ARGV[4 + i * 8]
  if k ~= '' then
    if seen[k] or redis.call('HEXISTS', KEYS[3], k) == 1 then
      return redis.error_reply('LOG_CONFLICT client key ' .. k)
    end
    seen[k] = true
  end
end
local s = 4 + n * 8
if ARGV[s] ~= '' and tonumber(ARGV[s]) ~= at + n then
  return redis.error_reply('LOG_CONFLICT snapshot is not at the last version')
end
for i = 0, n - 1 do
  local o = 4 + i * 8
  local v = first + i
  redis.call('XADD', KEYS[2], v .. '-0', 'k', ARGV[o], 'actor', ARGV[o + 1], 'action', ARGV[o + 2],
             'ops', ARGV[o + 3], 'rolls', ARGV[o + 4], 'log', ARGV[o + 5],
             'warnings', ARGV[o + 6], 'at', ARGV[o + 7])
  if ARGV[o] ~= '' then redis.call('HSET', KEYS[3], ARGV[o], v) end
end
if ARGV[s] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[s], ARGV[s])
  redis.call('HSET', KEYS[5], ARGV[s], ARGV[s + 1])
end
return at + n
"""


class LeaseHeld(Exception):
    """Another process owns the room; `holder` says which (token:owner)."""

    def __init__(self, room: str, holder: str) -> None:
        super().__init__(f"room {room} is owned by {holder}")
        self.holder = holder


class LeaseLost(Exception):
    """This process no longer owns the room: nothing it appends can count."""


class LogConflict(Exception):
    """The append does not continue the log (wrong next version, a repeated client key)."""


@dataclass(frozen=True)
class Lease:
    room: str
    token: int
    holder: str
    ttl_ms: int


class Scripts:
    """The registered scripts (EVALSHA, falling back to EVAL after a Redis restart)."""

    def __init__(self, client: redis.Redis) -> None:
        self.acquire = client.register_script(ACQUIRE)
        self.renew = client.register_script(RENEW)
        self.release = client.register_script(RELEASE)
        self.append = client.register_script(APPEND)


def refusal(error: redis.ResponseError) -> Exception:
    """The append script's refusal as our own exception (others pass through)."""
    text = str(error)
    if "LEASE_LOST" in text:
        return LeaseLost(text)
    if "LOG_CONFLICT" in text:
        return LogConflict(text)
    return error


def as_text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
