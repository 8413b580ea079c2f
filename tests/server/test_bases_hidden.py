"""Base battle over real sockets: hidden bases and hidden parts never reach a player or a
bridge before their reveal, and arrive right after (BASE-OPT-2)."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES, Client, gm, invite, join, start_server

SECRETS = ("battery", "隠し砲台", "砲撃", "結界杭のGPを1減らす")


def frames_of(version: int, client: Client) -> str:
    """The raw frames a client received for exactly that version."""
    return "\n".join(raw for raw in client.raw if f'"to_version":{version}' in raw)


async def test_hidden_base_reaches_players_and_bridges_only_when_revealed(tmp_path: Path) -> None:
    r = await start_server(tmp_path / "b.sqlite3", EXAMPLES / "base_battle.yaml", seed="gate")
    try:
        g = await gm(r)
        watchers = [await join(r, await invite(g, "player", "p1")),
                    await join(r, await invite(g, "bridge"))]
        assert all(s in "".join(g.raw) for s in SECRETS[:2])  # the GM sees it from the start

        async def gm_act(**action: object) -> int:
            reply = await g.reply_to(await g.act(dict(action)))
            assert reply["type"] == "ack", reply
            for w in watchers:
                await w.settle(reply["version"])
            return int(reply["version"])

        # Round 1: the battery's 【2ラウンド〜】 event does not fire; nothing of it is sent —
        # not even when the GM corrects it (the override's reason stays on the GM's timeline).
        await gm_act(kind="bases.round")
        await gm_act(kind="override", path=["bases", "bases", "battery", "note"],
                     value="砲台は第2ラウンドに動く", reason="隠し砲台のメモ")
        await gm_act(kind="bases.report", happening="character.damaged", character="アリス")
        for w in watchers:
            assert not any(s in "".join(w.raw) for s in SECRETS), "hidden data leaked"
            assert "battery" not in w.state["bases"]["bases"]

        # Round 2 starts: 砲撃 fires, so the event and its base are revealed (the seed's
        # reveal rule for events), in the frames of that very version; its GP stays hidden.
        version = await gm_act(kind="bases.round")
        for w in watchers:
            fresh = frames_of(version, w)
            assert "隠し砲台" in fresh and "砲撃" in fresh and "結界杭のGPを1減らす" in fresh
            battery = w.state["bases"]["bases"]["battery"]
            assert "gp" not in battery and "base_gp" not in battery
            assert w.state["bases"]["bases"]["stake"]["gp"] == 4  # 砲撃 hit the 結界杭

        # The GM reveals the GP: it arrives at once.
        version = await gm_act(kind="bases.reveal", base="battery", what="gp")
        for w in watchers:
            assert '["bases","bases","battery","gp"],"value":4' in frames_of(version, w)
            assert w.state["bases"]["bases"]["battery"]["gp"] == 4
    finally:
        await r.runner.cleanup()
