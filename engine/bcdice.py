"""Reading BCDice result lines as they appear in Ccfolia chat (no rolling, no guessing).

How this works: a BCDice line is a header in parentheses — the command as BCDice
understood it, e.g. `(1D100<=53)` — then steps separated by `＞` (BCDice's full-width
arrow; an ASCII `>` is accepted too). The forms read here:

    (1D100<=53) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 52 ＞ レギュラー成功     Cthulhu7th CC
    (1D100<=93) ボーナス・ペナルティダイス[-1] ＞ 92, 72 ＞ 92 ＞ レギュラー成功
    (1D100) ボーナス・ペナルティダイス[2] ＞ 20, 100, 50 ＞ 20               CC, no target
    (1d100<=70,30) ＞ 30[ハード成功,レギュラー成功] ＞ 成功                 CBR (combined)
    ボーナス・ペナルティダイス[0]\\n1回目: ＞ 52 ＞ レギュラー成功　（3発が命中…   FAR (full auto)
    (2D6) ＞ 7[1,6] ＞ 7    (1D6) ＞ 2    (1D6+3) ＞ 4[4]+3 ＞ 7               plain rolls
    CC<=80 【拳銃】 (1D100<=80) ＞ … ＞ イクストリーム成功      pasted with the command first

A line pasted from a chat log carries the typed command before the header; the result
starts at the first `(…D…)` group that is followed by `＞`, and `raw` is the line from there.

Anything else (tables, error messages, truncated lines) comes back as `NotUnderstood`
with a reason: the caller reports it, it never becomes a made-up result.
`parse_message` splits a repeated roll (`x3 CC<=50` prints `#1`, `#2`… headers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "FAILURE_LEVELS",
    "LEVEL_WORDS",
    "SUCCESS_LEVELS",
    "BCDiceResult",
    "CocCheck",
    "FullAuto",
    "Level",
    "NotUnderstood",
    "PlainRoll",
    "Volley",
    "coc_level",
    "parse",
    "parse_message",
    "reason_ja",
]

Level = Literal["critical", "extreme", "hard", "regular", "success", "partial", "failure",
                "fumble"]

#: BCDice's words → levels. "成功"/"失敗" alone come from difficulty-set rolls (CC<=53h)
#: and plain comparisons; "部分的成功" from CBR when only one of two targets is met.
LEVEL_WORDS: dict[str, Level] = {
    "クリティカル": "critical",
    "イクストリーム成功": "extreme",
    "ハード成功": "hard",
    "レギュラー成功": "regular",
    "成功": "success",
    "部分的成功": "partial",
    "失敗": "failure",
    "ファンブル": "fumble",
}
SUCCESS_LEVELS: frozenset[Level] = frozenset({"critical", "extreme", "hard", "regular",
                                              "success"})
FAILURE_LEVELS: frozenset[Level] = frozenset({"failure", "fumble"})

BONUS_TAG = "ボーナス・ペナルティダイス"
_SEP = re.compile(r"\s*[＞>]\s*")
_BONUS = re.compile(rf"^{BONUS_TAG}\[([+-]?\d+)\]$")
_CC_HEAD = re.compile(r"^1D100(?:<=(-?\d+))?$", re.IGNORECASE)
_CBR_HEAD = re.compile(r"^1D100<=(-?\d+),(-?\d+)$", re.IGNORECASE)
_CBR_STEP = re.compile(r"^(\d+)\[([^,\]]+),([^,\]]+)\]$")
_INT = re.compile(r"^-?\d+$")
_INTS = re.compile(r"^\d+(?:\s*,\s*\d+)*$")
_DICE_GROUP = re.compile(r"(-?\d+)\[(\d+(?:,\d+)*)\]")
_ONE_DIE = re.compile(r"^1?D\d+$", re.IGNORECASE)
_HAS_DICE = re.compile(r"\d*D\d+", re.IGNORECASE)
_SYSTEM_PREFIX = re.compile(r"^[A-Za-z0-9_.]+\s*:\s*(?=\()")
_REPEAT = re.compile(r"^#\d+$")
_HEADER_AFTER_COMMAND = re.compile(r"\((?=[^()]*\d*D\d+[^()]*\)[^＞>]*[＞>])", re.IGNORECASE)
_VOLLEY = re.compile(
    r"^(\d+)回目:\s*[＞>]\s*(\d+(?:,\s*\d+)*)\s*[＞>]\s*(\S+?)[\s　]+"
    r"(?:（(\d+)発が命中、(\d+)発が貫通）|ジャム)$"
)
_FAR_SUMMARY = re.compile(r"^[＞>]\s*(\d+)発が通常命中、(\d+)発が貫通、残弾(\d+)発$")


@dataclass(frozen=True, slots=True)
class CocCheck:
    """A Cthulhu7th percentile check (CC, or CBR when `targets` has two entries).

    `value` is the kept d100; `dice` every candidate (bonus/penalty dice); `level` the
    overall level as printed (None when no target was given); `levels` one per target.
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
    """An additive roll (`(2D6) ＞ 7[1,6] ＞ 7`): total, dice faces, optional 成功/失敗."""

    raw: str
    expr: str
    value: int
    dice: tuple[int, ...]
    level: Level | None = None
    target: int | None = None
    kind: Literal["sum"] = "sum"


