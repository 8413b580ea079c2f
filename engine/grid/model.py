"""Grid combat state: the map, the combatants, rounds and the open main process.

Squares are `table.Cell`s on the table's grid; a combatant's square is its table
piece's cell. Every switch and every reading of an ambiguity is a `GridSettings` field.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from ..bounds import Count, Id, Name, Serial
from ..combatants import Combatant, Side
from ..phases import PhaseSpec, PhaseTable
from ..table import Cell
from ..titles import shown
from ..views import Audience, Entity

__all__ = [
    "ALLOWANCE",
    "PROCESS",
    "STEPS",
    "Area",
    "CheckRange",
    "GridSettings",
    "GridState",
    "Outcome",
    "Process",
    "RoundSide",
    "SkillUse",
    "Spent",
    "Spot",
    "Step",
    "TimedEvent",
]

#: GRID-MV-1 the main process's steps in order; `post` is flying's step after the major
#: (GRID-ST-4).
Step = Literal["move", "minor", "major", "post"]
STEPS: tuple[Step, ...] = ("move", "minor", "major", "post")
#: The main process as a table (process.py walks it): each step's squares (GRID-MV-1:
#: move 1, minor 1–2, major 1–2; flying 1), what it may be spent on and what ends it.
#: Move and minor end when the character says so (or acts in a later step); the major
#: and flying's step end by themselves once spent. After the major comes flying's step
#: only when the character may take it (GRID-ST-4), else the process ends.
PROCESS = PhaseTable(path=("grid", "process", "step"), rule="GRID-MV-1", phases=(
    PhaseSpec(id="move", ja="ムーブ", en="move", rule="GRID-MV-1", acts="acting", ends="actor",
              next="minor", allowance=1, spends=("move", "action")),
    PhaseSpec(id="minor", ja="マイナー", en="minor", rule="GRID-MV-1", acts="acting",
              ends="actor", next="major", allowance=2, spends=("move", "action")),
    PhaseSpec(id="major", ja="メジャー", en="major", rule="GRID-MV-1", acts="acting",
              ends="spent", next="post", allowance=2, spends=("move", "action")),
    PhaseSpec(id="post", ja="メジャー後の移動", en="after-major move", rule="GRID-ST-4",
              acts="acting", ends="spent", when="flying", allowance=1, spends=("move",)),
))
#: GRID-MV-1 squares each step may move, as `PROCESS` declares it.
ALLOWANCE: dict[Step, int] = {s: PROCESS.get(s).allowance or 0 for s in STEPS}
#: How a step was used: for moving, for an action, or passed over.
Spent = Literal["move", "action", "skip"]
RoundSide = Literal["pc", "enemy"]
Outcome = Literal["none", "wiped", "ended"]
#: The seed's words for each value the GM may pick (the override editor shows them).
STEP_WORDS = {p.id: (p.ja, p.en) for p in PROCESS.phases}
SPENT_WORDS = {"move": ("移動", "move"), "action": ("行動", "action"), "skip": ("使わない", "skipped")}
ROUND_SIDE_WORDS = {"pc": ("プレイヤーラウンド", "player round"),
                    "enemy": ("エネミーラウンド", "enemy round")}
OUTCOME_WORDS = {"none": ("決着前", "undecided"), "wiped": ("全滅", "wiped out"), "ended": ("終了", "ended")}
LOS_WORDS = {"open": ("通る", "open"), "blocked": ("遮られる", "blocked")}
ADJACENT_WORDS = {"any": ("周囲8マス", "8 squares around"), "orthogonal": ("上下左右4マス", "4 squares")}
FLASH_WORDS = {"ray": ("片側の直線", "one ray"), "line": ("両側の直線", "one line, both sides")}
#: Where a combatant's id points.
COMBATANTS = ("grid", "combatants")


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SkillUse(_Spec):
    """How a skill that moves others is used in its user's main process (GRID-SK-3,
    GRID-X-5): the step it spends, its range (none: any distance) and whether each target
    must be in the user's sight (GRID-LOS-1)."""

    timing: Literal["move", "minor", "major"] = Field(default="major", json_schema_extra=shown(
        "使うステップ", "step it uses", words=STEP_WORDS))
    range: Count | None = Field(default=None, json_schema_extra=shown("射程", "range"))
    sight: StrictBool = Field(default=True, json_schema_extra=shown("視線が必要", "needs sight"))


