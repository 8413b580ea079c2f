"""The parser of the seed's condition notation (seed 000 特殊な条件): text → `Block`.

How this works: `parse_condition` takes ONE condition block as the seed writes it, e.g.
`【励起】【2ラウンド〜】【ラウンド1回】味方が戦闘不能になった時`. It pulls out the 【】 tags
(`TAGS`, BASE-COND-1, and defined conditions by name, BASE-OPT-3), splits the remaining
text into clauses at 、 。 かつ, and matches each clause against `vocabulary`
(BASE-COND-5). Everything in one block must hold (AND, BASE-COND-4); an element's several
blocks are OR. If any clause is not in the vocabulary the block is MANUAL: its tags are
still checked, but the GM judges the text and fires it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from .blocks import ActiveSpec, Block, ElementKind, HappeningReq, normalize
from .states import STATUS_OF_JA
from .vocabulary import WHO, action_kind, match_clause, who_of

__all__ = ["TAGS", "TagRule", "parse_condition", "parse_defined"]

_TAG = re.compile(r"【([^】]*)】")
_EXEMPT = re.compile(r"[(]?停止状態でも(?:発動する|発動|有効である|有効)[)]?")
_ONCE = re.compile(r"^(?:はじめて|初めて|最初に)")
_END = re.compile(r"(?:とき|時|場合|際|瞬間|状態で|状態であり|状態である|状態であること|であり"
                  r"|である|であること|こと)(?:に|は)?$")
_PREFIX = re.compile(r"^条件[A-Za-z0-9]*:")


def _from_round(block: Block, n: int) -> None:
    """AND of two 【Nラウンド〜】: the later round."""
    block.from_round = max(block.from_round or 0, n)


def _add_manual(block: Block, text: str | None) -> None:
    block.manual = " ".join(filter(None, [block.manual, text]))


def _state_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    block.state.append(STATUS_OF_JA[m[1]])


def _round_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    _from_round(block, int(m[1]))


def _per_round_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    n = int(m[1])
    if n < 1:  # 【ラウンド0回】 could never fire: a typo, said at load time
        raise ValueError("【ラウンドX回】のXは1以上です / X in 【ラウンドX回】 must be 1 or more")
    block.per_round = n if block.per_round is None else min(block.per_round, n)


def _becomes_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    block.becomes.append(STATUS_OF_JA[m[1]])


def _active_tag(block: Block, m: re.Match[str], arg: str | None) -> None:
    if arg is None:
        raise ValueError("【能動誘発】には（キャラクター/行動）が必要です / "
                         "【能動誘発】 needs (character/action)")
    if block.active is not None:
        raise ValueError("1つの条件に【能動誘発】は1つまでです / one 【能動誘発】 per condition")
    block.active = _parse_active(arg)


TagRule = tuple[re.Pattern[str], bool, Callable[[Block, re.Match[str], str | None], None]]
TAGS: Final[tuple[TagRule, ...]] = (  # pattern, events only?, handler
    (re.compile(r"(励起|停止|撃破)"), False, _state_tag),
    (re.compile(r"(\d+)ラウンド~?(?:以降)?"), False, _round_tag),
    (re.compile(r"ラウンド(\d+)回"), True, _per_round_tag),
    (re.compile(r"(励起|停止|撃破)化"), True, _becomes_tag),
    (re.compile(r"能動誘発"), True, _active_tag),
)


def _parens(text: str, i: int) -> tuple[str, int]:
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[i + 1:j], j + 1
    raise ValueError("【能動誘発】の（）が閉じていません / unclosed ( after 【能動誘発】")


def _split_tags(text: str) -> tuple[list[tuple[str, str | None]], str]:
    tags: list[tuple[str, str | None]] = []
    rest: list[str] = []
    i = 0
    while (m := _TAG.search(text, i)) is not None:
        rest.append(text[i:m.start()])
        i, arg = m.end(), None
        if m[1] == "能動誘発" and text.startswith("(", i):
            arg, i = _parens(text, i)
        tags.append((m[1], arg))
    rest.append(text[i:])
    return tags, "".join(rest)


def _parse_active(arg: str) -> ActiveSpec:
    who_text, sep, action = arg.partition("/")
    if not sep or not action:
        raise ValueError("【能動誘発】は（キャラクター/行動）と書きます / "
                         "write 【能動誘発】(character/action)")
    spec = ActiveSpec(action=action)
    if (m := re.fullmatch(WHO, who_text)) is not None:
        spec.who, spec.character = who_of(m)
    else:
        spec.character = who_text.strip("「」")
    if (d := re.fullmatch(r"宣言\((.*)\)", action)) is not None:
        spec.timing = d[1]
    else:
        spec.kind = action_kind(action)
    return spec


def _merge(block: Block, name: str, other: Block) -> None:
    """AND a defined condition (BASE-OPT-3) into `block`."""
    block.state += other.state
    block.becomes += other.becomes
    block.predicates += other.predicates
    block.defined += [*other.defined, name]
    if other.from_round is not None:
        _from_round(block, other.from_round)
    if other.per_round is not None:
        block.per_round = min(block.per_round or other.per_round, other.per_round)
    if other.active is not None:
        if block.active is not None:
            raise ValueError(f"【{name}】: 【能動誘発】が重複しています / two 【能動誘発】")
        block.active = other.active
    if other.happening is not None:
        if block.happening is not None:
            _add_manual(block, other.text)  # two happenings at once: the GM judges
        block.happening = other.happening
    if other.manual is not None:
        _add_manual(block, other.manual)
    block.always |= other.always
    block.once |= other.once
    block.exempt |= other.exempt


def _apply_tag(block: Block, name: str, arg: str | None, defined: Mapping[str, Block]) -> None:
    for pattern, _, handler in TAGS:
        if (m := pattern.fullmatch(name)) is not None:
            handler(block, m, arg)
            return
    if name in defined:
        _merge(block, name, defined[name])
        return
    raise ValueError(f"【{name}】は特殊な条件でも定義された条件でもありません / "
                     f"【{name}】 is neither a special condition nor a defined condition")


def _clauses(block: Block, rest: str, kind: ElementKind) -> None:
    if _EXEMPT.search(rest):
        block.exempt = True
        rest = _EXEMPT.sub("", rest)
    unmatched = False
    for raw in filter(None, re.split(r"[、。,]|かつ", rest)):
        clause = _ONCE.sub("", raw)
        block.once |= clause != raw
        if clause == "常時":
            block.always = True
            continue
        built = match_clause(_END.sub("", clause))
        if isinstance(built, HappeningReq):
            if block.happening is not None or block.becomes or kind == "constant":
                built = None  # two happenings at once, or a constant waiting for one
            else:
                block.happening = built
                continue
        if built is None:
            unmatched = True
        else:
            block.predicates.append(built)
    if unmatched:
        block.manual = rest.strip("、。")


def parse_condition(text: str, kind: ElementKind = "event",
                    defined: Mapping[str, Block] | None = None) -> Block:
    """One condition block in the seed's notation → `Block` (raises ValueError if malformed)."""
    norm = _PREFIX.sub("", normalize(text))
    block = Block(text=text.strip())
    tags, rest = _split_tags(norm)
    for name, arg in tags:
        _apply_tag(block, name, arg, defined or {})
    _clauses(block, rest, kind)
    if kind != "event" and (block.per_round or block.becomes or block.active):
        raise ValueError("【ラウンドX回】【○○化】【能動誘発】はイベントにのみ使えます / "
                         "【ラウンドX回】, 【○○化】 and 【能動誘発】 are for events only")
    return block


def parse_defined(texts: Mapping[str, str]) -> dict[str, Block]:
    """Defined conditions (BASE-OPT-3), in order; each may use the ones before it."""
    blocks: dict[str, Block] = {}
    for name, text in texts.items():
        try:
            blocks[name] = parse_condition(text, "event", blocks)
        except ValueError as e:
            raise ValueError(f"定義された条件【{name}】: {e}") from None
    return blocks
