"""Refusals never echo hidden data (BASE-OPT-2, issue 13 finding 2), over real sockets.

A refusal sent to a player or a bridge is built only from what that audience may see;
the GM's refusal notice keeps the whole reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, Client, Running, gm, invite, join, start_server

HIDDEN_BASES = ROOT / "tests" / "data" / "hidden_bases.yaml"

#: Hidden parts of tests/data/hidden_bases.yaml that a refusal could name.
RITE_SECRETS = ("禁断の儀式", "冥府の門を叩く")


@pytest.fixture
async def bases_room(tmp_path: Path) -> AsyncIterator[Running]:
    r = await start_server(tmp_path / "leaks.sqlite3", HIDDEN_BASES, seed="leaks")
    yield r
    await r.runner.cleanup()


async def refused(client: Client, action: dict[str, Any]) -> dict[str, Any]:
    reply = await client.reply_to(await client.act(action))
    assert reply["type"] == "reject", reply
    assert reply["reason"]["ja"] and reply["reason"]["en"]
    return reply


async def test_trigger_refusal_names_no_hidden_part_but_the_gm_sees_it(
        bases_room: Running) -> None:
    g = await gm(bases_room)
    player = await join(bases_room, await invite(g, "player", "p1"))
    bridge = await join(bases_room, await invite(g, "bridge"))
    await g.reply_to(await g.act({"kind": "bases.round"}))
    trigger = {"kind": "bases.trigger", "event": "stake.rite", "character": "アリス",
               "action": "発動タイミングを放棄する"}
    for client in (player, bridge):
        reply = await refused(client, trigger)
        said = str(reply)
        assert not [s for s in RITE_SECRETS if s in said], f"hidden data in {reply}"
    # The GM's notice for the same refusal keeps the hidden detail (the GM may see it).
    notice = await g.expect("notice", kind="refusal")
    assert "冥府の門を叩く" in str(notice["data"]["reason"])
    assert notice["data"]["code"] == "wrong_trigger" and notice["data"]["rule"] == "BASE-COND-3"
