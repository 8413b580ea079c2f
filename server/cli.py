"""`komasync` command line — help in Japanese and English, errors on one line each.

Only argparse and the ja/en texts are imported to build the parser: each subcommand's
module (the server and aiohttp, the subsystems, pydantic, the stores) is imported when
that subcommand runs, so `komasync --help` starts about as fast as Python itself.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..engine.errors import Text
from .cli_common import MIN_SECRET, CliError, say_error
from .cli_parser import Parser

if TYPE_CHECKING:
    from ..engine.scenario_file import ScenarioError
    from .cli_serve import DEMO_ROOM, DEMO_ROOMS, example_path  # at run time: __getattr__

__all__ = ["DEMO_ROOM", "DEMO_ROOMS", "example_path", "main", "script"]

Command = Callable[[argparse.Namespace], int]


def __getattr__(name: str) -> Any:
    """`DEMO_ROOM`, `DEMO_ROOMS` and `example_path` live in cli_serve (which imports the server)."""
    if name in ("DEMO_ROOM", "DEMO_ROOMS", "example_path"):
        return getattr(importlib.import_module(".cli_serve", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _lazy(module: str, name: str) -> Command:
    """The command `name` of `module` (relative to komasync.server), imported when it runs."""
    def run(args: argparse.Namespace) -> int:
        command: Command = getattr(importlib.import_module(module, __package__), name)
        return command(args)
    return run
DB_HELP = ("SQLiteファイル（既定: KOMASYNC_DB か komasync.sqlite3）/ "
           "SQLite file (default: KOMASYNC_DB or komasync.sqlite3)")
STORE_HELP = ("保存先 redis://ホスト:ポート/番号（既定: KOMASYNC_STORE、省略時は --db のSQLite）/ "
              "store redis://HOST:PORT/DB (default: KOMASYNC_STORE; else the SQLite file of --db)")
BAD_SETTING = Text("設定 {name} の値が正しくありません: {why}", "Setting {name} is not valid: {why}")


def _serve_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("serve", help="サーバーを起動 / run the server",
                       description="各オプションは環境変数 KOMASYNC_<名前> でも指定できます / "
                                   "every option can also be set as KOMASYNC_<NAME>")
    s.set_defaults(run=_lazy(".cli_serve", "serve"))
    s.add_argument("--host", help="待ち受けるアドレス（0.0.0.0で全て）/ address to bind (0.0.0.0 = all)")
    s.add_argument("--port", type=int, help="ポート（0で自動、既定8750）/ port (0 picks a free one; 8750)")
    s.add_argument("--db", help=DB_HELP)
    s.add_argument("--store", help="Redisに保存（例 redis://127.0.0.1:6379/0、省略時はSQLite）/ "
                                   "keep the log in Redis (e.g. redis://127.0.0.1:6379/0; "
                                   "SQLite if left out)")
    s.add_argument("--lease-ms", type=int,
                   help="Redisでのルーム所有期間（ミリ秒、既定10000）/ room lease on Redis (ms; 10000)")
    s.add_argument("--cluster-url",
                   help="他のサーバープロセスからの接続先（Redis、既定 ws://ホスト:ポート/ws）/ "
                        "where the other processes reach this one (Redis; ws://HOST:PORT/ws)")
    s.add_argument("--public-url", help="プレイヤーが開くURL（招待リンク用）/ "
                                        "URL players open (used in invite links)")
    s.add_argument("--behind-proxy", nargs="?", const="loopback", metavar="ADDRS",
                   help="リバースプロキシ（Caddy など）の後ろで動かす: このアドレス（カンマ区切り、"
                        "省略時はループバック）からの接続だけ X-Forwarded-For を信じる / run "
                        "behind a reverse proxy such as Caddy: believe X-Forwarded-For only from "
                        "these addresses or networks (comma-separated; loopback if left out)")
    s.add_argument("--demo", action="store_true",
                   help="デモルームを用意してGM秘密鍵を表示 / set up the demo rooms, print their GM secret")
    s.add_argument("--demo-scenario", default=None,
                   help="デモに使うシナリオYAML / scenario YAML for the demo room")
    s.add_argument("--durability", choices=["full", "normal"],
                   help="SQLite同期レベル / SQLite synchronous level")
    s.add_argument("--snapshot-every", type=int,
                   help="スナップショットの最小間隔（バージョン数、既定200。大きなルームでは"
                        "ログがスナップショットの大きさに達するまで、最大2000まで延びる）/ fewest "
                        "versions between snapshots (200; a large room's wait until the log has "
                        "grown by a snapshot's size, up to 2000)")
    s.add_argument("--max-frame", type=int,
                   help="受信メッセージ上限（バイト）/ largest accepted frame (bytes)")
    s.add_argument("--rate", type=float,
                   help="接続ごとの毎秒メッセージ数 / messages per second per connection")
    s.add_argument("--outbox-bytes", type=int,
                   help="受信の遅い接続を切断するまでの未送信バイト数 / bytes waiting for a "
                        "client before it is dropped as too slow")
    s.add_argument("--connections-per-address", type=int,
                   help="アドレスごとの同時接続数 / open connections per client address")
    s.add_argument("--auth-failures-per-address", type=int,
                   help="アドレスごとの認証失敗（毎分、超えると一時拒否、0で無制限）/ failed "
                        "authentications per address per minute before it must wait (0: no limit)")
    s.add_argument("--auth-failures-per-room", type=int,
                   help="ルームごとの認証失敗（毎分、超えると失敗の応答だけを遅らせる、正しい認証は"
                        "拒否しない、0で無制限）/ failed authentications per room per minute "
                        "before failed answers on it are slowed; a right secret or token is "
                        "never refused (0: no limit)")
    s.add_argument("--invite-connections", type=int,
                   help="招待（プレイヤー・観戦）ごとの同時接続数（既定4、0で無制限）/ open "
                        "connections per player or observer invite (4; 0: no limit)")
    s.add_argument("--bridge-connections", type=int,
                   help="ブリッジ招待ごとの同時接続数（既定8、0で無制限）/ open connections per "
                        "bridge invite (8; 0: no limit)")
    s.add_argument("--invite-rate", type=float,
                   help="招待ごとの毎秒メッセージ数（その招待の全接続の合計、既定40）/ messages "
                        "per second per player or observer invite, all its connections together (40)")
    s.add_argument("--bridge-rate", type=float,
                   help="ブリッジ招待ごとの毎秒メッセージ数（全接続の合計、既定120）/ messages per "
                        "second per bridge invite, all its connections together (120)")
    s.add_argument("--query-share", type=float,
                   help="1ルームの問い合わせが使えるイベントループの割合（既定0.1、全ルーム合計はその3倍）"
                        "/ share of the event loop one room's queries may use (0.1; all rooms "
                        "together 3 times that)")
    s.add_argument("--log", choices=["auto", "json", "text"],
                   help="ログ形式（auto: 端末なら text、それ以外は json）/ "
                        "log format (auto: text on a terminal, else json)")


def _room_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("room", help="ルーム操作 / rooms")
    rsub = r.add_subparsers(dest="room_cmd", required=True, metavar="ACTION")
    rc = rsub.add_parser("create", help="シナリオからルームを作成 / create a room from a scenario")
    rc.set_defaults(run=_lazy(".cli_rooms", "create"))
    rc.add_argument("file", help="シナリオYAML / scenario YAML")
    rc.add_argument("--id", default=None, help="ルームID / room id")
    rc.add_argument("--secret", default=None,
                    help=f"GM秘密鍵（{MIN_SECRET}文字以上、省略時は生成）/ "
                         f"GM secret (at least {MIN_SECRET} characters; generated if left out)")
    ls = rsub.add_parser("list", help="ルーム一覧 / list the rooms")
    ls.set_defaults(run=_lazy(".cli_rooms", "listing"))
    ls.add_argument("--json", action="store_true", help="JSONで出力 / print JSON")
    for name, text in (("delete", "ルームと記録を削除 / delete a room and its log"),
                       ("reset", "ルームを初期状態に戻す（招待は残る）/ "
                                 "back to the scenario's start (invites stay)")):
        p = rsub.add_parser(name, help=text)
        p.set_defaults(run=_lazy(".cli_rooms", name))
        p.add_argument("room", help="ルームID / room id")
        p.add_argument("--yes", action="store_true", help="確認なしで実行 / do it without asking")
    _export_args(rsub.add_parser("export", help="ココフォリア用の書き出し / Ccfolia exports"))
    for p in (rc, ls, *rsub.choices.values()):
        if not any(a.dest == "db" for a in p._actions):
            p.add_argument("--db", help=DB_HELP)
            p.add_argument("--store", help=STORE_HELP)


def _export_args(ex: argparse.ArgumentParser) -> None:
    ex.set_defaults(run=_lazy(".cli_rooms", "export"))
    ex.add_argument("room", help="ルームID / room id")
    ex.add_argument("--format", choices=["zip", "clipboard"], default="zip",
                    help="zip: ルームZIP（インポート用）/ room ZIP to import; "
                         "clipboard: 駒のクリップボードJSON / character clipboard JSON")
    ex.add_argument("--out", default="-", help="出力先（-は標準出力）/ output file (- = stdout)")


def _store_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    m = sub.add_parser("migrate", help="ルームを別の保存先へコピー / copy rooms to another store",
                       description="例 / e.g. komasync migrate --from sqlite:komasync.sqlite3 "
                                   "--to redis://127.0.0.1:6379/0")
    m.set_defaults(run=_lazy(".migrate", "run"))
    m.add_argument("--from", dest="source", required=True,
                   help="コピー元（sqlite:パス か redis://…）/ source (sqlite:PATH or redis://…)")
    m.add_argument("--to", dest="target", required=True,
                   help="コピー先（sqlite:パス か redis://…）/ target (sqlite:PATH or redis://…)")
    rc = sub.add_parser("redis-conf", help="Redisの設定を表示 / print the Redis settings",
                        description="komasync redis-conf --dir DIR | redis-server -")
    rc.set_defaults(run=_lazy(".storage.redis_conf", "run"))
    rc.add_argument("--dir", default=".", help="AOFの置き場所 / where the append-only file lives")
    rc.add_argument("--port", type=int, default=6379, help="ポート / port")
    rc.add_argument("--host", default="127.0.0.1", help="待ち受けるアドレス / address to bind")


def _caddy_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    c = sub.add_parser("caddyfile", help="HTTPS用のCaddyの設定を表示 / print a Caddyfile for HTTPS",
                       description="例 / e.g. komasync caddyfile --domain example.org > Caddyfile")
    c.set_defaults(run=_lazy(".caddyfile", "run"))
    c.add_argument("--domain", help="公開するドメイン（証明書は自動取得）/ "
                                    "your domain (Caddy obtains its certificate)")
    c.add_argument("--lan", action="store_true",
                   help="LAN内で使う（Caddyの内部認証局 tls internal）/ "
                        "for a LAN (Caddy's internal CA, tls internal)")
    c.add_argument("--host", help="LANでのこのPCのアドレス（既定: 自動検出）/ "
                                  "this PC's LAN address (default: detected)")
    c.add_argument("--port", type=int, default=8750,
                   help="komasync serve のポート（既定8750）/ komasync serve's port (8750)")
    c.add_argument("--https-port", type=int, default=443,
                   help="Caddyが待ち受けるHTTPSポート（既定443）/ HTTPS port Caddy listens on (443)")


def _doctor_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = sub.add_parser("doctor", help="設定を点検して対処法を表示 / check the set-up, say what to do",
                       description="公開URL・TLS・ポート・ルーム・ブリッジ・配布中のバージョンを点検します"
                                   "（要対応があれば終了コード1）/ checks the public URL, TLS, the "
                                   "port, the rooms, the bridges and the versions served (exit "
                                   "code 1 when a finding needs action)")
    d.set_defaults(run=_lazy(".cli_doctor", "run"))
    d.add_argument("--host", help="サーバーのアドレス / the server's address")
    d.add_argument("--port", type=int, help="サーバーのポート（既定8750）/ the server's port (8750)")
    d.add_argument("--public-url", help="プレイヤーが開くURL（既定: 記録されたアドレス）/ "
                                        "URL players open (default: the recorded address)")
    d.add_argument("--json", action="store_true", help="JSONで出力 / print JSON")
    d.add_argument("--db", help=DB_HELP)
    d.add_argument("--store", help=STORE_HELP)


def _replay_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("replay", help="戦闘のリプレイページを書き出す / write a battle's replay page",
                       description="ログを再生して、ラウンドごとの盤面と出来事を静的ページ（フォルダとZIP）"
                                   "にします / replays the log into a static page, round by round "
                                   "(a folder and its ZIP)")
    r.set_defaults(run=_lazy(".cli_replay", "run"))
    r.add_argument("room", help="ルームID / room id")
    r.add_argument("--audience", choices=["players", "gm"], default="players",
                   help="players: 卓に見えたものだけ（既定）/ only what the table saw (default); "
                        "gm: GMのメモと非公開の操作も（印付き）/ with the GM's notes and hidden "
                        "moves, marked")
    r.add_argument("--out", default=None,
                   help="書き出すフォルダ（既定 replay-ルーム-対象、同じ名前の .zip も）/ folder "
                        "to write (default replay-ROOM-AUDIENCE; a .zip of it beside it)")
    r.add_argument("--db", help=DB_HELP)
    r.add_argument("--store", help=STORE_HELP)


def _parser() -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = Parser(
        prog="komasync",
        description="TRPG戦闘サブシステムの状態を管理し、VTTと同期するサーバー / "
                    "Keeps TRPG battle subsystems' state and syncs it with virtual tabletops.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")
    _serve_parser(sub)
    _room_parser(sub)

    i = sub.add_parser("invite", help="招待トークンとリンクを発行 / mint an invite token and link")
    i.set_defaults(run=_lazy(".cli_rooms", "invite"))
    i.add_argument("room", help="ルームID / room id")
    i.add_argument("role", choices=["player", "bridge", "observer"], help="役割 / role")
    i.add_argument("--player", default=None, help="プレイヤーID（player役割）/ player id")
    i.add_argument("--label", default="", help="表示名 / label")
    i.add_argument("--public-url", help="リンクのURL（既定: KOMASYNC_PUBLIC_URL、"
                                        "なければ動いているサーバーが記録したアドレス）/ "
                                        "base URL of the link (default: KOMASYNC_PUBLIC_URL, "
                                        "else the address the running server recorded)")
    i.add_argument("--json", action="store_true", help="JSONで出力 / print JSON")
    i.add_argument("--db", help=DB_HELP)
    i.add_argument("--store", help=STORE_HELP)

    k = sub.add_parser("gm-key", help="サーバーのGMキー（全ルーム共通）を表示・再発行 / "
                                      "show or rotate the server's GM key (every room)")
    k.set_defaults(run=_lazy(".cli_rooms", "gm_key"))
    k.add_argument("--rotate", action="store_true",
                   help="新しいキーに替える（古いキーは使えなくなる）/ "
                        "replace it (the old key stops working)")
    k.add_argument("--db", help=DB_HELP)
    k.add_argument("--store", help=STORE_HELP)

    _store_parsers(sub)
    _caddy_parser(sub)
    _doctor_parser(sub)
    _replay_parser(sub)

    sc = sub.add_parser("scenario", help="シナリオ操作 / scenarios")
    scsub = sc.add_subparsers(dest="scenario_cmd", required=True, metavar="ACTION")
    ck = scsub.add_parser("check", help="シナリオを検証 / validate a scenario file")
    ck.set_defaults(run=_check)
    ck.add_argument("file", help="シナリオYAML / scenario YAML")
    scsub.add_parser("schema", help="シナリオのJSON Schemaを出力（エディタ補完用）/ "
                                    "print the scenario JSON Schema (for editors)").set_defaults(
        run=_scenario_schema)

    ex = sub.add_parser("export", help="room export と同じ / same as `room export`")
    _export_args(ex)
    ex.add_argument("--db", help=DB_HELP)
    ex.add_argument("--store", help=STORE_HELP)
    sch = sub.add_parser("schema", help="プロトコルのJSON Schemaを出力 / print the protocol's JSON Schema")
    sch.set_defaults(run=_protocol_schema)
    sch.add_argument("--scenario", action="store_true",
                     help="シナリオファイルのJSON Schema（エディタ用の表題つき）/ the scenario file's "
                          "JSON Schema (titled for the scenario editor)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    run: Command = args.run
    try:
        return run(args)
    except CliError as e:
        say_error(e.text)
        return e.code
    except Exception as e:
        code = _said(e)
        if code is None:
            raise
        return code


def script() -> int:
    """The `komasync` console script: `main`, then the process ends."""
    code = main()
    # Everything built lives until exit anyway: frozen, it is spared the interpreter's
    # final collection (a third of `scenario check`'s own time; bench/startup.py).
    gc.freeze()
    return code


def _said(e: Exception) -> int | None:
    """Say a store, scenario or settings error on one line each; None for any other error.
    Each module is looked up only once an error is in hand (importing them costs startup)."""
    from pydantic import ValidationError

    from ..engine.scenario_file import ScenarioError
    from .storage import StorageError

    if isinstance(e, StorageError):
        say_error(e.text)
        return 1
    if isinstance(e, ScenarioError):
        _say_problems(e)
        return 1
    if isinstance(e, ValidationError):
        err = e.errors()[0]
        name = ".".join(map(str, err["loc"]))
        flag = f"--{name.replace('_', '-')} / KOMASYNC_{name.upper()}"  # as the person typed it
        say_error(BAD_SETTING.format(name=flag, why=err["msg"]))
        return 2
    return None


def _say_problems(e: ScenarioError) -> None:
    for problem in e.problems:
        print(problem, file=sys.stderr)
    print(f"NG: {len(e.problems)}件の問題 / {len(e.problems)} problem(s)", file=sys.stderr)


def _check(args: argparse.Namespace) -> int:
    from .cli_common import check_scenario

    check_scenario(args.file)
    print(f"OK: {args.file}")
    return 0


def _scenario_schema(args: argparse.Namespace) -> int:
    from ..engine.scenario import scenario_schema

    print(json.dumps(scenario_schema(), ensure_ascii=False, indent=2))
    return 0


def _protocol_schema(args: argparse.Namespace) -> int:
    if args.scenario:
        return _scenario_schema(args)
    from .protocol import json_schema

    print(json.dumps(json_schema(), ensure_ascii=False, indent=2))
    return 0
