"""Refusals: the one exception root of the engine, carried to the wire.

    EngineError
     └── Refusal          an action is not allowed; code + rule ID + ja/en reason
          └── CascadeTooDeep   triggers kept firing past the bound

A refusal's reason may be built from state the sender is not shown (a hidden event's
name, its condition, its count): `about` lists the state paths it is built from, and
`views.refusal_for` gives each audience the form it may read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CascadeTooDeep", "Code", "Codes", "EngineError", "Refusal", "Text"]


class Text(tuple[str, str]):
    """A user-facing sentence in Japanese and English, in that order."""

    __slots__ = ()

    def __new__(cls, ja: str, en: str) -> Text:
        return super().__new__(cls, (ja, en))

    @property
    def ja(self) -> str:
        return self[0]

    @property
    def en(self) -> str:
        return self[1]

    def format(self, **kw: Any) -> Text:
        return Text(self.ja.format(**kw), self.en.format(**kw))


@dataclass(frozen=True)
class Code:
    """A refusal code, declared once with its rule and both reasons (`{field}`s filled in
    when refused); `alts` are further reasons for the same code, chosen by name."""

    code: str
    text: Text
    rule: str | None = None
    group: str = ""
    alts: Mapping[str, Text] = field(default_factory=dict)

    def refuse(self, *, alt: str | None = None, about: Sequence[Sequence[str | int]] = (),
               details: Mapping[str, Any] | None = None, under: str | None = None,
               **fmt: Any) -> Refusal:
        """The refusal this code gives, its reason filled from `fmt`; `under`: the rule that
        applies this time where one code serves several (its reason may name it `{rule}`)."""
        text = self.alts[alt] if alt is not None else self.text
        if under is not None:
            fmt = {"rule": under, **fmt}
        return Refusal(self, text.format(**fmt) if fmt else text, under, about=about,
                       **dict(details or {}))

    def missing(self, ident: str) -> Refusal:
        """The refusal of an `unknown_<what>` code (`Codes.unknown`) for `ident`, echoed cut
        to 64 characters."""
        return self.refuse(id=ident[:64])


class Codes:
    """One group's declared refusal codes (a subsystem, the core, the server): its part of
    the registry that docs/protocol.md's code table is generated from."""

    def __init__(self, group: str) -> None:
        self.group = group
        self._codes: dict[str, Code] = {}

    def __call__(self, code: str, ja: str, en: str, rule: str | None = None,
                 **alts: Text) -> Code:
        """Declare `code` once in this group."""
        if code in self._codes:
            raise ValueError(f"refusal code {code!r} declared twice in {self.group}")
        declared = Code(code, Text(ja, en), rule, self.group, alts)
        self._codes[code] = declared
        return declared

    def unknown(self, what: str, ja: str, *, animate: bool = False) -> Code:
        """Declare `unknown_<what>`: there is no `what` (`ja` in Japanese) with that id, or
        none the sender may know of; `animate` for characters (いません). Raise `.missing(id)`."""
        text = (NO_ONE if animate else NO_SUCH).format(what=what, what_ja=ja, id="{id}")
        return self(f"unknown_{what}", text.ja, text.en)

    def __iter__(self) -> Iterator[Code]:
        return iter(self._codes.values())

    def __contains__(self, code: object) -> bool:
        return code in self._codes

    def __getitem__(self, code: str) -> Code:
        return self._codes[code]


class EngineError(Exception):
    """Root of every error the engine raises on purpose."""


class Refusal(EngineError):
    """An action is refused; the sender gets `code`, `rule` and both reasons.

    `about`: the state paths (e.g. an element's `conditions`) the code, reason and
    details reveal; an audience not shown all of them gets a refusal that names none.
    """

    def __init__(self, code: Code, text: Text, rule: str | None = None, *,
                 about: Sequence[Sequence[str | int]] = (), **details: Any) -> None:
        super().__init__(f"{code.code}: {text.en}")
        self.declared = code
        self.code = code.code
        self.rule = code.rule if rule is None else rule
        self.text = text
        self.details = details
        self.about = tuple(tuple(p) for p in about)

    @property
    def ja(self) -> str:
        return self.text.ja

    @property
    def en(self) -> str:
        return self.text.en


class CascadeTooDeep(Refusal):
    """Triggers fired each other past the cascade bound; the action is rolled back."""


NO_SUCH = Text("{what_ja}「{id}」はありません。", "There is no {what} '{id}'.")
NO_ONE = Text("{what_ja}「{id}」はいません。", "There is no {what} '{id}'.")
