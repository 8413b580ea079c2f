"""Dice a VTT reports in a chat event, as the lines BCDice prints: BCDice text as a
module wrapped it (zero-width spaces after commas, a repeat glued at its `#n`), and a
VTT's own structured rolls (Foundry's `ChatMessage#rolls`). Platform adapters that
receive them set `reads_rolls` (adapters/foundry/adapter.py documents the event shapes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, ValidationError

from ..engine.errors import Text
from .base import EventResult
from .replies import ignored

__all__ = ["NativeRoll", "bcdice_text", "dice_chat", "native_line", "native_lines"]

#: Zero-width characters the BCDice modules put after every comma (`,\u200B`).
_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
#: `#2(2D6) ＞ …`: a repeat's number glued to the line before it and to its own header.
_GLUED_REPEAT = re.compile(r"[ \t]*#(\d+)[ \t]*(?=\()")
_ONE_DIE = re.compile(r"1D\d+")


def bcdice_text(text: str) -> str:
    """The lines BCDice printed, from a module's wrapping of them: zero-width spaces
    dropped, each `#n` of a repeat on its own line again."""
    plain = _ZERO_WIDTH.sub("", text)
    return "\n".join(ln.strip() for ln in _GLUED_REPEAT.sub(r"\n#\1\n", plain).splitlines()).strip()


class NativeResult(BaseModel):
    """One die's face (`DiceTermResult`: `result`, `active`, `discarded`)."""

    model_config = ConfigDict(extra="ignore")
    result: StrictInt
    active: StrictBool = True
    discarded: StrictBool = False


class NativeTerm(BaseModel):
    """One term of `Roll#terms`: a die (`faces`, `number`, `modifiers`, `results`), an
    operator (`operator`), a number (`number`), or anything else (`expression`)."""

    model_config = ConfigDict(extra="ignore")
    type: Literal["die", "op", "number", "other"]
    faces: StrictInt | None = None
    number: StrictInt | StrictFloat | None = None
    operator: str = ""
    modifiers: list[str] = Field(default_factory=list, max_length=20)
    results: list[NativeResult] = Field(default_factory=list, max_length=200)
    expression: str = Field(default="", max_length=200)


class NativeRoll(BaseModel):
    """One of `ChatMessage#rolls` as the module sends it: `formula`, `total`, `terms`."""

    model_config = ConfigDict(extra="ignore")
    formula: str = Field(max_length=200)
    total: StrictInt | StrictFloat | None = None
    terms: list[NativeTerm] = Field(max_length=40)


NATIVE_BAD = Text("Foundryのロール「{formula}」は使えません: {why_ja}",
                  "the Foundry roll '{formula}' cannot be used: {why_en}")
_WHY = {
    "shape": ("＋と－でつないだダイスと数だけが読めます（{what}）",
              "only dice and numbers joined by + and - are read ({what})"),
    "modifier": ("ダイスの修飾子（{what}）の付いたロールは使いません。素のダイスで振ってください",
                 "a roll with a dice modifier ({what}) is not used; roll plain dice"),
    "count": ("ダイスの数と出目の数が合いません（{what}）", "the dice and their results differ ({what})"),
    "total": ("出目の合計が合計（{what}）と合いません", "the dice do not add up to the total ({what})"),
    "empty": ("ダイスがありません", "no dice in the roll"),
}


def _why(formula: str, key: str, what: object = "") -> Text:
    ja, en = _WHY[key]
    return NATIVE_BAD.format(formula=formula[:40], why_ja=ja.format(what=what),
                             why_en=en.format(what=what))


def native_line(roll: NativeRoll) -> str | Text:
    """The line BCDice prints for the same dice (`(5D6) ＞ 17[…] ＞ 17`), or why not."""
    head, mid, total, sign, dice = "", "", 0, "", 0
    for i, term in enumerate(roll.terms):
        if (term.type == "op") != (i % 2 == 1):
            return _why(roll.formula, "shape", term.expression or term.operator or term.type)
        if term.type == "op":
            if term.operator not in ("+", "-"):
                return _why(roll.formula, "shape", term.operator)
            sign = term.operator
            continue
        part = _native_term(roll.formula, term)
        if isinstance(part, Text):
            return part
        text, faces, value = part
        dice += len(faces)
        head += f"{sign if i else ''}{text}"
        mid += f"{sign if i else ''}{value}" + (f"[{','.join(map(str, faces))}]" if faces else "")
        total += -value if sign == "-" else value
    if not dice:
        return _why(roll.formula, "empty")
    if roll.total is not None and roll.total != total:
        return _why(roll.formula, "total", roll.total)
    if _ONE_DIE.fullmatch(head):  # BCDice prints one die without its faces: `(1D6) ＞ 2`
        return f"({head}) ＞ {total}"
    return f"({head}) ＞ {mid} ＞ {total}"


def _native_term(formula: str, term: NativeTerm) -> tuple[str, list[int], int] | Text:
    """A die or number term: (its header text, its faces, its value), or why not."""
    if term.type == "number" and isinstance(term.number, int):
        return str(term.number), [], term.number
    if term.type != "die" or term.faces is None or not isinstance(term.number, int):
        return _why(formula, "shape", term.expression or term.type)
    if term.modifiers or any(not r.active or r.discarded for r in term.results):
        return _why(formula, "modifier", "".join(term.modifiers) or "kh/dl")
    if len(term.results) != term.number:
        return _why(formula, "count", f"{term.number}D{term.faces}")
    faces = [r.result for r in term.results]
    return f"{term.number}D{term.faces}", faces, sum(faces)


def native_lines(rolls: Any) -> tuple[list[str], Text | None]:
    """Every readable roll's line, and why the first unreadable one was not read."""
    lines: list[str] = []
    why: Text | None = None
    for raw in rolls if isinstance(rolls, list) else []:
        try:
            line = native_line(NativeRoll.model_validate(raw))
        except ValidationError:
            line = _why(str(raw.get("formula", "?") if isinstance(raw, dict) else "?"), "shape", "?")
        if isinstance(line, Text):
            why = why or line
        else:
            lines.append(line)
    return lines, why


def _repeat(lines: list[str]) -> str:
    """Several lines as BCDice prints a repeat (`#1`, line, `#2`, line…), one as itself."""
    if len(lines) == 1:
        return lines[0]
    return "\n".join(f"#{i}\n{line}" for i, line in enumerate(lines, 1))


def dice_chat(event: Mapping[str, Any]) -> dict[str, Any] | EventResult:
    """A chat event with its dice as BCDice lines (`roll`), or why it has none."""
    out = dict(event)
    for key in ("text", "roll"):
        if isinstance(out.get(key), str):
            out[key] = bcdice_text(out[key])
    if out.get("roll") or "rolls" not in out:
        return out
    lines, why = native_lines(out.pop("rolls"))
    if not lines:
        return ignored(why or _why("?", "empty"))
    out["roll"], out["native"] = _repeat(lines), True
    return out
