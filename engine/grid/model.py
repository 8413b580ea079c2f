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


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SkillUse(_Spec):
    """How a skill that moves others is used in its user's main process (GRID-SK-3,
    GRID-X-5): the step it spends, its range (none: any distance) and whether each target
    must be in the user's sight (GRID-LOS-1)."""

    timing: Literal["move", "minor", "major"] = "major"
    range: Count | None = None
    sight: StrictBool = True


class GridSettings(_Spec):
    """Scenario `settings:` — the extra rules (all off unless turned on) and one field per
    reading of an ambiguity in the seed. docs/grid.md has the table."""

    #: GRID-X-1 the GM may start with the enemy round ([不意打ち]).
    surprise: StrictBool = False
    #: GRID-X-2 a magic attack in the major allows 1 square of movement in the process.
    magic_move_limit: StrictBool = False
    #: GRID-X-3 [移動妨害] may be declared against a character passing through range 0.
    hindrance: StrictBool = False
    #: GRID-X-4 skills without a timing as a major ([瞬間移動] → 2 squares ignoring
    #: obstacles), setup skills for move + minor.
    timeless_skills: StrictBool = False
    #: GRID-X-5 [地動説].
    geocentric: StrictBool = False
    #: GRID-X-6 towing an object in range 0.
    towing: StrictBool = False
    #: A drop farther than the current step allows goes on into the next unused steps
    #: (each step it reaches is spent on moving); false: one drop, one step.
    drop_spans_steps: StrictBool = True
    #: A diagonal step between two squares that block (obstacle or enemy) is allowed.
    diagonal_past_corners: StrictBool = True
    #: Neutral pieces block everyone (they are nobody's ally); false: anyone passes.
    neutral_blocks: StrictBool = True
    #: GRID-LOS-1 a sight line that only touches an obstacle's edge or corner:
    #: `open` (it passes) or `blocked`.
    los_corners: Literal["open", "blocked"] = "open"
    #: GRID-SK-3 [強制転移] "adjacent": the 8 squares around (`any`) or the 4 (`orthogonal`).
    teleport_adjacent: Literal["any", "orthogonal"] = "any"
    #: GRID-SK-3 [強制転移] is used in its user's main process: its step, range and sight.
    force_move: SkillUse = Field(default_factory=SkillUse)
    #: GRID-SK-3 [独妙閃光] targets on one `ray` from the user (8 directions) or one `line`
    #: through it (4 lines, both sides).
    flash_line: Literal["ray", "line"] = "ray"
    #: GRID-X-5 the 1-square push of [地動説]: `orthogonal` (a 1-square move) or `any`.
    geocentric_directions: Literal["orthogonal", "any"] = "orthogonal"
    #: GRID-X-5 [地動説] is used in its user's main process: its step, range and sight.
    geocentric_use: SkillUse = Field(default_factory=SkillUse)
    #: GRID-GM-1 enemies' durability data (profile) is public as soon as they appear.
    publish_enemy_data: StrictBool = False


class Area(_Spec):
    """A rectangle of squares (the off-map area for dead PCs)."""

    cell: Cell
    width: StrictInt = Field(default=1, ge=1, le=100)
    height: StrictInt = Field(default=1, ge=1, le=100)

    def squares(self) -> list[tuple[int, int]]:
        return [(self.cell.x + dx, self.cell.y + dy)
                for dy in range(self.height) for dx in range(self.width)]


class Spot(Entity):
    """GRID-GM-1 an event spot: a marked square where something will happen."""

    id: str = Field(min_length=1, max_length=64)
    cell: Cell
    ja: str = Field(default="", max_length=300)
    en: str = Field(default="", max_length=300)
    hidden: StrictBool = False

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or not self.hidden


class TimedEvent(Entity):
    """GRID-GM-1 an event due at the start of a round (of a side); announced = public."""

    id: str = Field(min_length=1, max_length=64)
    round: StrictInt = Field(ge=1, le=1000)
    side: RoundSide = "pc"
    ja: str = Field(default="", max_length=300)
    en: str = Field(default="", max_length=300)
    announced: StrictBool = True
    done: StrictBool = False

    def visible_to(self, audience: Audience) -> bool:
        return audience.is_gm or self.announced


class CheckRange(Entity):
    """GRID-RNG-3 a check's range as the GM stated it when a player asked."""

    combatant: Id
    check: Name
    range: Count | None = None


class Process(Entity):
    """The open main process (GRID-MV-1): the current step, the squares it has left, how
    each step was spent, and the limits that came up on the way."""

    combatant: Id
    step: Step = "move"
    left: Count = ALLOWANCE["move"]
    spent: dict[str, Spent] = Field(default_factory=dict)
    moved: dict[Id, Count] = Field(default_factory=dict)
    start: Cell
    #: GRID-SK-1 after a move skill, the one direction later movement may take.
    direction: Cell | None = None
    #: GRID-X-2 a magic attack was made in the major.
    magic: StrictBool = False
    #: GRID-X-3 a [移動妨害] question is waiting (its prompt id).
    waiting: Id | None = None

    def total_moved(self) -> int:
        return sum(self.moved.values())


class GridState(Entity):
    """Seamless combat (seed 001): map, combatants, rounds, the open process."""

    settings: GridSettings = Field(default_factory=GridSettings)
    obstacles: list[Cell] = Field(default_factory=list)
    off_map: Area | None = None
    spots: dict[str, Spot] = Field(default_factory=dict)
    events: dict[str, TimedEvent] = Field(default_factory=dict)
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    active: StrictBool = False
    outcome: Outcome = "none"
    round: Serial = 0
    #: Side-rounds since the start (0 = the first); one-cycle effects end by it.
    turn: Serial = 0
    first: RoundSide = "pc"
    side: RoundSide | None = None
    acted: list[Id] = Field(default_factory=list)
    process: Process | None = None
    #: The main process that ended last this side-round, as it ended: why a later move
    #: of that character is refused (GRID-ST-4, GRID-X-2).
    last: Process | None = None
    check_ranges: dict[str, CheckRange] = Field(default_factory=dict)


def side_label(side: Side | None) -> tuple[str, str]:
    """The side's round as the seed names it."""
    if side == "enemy":
        return "エネミーラウンド", "enemy round"
    return "プレイヤーラウンド", "player round"
