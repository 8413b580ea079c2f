"""Pasted text on the player page (issue 29), over real sockets: genuine BCDice lines from
the corpus (tests/data/bcdice/corpus.json), as the player page's `readRoll` sends them in
`td.attack`'s `results` — also as copied out of a Foundry chat, with zero-width characters
after every comma and around the line — are read by the server exactly as
`engine.bcdice.parse` reads the plain line: the ack's check or the refusal's reason."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from test_reported_rolls import to_pc_attack

from conftest import EXAMPLES, ROOT, Client, gm, invite, join, start_server
from komasync.engine.bcdice import CocCheck, NotUnderstood, parse
from komasync.engine.tower_defense.rules import DEGREES

CORPUS: list[dict[str, Any]] = json.loads(
    (ROOT / "tests" / "data" / "bcdice" / "corpus.json").read_text("utf-8"))
SKILL = 80  # pc1 カルロス・ベガ: 射撃（拳銃） 80, the desert eagle's skill
ATTACK = {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle", "group": "r1-left_end"}
#: What the Foundry BCDice modules and web pages leave in copied text (U+200B after each comma).
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")


def sample() -> list[str]:
    """Single-line corpus lines (the page sends one result a line), a few of each system and
    command family, none that pc1's attack would accept (that one is sent last)."""
    picked: dict[tuple[str, str], list[str]] = {}
    for e in CORPUS:
        line, family = e["line"], e["command"].split("<")[0].split("(")[0][:4]
        r = parse(line)
        if "\n" in line or (isinstance(r, CocCheck) and r.target == SKILL):
            continue
        bucket = picked.setdefault((e["system"], family), [])
        if len(bucket) < 2:
            bucket.append(line)
    return [ln for lines in picked.values() for ln in lines]


def copied(line: str, i: int) -> str:
    """The line as copied from a Foundry chat: a zero-width character after every comma, one
    before and one after the line (a different one each time)."""
    z = ZERO_WIDTH[i % len(ZERO_WIDTH)]
    return f"{ZERO_WIDTH[(i + 1) % len(ZERO_WIDTH)]}{line.replace(',', ',' + z)}{z}"


async def paced(client: Client, action: dict[str, Any]) -> dict[str, Any]:
    """The reply to `action`, sent again after the wait the server asks for when rate-limited."""
    while (reply := await client.reply(action)).get("code") == "rate_limited":
        await asyncio.sleep(float(reply["details"]["retry_after"]))
    return reply


def expected_refusal(line: str) -> tuple[str, str]:
    """The code and a piece of the Japanese reason TD-ATK-2 gives for the plain line."""
    r = parse(line)
    if isinstance(r, NotUnderstood):
        return "bad_result", r.why.ja
    if isinstance(r, CocCheck) and r.difficulty:
        return "bad_result", "難易度つき"
    if not isinstance(r, CocCheck) or r.kind != "check" or r.target is None or r.level not in DEGREES:
        return "bad_result", "成功度のわかるCC判定の結果ではありません"
    return "result_target_mismatch", f"目標値{r.target}が技能値{SKILL}"


async def test_pasted_corpus_lines_read_as_parse_reads_them(tmp_path: Path) -> None:
    lines = sample()
    assert len(lines) >= 30
    assert {parse(ln).kind for ln in lines} >= {"check", "combined", "sum", "power", "not_understood"}
    r = await start_server(tmp_path / "td.sqlite3", EXAMPLES / "tower_defense.yaml", seed="paste")
    try:
        g = await gm(r)
        p1 = await join(r, await invite(g, "player", "p1"))
        await to_pc_attack(g)
        ack = await g.reply({"kind": "room.player_rolls", "mode": "allow"})
        assert ack["type"] == "ack", ack
        version = r.server.rooms[r.room].version
        for i, line in enumerate(lines):
            for sent in (line, copied(line, i)):
                reply = await paced(p1, {**ATTACK, "results": [sent]})
                code, words = expected_refusal(line)
                assert (reply["type"], reply.get("code")) == ("reject", code), (line, reply)
                assert words in reply["reason"]["ja"], (line, reply)
                if code == "bad_result" and isinstance(bad := parse(line), NotUnderstood):
                    assert bad.why.en in reply["reason"]["en"], (line, reply)
        assert r.server.rooms[r.room].version == version, "no refused line changed the room"
        await accepted(p1)
    finally:
        await r.runner.cleanup()


async def accepted(p1: Client) -> None:
    """A CC<=80 line copied with every zero-width character: the ack's check is parse's."""
    line = next(e["line"] for e in CORPUS if e["command"] == "CC<=80")
    sent = "".join(ZERO_WIDTH) + line.replace(" ", " \u200b") + "\u2060"
    check = parse(line)
    assert isinstance(check, CocCheck)
    ack = await paced(p1, {**ATTACK, "results": [sent]})
    assert ack["type"] == "ack", ack
    attack = next(x for x in ack["results"] if x["kind"] == "td.attack")
    assert [(c["value"], c["target"], c["level"], c["reported"]) for c in attack["checks"]] == [
        (check.value, check.target, check.level, True)]
