"""The server's protocol codes: every code it sends of its own in an `error`, a `reject`
or a `bye` frame, declared once with both reasons (docs/protocol.md's code table is
generated from these and the engine's registry: `python -m komasync.server.codes_doc`)."""

from __future__ import annotations

from typing import Any

from ..engine.errors import Code, Codes, Refusal, Text

__all__ = [
    "ADAPTER_FAILED",
    "ALREADY_AUTHENTICATED",
    "AUTH_FAILED",
    "AUTH_REQUIRED",
    "AUTH_THROTTLED",
    "AUTH_TIMEOUT",
    "BAD_ACTION",
    "BAD_JSON",
    "BAD_MESSAGE",
    "BAD_UNDO",
    "BINARY_FRAME",
    "BRIDGE_ONLY",
    "BUSY",
    "BYES",
    "ERRORS",
    "EVENT_IGNORED",
    "FORBIDDEN_ROLE",
    "FRAME_TOO_LARGE",
    "GM_ONLY",
    "INTERNAL_ERROR",
    "INVITE_REVOKED",
    "NO_ADAPTER",
    "RATE_LIMITED",
    "REJECTS",
    "ROOM_MOVED",
    "ROOM_QUARANTINED",
    "ROOM_UNAVAILABLE",
    "SERVER",
    "SERVER_SHUTDOWN",
    "SLOW_CONSUMER",
    "STALE_VERSION",
    "STORAGE_ERROR",
    "TOO_MANY_CONNECTIONS",
    "TOO_MANY_CONNECTIONS_FOR_INVITE",
    "UNKNOWN_INVITE",
    "UNKNOWN_KIND",
    "UNKNOWN_PLAYER",
    "UNKNOWN_QUERY",
    "bye_frame",
    "error_frame",
    "refusal_frame",
    "sent_as",
]

SERVER = Codes("server")

# -- frames that cannot be read ---------------------------------------------------------
BAD_JSON = SERVER("bad_json", "JSONとして読めません。", "The message is not valid JSON.")
BINARY_FRAME = SERVER("binary_frame", "テキストのJSONで送ってください。", "Send text JSON frames.")
FRAME_TOO_LARGE = SERVER("frame_too_large", "メッセージが大きすぎます（上限{limit}バイト）。",
                         "The message is too large (limit {limit} bytes).")
BAD_MESSAGE = SERVER("bad_message", "メッセージの形が正しくありません: {detail}",
                     "The message is malformed: {detail}")
UNKNOWN_KIND = SERVER("unknown_kind", "「{kind}」という操作はありません。",
                      "There is no action kind '{kind}'.")
BAD_ACTION = SERVER(
    "bad_action", "メッセージの形が正しくありません: {detail}", "The message is malformed: {detail}",
    event=Text("卓のイベントを操作にできませんでした: {why}",
               "The table event did not make an action: {why}"))
UNKNOWN_QUERY = SERVER("unknown_query", "「{kind}」という問い合わせはありません。",
                       "There is no query kind '{kind}'.")

# -- authentication -----------------------------------------------------------------------
AUTH_REQUIRED = SERVER("auth_required", "最初に認証してください。", "Authenticate first.")
AUTH_FAILED = SERVER("auth_failed", "認証できません（ルームまたは秘密鍵・招待が違います）。",
                     "Authentication failed (wrong room, secret or invite).")
INVITE_REVOKED = SERVER("invite_revoked", "この招待は取り消されています。",
                        "This invite has been revoked.")
AUTH_TIMEOUT = SERVER("auth_timeout", "認証が時間内に行われませんでした。", "No authentication in time.")
AUTH_THROTTLED = SERVER("auth_throttled", "認証の失敗が続いたため、{s}秒後まで受け付けません。",
                        "Too many failed authentications; try again in {s} s.")
ALREADY_AUTHENTICATED = SERVER("already_authenticated", "すでに認証済みです。",
                               "Already authenticated.")
ROOM_QUARANTINED = SERVER(
    "room_quarantined",
    "このルームの記録を読み込めないため、ルームは隔離されています。GMはサーバー管理者に連絡してください。",
    "This room is quarantined: its log could not be replayed. The GM should contact the "
    "server's operator.")

# -- roles ------------------------------------------------------------------------------
GM_ONLY = SERVER("gm_only", "GMだけができる操作です。", "Only the GM may do this.")
BRIDGE_ONLY = SERVER("bridge_only", "ブリッジだけが送れます。", "Only a bridge may send this.")
FORBIDDEN_ROLE = SERVER("forbidden_role", "役割「{role}」ではこの問い合わせはできません。",
                        "Your role '{role}' may not ask this.")

# -- limits -----------------------------------------------------------------------------
TOO_MANY_CONNECTIONS = SERVER("too_many_connections",
                              "このアドレスからの接続が多すぎます（上限{limit}）。",
                              "Too many connections from this address (limit {limit}).")
TOO_MANY_CONNECTIONS_FOR_INVITE = SERVER(
    "too_many_connections_for_invite",
    "この招待で開ける接続は{limit}本までです。使っていないタブやウィンドウを閉じてください。",
    "This invite may have at most {limit} connections open; close a tab or window you "
    "do not use.")
RATE_LIMITED = SERVER("rate_limited", "送信が速すぎます。{s}秒後に再度送ってください。",
                      "Too many messages; send again in {s} s.")
BUSY = SERVER("busy", "このルームへの問い合わせが混み合っています。{s}秒後に再度問い合わせてください。",
              "This room is answering too many queries; ask again in {s} s.")

