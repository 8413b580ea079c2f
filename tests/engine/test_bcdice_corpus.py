"""engine/bcdice.py against the real BCDice: every line of tests/data/bcdice/corpus.json
(BCDice 3.16.1's own output with its structured result) is read to exactly BCDice's result,
or refused with a reason that names what the line is — never read wrong (issue 29)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from komasync.engine.bcdice import (
    FAILURE_LEVELS,
    KINDS,
    REASONS,
    SUCCESS_LEVELS,
    BCDiceResult,
    CocCheck,
    FullAuto,
    NotUnderstood,
    PlainRoll,
    PowerRoll,
    parse,
    parse_message,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "bcdice" / "corpus.json"
ADAPTERS = ROOT / "adapters"
SCRIPT = ADAPTERS / "scripts" / "bcdice_corpus.mjs"
REFRESH = "cd adapters && npm ci && node scripts/bcdice_corpus.mjs"

Entry = dict[str, Any]


def corpus() -> list[Entry]:
    entries: list[Entry] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return entries


def units_of(dice: list[dict[str, Any]]) -> list[int]:
    """BCDice's dice as komasync reads them: the faces of a sum; for Cthulhu 7th's d100
    (tens dice, then a units die) each candidate tens+units, 00 read as 100."""
    if not any(d["kind"] == "tens_d10" for d in dice):
        return [d["value"] for d in dice]
    out: list[int] = []
    tens: list[int] = []
    for d in dice:
        if d["kind"] == "tens_d10":
            tens.append(d["value"] % 10 * 10)
        else:
            out.extend(t + d["value"] % 10 or 100 for t in tens)
            tens = []
    return out


def flags(r: CocCheck | PlainRoll | PowerRoll | FullAuto) -> dict[str, bool]:
    """The flags BCDice sets for what was read. A CBR: 7th flags only a full success,
    6th also a partial one, and its criticals and fumbles (BCDice's Cthulhu rules); a
    power roll: critical when it rolled on (回転), fumble on 自動的失敗."""
    if isinstance(r, PowerRoll):
        return {"success": False, "failure": False, "critical": r.rotations > 0,
                "fumble": r.fumble}
    if isinstance(r, CocCheck) and r.kind == "combined":
        sixth = r.edition == 6
        ok = r.level == "success" or (sixth and r.level == "partial")
        return {"success": ok, "failure": r.level == "failure",
                "critical": sixth and "critical" in r.levels,
                "fumble": sixth and "fumble" in r.levels}
    return {"success": r.level in SUCCESS_LEVELS, "failure": r.level in FAILURE_LEVELS,
            "critical": r.level == "critical", "fumble": r.level == "fumble"}


@dataclass
class Verdict:
    outcome: str  # "read" | "refused" | "wrong"
    why: str = ""


def judge(line: str, result: dict[str, Any], r: BCDiceResult) -> Verdict:
    """Compare one reading with BCDice's own result."""
    if isinstance(r, NotUnderstood):
        if r.code not in KINDS:
            return Verdict("wrong", f"refused without naming the kind: {r.code} ({r.reason})")
        return Verdict("refused", r.code)
    got = {k: v for k, v in flags(r).items()}
    want = {k: bool(result[k]) for k in ("success", "failure", "critical", "fumble")}
    if got != want:
        return Verdict("wrong", f"flags {got} != BCDice {want}")
    dice = units_of(result["dice"])
    if list(r.dice) != dice:
        return Verdict("wrong", f"dice {r.dice} != BCDice {dice}")
    total = result["total"]
    if total is None and isinstance(r, CocCheck):  # CBR: the one d100 is the value
        total = dice[0]
    if total is not None and r.value != total:
        return Verdict("wrong", f"total {r.value} != BCDice {total}")
    if r.raw != line:
        return Verdict("wrong", f"raw {r.raw!r} is not the line")
    return Verdict("read")


def verdicts(entry: Entry) -> list[Verdict]:
    """A repeat's rolls one by one (through `parse_message`), else the one line."""
    if "repeat" in entry:
        parts = entry["repeat"]
        rs = parse_message(entry["line"])
        if len(rs) != len(parts):
            return [Verdict("wrong", f"{len(rs)} results for {len(parts)} rolls")]
        return [judge(p["line"], p["result"], r) for p, r in zip(parts, rs, strict=True)]
    return [judge(entry["line"], entry["result"], parse(entry["line"]))]


ENTRIES = corpus()


def test_corpus_size() -> None:
    systems = Counter(e["system"] for e in ENTRIES)
    assert len(ENTRIES) >= 800
    assert set(systems) == {"Cthulhu7th", "Cthulhu", "DiceBot", "SwordWorld2.5"}


def test_every_line_is_read_right_or_refused_by_kind() -> None:
    """Per system: read to BCDice's result / refused with a named reason / wrong (0)."""
    table: dict[str, Counter[str]] = {}
    wrong: list[str] = []
    for e in ENTRIES:
        for v in verdicts(e):
            table.setdefault(e["system"], Counter())[v.outcome] += 1
            if v.outcome == "wrong":
                wrong.append(f"{e['system']} {e['command']!r}: {e['line']!r}: {v.why}")
    print("\nsystem          read  refused(named)  wrong")
    for system, c in sorted(table.items()):
        print(f"{system:<14} {c['read']:>5} {c['refused']:>15} {c['wrong']:>6}")
    assert not wrong, "\n".join(wrong[:40])
    assert all(c["read"] > c["refused"] for c in table.values())


@pytest.mark.parametrize("entry", [e for e in ENTRIES if "repeat" not in e][:400:7],
                         ids=lambda e: e["command"])
def test_zero_width_spaces_after_commas_read_the_same(entry: Entry) -> None:
    """The Foundry BCDice modules put U+200B after every comma: the same reading."""
    line = entry["line"]
    wrapped = line.replace(",", ",\u200b")
    plain, zw = parse(line), parse(wrapped)
    assert type(plain) is type(zw)
    if not isinstance(plain, NotUnderstood):
        assert (plain.value, plain.dice, plain.level) == (zw.value, zw.dice, zw.level)


def test_repeat_lines_as_foundry_posts_them() -> None:
    """`x3 2D6` as one paragraph a roll, `#1(2D6) ＞ …` (the #n glued to the header)."""
    text = "#1(2D6) ＞ 6[4,\u200b2] ＞ 6\n#2(2D6) ＞ 9[3,\u200b6] ＞ 9\n#3(2D6) ＞ 7[1,\u200b6] ＞ 7"
    rs = parse_message(text)
    assert [(r.value, r.dice) for r in rs if isinstance(r, PlainRoll)] == [
        (6, (4, 2)), (9, (3, 6)), (7, (1, 6))]


def test_repeat_paragraphs_joined_without_a_break() -> None:
    """The same repeat when the paragraphs were joined with nothing between them."""
    text = "#1(2D6) ＞ 6[4,\u200b2] ＞ 6#2(2D6) ＞ 9[3,\u200b6] ＞ 9#3(2D6) ＞ 7[1,\u200b6] ＞ 7"
    assert [(r.value, r.dice) for r in parse_message(text) if isinstance(r, PlainRoll)] == [
        (6, (4, 2)), (9, (3, 6)), (7, (1, 6))]


def test_several_result_lines_in_one_message() -> None:
    rs = parse_message("(2D6) ＞ 7[1,\u200b6] ＞ 7\n(1D100<=50) ＞ 17 ＞ 成功")
    assert [(type(r).__name__, r.level) for r in rs] == [("PlainRoll", None),
                                                         ("PlainRoll", "success")]


@pytest.mark.parametrize(("line", "code", "names"), [
    ("(4D6KH3) ＞ 14[1,2,6,6] ＞ 14", "keep_roll", ("キープロール（4D6KH3）", "a keep roll")),
    ("(1d100<=125) ＞ 自動成功", "automatic", ("自動成功", "automatic result")),
])
def test_refusals_name_the_line(line: str, code: str, names: tuple[str, str]) -> None:
    r = parse(line)
    assert isinstance(r, NotUnderstood) and r.code == code
    assert names[0] in r.why.ja and names[1] in r.why.en and r.reason == r.why.en


def test_every_reason_is_declared_in_both_languages() -> None:
    assert KINDS <= set(REASONS)
    for code, text in REASONS.items():
        assert text.ja and text.en and text.ja != text.en, code


@pytest.mark.parametrize(("line", "value", "dice", "level"), [
    ("(1D100<=50) ＞ 17 ＞ 成功", 17, (17,), "success"),
    ("(2D6-1D4+1) ＞ 11[6,5]-2[2]+1 ＞ 10", 10, (6, 5, 2), None),
    ("(2D6*3-1D6+1) ＞ 8[6,2]*3-3[3]+1 ＞ 22", 22, (6, 2, 3), None),
    ("(-2D6<-7) ＞ -8[3,5] ＞ -8 ＞ 成功", -8, (3, 5), "success"),
    ("(2D6@10) ＞ 15[6,4][1,4] ＞ 15", 15, (6, 4, 1, 4), None),
    ("(2D6@10+31>=30) ＞ 20[6,6][2,6]+31 ＞ 51 ＞ 自動的成功", 51, (6, 6, 2, 6), "critical"),
    ("(2D6>=8) ＞ 2[1,1] ＞ 2 ＞ 自動的失敗", 2, (1, 1), "fumble"),
    ("(2D6@10+11>30) ＞ 40[6,5][6,6][5,5][6,1]+11 ＞ 51 ＞ 超成功", 51,
     (6, 5, 6, 6, 5, 5, 6, 1), "superb"),
    ("(1D100<=60) ＞ 2 ＞ スペシャル", 2, (2,), "special"),
    ("(1d100<=60) ＞ 1 ＞ 決定的成功/スペシャル", 1, (1,), "critical"),
    ("(1D100<=65) ＞ 97 ＞ 致命的失敗", 97, (97,), "fumble"),
    ("(1D100<=98) 故障ナンバー[94] ＞ 97 ＞ 故障", 97, (97,), "malfunction"),
    ("(2D6) ＞ 7[2,\u200b5] ＞ 7", 7, (2, 5), None),
    ("(2D6+1D4) ＞ 7[1,\u200b6]+2[2] ＞ 9", 9, (1, 6, 2), None),
])
def test_the_issues_lines(line: str, value: int, dice: tuple[int, ...], level: str | None) -> None:
    """The lines issue 29 lists as refused or misread before."""
    r = parse(line)
    assert isinstance(r, PlainRoll), r
    assert (r.value, r.dice, r.level) == (value, dice, level)


@pytest.mark.parametrize(("line", "value", "dice", "rotations", "fumble"), [
    ("KeyNo.20c[10]+5 ＞ 2D:[3,1]=4 ＞ 2+5 ＞ 7", 7, (3, 1), 0, False),
    ("KeyNo.20c[10]+5 ＞ 2D:[6,4 4,6 1,1]=10,10,2 ＞ 8,8,**+5 ＞ 2回転 ＞ 21", 21,
     (6, 4, 4, 6, 1, 1), 2, False),
    ("KeyNo.20c[10]+5 ＞ 2D:[1,1]=2 ＞ ** ＞ 自動的失敗", None, (1, 1), 0, True),
    ("(Dru[4,7,13]+10) ＞ 2D[6,5]=11 ＞ 13+10 ＞ 23", 23, (6, 5), 0, False),
])
def test_power_rolls(line: str, value: int | None, dice: tuple[int, ...], rotations: int,
                     fumble: bool) -> None:
    r = parse(line)
    assert isinstance(r, PowerRoll), r
    assert (r.value, r.dice, r.rotations, r.fumble) == (value, dice, rotations, fumble)


def test_a_difficulty_set_check_says_so() -> None:
    """CC<=50H prints the halved target and a bare 成功: `difficulty`, the target as shown."""
    r = parse("(1D100<=25) ボーナス・ペナルティダイス[0] ＞ 2 ＞ 2 ＞ 成功")
    assert isinstance(r, CocCheck)
    assert (r.target, r.level, r.difficulty) == (25, "success", True)
    regular = parse("(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 2 ＞ 2 ＞ イクストリーム成功")
    assert isinstance(regular, CocCheck) and not regular.difficulty


def test_the_committed_corpus_is_what_bcdice_prints(tmp_path: Path) -> None:
    """Regenerated with the real BCDice when Node and adapters/node_modules/bcdice are here."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the committed corpus is used as it is")
    if not (ADAPTERS / "node_modules" / "bcdice" / "package.json").exists():
        pytest.skip("adapters/node_modules/bcdice is missing (run `cd adapters && npm ci`)")
    out = tmp_path / "corpus.json"
    subprocess.run([node, str(SCRIPT), str(out)], cwd=ADAPTERS, check=True,
                   capture_output=True, timeout=300)
    assert out.read_bytes() == CORPUS.read_bytes(), (
        f"tests/data/bcdice/corpus.json is stale; refresh it: {REFRESH}")
