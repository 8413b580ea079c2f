"""Reading a scenario file: YAML parsed once, validated with file:line, said in ja and en;
and the check that imports only the subsystems a file has (`komasync scenario check`)."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path as FsPath
from typing import Any, TypeVar

import yaml
from pydantic import (
    BaseModel,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from .bounds import Id, Json, Name
from .players import ENFORCEMENT_WORDS, PLAYER_ROLLS_WORDS, Enforcement, PlayerInfo, PlayerRolls
from .table.scenario import AROUND, Surroundings, TableScenario
from .titles import shown

__all__ = ["EXPLAIN", "PARTS", "Problem", "RoomSettings", "ScenarioError", "ScenarioRoom",
           "build_part", "check_scenario_file", "check_scenario_text", "explain", "part_model",
           "read_document", "yaml_problem"]


class RoomSettings(BaseModel):
    """The `room:` part: name, enforcement, typed dice results, dice seed, and per-VTT
    settings (calibration)."""

    model_config = {"extra": "forbid"}

    name: Name = Field(default="komasync", json_schema_extra=shown("ルーム名", "room name"))
    enforcement: Enforcement = Field(default="enforce", json_schema_extra=shown(
        "ルール強制", "rule enforcement", words=ENFORCEMENT_WORDS))
    player_rolls: PlayerRolls = Field(default="refuse", json_schema_extra=shown(
        "プレイヤーが入力したダイス結果", "dice results typed by players", words=PLAYER_ROLLS_WORDS))
    seed: Name | None = Field(default=None, json_schema_extra=shown(
        "ダイスのシード", "dice seed", about=("同じシードなら同じ出目（空欄なら部屋ごとに決まる）",
                                       "the same seed rolls the same dice (empty: one per room)")))
    platforms: dict[Id, dict[Id, Json]] = Field(default_factory=dict, json_schema_extra=shown(
        "VTTごとの設定", "per-VTT settings", key=("VTT", "VTT"), value=("設定", "settings"),
        about=("VTT連携の較正など", "the VTT bridges' calibration and the like")))


class ScenarioRoom(BaseModel):
    """What every scenario has: room settings, players and the table; each subsystem's
    part is a field of a subclass (engine/scenario.py `Scenario`, or `part_model`).

    Fields are validated in order, so players and the table are known (`surroundings`)
    by the time each part's checks run (engine/table/scenario.py `surroundings`): a piece
    or counter a part names is checked against the table with the part's own lines."""

    model_config = {"extra": "forbid"}

    room: RoomSettings = Field(default_factory=RoomSettings, json_schema_extra=shown("ルーム", "room"))
    players: list[PlayerInfo] = Field(default_factory=list, json_schema_extra=shown(
        "プレイヤー", "players"))
    table: TableScenario = Field(default_factory=TableScenario, json_schema_extra=shown(
        "テーブル", "table"))

    @model_validator(mode="wrap")
    @classmethod
    def _around(cls, data: Any, handler: ModelWrapValidatorHandler[ScenarioRoom]
                ) -> ScenarioRoom:
        around = Surroundings()
        if isinstance(data, dict):  # a part left out is its default, known at once
            around.players = frozenset() if "players" not in data else None
            around.table = TableScenario() if "table" not in data else None
        token = AROUND.set(around)
        try:
            return handler(data)
        finally:
            AROUND.reset(token)

    @field_validator("players")
    @classmethod
    def _seen_players(cls, players: list[PlayerInfo]) -> list[PlayerInfo]:
        around = AROUND.get()
        if around is not None:
            around.players = frozenset(p.id for p in players)
        return players

    @field_validator("table")
    @classmethod
    def _seen_table(cls, table: TableScenario) -> TableScenario:
        around = AROUND.get()
        if around is not None:
            around.table = table
        return table


#: Each subsystem's scenario part: its package and its model's name. `Scenario` has one
#: field per entry (tests/test_adding_a_subsystem.py); the check imports only what a file has.
PARTS: dict[str, tuple[str, str]] = {
    "tower_defense": ("tower_defense", "TowerDefenseScenario"),
    "bases": ("bases", "BasesScenario"),
    "grid": ("grid", "GridScenario"),
    "mass": ("mass", "MassScenario"),
    "engagement": ("engagement", "EngagementScenario"),
}


@cache
def part_model(names: frozenset[str]) -> type[ScenarioRoom]:
    """A scenario model with only the named subsystems' parts (each imported now)."""
    fields: dict[str, Any] = {}
    for name in sorted(names & PARTS.keys()):
        package, model = PARTS[name]
        part = getattr(importlib.import_module(f".{package}", __package__), model)
        fields[name] = (part | None, None)
    return create_model("Scenario", __base__=ScenarioRoom, **fields)


