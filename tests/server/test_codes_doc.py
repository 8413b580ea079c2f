"""The refusal-code registry and docs/protocol.md's table generated from it (issue 28):
the table is current, every group declares each code once with both reasons, and the
converted groups raise no code as a bare string any more."""

from __future__ import annotations

import ast
import string
from pathlib import Path

from conftest import ROOT
from komasync.engine.errors import Code, Text
from komasync.server import codes_doc
from komasync.server.errors import SERVER, sent_as

#: The source that must raise only declared codes (mypy holds `Refusal`, `error_frame` and
#: `drop` to a `Code` too; this also catches a code built from a string at run time).
ENFORCED: dict[str, list[Path]] = {
    "engine": sorted((ROOT / "engine").rglob("*.py")),
    "server": sorted((ROOT / "server").rglob("*.py")),
}
#: Where the code is the call's first argument, or (for `not_yours`) its second.
CODE_ARG = {"Refusal": 0, "CascadeTooDeep": 0, "error_frame": 0, "drop": 0, "drop_all": 0,
            "not_yours": 1, "unknown": 0}


def test_protocol_md_code_table_is_current() -> None:
    doc = codes_doc.DOC.read_text(encoding="utf-8")
    assert codes_doc.DOC == ROOT / "docs" / "protocol.md"
    assert doc.count(codes_doc.BEGIN) == 1 and doc.count(codes_doc.END) == 1
    assert codes_doc.updated(doc) == doc, (
        f"docs/protocol.md's code table is stale: run `{codes_doc.FIX}`")
    # every declared code is in it, with its rule
    for group in codes_doc.groups():
        for code in group:
            rule = f"`{code.rule}`" if code.rule else "—"
            assert f"| `{code.code}` | {rule} |" in doc, (group.group, code.code)


def test_the_table_says_which_frames_carry_each_server_code() -> None:
    table = codes_doc.render([SERVER])
    assert "| `stale_version` | — | `reject` |" in table
    assert "| `internal_error` | — | `error`, `reject`, `bye` |" in table
    assert all(sent_as(code) for code in SERVER), "a server code no frame carries"


def _fields(text: str) -> set[str]:
    """The fields a reason fills, a language's own form (`now_en`, `name_ja`) counted as
    the field itself: a phase is named in each reason's language."""
    names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
    return {n.removesuffix("_en").removesuffix("_ja") for n in names}


def _reasons(code: Code) -> list[tuple[str, Text]]:
    return [("", code.text), *code.alts.items()]


def test_every_group_declares_each_code_once_with_both_texts() -> None:
    groups = codes_doc.groups()
    names = [g.group for g in groups]
    assert len(names) == len(set(names)), f"a group declared twice: {names}"
    assert names[0] == "core" and names[-1] == "server"
    for group in groups:
        codes = [c.code for c in group]
        assert len(codes) == len(set(codes)), (group.group, codes)
        for code in group:
            assert code.group == group.group and group[code.code] is code
            assert code.code.isascii() and code.code == code.code.lower(), code.code
            for alt, text in _reasons(code):
                where = f"{group.group}.{code.code} {alt}"
                assert text.ja.strip() and text.en.strip(), f"{where}: a reason is empty"
                assert text.ja != text.en, f"{where}: the Japanese reason is the English one"
                assert not text.ja.isascii(), f"{where}: the Japanese reason has no Japanese"
                assert _fields(text.ja) == _fields(text.en), f"{where}: the two fill different fields"


def _bare(code: ast.expr) -> bool:
    """A code given as a string (or either branch of a conditional) instead of a Code."""
    options = [code.body, code.orelse] if isinstance(code, ast.IfExp) else [code]
    return any(isinstance(o, ast.JoinedStr)
               or (isinstance(o, ast.Constant) and isinstance(o.value, str)) for o in options)


def _literal_codes(path: Path) -> list[str]:
    """`line call` for each call in `path` that gives a code as a bare string."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        called = getattr(node.func, "id", getattr(node.func, "attr", ""))
        at = CODE_ARG.get(called)
        if at is None or (called == "unknown" and not isinstance(node.func, ast.Name)):
            continue  # `Codes.unknown("piece", …)` declares; the bare `unknown(…)` is the shim
        code = (node.args[at] if len(node.args) > at
                else next((k.value for k in node.keywords if k.arg == "code"), None))
        if code is None or not _bare(code):
            continue
        found.append((node.lineno, f"{node.lineno} {called}(…)"))
    return [hit for _, hit in sorted(found)]


def test_converted_groups_raise_only_declared_codes() -> None:
    literal = [f"{path.relative_to(ROOT)}:{hit}" for paths in ENFORCED.values()
               for path in paths for hit in _literal_codes(path)]
    assert not literal, (f"codes given as bare strings in {sorted(ENFORCED)} (declare them in "
                         f"the group's Codes and raise through the Code): {literal}")


def test_the_literal_check_finds_a_bare_code(tmp_path: Path) -> None:
    """The check above would see one (so its silence means something)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        'raise Refusal("oops", T)\n'
        'error_frame("nope" if a else B, T)\n'
        'raise Refusal(f"unknown_{w}", T)\n'
        'raise unknown("piece", p, "駒")\n'
        'conn.drop("slow_consumer", "ja", "en")\n'
        'not_yours(tx, "not_your_pc", T, n, "TD-ATK-1")\n'
        'UNKNOWN = CODES.unknown("piece", "駒")\n'
        'raise Refusal(DECLARED, T)\n'
        'error_frame(BAD_JSON)\n', encoding="utf-8")
    assert _literal_codes(probe) == ["1 Refusal(…)", "2 error_frame(…)", "3 Refusal(…)",
                                     "4 unknown(…)", "5 drop(…)", "6 not_yours(…)"]
