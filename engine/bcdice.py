"""Reading BCDice result lines as VTTs show them (no rolling, no guessing).

How this works: a BCDice line is a header in parentheses — the command as BCDice
understood it, e.g. `(1D100<=53)` — then steps separated by `＞` (BCDice's full-width
arrow; an ASCII `>` is accepted too). The forms read here (checked against the real
BCDice by tests/engine/test_bcdice_corpus.py):

    (1D100<=53) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 52 ＞ レギュラー成功     Cthulhu7th CC
    (1D100<=93) ボーナス・ペナルティダイス[-1] ＞ 92, 72 ＞ 92 ＞ レギュラー成功
    (1D100<=25) ボーナス・ペナルティダイス[0] ＞ 2 ＞ 2 ＞ 成功     CC<=50H (`difficulty`)
    (1D100) ボーナス・ペナルティダイス[2] ＞ 20, 100, 50 ＞ 20               CC, no target
    (1d100<=70,30) ＞ 30[ハード成功,レギュラー成功] ＞ 成功                 CBR (combined)
    ボーナス・ペナルティダイス[0]\\n1回目: ＞ 52 ＞ レギュラー成功　（3発が命中…   FAR (full auto)
    (2D6) ＞ 7[1,6] ＞ 7    (1D6) ＞ 2    (2D6-1D4+1) ＞ 11[6,5]-2[2]+1 ＞ 10   sums
    (1D100<=50) ＞ 17 ＞ 成功    (-2D6<-7) ＞ -8[3,5] ＞ -8 ＞ 成功        comparisons
    (1D100<=60) ＞ 2 ＞ スペシャル    (1D100<=98) 故障ナンバー[94] ＞ 97 ＞ 故障   Cthulhu 6th
    (2D6@10+11>30) ＞ 40[6,5][6,6][5,5][6,1]+11 ＞ 51 ＞ 超成功          SwordWorld2.5
    CC<=80 【拳銃】 (1D100<=80) ＞ … ＞ イクストリーム成功      pasted with the command first

A line pasted from a chat log carries the typed command before the header; the result
starts at the first `(…D…)` group that is followed by `＞`, and `raw` is the line from there.
Zero-width spaces (the Foundry BCDice modules put one after every comma) are dropped.

Anything else comes back as `NotUnderstood` with a declared reason (`REASONS`, Japanese
and English) that names what the line is when it is a known kind komasync does not use
(keep rolls, SwordWorld power rolls, automatic results): the caller reports it, it never
becomes a made-up result. `parse_message` splits repeated rolls (`#1`, `#2`…) and
messages of several result lines.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import Text
from .levels import Level

__all__ = [
    "FAILURE_LEVELS",
    "LEVEL_WORDS",
    "REASONS",
    "SUCCESS_LEVELS",
    "BCDiceResult",
    "CocCheck",
    "FullAuto",
    "Level",
    "NotUnderstood",
    "PlainRoll",
    "PowerRoll",
    "Volley",
    "coc_level",
    "parse",
    "parse_message",
    "reason_ja",
]

#: BCDice's words → levels. "成功"/"失敗" alone come from difficulty-set rolls (CC<=53h),
#: plain comparisons and Cthulhu 6th; "部分的成功" from CBR when one of two targets is met.
#: Cthulhu 6th: スペシャル, 決定的成功/スペシャル, 致命的失敗, 故障 (故障ナンバー);
#: SwordWorld2.5: 自動的成功 (6,6), 自動的失敗 (1,1), 超成功 (beats the target by 10).
LEVEL_WORDS: dict[str, Level] = {
    "クリティカル": "critical",
    "決定的成功/スペシャル": "critical",
    "自動的成功": "critical",
    "イクストリーム成功": "extreme",
    "ハード成功": "hard",
    "レギュラー成功": "regular",
    "スペシャル": "special",
    "超成功": "superb",
    "成功": "success",
    "部分的成功": "partial",
    "失敗": "failure",
    "故障": "malfunction",
    "ファンブル": "fumble",
    "致命的失敗": "fumble",
    "致命的失敗/故障": "fumble",
    "自動的失敗": "fumble",
}
SUCCESS_LEVELS: frozenset[Level] = frozenset({"critical", "extreme", "hard", "regular",
                                              "special", "superb", "success"})
FAILURE_LEVELS: frozenset[Level] = frozenset({"failure", "malfunction", "fumble"})
#: The words BCDice prints after a sum or a one-die comparison (never a CoC 7th degree).
_PLAIN_WORDS = frozenset({"成功", "失敗", "スペシャル", "決定的成功/スペシャル", "致命的失敗",
                          "故障", "致命的失敗/故障", "自動的成功", "自動的失敗", "超成功"})
#: Words only Cthulhu 7th / only Cthulhu 6th prints inside a CBR's brackets.
_WORDS_7TH = frozenset({"クリティカル", "イクストリーム成功", "ハード成功", "レギュラー成功",
                        "ファンブル"})
_WORDS_6TH = frozenset({"成功", "スペシャル", "決定的成功/スペシャル", "致命的失敗"})

# -- why a line is not read: declared once, Japanese first ----------------------------------
#: Each reason by its code; `{field}`s are filled from the line. The ones in `KINDS` name
#: a kind of line BCDice prints that komasync's rules do not use.
REASONS: dict[str, Text] = {
    "empty": Text("空の行です", "empty"),
    "no_header": Text("（…）で始まるダイスの結果がありません", "no (…) header"),
    "keep_roll": Text("キープロール（{head}）: 一部の出目だけを数えるロールは、"
                      "komasyncのルールでは使いません",
                      "a keep roll ({head}): a roll that counts only some of its dice is not "
                      "used by komasync's rules"),
    "power_fixed": Text("出目を固定・変える威力表のロール（{head}、gf/sf/tf）: "
                        "書かれた出目の一部は振ったものではないため読みません",
                        "a power-table roll that fixes or changes its dice ({head}, gf/sf/tf): "
                        "some faces shown were not rolled, so it is not read"),
    "power_steps": Text("威力表のロール（{head}）の結果の並びが読めません",
                        "unexpected steps of a power-table roll ({head})"),
    "bcdice_error": Text("BCDiceのエラーメッセージです（{message}）",
                         "an error message from BCDice ({message})"),
    "automatic": Text("{word}（ダイスを振らない結果）: 出目がないため使えません",
                      "an automatic result ({word}, no dice rolled): no dice to use"),
    "repeat": Text("繰り返しロール（#1, #2…）: 一回ずつの結果として読みます",
                   "a repeated roll (#1, #2…): read one roll at a time"),
    "not_1d100": Text("1D100の判定ではありません", "not a 1D100 check"),
    "unexpected_steps": Text("判定の結果の並びが読めません", "unexpected steps"),
    "unknown_level_or_kept": Text("成功度か採用した出目が読めません",
                                  "unknown level or kept value"),
    "unexpected_combined": Text("組み合わせ判定（CBR）の結果の並びが読めません",
                                "unexpected combined-roll steps"),
    "unknown_level": Text("成功度が読めません", "unknown level"),
    "no_dice_in_header": Text("（…）の中にダイスがありません", "no dice in the header"),
    "no_total": Text("合計がありません", "no total"),
    "no_dice_shown": Text("出目が書かれていません", "no dice shown"),
    "dice_do_not_add_up": Text("出目の合計が合いません", "dice do not add up"),
    "total_does_not_add_up": Text("合計が合いません", "total does not add up"),
    "unknown_form": Text("komasyncの読めない形のロールです（{head}）",
                         "a roll komasync does not read ({head})"),
    "not_full_auto": Text("フルオート（FAR）の結果として読めません", "not a full-auto result"),
    "unexpected_line": Text("読めない行があります: {line}", "unexpected line: {line}"),
    "no_volleys": Text("フルオートの射撃がありません", "no volleys"),
}
KINDS: frozenset[str] = frozenset({"keep_roll", "automatic", "repeat", "bcdice_error",
                                   "power_fixed"})

BONUS_TAG = "ボーナス・ペナルティダイス"
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")  # U+2060: word joiner
_SEP = re.compile(r"\s*[＞>]\s*")
_BONUS = re.compile(rf"^{BONUS_TAG}\[([+-]?\d+)\]$")
_MALFUNCTION_TAG = re.compile(r"^故障ナンバー\[(\d+)\]$")
_CC_HEAD = re.compile(r"^1D100(?:<=(-?\d+))?$", re.IGNORECASE)
_CBR_HEAD = re.compile(r"^1D100<=(-?\d+),(-?\d+)$", re.IGNORECASE)
_CBR_STEP = re.compile(r"^(\d+)\[([^,\]]+),([^,\]]+)\]$")
_INT = re.compile(r"^-?\d+$")
_INTS = re.compile(r"^\d+(?:\s*,\s*\d+)*$")
#: A dice group: its sum, then one bracket per roll (SwordWorld's @ criticals add more).
_DICE_GROUP = re.compile(r"(\d+)((?:\[\d+(?:,\s*\d+)*\])+)")
_COMPARE = re.compile(r"(<=|>=|<>|=|<|>)(-?\d+)$")
_ONE_DIE = re.compile(r"^1?D\d+$", re.IGNORECASE)
_HAS_DICE = re.compile(r"\d*D\d+", re.IGNORECASE)
_KEEP = re.compile(r"\d*D\d+[KD][HL]?\d+", re.IGNORECASE)
_SYSTEM_PREFIX = re.compile(r"^[A-Za-z0-9_.]+\s*:\s*(?=\()")
_REPEAT = re.compile(r"^#(\d+)\s*(.*)$")
#: `…＞ 6#2(2D6) ＞ …`: paragraphs joined without a break (a repeat as Foundry posts it).
_GLUED_REPEAT = re.compile(r"(?<=\S)(#\d+\()")
_HEADER_AFTER_COMMAND = re.compile(r"\((?=[^()]*\d*D\d+[^()]*\)[^＞>]*[＞>])", re.IGNORECASE)
_POWER = re.compile(r"^KeyNo\.(\S+)\s*[＞>]")
_DRUID = re.compile(r"^Dru\[[\d,]+\]", re.IGNORECASE)
_POWER_DICE = re.compile(r"^2D:?\[(\d+(?:[, ]\d+)*)\]=[\d,]+$")
_ROTATIONS = re.compile(r"^(\d+)回転$")
_AUTOMATIC = frozenset({"自動成功", "自動失敗"})
_VOLLEY = re.compile(
    r"^(\d+)回目:\s*[＞>]\s*(\d+(?:,\s*\d+)*)\s*[＞>]\s*(\S+?)[\s　]+"
    r"(?:（(\d+)発が命中、(\d+)発が貫通）|ジャム)$"
)
_FAR_SUMMARY = re.compile(r"^[＞>]\s*(\d+)発が通常命中、(\d+)発が貫通、残弾(\d+)発$")


@dataclass(frozen=True, slots=True)
class CocCheck:
    """A Call of Cthulhu percentile check (CC, or CBR when `targets` has two entries).

    `value` is the kept d100; `dice` every candidate (bonus/penalty dice); `level` the
    overall level as printed (None when no target was given); `levels` one per target.
    `difficulty`: BCDice printed a bare 成功, so a difficulty was set (CC<=50H) and
    `target` is the skill halved or a fifth, not the skill. `edition` (CBR): 7 or 6 by
    the words printed, None when only 失敗 shows.
    """

    raw: str
    value: int
    dice: tuple[int, ...]
    level: Level | None
    target: int | None
    bonus: int = 0
    targets: tuple[int, ...] = ()
    levels: tuple[Level, ...] = ()
    kind: Literal["check", "combined"] = "check"
    difficulty: bool = False
    edition: Literal[6, 7] | None = None


@dataclass(frozen=True, slots=True)
class Volley:
    """One roll of a Cthulhu7th full-auto (FAR) burst."""

    number: int
    dice: tuple[int, ...]
    level: Level
    hits: int
    penetrating: int
    jam: bool


@dataclass(frozen=True, slots=True)
class FullAuto:
    """A Cthulhu7th FAR result: volleys, totals and rounds left (no single level)."""

    raw: str
    bonus: int
    volleys: tuple[Volley, ...]
    hits: int
    penetrating: int
    ammo_left: int
    notes: tuple[str, ...] = ()
    level: Level | None = None
    target: int | None = None
    value: int | None = None
    dice: tuple[int, ...] = ()
    kind: Literal["full_auto"] = "full_auto"


@dataclass(frozen=True, slots=True)
class PlainRoll:
    """A sum or a comparison (`(2D6) ＞ 7[1,6] ＞ 7`, `(1D100<=50) ＞ 17 ＞ 成功`): total,
    dice faces in the order shown, the level printed after a comparison and its target."""

    raw: str
    expr: str
    value: int
    dice: tuple[int, ...]
    level: Level | None = None
    target: int | None = None
    kind: Literal["sum"] = "sum"


@dataclass(frozen=True, slots=True)
class PowerRoll:
    """A SwordWorld2.5 power-table roll (`K20+5`, `Dru[4,7,13]`): the 2D faces, BCDice's
    合計 (`value`, None on 自動的失敗), how often it rolled on (回転) and whether it was an
    automatic failure. No komasync rule reads one as a sum."""

    raw: str
    expr: str
    value: int | None
    dice: tuple[int, ...]
    rotations: int = 0
    fumble: bool = False
    level: None = None
    kind: Literal["power"] = "power"


@dataclass(frozen=True, slots=True)
class NotUnderstood:
    """A line this parser does not read: `code` one of `REASONS`, `why` its text filled in,
    `reason` the English of it. Never guessed further."""

    raw: str
    code: str
    why: Text = field(default=Text("", ""))
    level: None = None
    kind: Literal["not_understood"] = "not_understood"

    @property
    def reason(self) -> str:
        return self.why.en


BCDiceResult = CocCheck | FullAuto | PlainRoll | PowerRoll | NotUnderstood


def _no(raw: str, code: str, **fmt: Any) -> NotUnderstood:
    """The declared reason `code` for `raw`, its fields filled in."""
    text = REASONS[code]
    return NotUnderstood(raw, code, text.format(**fmt) if fmt else text)


def coc_level(value: int, target: int) -> Level:
    """CoC 7th degree of a d100 `value` against `target` (BCDice's rule).

    01 critical; ≤ target/5 extreme; ≤ target/2 hard; ≤ target regular; 100 fumble,
    or 96–100 when the target is below 50; else failure.
    """
    if value == 1:
        return "critical"
    if value == 100 or (target < 50 and value >= 96):
        return "fumble"
    if value <= target // 5:
        return "extreme"
    if value <= target // 2:
        return "hard"
    if value <= target:
        return "regular"
    return "failure"


def parse_message(text: str) -> list[BCDiceResult]:
    """Every result in a chat message: repeated rolls (`#1`, `#2`…, also `#1(2D6) ＞ …` on
    one line) and several result lines give one each; a FAR burst stays one."""
    chunks: list[list[str]] = [[]]
    text = _GLUED_REPEAT.sub(r"\n\1", _ZERO_WIDTH.sub("", text))
    for line in text.strip().splitlines():
        m = _REPEAT.match(line.strip())
        if m:
            chunks.append([m.group(2)] if m.group(2) else [])
        elif line.strip() or chunks[-1]:
            chunks[-1].append(line)
    results: list[BCDiceResult] = []
    for chunk in chunks:
        lines = [ln for ln in chunk if ln.strip()]
        if not lines:
            continue
        if _is_full_auto(lines):
            results.append(parse("\n".join(chunk)))
        else:
            results.extend(parse(ln) for ln in lines)
    return results


def _is_full_auto(lines: list[str]) -> bool:
    return any(_BONUS.match(ln.strip()) or re.match(r"^\d+回目:", ln.strip()) for ln in lines)


def parse(text: str) -> BCDiceResult:
    """One BCDice result (one line, or one multi-line FAR burst)."""
    raw = _ZERO_WIDTH.sub("", text).strip()
    if not raw:
        return _no(text, "empty")
    if raw.startswith("#") and _REPEAT.match(raw.splitlines()[0]):
        return _no(raw, "repeat")
    if "\n" in raw:
        return _parse_full_auto(raw)
    line = _SYSTEM_PREFIX.sub("", raw)
    if (power := _POWER.match(line)) is not None:
        return _parse_power(raw, f"K{power.group(1)}", _SEP.split(line)[1:])
    if not line.startswith("(") and (pasted := _from_header(line)) != line:
        line = raw = pasted
    split = _split_header(line)
    if split is None:
        return _no(raw, "no_header")
    head, tag, steps = split
    if len(steps) == 1 and steps[0] in _AUTOMATIC:
        return _no(raw, "automatic", word=steps[0])
    if steps[-1].endswith("。"):
        return _no(raw, "bcdice_error", message=steps[-1][:60])
    if _DRUID.match(head):
        return _parse_power(raw, head, steps)
    if _CBR_HEAD.match(head):
        return _parse_cbr(raw, head, steps)
    if (tag and not _MALFUNCTION_TAG.match(tag)) or (_CC_HEAD.match(head) and len(steps) >= 3):
        return _parse_cc(raw, head, tag, steps)
    return _parse_plain(raw, head, steps)


def _parse_power(raw: str, head: str, steps: list[str]) -> BCDiceResult:
    """`KeyNo.20c[10]+5 ＞ 2D:[6,4 4,6 1,1]=10,10,2 ＞ 8,8,**+5 ＞ 2回転 ＞ 21`: the faces
    from the first step, the 合計 from the last (or 自動的失敗), 回転 from the one before."""
    if re.search(r"gf|[st]f\[", head, re.IGNORECASE):
        return _no(raw, "power_fixed", head=head)
    steps = [s.strip() for s in steps]
    m = _POWER_DICE.match(steps[0]) if len(steps) >= 2 else None
    if m is None:
        return _no(raw, "power_steps", head=head)
    dice = tuple(int(d) for d in re.split(r"[, ]", m.group(1)))
    fumble = steps[-1] == "自動的失敗"
    if not fumble and not _INT.match(steps[-1]):
        return _no(raw, "power_steps", head=head)
    rotated = _ROTATIONS.match(steps[-2]) if len(steps) >= 3 else None
    return PowerRoll(raw=raw, expr=head, value=None if fumble else int(steps[-1]), dice=dice,
                     rotations=int(rotated.group(1)) if rotated else 0, fumble=fumble)


def _from_header(line: str) -> str:
    """The line from its BCDice header on: a pasted line may start with the command."""
    m = _HEADER_AFTER_COMMAND.search(line)
    return line[m.start():] if m else line


def _split_header(line: str) -> tuple[str, str, list[str]] | None:
    """`(head) tag ＞ a ＞ b` → (head, tag, [a, b]); None if there is no header."""
    if not line.startswith("("):
        return None
    depth = 0
    for i, ch in enumerate(line):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            head, rest = line[1:i], line[i + 1:]
            break
    else:
        return None
    parts = _SEP.split(rest.strip())
    tag, steps = parts[0].strip(), [p.strip() for p in parts[1:]]
    if not steps or any(not s for s in steps):
        return None
    return head, tag, steps


def _parse_cc(raw: str, head: str, tag: str, steps: list[str]) -> BCDiceResult:
    """`(1D100<=T) ボーナス・ペナルティダイス[n] ＞ dice ＞ value ＞ level`."""
    m_head, m_bonus = _CC_HEAD.match(head), _BONUS.match(tag) if tag else None
    if m_head is None or (tag and m_bonus is None):
        return _no(raw, "not_1d100")
    target = int(m_head.group(1)) if m_head.group(1) is not None else None
    want = 3 if target is not None else 2
    if len(steps) != want or not _INTS.match(steps[0]) or not _INT.match(steps[1]):
        return _no(raw, "unexpected_steps")
    dice = tuple(int(d) for d in steps[0].split(","))
    value = int(steps[1])
    level = LEVEL_WORDS.get(steps[2]) if target is not None else None
    bad_level = target is not None and (level is None or steps[2] in _WORDS_6TH - {"成功"})
    if bad_level or value not in dice:
        return _no(raw, "unknown_level_or_kept")
    bonus = int(m_bonus.group(1)) if m_bonus else 0
    return CocCheck(raw=raw, value=value, dice=dice, level=level, target=target, bonus=bonus,
                    targets=(target,) if target is not None else (),
                    levels=(level,) if level is not None else (),
                    difficulty=level == "success")


def _parse_cbr(raw: str, head: str, steps: list[str]) -> BCDiceResult:
    """`(1d100<=70,30) ＞ 30[ハード成功,レギュラー成功] ＞ 成功` (combined roll, 7th or 6th)."""
    m_head = _CBR_HEAD.match(head)
    m_step = _CBR_STEP.match(steps[0]) if len(steps) == 2 else None
    if m_head is None or m_step is None:
        return _no(raw, "unexpected_combined")
    words = (m_step.group(2), m_step.group(3))
    levels = (LEVEL_WORDS.get(words[0]), LEVEL_WORDS.get(words[1]))
    overall = LEVEL_WORDS.get(steps[1])
    if levels[0] is None or levels[1] is None or overall not in ("success", "partial",
                                                                 "failure"):
        return _no(raw, "unknown_level")
    seventh, sixth = bool(set(words) & _WORDS_7TH), bool(set(words) & _WORDS_6TH)
    if seventh and sixth:
        return _no(raw, "unknown_level")
    value = int(m_step.group(1))
    targets = (int(m_head.group(1)), int(m_head.group(2)))
    return CocCheck(raw=raw, value=value, dice=(value,), level=overall, target=None,
                    targets=targets, levels=(levels[0], levels[1]), kind="combined",
                    edition=7 if seventh else 6 if sixth else None)


def _parse_plain(raw: str, head: str, steps: list[str]) -> BCDiceResult:
    """A sum or comparison: `(2D6) ＞ 7[1,6] ＞ 7`, `(1D6) ＞ 2`, `(1D100<=50) ＞ 17 ＞ 成功`;
    a level word is printed exactly when the header compares."""
    if not _HAS_DICE.search(head):
        return _no(raw, "no_dice_in_header")
    if _KEEP.search(head):
        return _no(raw, "keep_roll", head=head)
    compare = _COMPARE.search(head)
    level: Level | None = None
    if steps[-1] in _PLAIN_WORDS:
        level = LEVEL_WORDS[steps[-1]]
        steps = steps[:-1]
    if (level is None) != (compare is None):
        return _no(raw, "unknown_level")
    target = int(compare.group(2)) if compare is not None else None
    expr = head[: compare.start()] if compare is not None else head
    if not steps or not _INT.match(steps[-1]) or len(steps) > 2:
        return _no(raw, "no_total")
    total = int(steps[-1])
    if len(steps) == 1:
        if not _ONE_DIE.match(expr):
            return _no(raw, "no_dice_shown")
        return PlainRoll(raw=raw, expr=expr, value=total, dice=(total,), level=level,
                         target=target)
    return _read_sum(raw, head, expr, steps[0], total, level, target)


def _read_sum(raw: str, head: str, expr: str, mid: str, total: int, level: Level | None,
              target: int | None) -> BCDiceResult:
    """The middle step of a sum: each group's faces add up to it, and the arithmetic of
    the groups and numbers gives the total (`8[6,2]*3-3[3]+1 ＞ 22`)."""
    dice: list[int] = []
    for m in _DICE_GROUP.finditer(mid):
        faces = [int(f) for f in re.findall(r"\d+", m.group(2))]
        if int(m.group(1)) != sum(faces):
            return _no(raw, "dice_do_not_add_up")
        dice.extend(faces)
    if not dice:
        return _no(raw, "no_dice_shown")
    flat = _DICE_GROUP.sub(lambda m: m.group(1), mid)
    rounded = bool(re.search(r"/\d+[UCRF]", flat))
    flat = re.sub(r"(/\d+)[UCRF]", r"\1", flat)
    if not re.fullmatch(r"[\d+\-*/() ]+", flat):
        return _no(raw, "unknown_form", head=head)
    if total not in _values(flat, rounded):
        return _no(raw, "total_does_not_add_up")
    return PlainRoll(raw=raw, expr=expr, value=total, dice=tuple(dice), level=level,
                     target=target)


_OPS: dict[type[ast.AST], Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
}


Division = Callable[[int, int], int]
#: How a division may round: down, toward zero; with a suffix (`/2U`, `/2R`…) also up and
#: half up. The total is BCDice's as printed; this only checks the line is consistent.
_ROUNDINGS: tuple[Division, ...] = (operator.floordiv, lambda a, b: int(a / b))
_SUFFIXED: tuple[Division, ...] = (lambda a, b: -(-a // b), lambda a, b: (2 * a + b) // (2 * b))


def _values(flat: str, rounded: bool = False) -> set[int]:
    """What BCDice's integer arithmetic may give for `flat`; empty if it is not arithmetic."""
    try:
        tree = ast.parse(flat, mode="eval").body
        modes = _ROUNDINGS + (_SUFFIXED if rounded else ())
        return {_eval(tree, div) for div in modes}
    except (SyntaxError, ValueError, ZeroDivisionError):
        return set()


def _eval(node: ast.AST, div: Division) -> int:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = _eval(node.operand, div)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, div), _eval(node.right, div)
        if isinstance(node.op, ast.Div):
            return div(a, b)
        if type(node.op) in _OPS:
            return _OPS[type(node.op)](a, b)
    raise ValueError("not integer arithmetic")