class GridSettings(_Spec):
    """Scenario `settings:` — the extra rules (all off unless turned on) and one field per
    reading of an ambiguity in the seed. docs/grid.md has the table."""

    #: GRID-X-1 the GM may start with the enemy round ([不意打ち]).
    surprise: StrictBool = Field(default=False, json_schema_extra=shown("不意打ち", "surprise"))
    #: GRID-X-2 a magic attack in the major allows 1 square of movement in the process.
    magic_move_limit: StrictBool = Field(default=False, json_schema_extra=shown(
        "魔法攻撃後の移動制限", "move limit after a magic attack"))
    #: GRID-X-3 [移動妨害] may be declared against a character passing through range 0.
    hindrance: StrictBool = Field(default=False, json_schema_extra=shown(
        "移動妨害", "movement hindrance"))
    #: GRID-X-4 skills without a timing as a major ([瞬間移動] → 2 squares ignoring
    #: obstacles), setup skills for move + minor.
    timeless_skills: StrictBool = Field(default=False, json_schema_extra=shown(
        "タイミングのないスキル", "skills without a timing"))
    #: GRID-X-5 [地動説].
    geocentric: StrictBool = Field(default=False, json_schema_extra=shown("地動説", "geocentric"))
    #: GRID-X-6 towing an object in range 0.
    towing: StrictBool = Field(default=False, json_schema_extra=shown("牽引", "towing"))
    #: A drop farther than the current step allows goes on into the next unused steps
    #: (each step it reaches is spent on moving); false: one drop, one step.
    drop_spans_steps: StrictBool = Field(default=True, json_schema_extra=shown(
        "ドロップが次のステップに続く", "a drop spans steps"))
    #: A diagonal step between two squares that block (obstacle or enemy) is allowed.
    diagonal_past_corners: StrictBool = Field(default=True, json_schema_extra=shown(
        "角を抜ける斜め移動", "diagonal past corners"))
    #: Neutral pieces block everyone (they are nobody's ally); false: anyone passes.
    neutral_blocks: StrictBool = Field(default=True, json_schema_extra=shown(
        "中立の駒が塞ぐ", "neutral pieces block"))
    #: GRID-LOS-1 a sight line that only touches an obstacle's edge or corner:
    #: `open` (it passes) or `blocked`.
    los_corners: Literal["open", "blocked"] = Field(default="open", json_schema_extra=shown(
        "角に触れる視線", "sight line touching a corner", words=LOS_WORDS))
    #: GRID-SK-3 [強制転移] "adjacent": the 8 squares around (`any`) or the 4 (`orthogonal`).
    teleport_adjacent: Literal["any", "orthogonal"] = Field(default="any", json_schema_extra=shown(
        "強制転移の隣接", "adjacent for forced teleport", words=ADJACENT_WORDS))
    #: GRID-SK-3 [強制転移] is used in its user's main process: its step, range and sight.
    force_move: SkillUse = Field(default_factory=SkillUse, json_schema_extra=shown(
        "強制転移", "forced teleport"))
    #: GRID-SK-3 [独妙閃光] targets on one `ray` from the user (8 directions) or one `line`
    #: through it (4 lines, both sides).
    flash_line: Literal["ray", "line"] = Field(default="ray", json_schema_extra=shown(
        "独妙閃光の線", "line of flash", words=FLASH_WORDS))
    #: GRID-X-5 the 1-square push of [地動説]: `orthogonal` (a 1-square move) or `any`.
    geocentric_directions: Literal["orthogonal", "any"] = Field(default="orthogonal", json_schema_extra=shown(
        "地動説の方向", "geocentric directions", words=ADJACENT_WORDS))
    #: GRID-X-5 [地動説] is used in its user's main process: its step, range and sight.
    geocentric_use: SkillUse = Field(default_factory=SkillUse, json_schema_extra=shown(
        "地動説の使用", "geocentric use"))
    #: GRID-GM-1 enemies' durability data (profile) is public as soon as they appear.
    publish_enemy_data: StrictBool = Field(default=False, json_schema_extra=shown(
        "エネミーデータを公開", "publish enemy data"))


class Area(_Spec):
    """A rectangle of squares (the off-map area for dead PCs)."""

    cell: Cell = Field(json_schema_extra=shown("左上のマス", "top-left square"))
    width: StrictInt = Field(default=1, ge=1, le=100, json_schema_extra=shown("幅", "width"))
    height: StrictInt = Field(default=1, ge=1, le=100, json_schema_extra=shown("高さ", "height"))

    def squares(self) -> list[tuple[int, int]]:
        return [(self.cell.x + dx, self.cell.y + dy)
                for dy in range(self.height) for dx in range(self.width)]


