"""Evaluation of condition blocks against the battle (BASE-COND-*, BASE-ST-2).

How this works: a `Ctx` is what a block is read against — the battle, the element's base
(味方/敵 and この拠点 are relative to it) and, for edge blocks, the happening. `block_holds`
checks tags and state predicates (AND, BASE-COND-4); `happening_matches` checks that a
happening is the one an edge block waits for. `ready` adds what the element allows: not
silenced by a stop (BASE-ST-2) and activations left (BASE-EL-1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .blocks import (
    CHARACTER_KINDS,
    Block,
    CountPred,
    FiredPred,
    GpPred,
    HappeningReq,
    Predicate,
    RoundPred,
    StatePred,
    Target,
    WipedPred,
    compare,
    normalize,
    sides_of,
)
from .lookup import side_of
from .model import Base, BasesState, Element, Event, GpCondition, SideCount
from .states import CharSide, Side, Status, effective

if TYPE_CHECKING:
    from ..tx import Happening

__all__ = [
    "Ctx",
    "block_holds",
    "can_fire",
    "happening_matches",
    "pred_holds",
    "ready",
    "select",
    "suppressed",
    "tags_hold",
    "wiped",
]


@dataclass(frozen=True)
class Ctx:
    """What a condition is evaluated against: the battle, the element's base, a happening."""

    bs: BasesState
    base: Base | None
    happening: Happening | None = None

    @property
    def side(self) -> Side:
        return self.base.side if self.base is not None else "none"


def _side_ok(want: str, side: Side, owner: Base | None) -> bool:
    if want == "any" or want == side:
        return True
    if want not in ("ally", "foe") or owner is None or owner.side == "none":
        return False
    return side == owner.side if want == "ally" else side not in (owner.side, "none")


def select(bs: BasesState, owner: Base | None, target: Target) -> list[Base]:
    """The bases a target names, in scenario order (BASE-ATTR-1: by attribute too)."""
    if target.is_this:
        return [owner] if owner is not None else []
    return [b for b in bs.bases.values()
            if (target.name is None or target.name in (b.id, b.name))
            and not (target.others and owner is not None and b.id == owner.id)
            and (target.side is None or _side_ok(target.side, b.side, owner))
            and (target.attribute is None or target.attribute in b.attributes)
            and (target.without is None or target.without not in b.attributes)]


def wiped(bs: BasesState, side: CharSide) -> bool:
    """Every character of the side is incapacitated: some are, none is on the field."""
    count = bs.sides.get(side, SideCount())
    return count.incapacitated > 0 and count.on_field == 0


def _subject_on_field(ctx: Ctx, sides: Sequence[CharSide]) -> int:
    """1 if the happening's character is counted on the field among `sides` (他の…)."""
    h = ctx.happening
    if h is None or h.kind not in CHARACTER_KINDS or side_of(ctx.bs, h.data) not in sides:
        return 0
    known = ctx.bs.characters.get(str(h.data.get("character")))
    if known is not None:
        return int(known.status == "on_field")
    return int(h.kind not in ("character.incapacitated", "character.left"))


def _count(ctx: Ctx, p: CountPred) -> bool:
    sides = sides_of(p.who, ctx.side)
    value = sum(getattr(ctx.bs.sides.get(s, SideCount()), p.what) for s in sides)
    if p.others:
        value -= _subject_on_field(ctx, sides)
    return bool(sides) and compare(p.op, value, p.n)


def _state_pred(ctx: Ctx, p: StatePred) -> bool:
    hits = [p.state in effective(b.state) for b in select(ctx.bs, ctx.base, p.base)]
    return bool(hits) and (all(hits) if p.quant == "all" else any(hits))


def _fired(ctx: Ctx, p: FiredPred) -> bool:
    events = [e for b in ([ctx.base] if ctx.base else []) + list(ctx.bs.bases.values())
              for e in b.events if e.name == p.name]
    return bool(events) and compare(p.op, events[0].fired, p.n)