def _parse_full_auto(raw: str) -> BCDiceResult:
    """A FAR burst: notes, `ボーナス・ペナルティダイス[n]`, volleys, summary line."""
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    starts = [i for i, ln in enumerate(lines) if _BONUS.match(ln)]
    summary = _FAR_SUMMARY.match(lines[-1])
    if len(starts) != 1 or summary is None:
        return _no(raw, "not_full_auto")
    m_bonus = _BONUS.match(lines[starts[0]])
    assert m_bonus is not None
    notes, volleys = list(lines[: starts[0]]), []
    for ln in lines[starts[0] + 1: -1]:
        m = _VOLLEY.match(ln)
        if m is None and ln.startswith("【") and ln.endswith("】"):
            notes.append(ln)
            continue
        level = LEVEL_WORDS.get(m.group(3)) if m else None
        if m is None or level is None:
            return _no(raw, "unexpected_line", line=ln)
        volleys.append(Volley(
            number=int(m.group(1)), dice=tuple(int(d) for d in m.group(2).split(",")),
            level=level, hits=int(m.group(4) or 0), penetrating=int(m.group(5) or 0),
            jam=m.group(4) is None))
    if not volleys:
        return _no(raw, "no_volleys")
    return FullAuto(raw=raw, bonus=int(m_bonus.group(1)), volleys=tuple(volleys),
                    hits=int(summary.group(1)), penetrating=int(summary.group(2)),
                    ammo_left=int(summary.group(3)), notes=tuple(notes),
                    dice=tuple(d for v in volleys for d in v.dice))


def reason_ja(reason: NotUnderstood | str) -> str:
    """The Japanese of a reason: a `NotUnderstood`'s own, or an English reason string
    matched against the declared `REASONS` (returned as it is when none matches)."""
    if isinstance(reason, NotUnderstood):
        return reason.why.ja
    for text in REASONS.values():
        pattern = re.escape(text.en)
        names = re.findall(r"\\\{(\w+)\\\}", pattern)
        m = re.fullmatch(re.sub(r"\\\{\w+\\\}", "(.*)", pattern), reason)
        if m:
            return text.ja.format(**dict(zip(names, m.groups(), strict=True)))
    return reason
