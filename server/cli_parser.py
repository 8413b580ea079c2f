"""The command line's parser in Japanese and English: argparse's own words (usage, the
group titles, `-h`, its error messages) said in both, as every komasync message is."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any, NoReturn

__all__ = ["Parser", "bilingual_error"]

USAGE = "使い方 / usage: "
ARGUMENTS = "引数 / arguments"
OPTIONS = "オプション / options"
HELP = "このヘルプを表示して終了 / show this help and exit"
TYPES = {"int": "整数", "float": "数"}

# argparse's messages (Python 3.11) and what each says in Japanese, English kept after it.
_SAID: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"the following arguments are required: (?P<what>.+)"), "次の引数が必要です: {what}"),
    (re.compile(r"argument (?P<arg>\S+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.+)\)"),
     "引数 {arg} に {value} は選べません（選べるもの: {choices}）"),
    (re.compile(r"unrecognized arguments: (?P<what>.+)"), "知らない引数です: {what}"),
    (re.compile(r"argument (?P<arg>\S+): expected one argument"), "引数 {arg} には値が1つ必要です"),
    (re.compile(r"argument (?P<arg>\S+): invalid (?P<type>\w+) value: (?P<value>.+)"),
     "引数 {arg} の値 {value} は{type_ja}として読めません"),
]


def bilingual_error(message: str) -> str:
    """argparse's error `message` in Japanese, then as argparse said it."""
    for pattern, ja in _SAID:
        if m := pattern.fullmatch(message):
            words = m.groupdict()
            return f"{ja.format(**words, type_ja=TYPES.get(words.get('type') or '', 'その型'))} / {message}"
    return f"エラー / error: {message}"


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser with its own words in ja/en (subcommands get it too:
    argparse makes them of the parser's own class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        helps = kwargs.get("add_help", True)
        kwargs["add_help"] = False  # our own -h, in both languages
        super().__init__(*args, **kwargs)
        self._positionals.title = ARGUMENTS
        self._optionals.title = OPTIONS
        if helps:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=HELP)

    def format_usage(self) -> str:
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups, prefix=USAGE)
        return formatter.format_help()

    def format_help(self) -> str:
        """argparse's help, its usage line led by our prefix (wrapped lines align under it)."""
        formatter = self._get_formatter()
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups, prefix=USAGE)
        formatter.add_text(self.description)
        for group in self._action_groups:
            formatter.start_section(group.title)
            formatter.add_text(group.description)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: {bilingual_error(message)}\n")