class Spot(Entity):
    """GRID-GM-1 an event spot: a marked square where something will happen."""

    id: str = Field(min_length=1, max_length=64, json_schema_extra=shown("ID", "id"))
    cell: Cell = Field(json_schema_extra=shown("マス", "square"))
    ja: str = Field(default="", max_length=300, json_schema_extra=shown("名前", "name"))
    en: str = Field(default="", max_length=300, json_schema_extra=shown("英語名", "English name"))
    hidden: StrictBool = Field(default=False, json_schema_extra=shown("GMのみ", "GM only"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class TimedEvent(Entity):
    """GRID-GM-1 an event due at the start of a round (of a side); announced = public."""

    id: str = Field(min_length=1, max_length=64, json_schema_extra=shown("ID", "id"))
    round: StrictInt = Field(ge=1, le=1000, json_schema_extra=shown("ラウンド", "round"))
    side: RoundSide = Field(default="pc", json_schema_extra=shown(
        "陣営のラウンド", "side round", words=ROUND_SIDE_WORDS))
    ja: str = Field(default="", max_length=300, json_schema_extra=shown("内容", "text"))
    en: str = Field(default="", max_length=300, json_schema_extra=shown("英語の内容", "English text"))
    announced: StrictBool = Field(default=True, json_schema_extra=shown("予告済み", "announced"))
    done: StrictBool = Field(default=False, json_schema_extra=shown("済み", "done"))

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or self.announced


class CheckRange(Entity):
    """GRID-RNG-3 a check's range as the GM stated it when a player asked."""

    combatant: Id = Field(json_schema_extra=shown("キャラクター", "character", ids=COMBATANTS))
    check: Name = Field(json_schema_extra=shown("判定", "check"))
    range: Count | None = Field(default=None, json_schema_extra=shown("射程", "range"))


class Process(Entity):
    """The open main process (GRID-MV-1): the current step, the squares it has left, how
    each step was spent, and the limits that came up on the way."""

    combatant: Id = Field(json_schema_extra=shown("キャラクター", "character", ids=COMBATANTS))
    step: Step = Field(default="move", json_schema_extra=shown("ステップ", "step", words=STEP_WORDS))
    left: Count = Field(default=ALLOWANCE["move"], json_schema_extra=shown("残りの移動", "squares left"))
    spent: dict[str, Spent] = Field(default_factory=dict, json_schema_extra=shown(
        "ステップの使い方", "steps spent", words=SPENT_WORDS))
    moved: dict[Id, Count] = Field(default_factory=dict, json_schema_extra=shown(
        "移動したマス", "squares moved"))
    start: Cell = Field(json_schema_extra=shown("開始マス", "start square"))
    #: GRID-SK-1 after a move skill, the one direction later movement may take.
    direction: Cell | None = Field(default=None, json_schema_extra=shown("移動方向", "direction"))
    #: GRID-X-2 a magic attack was made in the major.
    magic: StrictBool = Field(default=False, json_schema_extra=shown("魔法攻撃済み", "magic attack made"))
    #: GRID-X-3 a [移動妨害] question is waiting (its prompt id).
    waiting: Id | None = Field(default=None, json_schema_extra=shown(
        "待っている問いかけ", "waiting prompt", ids=("prompts",)))

    def total_moved(self) -> int:
        return sum(self.moved.values())


class GridState(Entity):
    """Seamless combat (seed 001): map, combatants, rounds, the open process."""

    settings: GridSettings = Field(default_factory=GridSettings, json_schema_extra=shown(
        "設定", "settings"))
    obstacles: list[Cell] = Field(default_factory=list, json_schema_extra=shown("障害物", "obstacles"))
    off_map: Area | None = Field(default=None, json_schema_extra=shown("マップ外", "off the map"))
    spots: dict[str, Spot] = Field(default_factory=dict, json_schema_extra=shown("地点", "spots"))
    events: dict[str, TimedEvent] = Field(default_factory=dict, json_schema_extra=shown(
        "イベント", "events"))
    combatants: dict[str, Combatant] = Field(default_factory=dict, json_schema_extra=shown(
        "キャラクター", "characters"))
    active: StrictBool = Field(default=False, json_schema_extra=shown("戦闘中", "in battle"))
    outcome: Outcome = Field(default="none", json_schema_extra=shown(
        "決着", "outcome", words=OUTCOME_WORDS))
    round: Serial = Field(default=0, json_schema_extra=shown("ラウンド", "round"))
    #: Side-rounds since the start (0 = the first); one-cycle effects end by it.
    turn: Serial = Field(default=0, json_schema_extra=shown("経過したラウンド", "side-rounds so far"))
    first: RoundSide = Field(default="pc", json_schema_extra=shown(
        "先攻", "goes first", words=ROUND_SIDE_WORDS))
    side: RoundSide | None = Field(default=None, json_schema_extra=shown(
        "手番の陣営", "side to act", words=ROUND_SIDE_WORDS))
    acted: list[Id] = Field(default_factory=list, json_schema_extra=shown(
        "行動済み", "acted", ids=COMBATANTS))
    process: Process | None = Field(default=None, json_schema_extra=shown(
        "メインプロセス", "main process"))
    #: The main process that ended last this side-round, as it ended: why a later move
    #: of that character is refused (GRID-ST-4, GRID-X-2).
    last: Process | None = Field(default=None, json_schema_extra=shown(
        "最後のメインプロセス", "last main process"))
    check_ranges: dict[str, CheckRange] = Field(default_factory=dict, json_schema_extra=shown(
        "判定の射程", "check ranges"))


def side_label(side: Side | None) -> tuple[str, str]:
    """The side's round as the seed names it."""
    if side == "enemy":
        return "エネミーラウンド", "enemy round"
    return "プレイヤーラウンド", "player round"