def pred_holds(ctx: Ctx, p: Predicate) -> bool:
    """A state predicate of the vocabulary (BASE-COND-5)."""
    if isinstance(p, CountPred):
        return _count(ctx, p)
    if isinstance(p, WipedPred):
        sides = sides_of(p.who, ctx.side)
        return bool(sides) and all(wiped(ctx.bs, s) for s in sides)
    if isinstance(p, GpPred):
        bases = select(ctx.bs, ctx.base, p.base)
        return bool(bases) and all(compare(p.op, b.gp, p.n) for b in bases)
    if isinstance(p, StatePred):
        return _state_pred(ctx, p)
    if isinstance(p, RoundPred):
        return compare(p.op, ctx.bs.round, p.n)
    return _fired(ctx, p)


def tags_hold(ctx: Ctx, block: Block) -> bool:
    """【励起】【停止】【撃破】 (撃破 counts as 停止, BASE-ST-4) and 【Nラウンド〜】."""
    states = effective(ctx.base.state) if ctx.base is not None else frozenset()
    return (all(s in states for s in block.state)
            and (block.from_round is None or ctx.bs.round >= block.from_round))


def block_holds(ctx: Ctx, block: Block) -> bool:
    """Tags and every predicate of one block (AND, BASE-COND-4)."""
    return tags_hold(ctx, block) and all(pred_holds(ctx, p) for p in block.predicates)


def _rising(state: Status, old: str, new: str) -> bool:
    """The base *became* `state` (【○○化】, 〜が停止した時); 撃破 also becomes 停止."""
    return state in effective(Status(new)) and state not in effective(Status(old))


def _names_base(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    """The happening's base is one the requirement names (any base when it names none)."""
    return req.base is None or h.data["base"] in {b.id for b in select(ctx.bs, ctx.base, req.base)}


def _match_character(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    if req.character is not None and normalize(str(h.data.get("character"))) != req.character:
        return False
    return req.who is None or side_of(ctx.bs, h.data) in sides_of(req.who, ctx.side)


def _match_state(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    old, new = str(h.data["old"]), str(h.data["new"])
    return (_names_base(ctx, req, h)
            and (req.to is None or _rising(req.to, old, new))
            and (req.came_from is None or (old == req.came_from.value and new != old)))


def _match_gp(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    old, new = int(h.data["old"]), int(h.data["new"])
    if not _names_base(ctx, req, h):
        return False
    if req.sign is not None:
        return (new - old) * req.sign > 0
    if req.op is None or req.n is None:
        return True
    return compare(req.op, new, req.n) and not compare(req.op, old, req.n)


_MATCHERS: Final[dict[str, Callable[[Ctx, HappeningReq, Happening], bool]]] = {
    **{kind: _match_character for kind in CHARACTER_KINDS},
    "bases.state.changed": _match_state,
    "bases.gp.changed": _match_gp,
    "bases.event.fired": lambda ctx, req, h: req.name in (h.data.get("name"),
                                                          h.data.get("element")),
}


def happening_matches(ctx: Ctx, block: Block, h: Happening) -> bool:
    """Whether `h` is the happening an edge block waits for (incl. 【○○化】)."""
    if block.becomes:
        return (h.kind == "bases.state.changed" and ctx.base is not None
                and h.data.get("base") == ctx.base.id
                and all(_rising(s, str(h.data["old"]), str(h.data["new"])) for s in block.becomes))
    req = block.happening
    if req is None or req.kind != h.kind:
        return False
    matcher = _MATCHERS.get(h.kind)
    return matcher is None or matcher(ctx, req, h)


def suppressed(base: Base, element: Element) -> bool:
    """BASE-ST-2 / BASE-ST-4: stopped (or destroyed) bases fire nothing not exempt."""
    return Status.STOPPED in effective(base.state) and not element.exempt


def can_fire(element: Element, block: Block) -> bool:
    """Activations left for this block (BASE-EL-1 count, 【ラウンドX回】, はじめて… once)."""
    if isinstance(element, Event):
        return element.can_fire(block)
    return not (block.once and isinstance(element, GpCondition) and element.applied)


def ready(ctx: Ctx, element: Element, block: Block) -> bool:
    """The element may fire by this block now: not silenced, activations left, block holds."""
    assert ctx.base is not None
    return (not suppressed(ctx.base, element) and can_fire(element, block)
            and block_holds(ctx, block))
