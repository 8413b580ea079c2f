"""What an event translation answers: the engine action with who acts, or why there is
none; and the line a refused mover is told. Every text is in both languages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.bcdice import BCDiceResult, NotUnderstood, reason_ja
from ..engine.errors import Text
from .base import EventResult
from .render import Objects, bi

__all__ = [
    "IGN_ENGINE_MOVES",
    "IGN_NOT_A_FORT",
    "IGN_NO_PC",
    "IGN_NO_POSITION",
    "IGN_NO_ROLL",
    "IGN_NO_TD",
    "IGN_SAME_FORT",
    "IGN_TARGET",
    "IGN_UNKNOWN_EVENT",
    "IGN_UNKNOWN_OBJECT",
    "IGN_UNREADABLE",
    "IGN_USER",
    "IGN_WEAPON",
    "MOVE_REFUSED",
    "ROLL_UNUSED",
    "accepted",
    "ignored",
    "refusal_line",
    "unread_roll",
]

IGN_UNKNOWN_EVENT = Text("知らない種類のイベントです（{kind}）", "unknown event kind ({kind})")
IGN_UNKNOWN_OBJECT = Text("komasyncの駒ではありません（{id}）", "not a komasync piece ({id})")
IGN_NO_POSITION = Text("移動先の座標がありません", "the event has no x/y position")
IGN_ENGINE_MOVES = Text("「{name}」はルールが動かします。手では動かせません",
                        "'{name}' is moved by the rules, not by hand")
IGN_NOT_A_FORT = Text("探索者の駒は砦の上に置いてください", "drop a PC on a fort")
IGN_SAME_FORT = Text("「{name}」は{fort}にいます（移動なし）", "'{name}' is already at {fort}")
IGN_USER = Text("卓のユーザー「{user}」が誰かわかりません（設定 users で対応付けてください）",
                "unknown table user '{user}' (map it in the platform setting `users`)")
IGN_NO_ROLL = Text("成功度のわかるCC判定の結果がありません", "no CC check result with a success level")
IGN_UNREADABLE = Text("ダイスの結果を読めませんでした（{why_ja}）: {line}",
                      "the dice result could not be read ({why_en}): {line}")
IGN_NO_PC = Text("発言者「{name}」は探索者の駒ではありません", "speaker '{name}' is not a PC piece")
IGN_NO_TD = Text("この部屋にタワーディフェンスはありません", "this room has no tower defense")
IGN_WEAPON = Text("どの武器の判定かわかりません（技能値{target}）。武器名を書いてください",
                  "which weapon? (target {target}); name the weapon in the message")
IGN_TARGET = Text("攻撃対象の敵グループを書いてください（例: {example}）",
                  "name the target group in the message (e.g. {example})")

MOVE_REFUSED = Text("{name}は動かせませんでした: {why}", "{name} could not move: {why}")
ROLL_UNUSED = Text("ダイス結果は使われませんでした: {why}", "The roll was not used: {why}")


def ignored(text: Text) -> EventResult:
    """No action: `text` says why, in both languages."""
    return EventResult(ignored=bi(text.ja, text.en))


def unread_roll(results: list[BCDiceResult]) -> EventResult:
    """Why a chat line gave no usable check: the parser's reason for the first line it
    could not read (Japanese first), else "no CC check with a success level"."""
    bad = next((r for r in results if isinstance(r, NotUnderstood)), None)
    if bad is None:
        return ignored(IGN_NO_ROLL)
    line = bad.raw.strip().splitlines()[0][:60] if bad.raw.strip() else "-"
    return ignored(IGN_UNREADABLE.format(why_ja=reason_ja(bad.reason), why_en=bad.reason,
                                         line=line))


def accepted(action: dict[str, Any], by: str | None, context: dict[str, Any]) -> EventResult:
    """`action` to submit, on behalf of player `by` (None: the GM, who needs no `by`)."""
    if by is not None:
        action["by"] = by
    return EventResult(action=action, context=context)


def refusal_line(event: Mapping[str, Any], objs: Objects, reason: Mapping[str, str]) -> Text:
    """The line told to the mover: what was refused and why, in both languages."""
    ja, en = str(reason.get("ja", "")), str(reason.get("en", ""))
    if event.get("kind") == "move":
        obj = objs.get(str(event.get("id", "")))
        name = obj["name"] if obj else "駒"
        return Text(MOVE_REFUSED.ja.format(name=f"「{name}」", why=ja),
                    MOVE_REFUSED.en.format(name=f"'{obj['name']}'" if obj else "The piece", why=en))
    return Text(ROLL_UNUSED.ja.format(why=ja), ROLL_UNUSED.en.format(why=en))
