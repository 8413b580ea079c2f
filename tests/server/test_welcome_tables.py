"""The welcome carries every subsystem's phase/step table (issue 27), the same for every
audience (public rules), so the console's panels need no copies of their own."""

from __future__ import annotations

from typing import Any

from conftest import Client, Running, invite
from komasync.engine.registry import PHASE_TABLES


async def test_every_audience_is_welcomed_with_the_same_tables(running: Running) -> None:
    g = await Client.connect(running.url)
    welcomes: list[dict[str, Any]] = [await g.auth(running.room, secret=running.secret)]
    await g.expect("snapshot")
    for role, player in (("player", "alice"), ("observer", None), ("bridge", None)):
        token = await invite(g, role, player)
        c = await Client.connect(running.url)
        welcomes.append(await c.auth(running.room, token=token))
        await c.close()
    assert [w["role"] for w in welcomes] == ["gm", "player", "observer", "bridge"]
    tables = [w["tables"] for w in welcomes]
    assert all(t == tables[0] for t in tables)
    assert tables[0].keys() == PHASE_TABLES.keys() >= {"tower_defense", "mass", "engagement", "grid"}
    td = tables[0]["tower_defense"]
    assert td["path"] == ["tower_defense", "phase"] and td["rule"] == "TD-RND"
    assert [(p["id"], p["ja"], p["next"]) for p in td["phases"]] == [
        ("setup", "準備", "reinforcement"), ("reinforcement", "敵増援フェイズ", "advance"),
        ("advance", "敵進軍フェイズ", "pc_attack"), ("pc_attack", "PC攻撃フェイズ", "enemy_attack"),
        ("enemy_attack", "敵攻撃フェイズ", "reinforcement")]
    grid = {p["id"]: p for p in tables[0]["grid"]["phases"]}
    assert grid["post"]["when"] == "flying" and grid["post"]["rule"] == "GRID-ST-4"
    mass = [p["id"] for p in tables[0]["mass"]["phases"]]
    assert mass == ["preparation", "deployment", "tactics", "battle", "over"]
    await g.close()
