"""`komasync replay ROOM`: the battle's story as a static page folder and its ZIP (issue 34)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ..engine.errors import Text
from .cli_common import CliError, open_db

__all__ = ["run"]

NO_ROOM = Text("ルーム「{room}」はありません（{db}）。`komasync room list` で確認できます。",
               "There is no room '{room}' in {db}; `komasync room list` shows the rooms.")
NO_LOG = Text("ルーム「{room}」にはまだ操作の記録がありません（リプレイにする戦闘がありません）。",
              "Room '{room}' has no logged action yet: there is no battle to replay.")
WROTE = Text("{n}件の操作・{rounds}章を{seconds:.2f}秒でリプレイにしました: {out}（{zip}）",
             "Replayed {n} actions in {rounds} chapters in {seconds:.2f} s: {out} ({zip})")


def run(args: argparse.Namespace) -> int:
    from .replay_page import NoLog, NoRoom, build, page_files, page_zip, write_folder

    store = open_db(args)
    started = time.perf_counter()
    try:
        replay = build(store, args.room, args.audience)
    except NoRoom:
        raise CliError(NO_ROOM.format(room=args.room, db=store.path), code=2) from None
    except NoLog:
        raise CliError(NO_LOG.format(room=args.room), code=2) from None
    files = page_files(replay)
    out = Path(args.out or f"replay-{args.room}-{args.audience}")
    write_folder(files, out)
    archive = out.with_name(out.name + ".zip")
    archive.write_bytes(page_zip(files, out.name))
    said = WROTE.format(n=replay.actions, rounds=len(replay.chapters),
                        seconds=time.perf_counter() - started, out=out, zip=archive)
    print(f"{said.ja}\n{said.en}")
    return 0
