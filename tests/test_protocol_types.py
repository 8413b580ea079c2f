"""Issue 28: adapters/types/protocol.d.ts is what `komasync schema` generates today."""

from __future__ import annotations

import shutil
import subprocess

from conftest import KOMASYNC, ROOT

ADAPTERS = ROOT / "adapters"
GENERATOR = ADAPTERS / "types" / "generate.mjs"
DECLARATIONS = ADAPTERS / "types" / "protocol.d.ts"


def generated() -> str:
    node = shutil.which("node")
    assert node, "node is missing: run scripts/setup.sh"
    assert (ADAPTERS / "node_modules" / "json-schema-to-typescript").is_dir(), \
        "adapters/node_modules is missing: run scripts/setup.sh (npm ci)"
    schema = subprocess.run([*KOMASYNC, "schema"], capture_output=True, text=True, check=True,
                            timeout=60).stdout
    out = subprocess.run([node, str(GENERATOR)], input=schema, capture_output=True, text=True,
                         timeout=120, cwd=ADAPTERS)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_declarations_are_not_stale() -> None:
    """A model changed without regenerating fails here, with the command that fixes it."""
    assert DECLARATIONS.read_text(encoding="utf-8") == generated(), (
        "adapters/types/protocol.d.ts is stale: komasync schema | node adapters/types/generate.mjs --write")


def test_the_declarations_name_every_message_and_the_state_tree() -> None:
    text = DECLARATIONS.read_text(encoding="utf-8")
    for name in ("ClientMessage", "ServerMessage", "Message", "RoomState", "Ack", "Reject",
                 "Welcome", "PromptMsg", "QueryResult", "Cell", "GridMove"):
        assert f"export type {name} " in text or f"export interface {name} " in text, name
    assert "Komasync" not in text and "BasesStatus1" not in text  # no module-path or numbered duplicates
