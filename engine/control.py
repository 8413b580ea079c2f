"""Room-level actions every room has: GM override, undo, prompt answers, players, settings
(enforcement, typed dice results, what an uncredited VTT action may do).

BASE-OPT-4 / design invariant 8: the GM can override any value or state and undo any
step; both are ordinary logged actions carrying a reason.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, StrictBool, ValidationError

from . import paths
from .actions import ActionBase
from .bounds import Exact, Id, Name, Serial
from .codes import (
    BAD_CHOICE,
    BAD_PATH,
    BAD_VALUE,
    NOT_YOUR_PROMPT,
    UNDO_NOT_EXPANDED,
    UNKNOWN_PROMPT,
)
from .errors import Refusal, Text
from .prompts import Prompt
from .registry_types import Subsystem
from .room import Enforcement, PlayerInfo, PlayerRolls, RoomBase
from .tx import Role, Tx, Uncredited

__all__ = ["AddPlayer", "Answer", "Override", "Restore", "SetEnforcement", "SetPlayerRolls",
           "SetUncredited", "Undo"]

UNTOUCHABLE = frozenset({"rng"})



class Override(ActionBase):
    """GM: set any value at `path` (validated against its declared type), with a reason."""

    kind: Literal["override"] = "override"
    path: list[Name | Exact] = Field(min_length=1, max_length=16)
    value: Any = None
    delete: StrictBool = False
    reason: str = Field(min_length=1, max_length=500)

    def apply(self, tx: Tx) -> None:
        path = tuple(self.path)
        if path[0] in UNTOUCHABLE:
            raise BAD_PATH.refuse(path=list(path))
        if self.delete:
            if not isinstance(paths.get(tx.state, path[:-1]), dict) or not paths.has(tx.state, path):
                raise BAD_PATH.refuse(path=list(path))
            tx.delete(path)
        else:
            tx.set(path, _validated(tx.state, path, self.value))
        tx.emit("gm.override", path=list(path), reason=self.reason)
        # GM-only timeline line: the path and reason may name hidden things (BASE-OPT-2).
        ja, en = named_path(tx.state, path)
        tx.say(Text(f"GM修正: {ja}（理由: {self.reason}）",
                    f"GM override: {en} (reason: {self.reason})"),
               chat=False)


def named_path(state: RoomBase, path: tuple[str | int, ...]) -> tuple[str, str]:
    """`path` in words, ja and en: an entry by its name (a fort's id → 左端砦), a field by
    its title (durability → 耐久力), anything else as it is."""
    ja: list[str] = []
    en: list[str] = []
    for i, seg in enumerate(path):
        parent = paths.get(state, path[:i]) if paths.has(state, path[:i]) else None
        node = paths.get(state, path[:i + 1]) if paths.has(state, path[:i + 1]) else None
        name = getattr(node, "name", None) if isinstance(parent, dict) else None
        if isinstance(name, str) and name:
            ja.append(name)
            en.append(name)
            continue
        field = type(parent).model_fields.get(str(seg)) if isinstance(parent, BaseModel) else None
        extra = field.json_schema_extra if field is not None else None
        titled = isinstance(extra, dict) and "title_ja" in extra
        ja.append(str(extra["title_ja"]) if titled else str(seg))  # type: ignore[index]
        en.append(str(extra["title_en"]) if titled else str(seg))  # type: ignore[index]
    return " › ".join(ja), " › ".join(en)


def _validated(state: RoomBase, path: tuple[str | int, ...], value: Any) -> Any:
    try:
        check = paths.validator(state, path)
    except KeyError:
        raise BAD_PATH.refuse(path=list(path)) from None
    try:
        return check.validate_python(value)
    except ValidationError as e:
        error = "; ".join(err["msg"] for err in e.errors()[:3])
        text = BAD_VALUE.text.format(path=list(path), value=repr(value)[:80], error=error)
        raise Refusal(BAD_VALUE, text, rule=paths.field_rule(state, path)) from None


class Undo(ActionBase):
    """GM: bring the room back to how it was at `to_version` (a new, logged version)."""

    kind: Literal["undo"] = "undo"
    to_version: Serial
    reason: str = Field(default="undo", max_length=500)

    def apply(self, tx: Tx) -> None:
        raise UNDO_NOT_EXPANDED.refuse()


class Restore(ActionBase):
    """Undo as logged: the target state travels with the action, so replay is exact."""

    kind: Literal["restore"] = "restore"
    to_version: Serial
    reason: str = Field(default="undo", max_length=500)
    target: dict[str, Any]

    def apply(self, tx: Tx) -> None:
        target = type(tx.state).model_validate(self.target)
        for name in type(tx.state).model_fields:
            if name not in UNTOUCHABLE:
                _restore(tx, (name,), getattr(tx.state, name), getattr(target, name))
        tx.emit("gm.undo", to_version=self.to_version, reason=self.reason)
        tx.say(Text(f"GMがバージョン{self.to_version}まで戻しました（理由: {self.reason}）",
                    f"The GM undid back to version {self.to_version} (reason: {self.reason})"),
               chat=False)


def _restore(tx: Tx, path: tuple[str | int, ...], current: Any, target: Any) -> None:
    """Write only what differs, descending through models and dicts."""
    if current == target:
        return
    if isinstance(current, dict) and isinstance(target, dict):
        for key in current.keys() - target.keys():
            tx.delete((*path, key))
        for key, value in target.items():
            if current.get(key) != value:
                tx.set((*path, key), value)
        return
    if (current is not None and type(current) is type(target)
            and hasattr(type(current), "model_fields")):
        for name in type(current).model_fields:
            _restore(tx, (*path, name), getattr(current, name), getattr(target, name))
        return
    tx.set(path, target)


class Answer(ActionBase):
    """Answer a waiting prompt; the action that asked resumes with the choice."""

    kind: Literal["answer"] = "answer"
    roles = frozenset[Role]({"gm", "player"})
    prompt: Id
    choice: str = Field(max_length=200)

    def apply(self, tx: Tx) -> None:
        prompt = tx.state.prompts.get(self.prompt)
        if prompt is None or not prompt.visible_to(tx.audience):
            # a prompt the sender is not shown does not exist for them
            raise UNKNOWN_PROMPT.missing(self.prompt)
        if not prompt.answerable_by(tx.actor.role, tx.actor.player):
            raise NOT_YOUR_PROMPT.refuse()
        if not prompt.free and self.choice not in {c.id for c in prompt.choices}:
            raise BAD_CHOICE.refuse(choice=self.choice)
        tx.delete(("prompts", prompt.id))
        tx.emit("prompt.answered", prompt=prompt.id, choice=self.choice)
        # The question and the chosen label in words: the prompt leaves the state, and the
        # history must still say what was answered. GM-only: the question may be secret.
        tx.say(answered_line(prompt, self.choice), chat=False)
        tx.resumers[prompt.resume](tx, prompt, self.choice)


def answered_line(prompt: Prompt, choice: str) -> Text:
    """問い『question』に「label」と回答 (a free answer as typed)."""
    label = next((c for c in prompt.choices if c.id == choice), None)
    ja, en = (label.ja, label.en) if label is not None else (choice, choice)
    return Text(f"問い『{_cut(prompt.ja)}』に「{ja}」と回答", f"answered “{_cut(prompt.en)}” with “{en}”")


def _cut(text: str, size: int = 80) -> str:
    return text if len(text) <= size else f"{text[:size - 1]}…"


class AddPlayer(ActionBase):
    """GM: add (or rename) a player of this room."""

    kind: Literal["room.player.add"] = "room.player.add"
    id: str = Field(min_length=1, max_length=64, pattern=r"^[\w\-.]+$")
    name: str = Field(default="", max_length=100)

    def apply(self, tx: Tx) -> None:
        tx.set(("meta", "players", self.id), PlayerInfo(id=self.id, name=self.name or self.id))


class SetEnforcement(ActionBase):
    """GM: how rules are enforced at this table: enforce, warn (apply and flag) or off."""

    kind: Literal["room.enforcement"] = "room.enforcement"
    mode: Enforcement

    def apply(self, tx: Tx) -> None:
        tx.set(("meta", "enforcement"), self.mode)


class SetPlayerRolls(ActionBase):
    """GM: whether dice results players type on the player page count (`allow`) or are
    refused (`refuse`, the default); a bridge's lines from the VTT's dice always count."""

    kind: Literal["room.player_rolls"] = "room.player_rolls"
    mode: PlayerRolls

    def apply(self, tx: Tx) -> None:
        tx.set(("meta", "player_rolls"), self.mode)


class SetUncredited(ActionBase):
    """GM: what a VTT action nobody is credited with may do: only move pieces no player
    owns (`moves`, the default) or also decide for the GM's side (`gm_side`)."""

    kind: Literal["room.uncredited"] = "room.uncredited"
    mode: Uncredited

    def apply(self, tx: Tx) -> None:
        tx.set(("meta", "uncredited"), self.mode)


SUBSYSTEM = Subsystem(
    name="room",
    actions=(Override, Undo, Answer, AddPlayer, SetEnforcement, SetPlayerRolls, SetUncredited),
)
