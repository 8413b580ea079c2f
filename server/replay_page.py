"""A battle's story from its log (issue 34): a static replay page, round by round.

The log is replayed action by action from the room's initial state; after each action
the room's own `Audiences.project` (audiences.py) projects it, exactly as it is sent to
the table — what the players' version tells is what a player audience received (the
public log lines, the table's view), so a hidden thing appears only when and as it was
revealed. The GM's version adds every log line, who acted, the dice rolled and the
hidden moves, each marked. A chapter ends where a subsystem's round changes
(`Subsystem.round_of`, engine/registry.py `ROUND_OF`); its picture is the audience's
view at that chapter's last version (adapters/svg.py). Nothing here names a subsystem.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import orjson

from ..adapters.board import board
from ..adapters.render import describe, render
from ..adapters.svg import hidden_parts, table_svg
from ..engine.core import Engine
from ..engine.errors import Text
from ..engine.players import ENFORCEMENT_WORDS, PLAYER_ROLLS_WORDS, UNCREDITED_WORDS
from ..engine.registry import ROUND_OF, SUBSYSTEMS
from ..engine.state import RoomState
from ..engine.tx import Actor, LogLine
from ..engine.views import Audience, View
from .audiences import Audiences
from .connection import Limits
from .replay import LogReader, logged_action
from .storage import ActionRecord, RoomRow

__all__ = ["AUDIENCES", "Loaded", "NoLog", "NoRoom", "Replay", "build", "page_files", "page_zip",
           "replay_zip", "write_folder"]

Kind = Literal["players", "gm"]
AUDIENCES: tuple[Kind, ...] = ("players", "gm")
#: The audience whose view the players' version is made of: what every player and
#: observer at the table is shown (a player's own secrets are not for sharing).
TABLE = Audience("table")
START = Text("開始時", "At the start")
BEFORE = Text("ラウンド開始前", "Before the first round")
UNDONE = Text("v{v}まで取り消し（{reason}）", "Undone back to v{v} ({reason})")
NOTE = Text("GMのメモ: {value}", "GM's note: {value}")
UNSAID = Text("{actor}の操作（{what}）", "{actor}'s action ({what_en})")
#: An action no subsystem says is named by the part of the room it acts on, as the state
#: names that part (the console's default sentence, words.js `words.action`): never by its
#: kind (`grid.combatant.add` is the engine's id, not a word the table uses).
ROOM_PART = ("ルーム", "room")
PART_OF = {cls.model_fields["kind"].default: s.name for s in SUBSYSTEMS for cls in s.actions}
TEMPLATE = "replay.html"
#: The room's own settings, as the console's timeline says them (i18n.js `do.room.*`).
ROOM_SAID: dict[str, tuple[str, dict[str, tuple[str, str]], Text]] = {
    "room.enforcement": ("mode", ENFORCEMENT_WORDS,
                         Text("規則の適用を「{mode}」に変更", "Rule enforcement set to “{mode}”")),
    "room.player_rolls": ("mode", PLAYER_ROLLS_WORDS,
                          Text("プレイヤーが入力したダイス結果を「{mode}」に変更",
                               "Dice results typed by players set to “{mode}”")),
    "room.uncredited": ("mode", UNCREDITED_WORDS,
                        Text("誰の操作か分からないVTT上の操作を「{mode}」に変更",
                             "VTT actions nobody is credited with set to “{mode}”")),
}
ADDED = Text("プレイヤー「{name}」を追加", "Added player “{name}”")


class NoRoom(LookupError):
    """The store has no such room."""


class NoLog(LookupError):
    """The room has no logged action yet: there is no battle to tell."""


@dataclass
class Chapter:
    """One round (or the start): its name, its steps and the view at its last version."""

    key: tuple[tuple[str, int], ...]
    name: Text
    steps: list[dict[str, Any]] = field(default_factory=list)
    last: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    table: dict[str, Any] = field(default_factory=dict)  # the table's view then (GM: hidden)

    def hidden(self, gm: bool) -> tuple[list[str], list[str]]:
        """The GM's picture: the objects and board lines the table did not see (players':
        none)."""
        objs = render(self.state)
        if not gm:
            return [], []
        ids, shown = hidden_parts(objs, self.table)
        lines = board(objs).lines()
        return [o for o in objs if o in ids], [x for x in lines if shown is not None and x not in shown]


@dataclass
class Replay:
    """A replayed battle for one audience: its chapters and how many actions it told."""

    room: str
    name: str
    audience: Kind
    actions: int
    chapters: list[Chapter]

    def data(self) -> dict[str, Any]:
        """What the page shows (embedded in index.html as JSON)."""
        return {"room": self.room, "name": self.name, "audience": self.audience,
                "actions": self.actions,
                "rounds": [self._round(i, c) for i, c in enumerate(self.chapters)]}

    def _round(self, i: int, c: Chapter) -> dict[str, Any]:
        ids, lines = c.hidden(self.audience == "gm")
        return {"name": _text(c.name), "last": c.last, "steps": c.steps, "picture": _picture(i),
                "state": c.state, "hidden": ids,
                "board": [{"text": x, **({"hidden": True} if x in lines else {})}
                          for x in board(render(c.state)).lines()]}


def build(store: LogReader, room_id: str, audience: Kind, empty: bool = False) -> Replay:
    """Replay the room's whole log for `audience` (NoRoom; NoLog when it has none, unless
    `empty`: then the page shows the start alone)."""
    row = store.room(room_id)
    if row is None:
        raise NoRoom(room_id)
    records = store.actions(room_id, 0)
    if not records and not empty:
        raise NoLog(room_id)
    engine = Engine(RoomState.model_validate(row.initial_state), 0)
    rooms = Audiences(room_id, engine, Limits())
    table = rooms.views.setdefault(TABLE.key, View(TABLE, engine.state))
    mine = rooms.views["gm"] if audience == "gm" else table
    teller = _Teller(audience, rooms, table)
    before = _copy(mine.tree)
    chapters = [_close(Chapter((), START), 0, before, teller.table_before)]
    for record in records:
        if record.version != engine.version + 1:
            raise RuntimeError(f"log gap: expected {engine.version + 1}, got {record.version}")
        action = logged_action(record.action)
        outcome = engine.apply(action, Actor.from_log(record.actor))
        frames = rooms.project(outcome, record)
        after = _copy(mine.tree)
        key = _round_key(engine.state)
        if key != chapters[-1].key or len(chapters) == 1:
            chapters.append(Chapter(key, _round_name(engine.state, key)))
        step = teller.step(record, outcome.log, orjson.loads(frames[TABLE.key])["log"],
                           before, after)
        if step is not None:
            chapters[-1].steps.append(step)
        _close(chapters[-1], record.version, after, teller.table_before)
        before = after
    return Replay(room_id, row.name, audience, len(records), chapters)


def _close(chapter: Chapter, version: int, tree: dict[str, Any],
           table: dict[str, Any]) -> Chapter:
    """The chapter as of `version` (it ends at the last version it is given)."""
    chapter.last, chapter.state, chapter.table = version, tree, table
    return chapter


class _Teller:
    """What one step says to the audience."""

    def __init__(self, audience: Kind, rooms: Audiences, table: View) -> None:
        self.gm = audience == "gm"
        self.rooms, self.table = rooms, table
        self.table_before = _copy(table.tree)

    def step(self, record: ActionRecord, log: list[LogLine], public: list[dict[str, str]],
             before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
        table_after = _copy(self.table.tree) if self.gm else after
        told = self._public(record, public, self.table_before if self.gm else before,
                            table_after)
        self.table_before = table_after
        if not self.gm:
            return {"version": record.version, "lines": told} if told else None
        return {"version": record.version, "lines": self._all(record, log, before, after),
                "actor": _actor(record.actor), "rolls": [_roll(r) for r in record.rolls],
                "warnings": [{"ja": w["ja"], "en": w["en"]} for w in record.warnings],
                "hidden": not told}

    @staticmethod
    def _public(record: ActionRecord, public: list[dict[str, str]], before: dict[str, Any],
                after: dict[str, Any]) -> list[dict[str, Any]]:
        """What the table was told: its log lines, else the action said from its view."""
        if record.action.get("kind") == "restore":
            return [_text(UNDONE.format(v=record.action["to_version"],
                                        reason=record.action.get("reason", "")))]
        if public:
            return [{"ja": x["ja"], "en": x["en"]} for x in public]
        said = describe(record.action, before, after)
        return [_text(said)] if said is not None else []

    def _all(self, record: ActionRecord, log: list[LogLine], before: dict[str, Any],
             after: dict[str, Any]) -> list[dict[str, Any]]:
        """Every line for the GM, the ones the table was not told marked hidden."""
        action = record.action
        if action.get("kind") == "restore":
            return self._public(record, [], before, after)
        lines: list[dict[str, Any]] = [
            {"ja": x.ja, "en": x.en, **({} if x.chat else {"hidden": True})} for x in log]
        if action.get("kind") == "override" and isinstance(action.get("value"), str):
            lines.append({**_text(NOTE.format(value=action["value"])), "hidden": True})
        if not lines:
            what, what_en = _part_words(str(action.get("kind", "")))
            said = describe(action, before, after) or _room_said(action) or UNSAID.format(
                actor=_actor(record.actor), what=what, what_en=what_en)
            lines = [{**_text(said)}]
        return lines


def _room_said(action: dict[str, Any]) -> Text | None:
    """A room setting the GM changed, in words (engine/players.py's)."""
    kind = str(action.get("kind", ""))
    if kind == "room.player.add":
        return ADDED.format(name=action.get("name") or action.get("id", ""))
    if kind not in ROOM_SAID:
        return None
    field_name, words, text = ROOM_SAID[kind]
    value = str(action.get(field_name, ""))
    ja, en = words.get(value, (value, value))
    return Text(text.ja.format(mode=ja), text.en.format(mode=en))


def _part_words(kind: str) -> tuple[str, str]:
    """The room's part an action of `kind` acts on, in ja and en (its state field's title)."""
    field = RoomState.model_fields.get(PART_OF.get(kind, ""))
    extra = field.json_schema_extra if field is not None else None
    if isinstance(extra, dict) and "title_ja" in extra:
        return str(extra["title_ja"]), str(extra["title_en"])
    return ROOM_PART


def _round_key(state: RoomState) -> tuple[tuple[str, int], ...]:
    """Which round each subsystem of the room is in (its registry hook says)."""
    key = []
    for name, round_of in ROUND_OF.items():
        part = getattr(state, name, None)
        mark = round_of(part) if part is not None else None
        if mark is not None:
            key.append((name, mark.number))
    return tuple(key)


def _round_name(state: RoomState, key: tuple[tuple[str, int], ...]) -> Text:
    names = [m.name for name, _n in key
             if (m := ROUND_OF[name](getattr(state, name))) is not None]
    if not names:
        return BEFORE
    return Text("・".join(n.ja for n in names), " · ".join(n.en for n in names))


def _actor(actor: dict[str, Any]) -> str:
    return str(actor.get("label") or actor.get("player") or
               {"gm": "GM", "bridge": "ブリッジ / bridge"}.get(str(actor.get("role")), "?"))


def _roll(roll: dict[str, Any]) -> dict[str, Any]:
    # its purpose is the engine's ids (`td.attack pc1→…`): not a sentence, not shown
    return {"dice": roll.get("dice", ""), "results": roll.get("results", []),
            "total": roll.get("total")}


def _text(t: Text) -> dict[str, str]:
    return {"ja": t.ja, "en": t.en}


def _copy(tree: dict[str, Any]) -> dict[str, Any]:
    """The view as it is now (views change their dicts in place as the battle goes on)."""
    out: dict[str, Any] = orjson.loads(orjson.dumps(tree))
    return out


def _picture(i: int) -> str:
    return f"round-{i:02d}.svg"


# -- the folder -------------------------------------------------------------------------------

def page_files(replay: Replay) -> dict[str, bytes]:
    """Every file of the page by name: index.html (its CSS, script and data inline), then
    one SVG picture per chapter."""
    data = json.dumps(replay.data(), ensure_ascii=False, separators=(",", ":"))
    template = (resources.files("komasync.server") / "console" / TEMPLATE).read_text("utf-8")
    html = template.replace("/*REPLAY-DATA*/{}", data.replace("</", "<\\/"))
    files = {"index.html": html.encode("utf-8")}
    for i, c in enumerate(replay.chapters):
        title = f"{replay.name} — {c.name.ja} / {c.name.en}"
        public = c.table if replay.audience == "gm" else None
        files[_picture(i)] = table_svg(c.state, public, title).encode("utf-8")
    return files


def write_folder(files: dict[str, bytes], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (folder / name).write_bytes(body)


def page_zip(files: dict[str, bytes], folder: str) -> bytes:
    """The page as a ZIP holding one folder (deterministic bytes)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in files.items():
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, body)
    return buf.getvalue()


class Loaded:
    """A room's row and whole log, read once (on the storage thread) to be replayed
    elsewhere (on the worker: a long replay never holds up the rooms' commits)."""

    def __init__(self, store: LogReader, room_id: str) -> None:
        self.room_id = room_id
        self.row = store.room(room_id)
        self.records = store.actions(room_id, 0) if self.row is not None else []

    def room(self, room_id: str) -> RoomRow | None:
        return self.row if room_id == self.room_id else None

    def latest_snapshot(self, room_id: str, upto: int | None = None
                        ) -> tuple[int, dict[str, Any]] | None:
        return None

    def actions(self, room_id: str, after: int, upto: int | None = None,
                limit: int | None = None) -> list[ActionRecord]:
        kept = [r for r in self.records if r.version > after and (upto is None or r.version <= upto)]
        return kept[:limit] if limit is not None else kept


def replay_zip(store: LogReader, room_id: str, audience: Kind) -> bytes:
    """The console's download: the room's replay for `audience` as a ZIP (a room with no
    action yet gives a page of its start)."""
    folder = f"{room_id}-replay-{audience}"
    return page_zip(page_files(build(store, room_id, audience, empty=True)), folder)