def _parts_of(data: Any) -> type[ScenarioRoom]:
    return part_model(frozenset(map(str, data)) if isinstance(data, dict) else frozenset())


def build_part(part: Any, table: TableScenario) -> Any:
    """A scenario part as state. A part whose characters are table pieces (its `build`
    takes `table`) is built with the table's pieces, so hidden pieces hide them from the
    very first snapshot."""
    if part is None:
        return None
    if "table" in inspect.signature(part.build).parameters:
        return part.build(table=table)
    return part.build()


def check_scenario_file(path: str | FsPath) -> None:
    """Everything `room create` would refuse in a scenario file, importing only the
    subsystems it has (ScenarioError says what and where)."""
    p = FsPath(path)
    check_scenario_text(p.read_text(encoding="utf-8"), str(p))


def check_scenario_text(text: str, filename: str = "<scenario>") -> None:
    """`check_scenario_file` on a file's text (the editor checks what it would save)."""
    scenario = read_document(text, _parts_of, filename)
    for name in ("table", *(type(scenario).model_fields.keys() & PARTS.keys())):
        build_part(getattr(scenario, name), scenario.table)


@dataclass
class Problem:
    """One thing wrong in a scenario file, at a line; `message` is Japanese / English;
    `path` where in the data (keys and list indexes), for the editor to mark the thing."""

    file: str
    line: int | None
    where: str
    message: str
    path: tuple[str | int, ...] = ()

    def __str__(self) -> str:
        at = f"{self.file}:{self.line}" if self.line else self.file
        return f"{at}: {self.where}: {self.message}"


