"""engine/bcdice.py against BCDice's own test vectors (shared/fixtures/bcdice)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from komasync.engine.bcdice import (
    FAILURE_LEVELS,
    SUCCESS_LEVELS,
    CocCheck,
    FullAuto,
    NotUnderstood,
    PlainRoll,
    coc_level,
    parse,
    parse_message,
    reason_ja,
)


def fixtures_dir() -> Path:
    """The BCDice vectors and other outside data, kept in `tests/fixtures` with their licence."""
    return Path(__file__).resolve().parents[1] / "fixtures"


def vectors(name: str) -> list[dict[str, Any]]:
    with open(fixtures_dir() / "bcdice" / f"{name}.toml", "rb") as f:
        tests: list[dict[str, Any]] = tomllib.load(f)["test"]
    return tests


COC = vectors("Cthulhu7th")
FLAGGED = [t for t in COC if t.get("success") or t.get("failure")]
ADD = [t for t in vectors("AddDice") if t["output"]]


def test_fixture_has_flagged_lines() -> None:
    assert len(FLAGGED) >= 40


@pytest.mark.parametrize("t", FLAGGED, ids=lambda t: t["input"])
def test_flagged_lines_parse_and_level_agrees(t: dict[str, Any]) -> None:
    """Every line with success/failure flags parses; the level matches every flag."""
    r = parse(t["output"])
    assert isinstance(r, CocCheck), r
    assert (r.level in SUCCESS_LEVELS) == bool(t.get("success"))
    assert (r.level in FAILURE_LEVELS) == bool(t.get("failure"))
    assert (r.level == "critical") == bool(t.get("critical"))
    assert (r.level == "fumble") == bool(t.get("fumble"))


@pytest.mark.parametrize("t", [t for t in COC if t["output"].startswith("(1D100<=")
                               and any(w in t["output"] for w in ("レギュラー", "ハード",
                                                                   "イクストリーム"))],
                         ids=lambda t: t["input"])
def test_cc_degree_matches_coc_rule(t: dict[str, Any]) -> None:
    """The printed degree is what CoC 7th gives for the kept value and the target."""
    r = parse(t["output"])
    assert isinstance(r, CocCheck) and r.target is not None
    assert coc_level(r.value, r.target) == r.level
    assert r.value in r.dice


@pytest.mark.parametrize("t", COC, ids=lambda t: t["input"])
def test_every_line_is_typed_never_raises(t: dict[str, Any]) -> None:
    r = parse(t["output"])
    assert isinstance(r, CocCheck | FullAuto | PlainRoll | NotUnderstood)
    assert r.raw == t["output"] or not t["output"]


@pytest.mark.parametrize("t", [t for t in COC if "回目:" in t["output"]],
                         ids=lambda t: t["input"])
def test_full_auto_volleys_add_up(t: dict[str, Any]) -> None:
    r = parse(t["output"])
    assert isinstance(r, FullAuto)
    assert sum(v.hits for v in r.volleys) == r.hits
    assert sum(v.penetrating for v in r.volleys) == r.penetrating
    assert [v.number for v in r.volleys] == list(range(1, len(r.volleys) + 1))


def test_combined_roll_levels() -> None:
    r = parse("(1d100<=70,30) ＞ 30[ハード成功,レギュラー成功] ＞ 成功")
    assert isinstance(r, CocCheck)
    assert (r.kind, r.level, r.targets, r.levels) == (
        "combined", "success", (70, 30), ("hard", "regular"))
    assert parse("(1d100<=70,30) ＞ 50[レギュラー成功,失敗] ＞ 部分的成功").level == "partial"


@pytest.mark.parametrize("t", ADD, ids=lambda t: t["input"])
def test_add_dice_totals(t: dict[str, Any]) -> None:
    r = parse(t["output"])
    assert isinstance(r, PlainRoll), r
    assert r.value == int(t["output"].rsplit("＞", 1)[1])
    assert list(r.dice) == [x["value"] for x in t["rands"]]


@pytest.mark.parametrize("line, value, dice", [
    ("(2D6) ＞ 7[1,6] ＞ 7", 7, (1, 6)),
    ("(1D6) ＞ 2", 2, (2,)),
    ("(1D6+3) ＞ 4[4]+3 ＞ 7", 7, (4,)),
    ("(2D6>=7) ＞ 8[3,5] ＞ 8 ＞ 成功", 8, (3, 5)),
])
def test_plain_rolls(line: str, value: int, dice: tuple[int, ...]) -> None:
    r = parse(line)
    assert isinstance(r, PlainRoll)
    assert (r.value, r.dice) == (value, dice)


def test_ascii_arrow_and_system_prefix() -> None:
    full = "(1D100<=53) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 52 ＞ レギュラー成功"
    ascii_ = full.replace("＞", ">")
    assert parse(ascii_) == CocCheck(raw=ascii_, value=52, dice=(52,), level="regular",
                                     target=53, targets=(53,), levels=("regular",))
    prefixed = parse("Cthulhu7th : " + full)
    assert isinstance(prefixed, CocCheck) and prefixed.level == "regular"
    assert parse("(2D6) > 7[1,6] > 7") == PlainRoll(raw="(2D6) > 7[1,6] > 7", expr="2D6",
                                                   value=7, dice=(1, 6))


@pytest.mark.parametrize("line", [
    "",
    "こんにちは",
    "(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 52 ＞ すごい成功",
    "(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 40 ＞ 失敗",
    "(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 52",
    "(1D100<=50) ＞ 30",
    "(2D6) ＞ 7[1,5] ＞ 7",
    "(2D6) ＞ 7[1,6] ＞ 8",
    "(2D6) ＞ 7",
    "(1D100<=50) ボーナス・ペナルティダイス[0] ＞ ＞ 52 ＞ 失敗",
    "恐怖症表(1) ＞ 入浴恐怖症：体、手、顔を洗うのが怖い。",
    "エラー。ボーナス・ペナルティダイスの値は-2～2です。",
])
def test_not_understood_is_never_guessed(line: str) -> None:
    r = parse(line)
    assert isinstance(r, NotUnderstood)
    assert r.reason and r.level is None


def test_parse_message_repeated_rolls() -> None:
    text = ("#1\n(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 35 ＞ 35 ＞ レギュラー成功\n\n"
            "#2\n(1D100<=50) ボーナス・ペナルティダイス[0] ＞ 8 ＞ 8 ＞ イクストリーム成功")
    assert [r.level for r in parse_message(text)] == ["regular", "extreme"]
    assert [r.level for r in parse_message("(1D100<=50) ＞ 1[クリティカル,失敗] ＞ x")] == [None]


@pytest.mark.parametrize("value, target, level", [
    (1, 50, "critical"), (10, 50, "extreme"), (11, 50, "hard"), (25, 50, "hard"),
    (26, 50, "regular"), (50, 50, "regular"), (51, 50, "failure"), (99, 50, "failure"),
    (100, 50, "fumble"), (95, 49, "failure"), (96, 49, "fumble"), (1, 0, "critical"),
])
def test_coc_level(value: int, target: int, level: str) -> None:
    assert coc_level(value, target) == level


# -- lines pasted with the command first (issue 14) ------------------------------------------

PASTED = [
    ("CC<=80 【拳銃】 (1D100<=80) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 12 ＞ イクストリーム成功",
     "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 12 ＞ イクストリーム成功", "extreme", 12),
    ("CC<=53 (1D100<=53) ボーナス・ペナルティダイス[0] > 52 > 52 > レギュラー成功",
     "(1D100<=53) ボーナス・ペナルティダイス[0] > 52 > 52 > レギュラー成功", "regular", 52),
    ("CC(1)<=40 【回避】 (1D100<=40) ボーナス・ペナルティダイス[1] ＞ 70, 30 ＞ 30 ＞ レギュラー成功",
     "(1D100<=40) ボーナス・ペナルティダイス[1] ＞ 70, 30 ＞ 30 ＞ レギュラー成功", "regular", 30),
]


@pytest.mark.parametrize(("pasted", "line", "level", "value"), PASTED)
def test_a_line_with_its_command_first_is_read_from_the_header(
        pasted: str, line: str, level: str, value: int) -> None:
    r = parse(pasted)
    assert isinstance(r, CocCheck), r
    assert (r.raw, r.level, r.value) == (line, level, value)
    assert parse(r.raw) == r  # the engine re-reads `raw`: the same result


def test_a_plain_roll_with_its_command_first() -> None:
    r = parse("2D6 (2D6) ＞ 7[1,6] ＞ 7")
    assert isinstance(r, PlainRoll) and (r.raw, r.value, r.dice) == ("(2D6) ＞ 7[1,6] ＞ 7", 7, (1, 6))


@pytest.mark.parametrize("text", ["CC<=80 【拳銃】", "CC<=80 (拳銃) ＞ 強い",
                                  "(1D100<=80) … ＞ イクストリーム成功"])
def test_a_command_without_a_readable_result_is_not_understood(text: str) -> None:
    r = parse(text)
    assert isinstance(r, NotUnderstood)
    assert reason_ja(r.reason) != r.reason  # every reason has its Japanese


def test_every_reason_the_parser_gives_is_declared_with_japanese() -> None:
    """Every `_no(raw, "code")` in the parser names a declared reason; `reason_ja` gives the
    Japanese of an English reason string, its filled-in fields kept."""
    import re as _re

    from komasync.engine import bcdice

    source = Path(bcdice.__file__).read_text(encoding="utf-8")
    used = set(_re.findall(r'_no\(\w+, "(\w+)"', source))
    assert len(used) >= 20
    assert used <= set(bcdice.REASONS), used - set(bcdice.REASONS)
    for code, text in bcdice.REASONS.items():
        if "{" not in text.en:
            assert reason_ja(text.en) == text.ja, code
    assert reason_ja("unexpected line: 3回目") == "読めない行があります: 3回目"
    r = parse("(4D6KH3) ＞ 14[1,2,6,6] ＞ 14")
    assert isinstance(r, NotUnderstood) and reason_ja(r) == reason_ja(r.reason) == r.why.ja
