"""Base-battle reports are bound to characters (issue 13 finding 5), over real sockets.

A player reports and triggers only for a character they play; the GM for anyone; a
scenario may say players report for anyone (`players_report: any`, docs/bases.md).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Client, Running, gm, invite, join, start_server

#: Players named like their characters (the binding older scenario files rely on).
BY_NAME = """
room: {name: 単独の敵, seed: s}
players: [{id: p1, name: アリス}, {id: p2, name: ボブ}]
bases:
  type: general
  characters:
    - {name: アリス, side: pc}
    - {name: ボブ, side: pc}
    - {name: ゴブリン, side: enemy}
  bases:
    - id: stake
      name: 結界杭
      side: pc
      gp: 5
      events:
        - name: 結界強化
          condition: 【能動誘発】（味方キャラクター/発動タイミングを放棄する）
          effects: [{do: gp, value: 1}]
"""


async def start(tmp_path: Path, text: str) -> Running:
    scenario = tmp_path / "bases.yaml"
    scenario.write_text(text, encoding="utf-8")
    return await start_server(tmp_path / "b.sqlite3", scenario)


@pytest.fixture
async def by_name(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start(tmp_path, BY_NAME)
    yield r
    await r.runner.cleanup()


async def reply(client: Client, **action: Any) -> dict[str, Any]:
    return await client.reply_to(await client.act(dict(action)))


async def test_a_player_cannot_report_the_only_enemy_down(by_name: Running) -> None:
    g = await gm(by_name)
    p1 = await join(by_name, await invite(g, "player", "p1"))
    assert (await reply(g, kind="bases.round"))["type"] == "ack"
    # The hole: one player reporting the only enemy incapacitated ended the battle.
    r = await reply(p1, kind="bases.report", happening="character.incapacitated",
                    character="ゴブリン")
    assert (r["type"], r.get("code")) == ("reject", "not_your_character"), r
    r = await reply(p1, kind="bases.report", happening="character.incapacitated",
                    character="ゴブリン", side="pc")
    assert (r["type"], r.get("code")) == ("reject", "not_your_character"), r
    # Nor another player's character, nor their own under the other side.
    r = await reply(p1, kind="bases.report", happening="character.incapacitated", character="ボブ")
    assert (r["type"], r.get("code")) == ("reject", "not_your_character"), r
    r = await reply(p1, kind="bases.report", happening="character.incapacitated",
                    character="アリス", side="enemy")
    assert (r["type"], r.get("code")) == ("reject", "wrong_side"), r
    r = await reply(p1, kind="bases.trigger", event="stake.ev1", character="ボブ",
                    action="発動タイミングを放棄する")
    assert (r["type"], r.get("code")) == ("reject", "not_your_character"), r
    room = by_name.server.rooms[by_name.room].engine.state.bases
    assert room is not None and room.outcome is None
    assert room.characters["ゴブリン"].status == "on_field"
    # Their own character: reported and triggered as before.
    assert (await reply(p1, kind="bases.report", happening="character.damaged",
                        character="アリス", amount=2))["type"] == "ack"
    assert (await reply(p1, kind="bases.trigger", event="stake.ev1", character="アリス",
                        action="発動タイミングを放棄する"))["type"] == "ack"
    # The GM reports for anyone: the enemy is down and the battle ends (BASE-TYPE-1).
    assert (await reply(g, kind="bases.report", happening="character.incapacitated",
                        character="ゴブリン"))["type"] == "ack"
    room = by_name.server.rooms[by_name.room].engine.state.bases
    assert room is not None and room.outcome is not None and room.outcome.losers == ["enemy"]