class ScenarioError(Exception):
    """A scenario file is not valid; `problems` say where and what."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(map(str, problems)))
        self.problems = problems


Loc = tuple[Any, ...]


@dataclass
class _Source:
    """Where each key, item and scalar of the YAML document sits (1-based lines)."""

    lines: dict[Loc, int]
    scalars: dict[Loc, str]
    ids: dict[Loc, str]

    @classmethod
    def of(cls, node: yaml.Node | None) -> _Source:
        src = cls({}, {}, {})
        if node is not None:
            src._walk(node, ())
        return src

    def _walk(self, node: yaml.Node, path: Loc) -> None:
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                self.lines[(*path, key.value)] = key.start_mark.line + 1
                if key.value == "id" and isinstance(value, yaml.ScalarNode):
                    self.ids[path] = str(value.value)
                self._walk(value, (*path, key.value))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._walk(item, (*path, i))
        elif isinstance(node, yaml.ScalarNode):
            self.scalars[path] = str(node.value)

    def line_of(self, loc: Loc) -> int | None:
        for n in range(len(loc), -1, -1):
            if loc[:n] in self.lines:
                return self.lines[loc[:n]]
        return None

    def where(self, loc: Loc) -> str:
        """`forts[f_left].durability`: list items by their id, or by number from 1."""
        out = ""
        for n, seg in enumerate(loc):
            if isinstance(seg, int):
                ident = self.ids.get(loc[: n + 1])
                out += f"[{ident}]" if ident else f"[#{seg + 1}]"
            else:
                out += f".{seg}" if out else str(seg)
        return out or "(top)"

    def mention(self, loc: Loc, text: str) -> Loc:
        """Inside `loc`, the place of the last id that `text` names (the offending one)."""
        # each word's last place as a whole word (`goblin` is not where `goblin_hp` is)
        words = {m.group(): m.start() for m in re.finditer(r"[^\s:;,()「」]+", text)}
        best: tuple[int, Loc] | None = None
        for path, value in self.scalars.items():
            if path[: len(loc)] == loc and value in words:
                pos = words[value]
                if best is None or pos > best[0]:
                    best = (pos, path)
        return best[1] if best else loc


# libyaml's safe loader where PyYAML was built with it (most of `scenario check`'s time
# otherwise goes to the pure-Python parser); the same nodes, marks and data.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


M = TypeVar("M", bound=BaseModel)


def read_document(text: str, model: Callable[[Any], type[M]], filename: str = "<scenario>") -> M:
    """Parse YAML and validate it as the model `model(data)` picks for it; raises
    ScenarioError naming file, line and what is wrong."""
    loader = _LOADER(text)
    try:  # parsed once: the node tree gives the lines, the same tree the data
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as e:
        raise ScenarioError([yaml_problem(e, filename)]) from None
    finally:
        loader.dispose()
    src = _Source.of(node)
    try:
        return model(data).model_validate(data or {})
    except ValidationError as e:
        raise ScenarioError([p for err in e.errors() for p in _problems(err, src, filename)]) from None


def _problems(err: Any, src: _Source, filename: str) -> list[Problem]:
    loc = tuple(err["loc"])
    if err["type"] != "value_error":
        return [Problem(filename, src.line_of(loc), src.where(loc), explain(err), loc)]
    parts = str(err["msg"]).removeprefix("Value error, ").split("; ")
    out = []
    for part in parts:
        at = src.mention(loc, part.split(" / ")[0])
        out.append(Problem(filename, src.line_of(at), src.where(loc), _bilingual(part), at))
    return out


def _bilingual(message: str) -> str:
    return message if " / " in message else f"{message} / {message}"


#: pydantic's error types a scenario author meets, said in Japanese and English.
EXPLAIN: dict[str, tuple[str, str]] = {
    "missing": ("必須の項目がありません", "this field is required"),
    "extra_forbidden": ("この名前の項目はありません（綴りを確認してください）",
                        "no field of this name (check the spelling)"),
    "int_parsing": ("整数を書いてください", "write a whole number"),
    "int_type": ("整数を書いてください", "write a whole number"),
    "int_from_float": ("小数ではなく整数を書いてください", "write a whole number, not a fraction"),
    "float_parsing": ("数を書いてください", "write a number"),
    "bool_parsing": ("true か false を書いてください", "write true or false"),
    "string_type": ("文字列を書いてください", "write a text"),
    "list_type": ("リスト（- で始まる行）を書いてください", "write a list (lines starting with -)"),
    "dict_type": ("「キー: 値」の組を書いてください", "write key: value pairs"),
    "model_type": ("「キー: 値」の組を書いてください", "write key: value pairs"),
    "greater_than_equal": ("{ge} 以上にしてください", "must be at least {ge}"),
    "greater_than": ("{gt} より大きくしてください", "must be more than {gt}"),
    "less_than_equal": ("{le} 以下にしてください", "must be at most {le}"),
    "less_than": ("{lt} より小さくしてください", "must be less than {lt}"),
    "literal_error": ("次のどれかを書いてください: {expected}", "write one of: {expected}"),
    "enum": ("次のどれかを書いてください: {expected}", "write one of: {expected}"),
    "too_short": ("{min_length} 個以上必要です", "needs at least {min_length} item(s)"),
    "too_long": ("{max_length} 個までです", "at most {max_length} item(s)"),
    "string_too_long": ("{max_length} 文字までです", "at most {max_length} characters"),
    "string_too_short": ("{min_length} 文字以上必要です", "needs at least {min_length} characters"),
}


def explain(err: Any) -> str:
    """A pydantic error as one `ja / en` sentence (its own English when not in the table)."""
    pair = EXPLAIN.get(err["type"])
    if pair is None:
        return _bilingual(str(err["msg"]))
    ctx = {k: v for k, v in (err.get("ctx") or {}).items()}
    try:
        return f"{pair[0].format(**ctx)} / {pair[1].format(**ctx)}"
    except (KeyError, IndexError):
        return f"{pair[0]} / {pair[1]}"


#: What PyYAML's problems mean for a person editing a file by hand.
YAML_HINTS: tuple[tuple[str, str, str], ...] = (
    ("mapping values are not allowed", "ここに「キー: 値」は書けません。字下げが前の行と揃っているか、"
     "値の中の「: 」を引用符で囲んだか確認してください",
     "a 'key: value' cannot start here; check that the indentation matches the lines above, "
     "or quote a value that contains ': '"),
    ("expected <block end>", "字下げがずれています。この行は前の項目と同じ深さで始まるはずです",
     "the indentation is off: this line should start at the same depth as the item before it"),
    ("cannot start any token", "タブ文字や使えない記号があります。字下げは空白で行ってください",
     "a tab or a character that cannot start a value; indent with spaces"),
    ("could not find expected ':'", "「:」が見つかりません。「キー: 値」の形で書いてください",
     "no ':' found; write 'key: value'"),
    ("found duplicate anchor", "同じアンカー名が二度使われています", "an anchor name is used twice"),
    ("found undefined alias", "定義されていないエイリアス（*名前）です",
     "an alias (*name) that is not defined"),
    ("while scanning a quoted scalar", "引用符が閉じていません", "a quote is not closed"),
)


def yaml_problem(e: yaml.YAMLError, filename: str) -> Problem:
    """A YAML syntax error as a Problem: the line, and what YAML expected there."""
    mark = getattr(e, "problem_mark", None)
    line = mark.line + 1 if mark else None
    raw = " ".join(str(x) for x in (getattr(e, "context", None), getattr(e, "problem", None)) if x)
    raw = raw or str(e).splitlines()[0]
    for needle, ja, en in YAML_HINTS:
        if needle in raw:
            return Problem(filename, line, "yaml", f"{ja} / {en}（YAML: {raw}）")
    return Problem(filename, line, "yaml", f"YAMLとして読めません / not valid YAML（{raw}）")
