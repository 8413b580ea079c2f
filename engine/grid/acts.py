"""`grid.act`: spending a step of the main process on an action instead of moving.

GRID-MV-1 a step is spent on moving or on an action, in order; GRID-MV-4 a character
sharing its square with an ally may only move in its major; GRID-ST-2/3 paralysis and
bind are shaken off by a move action / a major action; GRID-ST-3 no minor action while
bound; GRID-SK-1 a move skill moves 1 square and fixes the direction; GRID-X-2 a magic
attack allows 1 square in the whole process; GRID-X-4 [瞬間移動] and setup skills;
GRID-X-6 towing; GRID-SK-3 [独妙閃光]; targets per targets.py.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..actions import ActionBase
from ..bounds import Count, Id
from ..combatants import Combatant, has_status, remove_status, status_of
from ..errors import Text
from ..table import Cell
from ..tx import Role, Tx
from .geometry import ORTHOGONAL, Sq
from .model import GridState, Process
from .moves import move_piece
from .process import STEP_NAMES, settle_step, spend, updated
from .refusals import (
    CANNOT_LAND,
    MAGIC_ATTACK_MOVED,
    MOVE_SKILL_STEP,
    NO_STATUS,
    PARALYSED,
    SETUP_NEEDS_MOVE,
    STATUS_STUCK,
    WRONG_TIMING,
)
from .results import report_acted
from .rules import BASE, acting, as_cell, board_for, name_of, on_map, table
from .skills import extra_on, teleport_to, tow
from .steps import Timing, may_spend, own_process
from .targets import aim, check_range, flash_targets

__all__ = ["Act", "What"]

What = Literal["action", "check", "magic_attack", "cure_paralysis", "break_bind",
               "move_skill", "setup_skill", "teleport", "flash", "tow"]
#: Actions that belong to one timing, with the rule that says so.
FIXED: dict[str, tuple[Timing, str]] = {
    "cure_paralysis": ("move", "GRID-ST-2"), "move_skill": ("move", "GRID-SK-1"),
    "setup_skill": ("minor", "GRID-X-4"), "magic_attack": ("major", "GRID-X-2"),
    "break_bind": ("major", "GRID-ST-3"), "teleport": ("major", "GRID-X-4"),
    "tow": ("major", "GRID-X-6"),
}
ACTORS = frozenset[Role]({"gm", "player", "bridge"})

ACTED = Text("「{n}」: {step}で{what}", "{n}: {what_en} in the {step_en}")
WHAT = {"action": ("アクション", "an action"), "check": ("判定", "a check"),
        "magic_attack": ("魔法攻撃", "a magic attack"), "cure_paralysis": ("[麻痺]解除",
        "shaking off paralysis"), "break_bind": ("[束縛]解除", "breaking the bind"),
        "move_skill": ("ムーブ移動スキル", "a move skill"), "setup_skill": ("セットアップスキル",
        "a setup skill"), "teleport": ("[瞬間移動]", "[瞬間移動]"), "flash": ("[独妙閃光]",
        "[独妙閃光]"), "tow": ("牽引", "towing")}


class Act(ActionBase):
    """Spend a step on an action; with a `target` square and `range` the target is
    checked (GRID-RNG-1/2, GRID-AREA-1, GRID-RNG-3); `range: "sight"` is 射程視界, the
    one way an act asks for line of sight (GRID-LOS-1). `name` names the action — for
    `what: "check"` the check whose GM-stated range applies (`grid.check.ask`'s `check`)."""

    kind: Literal["grid.act"] = "grid.act"
    roles = ACTORS
    combatant: Id
    timing: Timing = "major"
    what: What = "action"
    name: str = Field(default="", max_length=100)
    target: Cell | None = None
    targets: list[Id] = Field(default_factory=list, max_length=8)
    range: Count | Literal["sight"] | None = Field(default=None)
    skill: Literal["attack", "non_attack"] = "attack"
    area: Literal["single", "area", "scene"] = "single"
    to: Cell | None = None
    item: str | None = Field(default=None, max_length=64)
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        g, c = acting(tx, self.combatant)
        p = self._timing(tx, g, c)
        here = on_map(tx, c)
        detail = self._aim(tx, g, c, here)
        q = self._do(tx, g, c, p, here)
        ja, en = STEP_NAMES[self.timing]
        w_ja, w_en = WHAT[self.what]
        label = f"{w_ja}{'「' + self.name + '」' if self.name else ''}"
        tx.emit("grid.acted", combatant=c.id, timing=self.timing, what=self.what,
                name=self.name, **detail)
        tx.say(ACTED.format(n=name_of(table(tx), c), step=ja, step_en=en, what=label,
                            what_en=f"{w_en}{' ' + self.name if self.name else ''}"))
        settle_step(tx, g, c, q)
        report_acted(tx, c.id, self.timing)

    def _timing(self, tx: Tx, g: GridState, c: Combatant) -> Process:
        p = own_process(tx, g, c)
        if self.what in FIXED and FIXED[self.what][0] != self.timing:
            want, rule = FIXED[self.what]
            w_ja, w_en = STEP_NAMES[want]
            raise WRONG_TIMING.refuse(under=rule, step=w_ja, step_en=w_en)
        may_spend(tx, g, c, p, self.timing, sharing_ok=self.what in ("teleport", "tow"))
        if self.what == "setup_skill":
            extra_on(tx, g, "timeless_skills")
            tx.check(p.step == "move" and not p.spent.get("move"),
                     SETUP_NEEDS_MOVE.refuse())
        return p

    def _aim(self, tx: Tx, g: GridState, c: Combatant, here: Sq) -> dict[str, object]:
        if self.what == "flash":
            targets = flash_targets(tx, g, c, here, self.targets)
            return {"targets": [o.id for o in targets]}
        if self.target is None or self.what not in ("action", "check", "magic_attack"):
            return {}
        reach = self.range
        if self.what == "check":
            stated = self.range if isinstance(self.range, int) else None
            reach = check_range(g, c, self.name or None, stated, tx.actor.role == "gm")
        target = (self.target.x, self.target.y)
        squares = aim(tx, g, here, target, reach, self.skill == "non_attack", self.area)
        return {"target": as_cell(target), "squares": [as_cell(s) for s in squares]}

    def _do(self, tx: Tx, g: GridState, c: Combatant, p: Process, here: Sq) -> Process:
        """The step spent, plus what the action itself changes."""
        if self.what == "setup_skill":
            return spend(spend(p, "move", "action"), "minor", "action")
        q = spend(p, self.timing, "action")
        match self.what:
            case "cure_paralysis":
                self._shake_off(tx, c, "paralysis", "GRID-ST-2")
            case "break_bind":
                self._shake_off(tx, c, "bind", "GRID-ST-3")
            case "magic_attack":
                if g.settings.magic_move_limit:
                    tx.check(p.total_moved() <= 1, MAGIC_ATTACK_MOVED.refuse(m=p.total_moved()))
                q = updated(q, magic=True)
            case "move_skill":
                q = self._move_skill(tx, g, c, q, here)
            case "teleport":
                q = updated(q, moved={**q.moved, "major": teleport_to(tx, g, c, self.to)})
            case "tow":
                tow(tx, g, c, p, self.item or "", self.to)
        return q

    def _shake_off(self, tx: Tx, c: Combatant, kind: Literal["paralysis", "bind"],
                   rule: str) -> None:
        s = status_of(c, kind)
        label = {"paralysis": ("[麻痺]", "paralysed"), "bind": ("[束縛]", "bound")}[kind]
        if s is None:
            raise NO_STATUS.refuse(under=rule, n=name_of(table(tx), c), s=label[0],
                               s_en=label[1])
        tx.check(s.removable, STATUS_STUCK.refuse(under=rule, s=label[0], s_en=kind))
        remove_status(tx, BASE, c, s.id)

    def _move_skill(self, tx: Tx, g: GridState, c: Combatant, q: Process, here: Sq) -> Process:
        """GRID-SK-1 1 square with the skill; later movement only the same way."""
        d = (self.to.x - here[0], self.to.y - here[1]) if self.to is not None else None
        if d not in ORTHOGONAL:
            raise MOVE_SKILL_STEP.refuse()
        assert d is not None
        if has_status(c, "paralysis"):
            raise PARALYSED.refuse(n=name_of(table(tx), c))
        dest = (here[0] + d[0], here[1] + d[1])
        if not board_for(g, table(tx), c).enterable(dest):
            raise CANNOT_LAND.refuse(x=dest[0], y=dest[1])
        move_piece(tx, c, dest)
        return updated(q, moved={**q.moved, "move": 1}, direction=Cell(x=d[0], y=d[1]))
