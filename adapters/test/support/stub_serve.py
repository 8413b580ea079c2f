"""`komasync serve` with a minimal echo adapter, for the bridge core's protocol tests.

The protocol core (connection, auth, since, backoff, event ids, the ops queue) must not
depend on any platform's op format, so its tests run against the real server with this
tiny adapter registered under both platform names. Not a product adapter: the real
ones live in adapters/ccfolia.py and adapters/foundry.py.

Ops it sends: one `{"op": "piece", "id", "cell"}` per visible piece (reset and update).
Events it reads: `{"kind": "move", "piece", "x", "y", "by"?}` → `table.move`.
"""

from __future__ import annotations

import sys
from typing import Any

from komasync.adapters import registry
from komasync.adapters.base import EventResult
from komasync.server.cli import main


class EchoAdapter:
    def __init__(self, platform: str) -> None:
        self.platform = platform

    def reset(self, tree: dict[str, Any]) -> list[dict[str, Any]]:
        pieces = tree.get("table", {}).get("pieces", {})
        return [{"op": "piece", "id": k, "cell": p.get("cell")} for k, p in sorted(pieces.items())]

    def update(self, tree: dict[str, Any], ops: list[dict[str, Any]],
               log: list[dict[str, str]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        pieces = tree.get("table", {}).get("pieces", {})
        for op in ops:
            path = op["path"]
            if len(path) >= 3 and path[:2] == ["table", "pieces"] and path[2] in pieces:
                out.append({"op": "piece", "id": path[2], "cell": pieces[path[2]].get("cell")})
        return out

    def patch(self, tree: dict[str, Any], ops: list[dict[str, Any]],
              log: list[dict[str, str]]) -> list[dict[str, Any]]:
        return self.update(tree, ops, log)  # it only ever looks at what the ops touched

    def redraw(self, tree: dict[str, Any], log: list[dict[str, str]]) -> list[dict[str, Any]]:
        return self.reset(tree)

    def event(self, event: dict[str, Any], tree: dict[str, Any]) -> EventResult:
        if event.get("kind") != "move":
            return EventResult(ignored="not a move")
        return EventResult(action={"kind": "table.move", "piece": event["piece"],
                                   "to": {"x": event["x"], "y": event["y"]},
                                   "by": event.get("by")})

    def snap_back(self, event: dict[str, Any], tree: dict[str, Any],
                  reason: dict[str, str]) -> list[dict[str, Any]]:
        piece = tree.get("table", {}).get("pieces", {}).get(event.get("piece", ""))
        cell = piece.get("cell") if piece else None
        return [{"op": "piece", "id": event.get("piece"), "cell": cell},
                {"op": "say", "reason": reason}]

    @classmethod
    def make(cls, platform: str) -> Any:
        return lambda tree: cls(platform)


for name in ("ccfolia", "foundry"):
    registry.PLATFORMS[name] = EchoAdapter.make(name)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