@dataclass(frozen=True, slots=True)
class NotUnderstood:
    """A line this parser does not read; `reason` says why. Never guessed further."""

    raw: str
    reason: str
    level: None = None
    kind: Literal["not_understood"] = "not_understood"


BCDiceResult = CocCheck | FullAuto | PlainRoll | NotUnderstood


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
    """Every result in a chat message; repeated rolls (`#1`, `#2`…) give one each."""
    chunks: list[list[str]] = [[]]
    for line in text.strip().splitlines():
        if _REPEAT.match(line.strip()):
            chunks.append([])
        elif line.strip() or chunks[-1]:
            chunks[-1].append(line)
    texts = ["\n".join(c).strip() for c in chunks]
    return [parse(t) for t in texts if t]


def parse(text: str) -> BCDiceResult:
    """One BCDice result (one line, or one multi-line FAR burst)."""
    raw = text.strip()
    if not raw:
        return NotUnderstood(text, "empty")
    if "\n" in raw:
        return _parse_full_auto(raw)
    line = _SYSTEM_PREFIX.sub("", raw)
    if not line.startswith("(") and (pasted := _from_header(line)) != line:
        line = raw = pasted
    split = _split_header(line)
    if split is None:
        return NotUnderstood(raw, "no (…) header")
    head, tag, steps = split
    if _CBR_HEAD.match(head):
        return _parse_cbr(raw, head, steps)
    if tag or (_CC_HEAD.match(head) and len(steps) >= 3):
        return _parse_cc(raw, head, tag, steps)
    return _parse_plain(raw, head, steps)


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
        return NotUnderstood(raw, "not a 1D100 check")
    target = int(m_head.group(1)) if m_head.group(1) is not None else None
    want = 3 if target is not None else 2
    if len(steps) != want or not _INTS.match(steps[0]) or not _INT.match(steps[1]):
        return NotUnderstood(raw, "unexpected steps")
    dice = tuple(int(d) for d in steps[0].split(","))
    value = int(steps[1])
    level = LEVEL_WORDS.get(steps[2]) if target is not None else None
    if (target is not None and level is None) or value not in dice:
        return NotUnderstood(raw, "unknown level or kept value")
    bonus = int(m_bonus.group(1)) if m_bonus else 0
    return CocCheck(raw=raw, value=value, dice=dice, level=level, target=target, bonus=bonus,
                    targets=(target,) if target is not None else (),
                    levels=(level,) if level is not None else ())


def _parse_cbr(raw: str, head: str, steps: list[str]) -> BCDiceResult:
    """`(1d100<=70,30) ＞ 30[ハード成功,レギュラー成功] ＞ 成功` (combined roll)."""
    m_head = _CBR_HEAD.match(head)
    m_step = _CBR_STEP.match(steps[0]) if len(steps) == 2 else None
    if m_head is None or m_step is None:
        return NotUnderstood(raw, "unexpected combined-roll steps")
    levels = (LEVEL_WORDS.get(m_step.group(2)), LEVEL_WORDS.get(m_step.group(3)))
    overall = LEVEL_WORDS.get(steps[1])
    if levels[0] is None or levels[1] is None or overall not in ("success", "partial",
                                                                 "failure"):
        return NotUnderstood(raw, "unknown level")
    value = int(m_step.group(1))
    targets = (int(m_head.group(1)), int(m_head.group(2)))
    return CocCheck(raw=raw, value=value, dice=(value,), level=overall, target=None,
                    targets=targets, levels=(levels[0], levels[1]), kind="combined")


