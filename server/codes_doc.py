"""docs/protocol.md's refusal and error code table, generated from the registry: the
engine's groups (`engine.registry.REFUSALS`: the core's, then each subsystem's) and the
server's own (`server.errors.SERVER`), one markdown table per group.

    python -m komasync.server.codes_doc           # print the table
    python -m komasync.server.codes_doc --write   # rewrite it in docs/protocol.md
    python -m komasync.server.codes_doc --check   # exit 1 if docs/protocol.md is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..engine.errors import Code, Codes, Text
from ..engine.registry import REFUSALS, SUBSYSTEMS
from .errors import SERVER, sent_as

__all__ = ["BEGIN", "DOC", "END", "FIX", "groups", "main", "render", "updated"]

BEGIN = "<!-- codes:begin -->"
END = "<!-- codes:end -->"
DOC = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
FIX = "python -m komasync.server.codes_doc --write"


def groups() -> tuple[Codes, ...]:
    """Every declared group, in the order the table lists them."""
    return (*REFUSALS, SERVER)


def _cell(text: str) -> str:
    """A table cell: pipes escaped, so a reason never splits its row."""
    return text.replace("|", "\\|").replace("\n", " ")


def _rows(code: Code, server: bool) -> Iterable[str]:
    """The code's row, then one row per further reason (`alts`)."""
    frames = f" {', '.join(f'`{f}`' for f in sent_as(code))} |" if server else ""
    rule = f"`{code.rule}`" if code.rule else "—"
    texts: list[tuple[str, Text]] = [(f"`{code.code}`", code.text)]
    texts += [(f"`{code.code}` ({name})", text) for name, text in code.alts.items()]
    for label, text in texts:
        yield f"| {label} | {rule} |{frames} {_cell(text.ja)} | {_cell(text.en)} |"


def _heading(group: Codes) -> str:
    names = {s.refusals.group: s.name for s in SUBSYSTEMS if s.refusals is not None}
    if group is SERVER:
        return "#### `server` — the server's own (`error`, `reject`, `bye`)"
    if group.group in names:
        return f"#### `{group.group}` — subsystem `{names[group.group]}`"
    return f"#### `{group.group}` — every action, before or beside its subsystem's rules"


def render(codes: Sequence[Codes] | None = None) -> str:
    """The generated block, markers included."""
    out = [BEGIN, f"<!-- generated from the registry by `{FIX}`; do not edit by hand -->"]
    for group in groups() if codes is None else codes:
        server = group is SERVER
        out += ["", _heading(group), ""]
        out.append("| code | rule |" + (" sent as |" if server else "") + " ja | en |")
        out.append("|---|---|" + ("---|" if server else "") + "---|---|")
        for code in group:
            out += _rows(code, server)
    out += ["", END]
    return "\n".join(out)


def updated(doc: str) -> str:
    """`doc` with its generated block replaced by the current one."""
    start, end = doc.find(BEGIN), doc.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{DOC.name} has no {BEGIN} … {END} block")
    return doc[:start] + render() + doc[end + len(END):]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m komasync.server.codes_doc",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"rewrite the table in {DOC.name}")
    mode.add_argument("--check", action="store_true", help=f"exit 1 if {DOC.name} is stale")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(render())
        return 0
    doc = DOC.read_text(encoding="utf-8")
    fresh = updated(doc)
    if args.check:
        if fresh != doc:
            print(f"{DOC} is stale: run `{FIX}`", file=sys.stderr)
            return 1
        return 0
    if fresh != doc:
        DOC.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
