"""Dice from Foundry (adapters/dice_events.py, for adapters/foundry/adapter.py): genuine
BCDice lines as the public
BCDice modules post them, and Foundry's own rolls (`ChatMessage#rolls`), read to what the
plain line gives — issue 29. The lines are BCDice's own (tests/data/bridges, and the full
corpus tests/data/bcdice when it is there)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from adapter_support import P1, cc, submit, td_room

from komasync.adapters.dice_events import bcdice_text, native_lines
from komasync.adapters.subsystems.tower_defense import cc_line
from komasync.engine.bcdice import PlainRoll, coc_level, parse, parse_message

DATA = Path(__file__).resolve().parents[1] / "data"


def corpus() -> list[str]:
    """Every genuine BCDice line at hand: the bridges' sample, then the full corpus."""
    lines = [e["line"] for e in json.loads((DATA / "bridges" / "bcdice_sample.json").read_text("utf-8"))]
    for path in sorted((DATA / "bcdice").glob("*.json")) if (DATA / "bcdice").is_dir() else []:
        data = json.loads(path.read_text("utf-8"))
        if isinstance(data, list):
            lines += [e["line"] for e in data if isinstance(e, dict) and isinstance(e.get("line"), str)]
    return lines


LINES = corpus()


def wrapped(line: str) -> str:
    """A line as the bridge gets it from either BCDice module's message: every comma
    followed by a zero-width space (each `<p>` already a line of its own)."""
    return line.replace(",", ",\u200b")


def glued(line: str) -> str:
    """A repeat as plain text of the module's `<p>`s joins it: `#1(2D6) ＞ …#2(2D6) ＞ …`."""
    return "".join(wrapped(line).splitlines())


def test_the_sample_is_genuine_and_varied() -> None:
    assert len(LINES) >= 80
    assert any(ln.startswith("#1\n") for ln in LINES), "repeats"
    assert any("," in ln for ln in LINES), "lines with commas (where the modules add U+200B)"


@pytest.mark.parametrize("line", LINES)
def test_a_module_wrapped_line_reads_as_the_plain_line(line: str) -> None:
    # Issue 29: `(2D6) ＞ 7[2,\u200b5] ＞ 7` was refused ("no dice shown") and
    # `7[1,\u200b6]+2[2]` misread; after the bridge's unwrapping they read as BCDice printed.
    assert parse_message(bcdice_text(wrapped(line))) == parse_message(line)


@pytest.mark.parametrize("line", [ln for ln in LINES if ln.startswith("#1\n") and "(" in ln])
def test_a_glued_repeat_is_split_at_each_number(line: str) -> None:
    assert parse_message(bcdice_text(glued(line))) == parse_message(line)


def die(number: int, faces: int, results: list[int], **kw: Any) -> dict[str, Any]:
    """A DiceTerm as the module sends it (Roll#terms: faces, number, modifiers, results)."""
    return {"type": "die", "faces": faces, "number": number, "modifiers": kw.get("modifiers", []),
            "results": [{"result": r, "active": True} for r in results]}


PLUS = {"type": "op", "operator": "+"}


def _native_able(line: str) -> bool:
    """A plain sum of dice and numbers (Foundry's dice have no target to compare with)."""
    r = parse(line)
    return (isinstance(r, PlainRoll) and r.target is None
            and re.fullmatch(r"\d*D\d+(?:\+(?:\d*D\d+|\d+))*", r.expr) is not None)


@pytest.mark.parametrize("line", [ln for ln in LINES if _native_able(ln)])
def test_a_native_roll_of_the_same_dice_reads_as_the_bcdice_line(line: str) -> None:
    # Foundry's own dice (issue 29 "Foundry's own dice are ignored"): the same formula and
    # faces, read from the structured roll, give what BCDice's plain sum gives.
    plain = parse(line)
    assert plain.kind == "sum"
    groups = plain.expr.upper().split("+")
    terms: list[dict[str, Any]] = []
    faces = list(plain.dice)
    for g in groups:
        terms += [PLUS] if terms else []
        if "D" in g:
            n, f = (int(x or 1) for x in g.split("D"))
            terms.append(die(n, f, faces[:n]))
            faces = faces[n:]
        else:
            terms.append({"type": "number", "number": int(g)})
    lines, why = native_lines([{"formula": plain.expr.lower(), "total": plain.value, "terms": terms}])
    assert why is None
    assert parse(lines[0]) == replace(plain, raw=lines[0])