def _parse_plain(raw: str, head: str, steps: list[str]) -> BCDiceResult:
    """`(2D6) ＞ 7[1,6] ＞ 7`, `(1D6) ＞ 2`, optionally `＞ 成功`/`＞ 失敗` at the end."""
    if not _HAS_DICE.search(head):
        return NotUnderstood(raw, "no dice in the header")
    level: Level | None = None
    if steps[-1] in ("成功", "失敗"):
        level = LEVEL_WORDS[steps[-1]]
        steps = steps[:-1]
    if not steps or not _INT.match(steps[-1]) or len(steps) > 2:
        return NotUnderstood(raw, "no total")
    total = int(steps[-1])
    if len(steps) == 1:
        if not _ONE_DIE.match(head):
            return NotUnderstood(raw, "no dice shown")
        return PlainRoll(raw=raw, expr=head, value=total, dice=(total,), level=level)
    dice: list[int] = []
    for m in _DICE_GROUP.finditer(steps[0]):
        faces = [int(f) for f in m.group(2).split(",")]
        if int(m.group(1)) != sum(faces):
            return NotUnderstood(raw, "dice do not add up")
        dice.extend(faces)
    if not dice:
        return NotUnderstood(raw, "no dice shown")
    if re.fullmatch(r"[\d\[\],+\-]+", steps[0]) and _sum_terms(steps[0]) != total:
        return NotUnderstood(raw, "total does not add up")
    return PlainRoll(raw=raw, expr=head, value=total, dice=tuple(dice), level=level)


def _sum_terms(mid: str) -> int:
    """Sum of a purely additive middle step (`4[4]+3`, `8[5,3]-1`)."""
    flat = _DICE_GROUP.sub(lambda m: m.group(1), mid)
    return sum(int(t) for t in re.findall(r"[+-]?\d+", flat))


def _parse_full_auto(raw: str) -> BCDiceResult:
    """A FAR burst: notes, `ボーナス・ペナルティダイス[n]`, volleys, summary line."""
    lines = [ln.strip() for ln in raw.splitlines() if ln.strip()]
    starts = [i for i, ln in enumerate(lines) if _BONUS.match(ln)]
    summary = _FAR_SUMMARY.match(lines[-1])
    if len(starts) != 1 or summary is None:
        return NotUnderstood(raw, "not a full-auto result")
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
            return NotUnderstood(raw, f"unexpected line: {ln}")
        volleys.append(Volley(
            number=int(m.group(1)), dice=tuple(int(d) for d in m.group(2).split(",")),
            level=level, hits=int(m.group(4) or 0), penetrating=int(m.group(5) or 0),
            jam=m.group(4) is None))
    if not volleys:
        return NotUnderstood(raw, "no volleys")
    return FullAuto(raw=raw, bonus=int(m_bonus.group(1)), volleys=tuple(volleys),
                    hits=int(summary.group(1)), penetrating=int(summary.group(2)),
                    ammo_left=int(summary.group(3)), notes=tuple(notes),
                    dice=tuple(d for v in volleys for d in v.dice))


#: Why a line was not read, in Japanese (the reasons above are English; every reply
#: to a player says it in Japanese first).
_REASONS_JA = {
    "empty": "空の行です",
    "no (…) header": "（…）で始まるダイスの結果がありません",
    "not a 1D100 check": "1D100の判定ではありません",
    "unexpected steps": "判定の結果の並びが読めません",
    "unknown level or kept value": "成功度か採用した出目が読めません",
    "unexpected combined-roll steps": "組み合わせ判定（CBR）の結果の並びが読めません",
    "unknown level": "成功度が読めません",
    "no dice in the header": "（…）の中にダイスがありません",
    "no total": "合計がありません",
    "no dice shown": "出目が書かれていません",
    "dice do not add up": "出目の合計が合いません",
    "total does not add up": "合計が合いません",
    "not a full-auto result": "フルオート（FAR）の結果として読めません",
    "unexpected line": "読めない行があります",
    "no volleys": "フルオートの射撃がありません",
}


def reason_ja(reason: str) -> str:
    """The Japanese for a `NotUnderstood.reason` (its detail after `:` kept as it is)."""
    head, sep, detail = reason.partition(": ")
    ja = _REASONS_JA.get(head)
    if ja is None:
        return reason
    return f"{ja}: {detail}" if sep else ja
