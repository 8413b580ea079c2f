"""Issue 28: `komasync schema` publishes v2, both directions and the state tree, stably."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conftest import EXAMPLES, KOMASYNC, gm, invite, join, start_server
from komasync.examples import DEMOS


def schema_text() -> str:
    return subprocess.run([*KOMASYNC, "schema"], capture_output=True, text=True, timeout=60,
                          check=True).stdout


def test_schema_is_v2_and_stable() -> None:
    """Titled v2; two runs print the same bytes and the definitions are sorted, so a file
    generated from it (adapters/types/protocol.d.ts) can be checked for staleness."""
    first, again = schema_text(), schema_text()
    assert first == again
    schema = json.loads(first)
    assert schema["title"] == "komasync protocol v2"
    assert list(schema["$defs"]) == sorted(schema["$defs"])
    assert {"ClientMessage", "ServerMessage", "RoomState", "Cell"} <= set(schema["$defs"])
    # Classes two modules share a name with are named after their subsystem, not their module path.
    assert not [name for name in schema["$defs"] if name.startswith("komasync")]
    assert {"GridMove", "MassAttack"} <= set(schema["$defs"])


def test_secret_fields_are_optional_in_the_state_tree() -> None:
    """A prompt's `resume`/`context` are the GM's only: a player's snapshot lacks them."""
    prompt = json.loads(schema_text())["$defs"]["Prompt"]
    assert {"resume", "context"} <= set(prompt["properties"])
    assert not {"resume", "context"} & set(prompt.get("required", []))


@pytest.mark.parametrize("example", sorted({d.example for d in DEMOS}))
async def test_every_demo_snapshot_is_a_room_state(tmp_path: Path, example: str) -> None:
    """The GM's, a player's and the table's snapshot of each demo room validate against
    `RoomState`, so a client may type a snapshot's `state` by it."""
    schema: dict[str, Any] = json.loads(schema_text())
    del schema["oneOf"]
    validator = jsonschema.Draft202012Validator({**schema, "$ref": "#/$defs/RoomState"})
    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / example)
    try:
        boss = await gm(r)
        audiences = [boss, await join(r, await invite(boss, "observer"))]
        for player in list(boss.state["meta"]["players"])[:1]:
            audiences.append(await join(r, await invite(boss, "player", player)))
        for client in audiences:
            errors = sorted(validator.iter_errors(client.state), key=str)
            assert not errors, f"{example}: {errors[0].json_path}: {errors[0].message}"
            await client.close()
        assert len(audiences) == 3, "every demo has a player"
    finally:
        await r.runner.cleanup()


def scenario_schema_text(*args: str) -> str:
    return subprocess.run([*KOMASYNC, *args], capture_output=True, text=True, timeout=60,
                          check=True).stdout


def test_schema_scenario_prints_the_titled_scenario_schema() -> None:
    """Issue 32: `komasync schema --scenario` is the scenario editor's schema (the same as
    `komasync scenario schema`): titled ja/en, ids naming their lists, and every example
    file valid against it."""
    text = scenario_schema_text("schema", "--scenario")
    assert text == scenario_schema_text("scenario", "schema")
    schema = json.loads(text)
    assert schema["title"] == "komasync scenario"
    passage = schema["$defs"]["PassageSpec"]["properties"]
    assert passage["outer"]["x-ref"] == ["tower_defense.directions", "tower_defense.forts"]
    assert passage["cells"]["x-cells"] == "path"
    assert schema["properties"]["tower_defense"]["title_ja"] == "タワーディフェンス"
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(EXAMPLES.glob("*.yaml")):
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8"))))
        assert not errors, (path.name, errors[0].message)


async def test_the_scenario_schema_is_served_to_anyone(tmp_path: Path) -> None:
    """Issue 32: GET /api/scenario/schema over a real socket, without a secret, answers the
    same schema the command line prints (the editor's forms are built from it)."""
    import aiohttp

    r = await start_server(tmp_path / "k.sqlite3", EXAMPLES / "tower_defense.yaml")
    try:
        async with aiohttp.ClientSession() as session, \
                session.get(r.http + "/api/scenario/schema") as resp:
            assert resp.status == 200
            served = await resp.json()
    finally:
        await r.runner.cleanup()
    assert served == json.loads(scenario_schema_text("schema", "--scenario"))
    fort = served["$defs"]["FortSpec"]["properties"]
    assert (fort["durability"]["title_ja"], fort["durability"]["title_en"]) == ("耐久力", "durability")
    assert served["$defs"]["WaveEntry"]["properties"]["direction"]["x-ref"] == \
        "tower_defense.directions"
