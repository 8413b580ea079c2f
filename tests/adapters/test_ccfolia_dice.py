"""Dice from Ccfolia with the real-BCDice corpus (issue 29, "Ccfolia's roll result"):
every genuine line, delivered as the Ccfolia bridge sends it — the message's text (the
typed command) with `extend.roll.result` as `roll`, spoken by a PC — reads through the
Ccfolia adapter's chat translation to what `engine.bcdice.parse` makes of the plain line
and to BCDice's own result (tests/data/bcdice/corpus.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from adapter_support import BRIDGE, P1, Room, td_room

from komasync.adapters.base import EventResult
from komasync.adapters.subsystems.tower_defense import IGN_NO_ROLL
from komasync.engine.bcdice import SUCCESS_LEVELS, CocCheck, NotUnderstood, parse, parse_message

CORPUS: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "bcdice" / "corpus.json").read_text("utf-8"))
PC = "カルロス・ベガ"  # pc1 of the example: one weapon, 射撃（拳銃） 80, at f_left


@pytest.fixture(scope="module")
def room() -> Room:
    return td_room()


def ccfolia_chat(entry: dict[str, Any]) -> dict[str, Any]:
    """The bridge's `chat` event for a Ccfolia message of this roll (bridge.js `_scanMessages`):
    `text` the message's text, `roll` its `extend.roll.result` (BCDice's text, unaltered)."""
    return {"kind": "chat", "text": f"{entry['command']} r1-left_end", "roll": entry["line"],
            "speaker": {"name": PC}, "user": P1}


def usable(line: str) -> list[CocCheck]:
    """The CC checks tower defense takes from a line (TD-ATK-2: a level and the skill as target)."""
    return [r for r in parse_message(line) if isinstance(r, CocCheck) and r.kind == "check"
            and r.level is not None and r.target is not None and not r.difficulty]


def translate(room: Room, entry: dict[str, Any]) -> EventResult:
    return room.adapters["ccfolia"].event(ccfolia_chat(entry), room.tree)


def test_the_corpus_spans_the_systems() -> None:
    assert len(CORPUS) >= 900
    assert {e["system"] for e in CORPUS} >= {"Cthulhu7th", "Cthulhu", "DiceBot", "SwordWorld2.5"}


@pytest.mark.parametrize("entry", CORPUS, ids=lambda e: f"{e['system']}:{e['command']}")
def test_a_ccfolia_roll_result_reads_as_the_plain_line(room: Room, entry: dict[str, Any]) -> None:
    line = entry["line"]
    result = translate(room, entry)
    # The GM's roll ledger sees BCDice's text unaltered, credited to the speaking PC.
    assert result.roll is not None and result.roll.text == line and result.roll.pc == "pc1"
    checks = usable(line)
    if checks and not any(isinstance(r, CocCheck) and r.difficulty for r in parse_message(line)):
        # TD-ATK-2: the same attack the plain line makes, each check read as parse reads it.
        assert result.action == {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle",
                                 "group": "r1-left_end", "results": [c.raw for c in checks],
                                 "by": "p1"}
        for raw, check in zip(result.action["results"], checks, strict=True):
            assert parse(raw) == check
        if "\n" not in line:  # one roll: BCDice's own total and success flag
            assert checks[0].value == entry["result"]["total"]
            assert (checks[0].level in SUCCESS_LEVELS) == entry["result"]["success"]
        return
    assert result.action is None and result.ignored
    bad = next((r for r in parse_message(line) if isinstance(r, NotUnderstood)), None)
    if bad is not None:  # refused with the parser's own named reason, never a made-up roll
        assert bad.why.ja in result.ignored and bad.why.en in result.ignored
    elif any(isinstance(r, CocCheck) and r.difficulty for r in parse_message(line)):
        assert "CC<=50H" in result.ignored  # its target is not the skill (IGN_DIFFICULTY)
    else:  # a sum, a CBR, a FAR burst, a power roll: read, but no CC check to attack with
        assert IGN_NO_ROLL.ja in result.ignored and IGN_NO_ROLL.en in result.ignored


def test_a_ccfolia_cc_line_is_an_attack_the_engine_applies() -> None:
    # One corpus CC line end to end: the translated action is accepted by the engine.
    entry = next(e for e in CORPUS if e["command"] == "CC<=80" and usable(e["line"]))
    room = td_room()
    result = translate(room, entry)
    assert result.action is not None
    outcome, _ops = room.act(result.action, BRIDGE)
    assert outcome.log
