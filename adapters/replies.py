"""What an event translation answers: the engine action with who acts, or why there is
none; and the line a refused mover is told. Every text is in both languages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.errors import Text
from .base import EventResult
from .objects import Objects, bi

__all__ = [
    "IGN_ENGINE_MOVES",
    "IGN_NO_POSITION",
    "IGN_NO_TAKER",
    "IGN_UNKNOWN_EVENT",
    "IGN_UNKNOWN_OBJECT",
    "IGN_USER",
    "MOVE_REFUSED",
    "ROLL_UNUSED",
    "accepted",
    "ignored",
    "refusal_line",
]

IGN_UNKNOWN_EVENT = Text("知らない種類のイベントです（{kind}）", "unknown event kind ({kind})")
IGN_UNKNOWN_OBJECT = Text("komasyncの駒ではありません（{id}）", "not a komasync piece ({id})")
IGN_NO_POSITION = Text("移動先の座標がありません", "the event has no x/y position")
IGN_ENGINE_MOVES = Text("「{name}」はルールが動かします。手では動かせません",
                        "'{name}' is moved by the rules, not by hand")
IGN_NO_TAKER = Text("この部屋にはチャットの判定を使うものがありません",
                    "nothing in this room takes results from chat")
IGN_USER = Text("卓のユーザー「{user}」が誰かわかりません（設定 users で対応付けてください）",
                "unknown table user '{user}' (map it in the platform setting `users`)")

MOVE_REFUSED = Text("{name}は動かせませんでした: {why}", "{name} could not move: {why}")
ROLL_UNUSED = Text("ダイス結果は使われませんでした: {why}", "The roll was not used: {why}")


def ignored(text: Text) -> EventResult:
    """No action: `text` says why, in both languages."""
    return EventResult(ignored=bi(text.ja, text.en), why=text)


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
