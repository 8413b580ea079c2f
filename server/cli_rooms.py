"""`komasync room create | list | delete | reset | export` and `komasync invite`, on the
SQLite file (`--db`) or on Redis (`--store redis://…`)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..engine.errors import Text
from ..engine.scenario import build_room
from .cli_common import MIN_SECRET, CliError, open_db, open_room, read_scenario
from .gm_key import GM_KEY_LINE, ensure_gm_key, recorded_address, rotate_gm_key
from .settings import invite_link, load_settings
from .storage import Backend, LeaseHeld, RoomExists, new_secret

__all__ = ["MIN_SECRET", "create", "delete", "export", "gm_key", "invite", "listing", "reset"]

TAKEN = Text("ルームID「{room}」は既に使われています。"
             "別の --id を指定するか、`komasync room delete {room}` で消してください。",
             "Room id '{room}' is taken; choose another --id or remove it with "
             "`komasync room delete {room}`.")
SHORT_SECRET = Text("GM秘密鍵は{n}文字以上にしてください（省略すると安全な鍵を生成します）。",
                    "A GM secret needs at least {n} characters (leave --secret out to get a strong one).")
NO_PLAYER = Text("ルーム「{room}」にプレイヤー「{player}」はいません（いるのは: {known}）。",
                 "Room '{room}' has no player '{player}' (it has: {known}).")
NEED_PLAYER = Text("player の招待には --player が必要です。", "A player invite needs --player.")
IN_USE = Text("ルーム「{room}」は今サーバー（{holder}）が使っています。そのサーバーを止めてから"
               "（止めると手放します。強制終了した場合は数秒待って）もう一度実行してください。",
               "Room '{room}' is in use by a server ({holder}); stop that server (a graceful stop "
               "lets go of the room; after a kill wait a few seconds) and run this again.")
ROTATED = Text("古いGMキーではもうサインインできません（開いている接続はそのまま）。",
                "The old GM key signs in no more (connections already open stay).")
NOT_CONFIRMED = Text("ルーム「{room}」の全記録を消します。よければ --yes を付けて実行してください。",
                     "This erases everything of room '{room}'; run again with --yes to go ahead.")


def create(args: argparse.Namespace) -> int:
    scenario = read_scenario(args.file)
    if args.secret is not None and len(args.secret.strip()) < MIN_SECRET:
        raise CliError(SHORT_SECRET.format(n=MIN_SECRET), code=2)
    store = open_db(args, must_exist=False)
    room_id = args.id or "r" + new_secret()[:8].replace("-", "x").replace("_", "y")
    if store.room(room_id) is not None:
        raise CliError(TAKEN.format(room=room_id))
    secret = args.secret or new_secret()
    state = build_room(scenario, seed=new_secret()).model_dump(mode="json")
    try:
        store.create_room(room_id, scenario.room.name, secret, state, Path(args.file).name)
    except RoomExists:  # Redis: created meanwhile by someone else
        raise CliError(TAKEN.format(room=room_id)) from None
    print(f"room: {room_id}\nGM secret / GM秘密鍵: {secret}")
    return 0


def listing(args: argparse.Namespace) -> int:
    rows = open_db(args).room_summaries()
    if args.json:
        print(json.dumps([vars(r) for r in rows], ensure_ascii=False))
        return 0
    if not rows:
        print("ルームはありません / no rooms")
    for r in rows:
        made = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
        print(f"{r.id}\tv{r.version}\t{made}\t{r.name}\t{r.scenario or ''}")
    return 0


def _confirmed(args: argparse.Namespace) -> None:
    if not args.yes:
        raise CliError(NOT_CONFIRMED.format(room=args.room), code=2)


@contextmanager
def _owned(store: Backend, room_id: str) -> Iterator[None]:
    """On Redis, hold the room's lease while it is changed, so no server appends to it
    meanwhile (and refuse, saying who, while a server owns it). SQLite: nothing to own."""
    try:
        store.claim(room_id)
    except LeaseHeld as e:
        raise CliError(IN_USE.format(room=room_id, holder=e.holder.split(":", 1)[-1])) from None
    try:
        yield
    finally:
        store.release(room_id)


def delete(args: argparse.Namespace) -> int:
    store = open_room(args)
    _confirmed(args)
    with _owned(store, args.room):
        store.delete_room(args.room)
    print(f"ルーム {args.room} を削除しました / room {args.room} deleted")
    return 0


def reset(args: argparse.Namespace) -> int:
    store = open_room(args)
    _confirmed(args)
    with _owned(store, args.room):
        gone = store.reset_room(args.room)
    print(f"ルーム {args.room} を初期状態に戻しました（{gone}件の操作を削除）/ "
          f"room {args.room} is back to its start ({gone} actions removed)")
    return 0


def invite(args: argparse.Namespace) -> int:
    from .replay import rebuild

    store = open_room(args)
    if args.role == "player":
        if not args.player:
            raise CliError(NEED_PLAYER, code=2)
        players = rebuild(store, args.room).state.meta.players
        if args.player not in players:
            known = ", ".join(players) or "-"
            raise CliError(NO_PLAYER.format(room=args.room, player=args.player, known=known))
    invite_id, token = store.create_invite(args.room, args.role, args.player, args.label)
    link = invite_link(_link_base(store, args.public_url), args.room, token)
    if args.json:
        print(json.dumps({"room": args.room, "invite": invite_id, "token": token, "role": args.role,
                          "player": args.player, "link": link}, ensure_ascii=False))
    else:
        print(f"invite: {invite_id}\ntoken / トークン: {token}\nlink / リンク: {link}")
    return 0


def _link_base(store: Backend, flag: str | None) -> str:
    """Where players reach the server: --public-url, KOMASYNC_PUBLIC_URL, else what the
    running (or last) server recorded in the store, else the default address."""
    settings = load_settings(public_url=flag)
    if settings.public_url:
        return settings.base_url()
    return recorded_address(store) or settings.base_url()


def gm_key(args: argparse.Namespace) -> int:
    """The server's GM key (made if the store has none yet), or a new one with --rotate."""
    store = open_db(args, must_exist=False)
    key = rotate_gm_key(store) if args.rotate else ensure_gm_key(store)
    print(f"{GM_KEY_LINE}: {key}")
    if args.rotate:
        print(ROTATED.ja + "\n" + ROTATED.en)
    return 0


def export(args: argparse.Namespace) -> int:
    """The room as the table may see it, written as a Ccfolia room ZIP or clipboard JSON."""
    from ..adapters import exports
    from ..engine.views import Audience, View
    from .replay import rebuild

    store = open_room(args)
    tree = View(Audience("table"), rebuild(store, args.room).state).tree
    if args.format == "zip":
        data = exports.room_zip(tree)
    else:
        data = ("\n".join(exports.clipboard_lines(tree)) + "\n").encode()
    warning = exports.export_notice(tree)["warning"]
    if warning is not None:  # an uncalibrated export says so (issue 14)
        print(f"{warning['ja']}\n{warning['en']}", file=sys.stderr)
    if args.out == "-":
        sys.stdout.buffer.write(data)
    else:
        Path(args.out).write_bytes(data)
        print(f"{args.out}: {len(data)} bytes", file=sys.stderr)
    return 0