@pytest.mark.parametrize(("roll", "why"), [
    ({"formula": "4d6kh3", "total": 14, "terms": [die(4, 6, [1, 2, 6, 6], modifiers=["kh3"])]},
     "kh3"),
    ({"formula": "2d6*2", "total": 14, "terms": [die(2, 6, [3, 4]), {"type": "op", "operator": "*"},
                                                  {"type": "number", "number": 2}]}, "*"),
    ({"formula": "5d6", "total": 16, "terms": [die(5, 6, [1, 2, 3, 5, 6])]}, "16"),
    ({"formula": "{2d6,1d4}", "total": 9, "terms": [{"type": "other", "expression": "{2d6,1d4}"}]},
     "{2d6,1d4}"),
])
def test_a_native_roll_komasync_cannot_use_is_refused_with_its_reason(roll: dict[str, Any],
                                                                       why: str) -> None:
    lines, reason = native_lines([roll])
    assert lines == [] and reason is not None
    assert why in reason.ja and why in reason.en


def native_d100(value: int, flavor: str, speaker: str = "カルロス・ベガ") -> dict[str, Any]:
    return {"kind": "chat", "text": flavor, "speaker": {"name": speaker}, "user": P1,
            "rolls": [{"formula": "1d100", "total": value, "terms": [die(1, 100, [value])]}]}


@pytest.mark.parametrize("value", [1, 12, 30, 79, 95, 100])
def test_a_native_1d100_takes_its_target_from_the_pcs_skill(value: int) -> None:
    # TD-ATK-2 with Foundry's dice: the d100 has no target, so the rule takes the PC's
    # skill for the weapon from the scenario (カルロス: 射撃（拳銃） 80); the attack equals
    # the one the BCDice line `CC<=80` with the same d100 makes.
    native_room, plain_room = td_room(), td_room()
    result, outcome = submit(native_room, "foundry", native_d100(value, "デザートイーグル r1-left_end"))
    line = cc_line(value, 80)
    assert result.action == {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle",
                             "group": "r1-left_end", "results": [line], "by": "p1"}
    plain = {"kind": "chat", "text": "CC<=80 デザートイーグル r1-left_end", "roll": line,
             "speaker": {"name": "カルロス・ベガ"}, "user": P1}
    result_plain, outcome_plain = submit(plain_room, "foundry", plain)
    assert result_plain.action == result.action
    assert parse(line).level == coc_level(value, 80)
    assert native_room.tree["tower_defense"]["groups"] == plain_room.tree["tower_defense"]["groups"]
    assert outcome is not None and outcome_plain is not None


def test_a_native_1d100_with_the_only_weapon_needs_no_name() -> None:
    room = td_room()
    result, _ = submit(room, "foundry", native_d100(30, "r1-left_end"))
    assert result.action is not None and result.action["results"] == [cc(80, 30, "ハード成功")]


def test_a_native_roll_from_a_bcdice_wrapped_speaker_nobody_is_is_refused() -> None:
    # fvtt-bcdice speaks as the game system's name: no PC, so no attack (the GM is told).
    room = td_room()
    event = {"kind": "chat", "text": "CC<=80", "roll": wrapped(cc(80, 30, "ハード成功")),
             "speaker": {"name": "Cthulhu7th"}, "user": P1}
    result, _ = submit(room, "foundry", event)
    assert result.action is None and "Cthulhu7th" in (result.ignored or "")


def test_a_bcdice_module_roll_for_a_pc_is_the_plain_lines_attack() -> None:
    room = td_room()
    roll = "#1\n" + cc(80, 52, "レギュラー成功") + "\n\n#2\n" + cc(80, 90, "失敗")
    event = {"kind": "chat", "text": "x2 CC<=80 デザートイーグル r1-left_end", "roll": glued(roll),
             "speaker": {"name": "カルロス・ベガ"}, "user": P1}
    result, _ = submit(room, "foundry", event)
    assert result.action is not None
    assert result.action["results"] == [cc(80, 52, "レギュラー成功"), cc(80, 90, "失敗")]