# -- actions the room refuses before the engine sees them (`reject`) ---------------------
STALE_VERSION = SERVER(
    "stale_version", "状態が更新されています（現在バージョン{v}）。最新の状態で操作し直してください。",
    "The room has moved on (now version {v}); act again on the latest state.")
BAD_UNDO = SERVER("bad_undo", "バージョン{to}には戻せません（現在{v}）。",
                  "Cannot undo to version {to} (now {v}).")
NO_ADAPTER = SERVER("no_adapter", "このブリッジのプラットフォームが設定されていません。",
                    "This bridge did not say which platform it drives.")
EVENT_IGNORED = SERVER("event_ignored", "卓のイベントを操作にできませんでした: {why}",
                       "The table event did not make an action: {why}")
ADAPTER_FAILED = SERVER("adapter_failed", "卓への変換に失敗しました（サーバーログを見てください）。",
                        "Translating to the table failed (see the server log).")

# -- invites ----------------------------------------------------------------------------
UNKNOWN_INVITE = SERVER("unknown_invite", "その招待はありません。", "No such invite.")
UNKNOWN_PLAYER = SERVER(
    "unknown_player",
    "プレイヤー「{player}」はこのルームにいません（いるのは: {known}）。"
    "シナリオの players に加えるか、room.player.add で追加してから招待してください。",
    "Player '{player}' is not in this room (it has: {known}); add them to the "
    "scenario's players or with room.player.add, then invite them.")

# -- bugs and the server going away (`bye` where said) ----------------------------------
INTERNAL_ERROR = SERVER(
    "internal_error", "サーバー内部のエラーでこのメッセージを処理できませんでした。",
    "An internal server error; this message was not handled.",
    action=Text("サーバー内部のエラーで操作は適用されませんでした。",
                "An internal server error; the action was not applied."),
    query=Text("問い合わせに答えられませんでした（サーバーログを見てください）。",
               "The query could not be answered (see the server log)."),
    join=Text("サーバー内部のエラーで参加できませんでした。",
              "An internal server error; could not join the room."))
SLOW_CONSUMER = SERVER("slow_consumer", "受信が追いつかないため切断しました。",
                       "Disconnected: this client could not keep up with the room.")
SERVER_SHUTDOWN = SERVER("server_shutdown", "サーバーを停止します。", "The server is shutting down.")
STORAGE_ERROR = SERVER("storage_error", "ルームが停止しました。", "The room has stopped.",
                       commit=INTERNAL_ERROR.alts["action"])
ROOM_MOVED = SERVER("room_moved", "ルームの担当サーバーが替わりました。再接続してください。",
                    "The room moved to another server process; reconnect.")
ROOM_UNAVAILABLE = SERVER("room_unavailable",
                          "ルームを担当するサーバーが見つかりません。少し待って再接続してください。",
                          "No server process could take the room; reconnect in a moment.")

#: Which frames carry each code: `error` (a message not understood or not allowed),
#: `reject` (an action refused by the room before or beside the engine; the engine's own
#: codes are the registry's) and `bye` (the server closes the connection).
ERRORS: tuple[Code, ...] = (
    BAD_JSON, BINARY_FRAME, FRAME_TOO_LARGE, BAD_MESSAGE, UNKNOWN_KIND, BAD_ACTION, UNKNOWN_QUERY,
    AUTH_REQUIRED, AUTH_FAILED, INVITE_REVOKED, AUTH_TIMEOUT, AUTH_THROTTLED,
    ALREADY_AUTHENTICATED, ROOM_QUARANTINED, GM_ONLY, BRIDGE_ONLY, FORBIDDEN_ROLE,
    TOO_MANY_CONNECTIONS, TOO_MANY_CONNECTIONS_FOR_INVITE, RATE_LIMITED, BUSY, ADAPTER_FAILED,
    UNKNOWN_INVITE, UNKNOWN_PLAYER, INTERNAL_ERROR)
REJECTS: tuple[Code, ...] = (STALE_VERSION, BAD_UNDO, NO_ADAPTER, EVENT_IGNORED, BAD_ACTION,
                             INTERNAL_ERROR)
BYES: tuple[Code, ...] = (INVITE_REVOKED, SLOW_CONSUMER, SERVER_SHUTDOWN, STORAGE_ERROR,
                          INTERNAL_ERROR, ROOM_MOVED, ROOM_UNAVAILABLE)


def sent_as(code: Code) -> list[str]:
    """The frame types that carry `code`."""
    return [frame for frame, codes in (("error", ERRORS), ("reject", REJECTS), ("bye", BYES))
            if code in codes]


def error_frame(code: Code, msg_id: str | None = None, text: Text | None = None,
                **details: Any) -> dict[str, Any]:
    """An `error` frame for a message that was not understood or not allowed: `code`'s
    reason, or `text` (its reason filled in, or one of its alts)."""
    said = code.text if text is None else text
    return {"type": "error", "id": msg_id, "code": code.code,
            "reason": {"ja": said.ja, "en": said.en}, "details": details}


def bye_frame(code: Code, text: Text | None = None) -> dict[str, Any]:
    """The `bye` frame sent before the server closes a connection."""
    said = code.text if text is None else text
    return {"type": "bye", "code": code.code, "reason": {"ja": said.ja, "en": said.en}}


def refusal_frame(r: Refusal, msg_id: str | None = None) -> dict[str, Any]:
    """An `error` frame for a refused query (an engine code; its rule in the details)."""
    return {"type": "error", "id": msg_id, "code": r.code,
            "reason": {"ja": r.ja, "en": r.en}, "details": {"rule": r.rule, **r.details}}
