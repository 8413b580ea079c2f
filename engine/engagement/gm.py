"""The GM's and abilities' hand on the relation: engage or part two characters (ENG-IN-1
special abilities, ENG-EF-3 "dissolved by an ability"), move a character between the
rows (ENG-EF-3: it does not end an engagement), drop an attack being resolved, and add
or remove a character."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, StrictBool

from ..actions import ActionBase
from ..bounds import Id
from ..combatants import Combatant, CombatantSpec, Row
from ..errors import Refusal, Text
from ..tx import Tx
from .actions import ACTORS
from .exchange import close
from .model import pair_key
from .refusals import EXISTS, NOT_LINKED, NOT_YOUR_ABILITY, NOTHING_OPEN, SELF, UNKNOWN_PIECE
from .relation import dissolve, form
from .rules import BASE, PATH, combatant, eng, may_act, name, table

__all__ = ["GM_ACTIONS", "AddCombatant", "Cancel", "Link", "RemoveCombatant", "SetRow"]

ROW = Text("「{n}」は{row}へ（接近状態はそのまま、ENG-EF-3）",
           "{n} moves to the {row_en} row (engagements stay, ENG-EF-3)")
ROWS = {"front": ("前衛", "front"), "back": ("後衛", "back")}
CANCELLED = Text("GMが「{n}」の攻撃の処理を取り消しました", "The GM cancelled {n}'s attack")


class Link(ActionBase):
    """Engage (`engaged: true`) or part two characters by a special ability or the GM's
    word (ENG-IN-1; ENG-EF-3). Engaging asks the ENG-HAND-1 handovers. A player may use
    it for an ability of their own character; `note` names the ability."""

    kind: Literal["engagement.link"] = "engagement.link"
    roles = ACTORS
    a: Id
    b: Id
    engaged: StrictBool = True
    note: str = Field(default="", max_length=100)
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        a, b = combatant(tx, self.a), combatant(tx, self.b)
        self._may(tx, a, b)
        if a.id == b.id:
            raise SELF.refuse()
        if self.engaged:
            form(tx, a, b, "ability", self.note)
            return
        key = pair_key(a.id, b.id)
        if key not in s.pairs:
            raise NOT_LINKED.refuse(a=name(tx, a), b=name(tx, b))
        dissolve(tx, s, key, "ability", self.note or "GM")

    def _may(self, tx: Tx, a: Combatant, b: Combatant) -> None:
        if tx.actor.role == "gm":
            return
        for c in (a, b):
            try:
                may_act(tx, c)
                return
            except Refusal:
                continue
        raise NOT_YOUR_ABILITY.refuse()


class SetRow(ActionBase):
    """Move a character to the front or back row; engagements stay (ENG-EF-3)."""

    kind: Literal["engagement.row"] = "engagement.row"
    roles = ACTORS
    combatant: Id
    row: Row
    by: Id | None = None

    def apply(self, tx: Tx) -> None:
        eng(tx)
        c = combatant(tx, self.combatant)
        may_act(tx, c)
        tx.set((*BASE, c.id, "row"), self.row)
        ja, en = ROWS[self.row]
        tx.emit("engagement.row", combatant=c.id, row=self.row)
        tx.say(ROW.format(n=name(tx, c), row=ja, row_en=en), chat=not c.hidden)


class Cancel(ActionBase):
    """GM: drop the attack being resolved (what it already spent stays spent)."""

    kind: Literal["engagement.cancel"] = "engagement.cancel"
    #: Which attack, when two are open (the scene's and a hidden one); else the scene's
    #: if open, then the hidden one.
    exchange: Id | None = None

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        ex = next((x for x in s.open_exchanges() if self.exchange in (None, x.id)), None)
        if ex is None:
            raise NOTHING_OPEN.refuse()
        tx.say(CANCELLED.format(n=name(tx, ex.attacker)), chat=not ex.hidden)
        close(tx, ex, "cancelled")


class AddCombatant(ActionBase):
    """GM: a table piece joins the battle as a character."""

    kind: Literal["engagement.combatant.add"] = "engagement.combatant.add"
    combatant: CombatantSpec

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        spec = self.combatant
        pieces = table(tx).pieces
        if (spec.piece or spec.id) not in pieces:
            raise UNKNOWN_PIECE.missing(spec.piece or spec.id)
        if spec.id in s.combatants:
            raise EXISTS.refuse(id=spec.id)
        c = spec.build(pieces, published=spec.side == "pc")
        tx.set((*BASE, c.id), c)
        tx.emit("engagement.combatant.added", combatant=c.id)


class RemoveCombatant(ActionBase):
    """GM: a character leaves the battle; its engagements end with it."""

    kind: Literal["engagement.combatant.remove"] = "engagement.combatant.remove"
    combatant: Id

    def apply(self, tx: Tx) -> None:
        s = eng(tx)
        c = combatant(tx, self.combatant)
        for ex in s.open_exchanges():
            if c.id in (ex.attacker, ex.target):
                close(tx, ex, "cancelled")
        for key, pair in list(s.pairs.items()):
            if pair.has(c.id):
                dissolve(tx, s, key, "ability", "GM")
        tx.delete((*BASE, c.id))
        tx.delete((PATH, "used", c.id))
        tx.emit("engagement.combatant.removed", combatant=c.id)


GM_ACTIONS: tuple[type[ActionBase], ...] = (Link, SetRow, Cancel, AddCombatant, RemoveCombatant)
