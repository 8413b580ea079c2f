"""`komasync` command line — help in Japanese and English."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from importlib import resources
from pathlib import Path

from aiohttp import web

from ..engine.scenario import ScenarioError, build_room, load_scenario_file
from .app import Komasync, make_app
from .connection import Limits
from .logs import setup_logging
from .storage import Storage, new_secret

__all__ = ["main"]

DEFAULT_DB = "komasync.sqlite3"
DEMO_ROOM = "demo"
# The demo rooms, all opened by the one GM secret printed at start.
DEMO_ROOMS = {DEMO_ROOM: "tower_defense.yaml", "demo-bases": "base_battle.yaml",
              "demo-table": "demo_table.yaml", "demo-grid": "seamless_combat.yaml",
              "demo-engagement": "engagement.yaml"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="komasync",
        description="TRPG戦闘サブシステムの状態を管理し、VTTと同期するサーバー / "
                    "Keeps TRPG battle subsystems' state and syncs it with virtual tabletops.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    s = sub.add_parser("serve", help="サーバーを起動 / run the server")
    s.add_argument("--host", default="127.0.0.1", help="待ち受けるアドレス / address to bind")
    s.add_argument("--port", type=int, default=8750,
                   help="ポート（0で自動）/ port (0 picks a free one)")
    s.add_argument("--db", default=DEFAULT_DB, help="SQLiteファイル / SQLite file")
    s.add_argument("--demo", action="store_true",
                   help="デモルームを用意してGM秘密鍵を表示 / set up the demo room, print its GM secret")
    s.add_argument("--demo-scenario", default=None,
                   help="デモに使うシナリオYAML / scenario YAML for the demo room")
    s.add_argument("--durability", choices=["full", "normal"], default="full",
                   help="SQLite同期レベル / SQLite synchronous level")
    s.add_argument("--snapshot-every", type=int, default=200,
                   help="スナップショット間隔（バージョン数）/ versions between snapshots")
    s.add_argument("--max-frame", type=int, default=64 * 1024,
                   help="受信メッセージ上限（バイト）/ largest accepted frame (bytes)")
    s.add_argument("--rate", type=float, default=40.0,
                   help="接続ごとの毎秒メッセージ数 / messages per second per connection")
    s.add_argument("--log", choices=["json", "text"], default="json",
                   help="ログ形式 / log format")

    r = sub.add_parser("room", help="ルーム操作 / rooms")
    rsub = r.add_subparsers(dest="room_cmd", required=True, metavar="ACTION")
    rc = rsub.add_parser("create", help="シナリオからルームを作成 / create a room from a scenario")
    rc.add_argument("file", help="シナリオYAML / scenario YAML")
    rc.add_argument("--db", default=DEFAULT_DB, help="SQLiteファイル / SQLite file")
    rc.add_argument("--id", default=None, help="ルームID / room id")
    rc.add_argument("--secret", default=None, help="GM秘密鍵（省略時は生成）/ GM secret (generated)")

    i = sub.add_parser("invite", help="招待トークンを発行 / mint an invite token")
    i.add_argument("room", help="ルームID / room id")
    i.add_argument("role", choices=["player", "bridge", "observer"], help="役割 / role")
    i.add_argument("--player", default=None, help="プレイヤーID（player役割）/ player id")
    i.add_argument("--label", default="", help="表示名 / label")
    i.add_argument("--db", default=DEFAULT_DB, help="SQLiteファイル / SQLite file")

    sc = sub.add_parser("scenario", help="シナリオ操作 / scenarios")
    scsub = sc.add_subparsers(dest="scenario_cmd", required=True, metavar="ACTION")
    ck = scsub.add_parser("check", help="シナリオを検証 / validate a scenario file")
    ck.add_argument("file", help="シナリオYAML / scenario YAML")

    ex = sub.add_parser("export", help="ブリッジなしでココフォリアに持ち込む書き出し / "
                                       "Ccfolia exports for a table without a bridge")
    ex.add_argument("room", help="ルームID / room id")
    ex.add_argument("--format", choices=["zip", "clipboard"], default="zip",
                    help="zip: ルームZIP（インポート用）/ room ZIP to import; "
                         "clipboard: 駒のクリップボードJSON / character clipboard JSON")
    ex.add_argument("--out", default="-", help="出力先（-は標準出力）/ output file (- = stdout)")
    ex.add_argument("--db", default=DEFAULT_DB, help="SQLiteファイル / SQLite file")

    sub.add_parser("schema", help="プロトコルのJSON Schemaを出力 / print the protocol's JSON Schema")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    match args.cmd:
        case "serve":
            return _serve(args)
        case "room":
            return _room_create(args)
        case "invite":
            return _invite(args)
        case "scenario":
            return _check(args)
        case "export":
            return _export(args)
        case "schema":
            from .protocol import json_schema

            print(json.dumps(json_schema(), ensure_ascii=False, indent=2))
            return 0
    return 2


def _check(args: argparse.Namespace) -> int:
    try:
        scenario = load_scenario_file(args.file)
        build_room(scenario, "check")
    except ScenarioError as e:
        for problem in e.problems:
            print(problem, file=sys.stderr)
        print(f"NG: {len(e.problems)}件の問題 / {len(e.problems)} problem(s)", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{args.file}: {e}", file=sys.stderr)
        return 1
    print(f"OK: {args.file}")
    return 0


def _room_create(args: argparse.Namespace) -> int:
    try:
        scenario = load_scenario_file(args.file)
    except ScenarioError as e:
        print(e, file=sys.stderr)
        return 1
    store = Storage(args.db)
    secret = args.secret or new_secret()
    room_id = args.id or "r" + new_secret()[:8].replace("-", "x").replace("_", "y")
    state = build_room(scenario, seed=new_secret()).model_dump(mode="json")
    store.create_room(room_id, scenario.room.name, secret, state, Path(args.file).name)
    print(f"room: {room_id}\nGM secret / GM秘密鍵: {secret}")
    return 0


def _open_room(args: argparse.Namespace) -> Storage | None:
    """The database, if it holds `args.room` (else says so on stderr)."""
    store = Storage(args.db)
    if store.room(args.room) is None:
        print(f"ルーム {args.room} はありません / no room {args.room}", file=sys.stderr)
        return None
    return store


def _invite(args: argparse.Namespace) -> int:
    store = _open_room(args)
    if store is None:
        return 1
    if args.role == "player" and not args.player:
        print("--player が必要です / --player is required", file=sys.stderr)
        return 2
    invite_id, token = store.create_invite(args.room, args.role, args.player, args.label)
    print(f"invite: {invite_id}\ntoken / トークン: {token}")
    return 0


def _export(args: argparse.Namespace) -> int:
    """The room as the table may see it, written as a Ccfolia room ZIP or clipboard JSON."""
    from ..adapters import exports
    from ..engine.views import Audience, View
    from .replay import rebuild

    store = _open_room(args)
    if store is None:
        return 1
    tree = View(Audience("table"), rebuild(store, args.room).state).tree
    if args.format == "zip":
        data = exports.room_zip(tree)
    else:
        lines = [json.dumps(c, ensure_ascii=False) for c in exports.clipboard(tree).values()]
        data = ("\n".join(lines) + "\n").encode()
    if args.out == "-":
        sys.stdout.buffer.write(data)
    else:
        Path(args.out).write_bytes(data)
        print(f"{args.out}: {len(data)} bytes", file=sys.stderr)
    return 0


def example_path(name: str) -> Path:
    return Path(str(resources.files("komasync.examples") / name))


def _ensure_demo(store: Storage, scenario_file: str | None) -> str:
    """Create the demo rooms if missing; a fresh GM secret opens them all, at every start."""
    secret = new_secret()
    rooms = dict(DEMO_ROOMS)
    if scenario_file:
        rooms = {DEMO_ROOM: scenario_file}
    for room_id, name in rooms.items():
        if store.room(room_id) is None:
            path = Path(name) if scenario_file else example_path(name)
            scenario = load_scenario_file(path)
            state = build_room(scenario, seed=new_secret()).model_dump(mode="json")
            store.create_room(room_id, scenario.room.name, secret, state, path.name)
        else:
            store.set_gm_secret(room_id, secret)
    return secret


def _serve(args: argparse.Namespace) -> int:
    setup_logging(args.log)
    demo_secret = None
    if args.demo:
        store = Storage(args.db)
        demo_secret = _ensure_demo(store, args.demo_scenario)
        store.close()
    limits = Limits(max_frame=args.max_frame, rate=args.rate, burst=int(args.rate * 2),
                    snapshot_every=args.snapshot_every)
    server = Komasync(args.db, limits, args.durability)
    asyncio.run(_run(server, args.host, args.port, demo_secret))
    return 0


async def _run(server: Komasync, host: str, port: int, demo_secret: str | None) -> None:
    runner = web.AppRunner(make_app(server), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    print(f"komasync: http://{host}:{bound}/  (GMコンソール / GM console)", flush=True)
    print(f"komasync: ws://{host}:{bound}/ws", flush=True)
    if demo_secret:
        print(f"komasync: demo room / デモルーム: {DEMO_ROOM}", flush=True)
        others = ", ".join(r for r in DEMO_ROOMS if r != DEMO_ROOM)
        print(f"komasync: more demo rooms / 他のデモルーム: {others}", flush=True)
        print(f"komasync: GM secret / GM秘密鍵: {demo_secret}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
