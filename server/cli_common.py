"""What every `komasync` command shares: one-line ja/en errors and opening the store.

Imported to build the parser, so the settings, the stores and the scenario models are
imported inside the functions that use them (see cli.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..engine.errors import Text

if TYPE_CHECKING:
    from ..engine.scenario import Scenario
    from .storage import Backend

__all__ = ["MIN_SECRET", "CliError", "check_scenario", "open_db", "open_room", "read_scenario",
           "say_error"]

#: Shortest GM secret `room create --secret` accepts.
MIN_SECRET = 16

NO_ROOM = Text("ルーム「{room}」はありません（{db}）。`komasync room list` で確認できます。",
               "There is no room '{room}' in {db}; `komasync room list` shows the rooms.")
NO_FILE = Text("シナリオファイル {path} が見つかりません。", "Scenario file {path} not found.")
NO_READ = Text("シナリオファイル {path} を読めません（{why}）。", "Cannot read scenario file {path} ({why}).")
NO_DB = Text("データベース {db} がありません。"
             "先に `komasync room create` か `komasync serve --demo` を実行してください。",
             "There is no database {db}; run `komasync room create` or `komasync serve --demo` first.")


class CliError(Exception):
    """A command cannot go on; `text` says why (one line each, ja and en), `code` exits."""

    def __init__(self, text: Text, code: int = 1) -> None:
        super().__init__(text.en)
        self.text = text
        self.code = code


def say_error(text: Text) -> None:
    print(f"komasync: {text.ja} / {text.en}", file=sys.stderr)


def db_path(args: argparse.Namespace) -> str:
    from .settings import load_settings

    return load_settings(db=getattr(args, "db", None)).db


def open_db(args: argparse.Namespace, must_exist: bool = True) -> Backend:
    """The store named by --store or KOMASYNC_STORE (Redis, or `sqlite:PATH`), else the
    SQLite file named by --db or KOMASYNC_DB (StorageError if it is not ours)."""
    from .settings import load_settings
    from .storage import Storage, is_redis, open_redis, sqlite_path

    settings = load_settings(db=getattr(args, "db", None), store=getattr(args, "store", None))
    if is_redis(settings.store):
        return open_redis(str(settings.store), owner="komasync-cli")
    db = sqlite_path(settings.store, settings.db)
    if must_exist and not Path(db).exists():
        raise CliError(NO_DB.format(db=db))
    return Storage(db)


def open_room(args: argparse.Namespace) -> Backend:
    """The database, which must hold `args.room`."""
    store = open_db(args)
    if store.room(args.room) is None:
        raise CliError(NO_ROOM.format(room=args.room, db=store.path))
    return store


def read_scenario(path: str | Path) -> Scenario:
    """A scenario file, or a one-line error for a file that is missing or unreadable."""
    from ..engine.scenario import load_scenario_file

    with _readable(path):
        scenario = load_scenario_file(path)
    return scenario


def check_scenario(path: str | Path) -> None:
    """Check a scenario file as `room create` would, importing only the subsystems it has."""
    from ..engine.scenario_file import check_scenario_file

    with _readable(path):
        check_scenario_file(path)


@contextmanager
def _readable(path: str | Path) -> Iterator[None]:
    """A missing or unreadable file as a one-line error."""
    try:
        yield
    except FileNotFoundError:
        raise CliError(NO_FILE.format(path=path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(NO_READ.format(path=path, why=e)) from None
