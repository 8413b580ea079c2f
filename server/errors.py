"""Protocol errors: stable codes with reasons in Japanese and English, as wire frames."""

from __future__ import annotations

from typing import Any

from ..engine.errors import Text

__all__ = ["E_AGAIN", "E_AUTH", "E_AUTH_FIRST", "E_BIG", "E_BINARY", "E_BRIDGE_ONLY",
           "E_CONNECTIONS", "E_GM_ONLY", "E_INTERNAL", "E_JSON", "E_KIND", "E_NO_PLAYER",
           "E_QUARANTINED", "E_RATE",
           "E_REVOKED", "E_SHAPE", "E_THROTTLED", "E_TIMEOUT", "error_frame"]

E_JSON = Text("JSONとして読めません。", "The message is not valid JSON.")
E_NO_PLAYER = Text("プレイヤー「{player}」はこのルームにいません（いるのは: {known}）。"
                   "シナリオの players に加えるか、room.player.add で追加してから招待してください。",
                   "Player '{player}' is not in this room (it has: {known}); add them to the "
                   "scenario's players or with room.player.add, then invite them.")
E_SHAPE = Text("メッセージの形が正しくありません: {detail}", "The message is malformed: {detail}")
E_KIND = Text("「{kind}」という操作はありません。", "There is no action kind '{kind}'.")
E_AUTH_FIRST = Text("最初に認証してください。", "Authenticate first.")
E_AUTH = Text("認証できません（ルームまたは秘密鍵・招待が違います）。",
              "Authentication failed (wrong room, secret or invite).")
E_REVOKED = Text("この招待は取り消されています。", "This invite has been revoked.")
E_THROTTLED = Text("認証の失敗が続いたため、{s}秒後まで受け付けません。",
                   "Too many failed authentications; try again in {s} s.")
E_CONNECTIONS = Text("このアドレスからの接続が多すぎます（上限{limit}）。",
                     "Too many connections from this address (limit {limit}).")
E_BIG = Text("メッセージが大きすぎます（上限{limit}バイト）。",
             "The message is too large (limit {limit} bytes).")
E_RATE = Text("送信が速すぎます。少し待ってください。", "Too many messages; slow down.")
E_GM_ONLY = Text("GMだけができる操作です。", "Only the GM may do this.")
E_BRIDGE_ONLY = Text("ブリッジだけが送れます。", "Only a bridge may send this.")
E_TIMEOUT = Text("認証が時間内に行われませんでした。", "No authentication in time.")
E_BINARY = Text("テキストのJSONで送ってください。", "Send text JSON frames.")
E_INTERNAL = Text("サーバー内部のエラーでこのメッセージを処理できませんでした。",
                  "An internal server error; this message was not handled.")
E_AGAIN = Text("すでに認証済みです。", "Already authenticated.")
E_QUARANTINED = Text(
    "このルームの記録を読み込めないため、ルームは隔離されています。GMはサーバー管理者に連絡してください。",
    "This room is quarantined: its log could not be replayed. The GM should contact the "
    "server's operator.")


def error_frame(code: str, text: Text, msg_id: str | None = None, **details: Any
                ) -> dict[str, Any]:
    """An `error` frame for a message that was not understood or not allowed."""
    return {"type": "error", "id": msg_id, "code": code,
            "reason": {"ja": text.ja, "en": text.en}, "details": details}
