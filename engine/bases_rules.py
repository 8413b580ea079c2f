"""Rules of the base battle (seed 000): GP, state moves, reveals, effects, conditions.

How this works: every change to a base goes through `change_gp` / `set_gp` / `move` /
`regenerate` here, which apply BASE-GP-1..3, the state table (`bases_states`) and the
reveal rules of BASE-OPT-2, and emit `bases.gp.changed` / `bases.state.changed`. The
trigger `on_happening` evaluates *edge* blocks (a happening) of every GP change condition
and event; the settler `settle` evaluates *level* blocks (states only), constant effects
and the end conditions after every action (BASE-TYPE-*). Effects run in order and pause
on a choice (BASE-CHOICE) through a prompt resumed by `resume_choice`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, get_args

from .bases_model import (
    Base,
    BasesState,
    BattleOutcome,
    ConstantEffect,
    Effect,
    Element,
    Event,
    FieldCharacter,
    GpCondition,
    SideCount,
)
from .bases_notation import (
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
from .bases_states import JA_MOVE, JA_STATUS, Move, Side, Status, effective, next_status
from .errors import CascadeTooDeep, Refusal, Text
from .views import Audience

if TYPE_CHECKING:
    from .prompts import Prompt
    from .tx import Happening, Tx

__all__ = [
    "ADVANCE",
    "CHARACTER_KINDS",
    "REPORTABLE",
    "Ctx",
    "Located",
    "ReportKind",
    "battle",
    "block_holds",
    "change_gp",
    "check_fire",
    "find_base",
    "find_element",
    "fire",
    "move",
    "on_happening",
    "regenerate",
    "resume_choice",
    "reveal_base",
    "reveal_element",
    "run_effects",
    "select",
    "set_gp",
    "settle",
    "side_of",
    "tags_hold",
]

CharSide = Literal["pc", "enemy"]
ElementField = Literal["gp_conditions", "constants", "events"]
ADVANCE: Final = "bases.round.advance"
MAX_LEVEL_FIRES: Final = 200

# roster moves: happening → (status assumed for an unknown character, new status)
ROSTER_MOVES: Final[dict[str, tuple[str, str]]] = {
    "character.entered": ("off_field", "on_field"),
    "character.incapacitated": ("on_field", "incapacitated"),
    "character.recovered": ("incapacitated", "on_field"),
    "character.left": ("on_field", "off_field"),
}
ReportKind = Literal["character.entered", "character.incapacitated", "character.recovered",
                     "character.left", "character.damaged", "timing.abandoned", "mana.spent"]
REPORTABLE: Final[tuple[str, ...]] = get_args(ReportKind)
CHARACTER_KINDS: Final = frozenset(REPORTABLE)
SIDE_JA: Final = {"pc": "PC陣営", "enemy": "エネミー陣営"}
TABLE: Final = Audience("table")

NO_BATTLE = Text("この部屋に拠点戦闘はありません。", "This room has no base battle.")
NO_BASE = Text("拠点「{id}」はありません。", "There is no base '{id}'.")
NO_ELEMENT = Text("要素「{id}」はありません。", "There is no element '{id}'.")
STOPPED_BASE = Text("拠点「{name}」は停止状態です（「停止状態でも発動する」要素ではありません）。",
                    "Base '{name}' is stopped and this element does not fire while stopped.")
EXHAUSTED = Text("イベント「{name}」は発動回数（{n}回）を使い切りました。",
                 "Event '{name}' has used all {n} activations.")
NOT_MET = Text("「{name}」の条件を満たしていません: {text}",
               "The condition of '{name}' is not met: {text}")
NOT_RUNNING = Text("拠点戦闘は進行中ではありません（第1ラウンド前か終了後）。",
                   "The base battle is not running (before round 1 or over).")
BAD_OVERRIDE = Text("拠点戦闘の値として正しくありません: {error}",
                    "Not a valid base-battle value: {error}")


# -- lookup ------------------------------------------------------------------------------


def battle(tx: Tx) -> BasesState:
    """The room's base battle, or a refusal when the room has none."""
    if tx.state.bases is None:
        raise Refusal("no_base_battle", NO_BATTLE)
    return tx.state.bases


def find_base(tx: Tx, ref: str) -> Base:
    """A base by id or name; hidden ones do not exist for non-GM senders."""
    bs = battle(tx)
    base = bs.bases.get(ref) or next((b for b in bs.bases.values() if b.name == ref), None)
    if base is None or not base.visible_to(tx.audience):
        raise Refusal("unknown_base", NO_BASE.format(id=ref))
    return base


@dataclass(frozen=True)
class Located:
    """Where an element lives: its base, list and index."""

    base: Base
    field: ElementField
    index: int

    @property
    def element(self) -> Element:
        items: Sequence[Element] = getattr(self.base, self.field)
        return items[self.index]

    @property
    def path(self) -> tuple[str | int, ...]:
        return ("bases", "bases", self.base.id, self.field, self.index)


ALL_FIELDS: Final[tuple[ElementField, ...]] = ("gp_conditions", "constants", "events")
FIRING: Final[tuple[ElementField, ...]] = ("gp_conditions", "events")


def locations_of(base: Base, fields: Sequence[ElementField] = ALL_FIELDS) -> list[Located]:
    return [Located(base, f, i) for f in fields for i in range(len(getattr(base, f)))]


def locations(bs: BasesState, fields: Sequence[ElementField] = FIRING) -> list[Located]:
    """Elements of every base, in scenario order (GP change conditions and events by default)."""
    return [loc for b in bs.bases.values() for loc in locations_of(b, fields)]


def find_element(tx: Tx, element_id: str) -> Located:
    """An element by id; hidden ones (or of hidden bases) do not exist for non-GM senders."""
    bs, who = battle(tx), tx.audience
    for loc in locations(bs, ALL_FIELDS):
        if loc.element.id == element_id:
            if loc.base.visible_to(who) and loc.element.visible_to(who):
                return loc
            break
    raise Refusal("unknown_element", NO_ELEMENT.format(id=element_id))


def _bp(base: Base) -> tuple[str, str, str]:
    return ("bases", "bases", base.id)


def _say(tx: Tx, base: Base | None, text: Text) -> None:
    """A log line, only for what the table may already see (hidden data never leaks)."""
    if base is None or base.visible_to(TABLE):
        tx.say(text)


# -- GP, states, reveals -----------------------------------------------------------------


def change_gp(tx: Tx, base: Base, delta: int) -> None:
    """BASE-GP-2 floor at 0; BASE-ST-4 a destroyed base gains no GP (only 再生)."""
    if base.state is Status.DESTROYED and delta > 0:
        return
    _write_gp(tx, base, max(0, base.gp + delta))


def set_gp(tx: Tx, base: Base, value: int) -> None:
    if base.state is Status.DESTROYED and value > base.gp:
        return  # BASE-ST-4
    _write_gp(tx, base, max(0, value))


def _write_gp(tx: Tx, base: Base, new: int) -> None:
    old = base.gp
    if new != old:
        tx.set((*_bp(base), "gp"), new)
        tx.emit("bases.gp.changed", base=base.id, old=old, new=new)
        if not base.gp_hidden:
            _say(tx, base, Text(f"拠点「{base.name}」のGP: {old} → {new}",
                                f"Base '{base.name}' GP: {old} → {new}"))
    if new == 0:
        reveal_base(tx, base, "gp")  # BASE-OPT-2: GP shows when it reaches 0
        move(tx, base, Move.DESTROY)  # BASE-GP-3 (no effect on permanent bases, BASE-ATTR-3)


def move(tx: Tx, base: Base, m: Move) -> None:
    """A state move through the table (BASE-TR-2 cancels, BASE-TR-3, BASE-ATTR-3)."""
    new = next_status(base.state, m, base.permanent)
    if new is not None:
        _set_state(tx, base, new, m)


def regenerate(tx: Tx, base: Base, gp: int, state: Status = Status.ACTIVE) -> None:
    """BASE-TR-1: only a destroyed base; GP becomes `gp`, state the named one (default 活動)."""
    if next_status(base.state, Move.REGENERATE, base.permanent) is None:
        return
    old, new = base.gp, max(0, gp)
    if new != old:
        tx.set((*_bp(base), "gp"), new)
        tx.emit("bases.gp.changed", base=base.id, old=old, new=new)
    _set_state(tx, base, state, Move.REGENERATE)


def _set_state(tx: Tx, base: Base, new: Status, via: Move) -> None:
    old = base.state
    tx.set((*_bp(base), "state"), new)
    tx.emit("bases.state.changed", base=base.id, old=old.value, new=new.value, via=via.value)
    _say(tx, base, Text(f"拠点「{base.name}」: {JA_STATUS[old]} → {JA_STATUS[new]}（{JA_MOVE[via]}）",
                        f"Base '{base.name}': {old.value} → {new.value} ({via.value})"))


def reveal_base(tx: Tx, base: Base, what: Literal["all", "base", "gp"] = "all") -> None:
    """Show a hidden base (its existence), its GP, or everything in it (BASE-OPT-2)."""
    changed = False
    if base.hidden:
        tx.set((*_bp(base), "hidden"), False)
        changed = True
    if what != "base" and base.gp_hidden:
        tx.set((*_bp(base), "gp_hidden"), False)
        changed = True
    if what == "all":
        for loc in locations_of(base):
            changed |= _unhide(tx, loc)
    if changed:
        tx.emit("bases.revealed", base=base.id, what=what)


def _unhide(tx: Tx, loc: Located) -> bool:
    if not loc.element.hidden:
        return False
    tx.set((*loc.path, "hidden"), [])
    return True


def reveal_element(tx: Tx, loc: Located) -> None:
    """An element's hidden parts show (and its base's existence), BASE-OPT-2."""
    shown = _unhide(tx, loc)
    if loc.base.hidden:
        tx.set((*_bp(loc.base), "hidden"), False)
        shown = True
    if shown:
        tx.emit("bases.revealed", base=loc.base.id, element=loc.element.id, what="element")


# -- conditions --------------------------------------------------------------------------


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


def side_of(bs: BasesState, data: Mapping[str, Any]) -> CharSide | None:
    """A happening's character side: as reported, else from the roster."""
    side = data.get("side")
    if side == "pc" or side == "enemy":
        return "pc" if side == "pc" else "enemy"
    known = bs.characters.get(str(data.get("character")))
    return known.side if known is not None else None


def _wiped(bs: BasesState, side: CharSide) -> bool:
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
        return bool(sides) and all(_wiped(ctx.bs, s) for s in sides)
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


def _match_character(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    if req.character is not None and normalize(str(h.data.get("character"))) != req.character:
        return False
    return req.who is None or side_of(ctx.bs, h.data) in sides_of(req.who, ctx.side)


def _match_state(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    old, new = str(h.data["old"]), str(h.data["new"])
    return ((req.base is None or h.data["base"] in {b.id for b in select(ctx.bs, ctx.base, req.base)})
            and (req.to is None or _rising(req.to, old, new))
            and (req.came_from is None or (old == req.came_from.value and new != old)))


def _match_gp(ctx: Ctx, req: HappeningReq, h: Happening) -> bool:
    old, new = int(h.data["old"]), int(h.data["new"])
    if req.base is not None and h.data["base"] not in {b.id for b in select(ctx.bs, ctx.base,
                                                                           req.base)}:
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


def _can_fire(element: Element, block: Block) -> bool:
    if isinstance(element, Event):
        return element.can_fire(block)
    return not (block.once and isinstance(element, GpCondition) and element.applied)


def _ready(ctx: Ctx, element: Element, block: Block) -> bool:
    assert ctx.base is not None
    return (not suppressed(ctx.base, element) and _can_fire(element, block)
            and block_holds(ctx, block))


# -- firing ------------------------------------------------------------------------------


def fire(tx: Tx, loc: Located, triggerer: str | None = None) -> None:
    """Fire an event or apply a GP change condition (counts, reveal, effects)."""
    element = loc.element
    if isinstance(element, GpCondition):
        _apply_gp_condition(tx, loc, element)
    elif isinstance(element, Event):
        _fire_event(tx, loc, element, triggerer)


def _apply_gp_condition(tx: Tx, loc: Located, element: GpCondition) -> None:
    tx.set((*loc.path, "applied"), element.applied + 1)
    reveal_element(tx, loc)  # BASE-OPT-2: a GP change condition shows when first applied
    tx.emit("bases.gp_condition.applied", base=loc.base.id, element=element.id,
            delta=element.delta)
    change_gp(tx, loc.base, element.delta)  # BASE-EL-1


def _fire_event(tx: Tx, loc: Located, event: Event, triggerer: str | None) -> None:
    tx.set((*loc.path, "fired"), event.fired + 1)
    tx.set((*loc.path, "fired_round"), event.fired_round + 1)
    if triggerer is not None:
        tx.set((*loc.path, "triggerer"), triggerer)  # BASE-COND-3 誘発者
    reveal_element(tx, loc)  # BASE-OPT-2: an event shows when first fired
    tx.emit("bases.event.fired", base=loc.base.id, element=event.id, name=event.name,
            triggerer=triggerer)
    _say(tx, loc.base, Text(f"拠点「{loc.base.name}」のイベント「{event.name}」が発動しました。",
                            f"Event '{event.name}' of base '{loc.base.name}' fired."))
    run_effects(tx, loc.base.id, event.effects, triggerer)


def check_fire(tx: Tx, loc: Located, blocks: Sequence[Block], full: bool = False) -> None:
    """Checks before a GM/active firing: running, not stopped, count left, a block holds."""
    element, base = loc.element, loc.base
    name = getattr(element, "name", element.id)
    tx.check(battle(tx).running, Refusal("battle_not_running", NOT_RUNNING))
    tx.check(not suppressed(base, element),
             Refusal("base_stopped", STOPPED_BASE.format(name=base.name), rule="BASE-ST-2"))
    if isinstance(element, Event) and element.count is not None:
        tx.check(element.fired < element.count,
                 Refusal("event_exhausted", EXHAUSTED.format(name=name, n=element.count),
                         rule="BASE-EL-1"))
    ctx = Ctx(battle(tx), base)
    holds = block_holds if full else tags_hold
    ok = any(holds(ctx, b) and _can_fire(element, b) for b in blocks)
    text = " / ".join(b.text for b in blocks)
    tx.check(ok, Refusal("condition_not_met", NOT_MET.format(name=name, text=text),
                         rule="BASE-COND-4"))


# -- effects (BASE-CHOICE) -----------------------------------------------------------------

MOVES: Final = {"stop": Move.STOP, "excite": Move.EXCITE, "calm": Move.CALM,
                "restart": Move.RESTART}


def run_effects(tx: Tx, owner_id: str | None, effects: Sequence[Effect],
                triggerer: str | None, chosen: Sequence[str] = ()) -> None:
    """Apply effects in order; stops at one that asks for a choice (resumed later)."""
    bs = battle(tx)
    for i, effect in enumerate(effects):
        owner = bs.bases.get(owner_id) if owner_id else None
        if not _apply_effect(tx, owner, effect, effects[i + 1:], triggerer, chosen):
            return
        chosen = ()


def _apply_effect(tx: Tx, owner: Base | None, effect: Effect, rest: Sequence[Effect],
                  triggerer: str | None, chosen: Sequence[str]) -> bool:
    bs = battle(tx)
    if effect.do == "message":
        text = effect.text.replace("{誘発者}", triggerer or "誘発者")
        _say(tx, owner, Text(text, text))
        return True
    if effect.do == "reveal" and effect.element is not None:
        loc = next((x for x in locations(bs, ALL_FIELDS) if x.element.id == effect.element),
                   None)
        if loc is not None:
            reveal_element(tx, loc)
        return True
    candidates = [b for b in select(bs, owner, effect.target) if b.id not in chosen]
    need = None if effect.choose is None else effect.choose - len(chosen)
    if need is not None and 0 < need < len(candidates):
        _ask_choice(tx, owner, effect, rest, triggerer, chosen, candidates)
        return False
    picked = [bs.bases[c] for c in chosen if c in bs.bases]
    for base in picked + (candidates if need is None or need > 0 else []):
        _apply_to(tx, base, effect)
    return True


def _ask_choice(tx: Tx, owner: Base | None, effect: Effect, rest: Sequence[Effect],
                triggerer: str | None, chosen: Sequence[str], candidates: list[Base]) -> None:
    """BASE-CHOICE: the players choose for a PC-side base, the GM otherwise."""
    to = effect.chooser or ("players" if owner is not None and owner.side == "pc" else "gm")
    if to == "players":
        candidates = [b for b in candidates if b.visible_to(TABLE)] or candidates
        if any(not b.visible_to(TABLE) for b in candidates):
            to = "gm"  # a choice among hidden bases is the GM's alone
    what = effect.text or effect.do
    tx.ask(to, Text(f"効果「{what}」の対象とする拠点を選んでください。",
                    f"Choose the base for the effect '{what}'."),
           "bases.choose", [(b.id, Text(b.name, b.name)) for b in candidates],
           owner=owner.id if owner else None, triggerer=triggerer, chosen=list(chosen),
           effects=[e.model_dump(mode="json") for e in (effect, *rest)])


def resume_choice(tx: Tx, prompt: Prompt, choice: str) -> None:
    """Resumer `bases.choose`: apply the paused effect to the choice, then the rest."""
    context = prompt.context
    effects = [Effect.model_validate(e) for e in context["effects"]]
    run_effects(tx, context.get("owner"), effects, context.get("triggerer"),
                [*context.get("chosen", []), choice])


def _apply_to(tx: Tx, base: Base, effect: Effect) -> None:
    if effect.do == "gp":
        change_gp(tx, base, effect.value or 0)
    elif effect.do == "set_gp":
        set_gp(tx, base, effect.value or 0)
    elif effect.do == "regenerate":
        gp = base.base_gp if effect.value is None else effect.value
        regenerate(tx, base, gp, Status(effect.state or "active"))
    elif effect.do == "reveal":
        reveal_base(tx, base, "all")
    else:
        move(tx, base, MOVES[effect.do])


# -- the trigger: happenings → edge blocks -----------------------------------------------------


def on_happening(tx: Tx, h: Happening) -> None:
    """Trigger: keep the roster, advance rounds, fire edge blocks."""
    bs = tx.state.bases
    if bs is None:
        return
    if h.kind == ADVANCE:
        _advance(tx, bs)
    elif (h.kind not in ROSTER_MOVES or _track(tx, bs, h)) and bs.running:
        _edge(tx, bs, h)


def _edge(tx: Tx, bs: BasesState, h: Happening) -> None:
    for loc in locations(bs):
        ctx, element = Ctx(bs, loc.base, h), loc.element
        if any(b.mode == "edge" and happening_matches(ctx, b, h) and _ready(ctx, element, b)
               for b in element.conditions):
            fire(tx, loc)


def _track(tx: Tx, bs: BasesState, h: Happening) -> bool:
    """Roster and counts from a happening; False when it repeats a known status."""
    name = h.data.get("character")
    known = bs.characters.get(str(name)) if name else None
    side = side_of(bs, h.data)
    assumed, new = ROSTER_MOVES[h.kind]
    prev = known.status if known is not None else assumed
    if side is None:
        return True  # cannot be counted; conditions still see it
    if prev == new:
        return False  # a repeated report changes nothing
    if name:
        tx.set(("bases", "characters", str(name)), FieldCharacter(side=side, status=new))
    count = bs.sides.get(side, SideCount())
    tx.set(("bases", "sides", side), SideCount(
        on_field=max(0, count.on_field + (new == "on_field") - (prev == "on_field")),
        incapacitated=max(0, count.incapacitated + (new == "incapacitated")
                          - (prev == "incapacitated"))))
    return True


def _advance(tx: Tx, bs: BasesState) -> None:
    """Next round: reset 【ラウンドX回】 counts, emit battle.started / round.started."""
    r = bs.round + 1
    tx.set(("bases", "round"), r)
    for loc in locations(bs, ("events",)):
        if isinstance(loc.element, Event) and loc.element.fired_round:
            tx.set((*loc.path, "fired_round"), 0)
    if r == 1:
        tx.emit("battle.started")
    tx.emit("round.started", round=r)
    tx.say(Text(f"第{r}ラウンド開始", f"Round {r} begins"))


# -- the settler: level blocks, constant effects, end conditions -----------------------------


def settle(tx: Tx) -> None:
    """After every action: constants, level-triggered elements, then the end conditions."""
    bs = tx.state.bases
    if bs is None:
        return
    if bs.running:
        _constants(tx, bs)
        _level(tx, bs)
    _end(tx, bs)


def _constants(tx: Tx, bs: BasesState) -> None:
    """Constant effects apply while a block holds (BASE-EL-1), revealed when first met."""
    for loc in locations(bs, ("constants",)):
        element, ctx = loc.element, Ctx(bs, loc.base)
        assert isinstance(element, ConstantEffect)
        auto = any(b.mode == "level" and block_holds(ctx, b) for b in element.conditions)
        on = not suppressed(loc.base, element) and (auto or element.manual_on)
        if on != element.active:
            tx.set((*loc.path, "active"), on)
            tx.emit("bases.constant.changed", base=loc.base.id, element=element.id, active=on)
            if on:
                reveal_element(tx, loc)  # BASE-OPT-2


def _unbounded(element: Element, block: Block) -> bool:
    if isinstance(element, Event):
        return element.count is None and block.per_round is None and not block.once
    return not block.once


def _level(tx: Tx, bs: BasesState) -> None:
    """Level blocks fire while they hold, as often as the counts allow (BASE-COND-2).

    With no limit at all (∞, no 【ラウンドX回】) an element fires once each time its
    block comes to hold (`latched` until it stops holding), so the rule cannot loop.
    """
    fires = 0
    for loc in locations(bs):
        while True:
            element, ctx = loc.element, Ctx(bs, loc.base)
            levels = [b for b in element.conditions if b.mode == "level"]
            block = next((b for b in levels if _ready(ctx, element, b)), None)
            if block is None or element.latched:
                if element.latched and not any(block_holds(ctx, b) for b in levels):
                    tx.set((*loc.path, "latched"), False)
                break
            fires += 1
            if fires > MAX_LEVEL_FIRES:
                raise CascadeTooDeep("cascade_too_deep", Text(
                    "拠点の要素が発動し続けています。", "Base elements keep firing."))
            fire(tx, loc)
            if _unbounded(element, block):
                tx.set((*loc.path, "latched"), True)
                break


def _end(tx: Tx, bs: BasesState) -> None:
    """End conditions of the battle type (BASE-TYPE-1..5, BASE-ATTR-2)."""
    if bs.outcome is not None or bs.round < 1:
        return
    found = _core_ends(bs) + _wipe_ends(bs) + _custom_ends(bs)
    if not found:
        return
    losers = sorted({side for sides, _, _ in found for side in sides})
    rules = list(dict.fromkeys(rule for _, rule, _ in found))
    ja = "／".join(text.ja for _, _, text in found)
    en = " / ".join(text.en for _, _, text in found)
    outcome = BattleOutcome(losers=losers, rule=", ".join(rules), ja=f"戦闘終了: {ja}",
                            en=f"Battle over: {en}")
    tx.set(("bases", "outcome"), outcome)
    tx.emit("bases.battle.ended", losers=losers, rule=outcome.rule)
    tx.say(Text(outcome.ja, outcome.en))


End = tuple[list[CharSide], str, Text]


def _core_ends(bs: BasesState) -> list[End]:
    rule = "BASE-ATTR-2" if bs.battle.key == "general" else bs.battle.rule
    out: list[End] = []
    for side in bs.battle.core_defeat:
        cores = [b for b in bs.bases.values() if b.side == side and b.core]
        if cores and all(Status.STOPPED in effective(b.state) for b in cores):
            out.append(([side], rule, Text(f"{SIDE_JA[side]}のコア拠点がすべて停止",
                                           f"every {side} core base is stopped")))
    return out


def _wipe_ends(bs: BasesState) -> list[End]:
    return [([side], bs.battle.rule, Text(f"{SIDE_JA[side]}が全員戦闘不能",
                                          f"every {side} character is incapacitated"))
            for side in bs.battle.wipe_defeat if _wiped(bs, side)]


def _custom_ends(bs: BasesState) -> list[End]:
    ctx = Ctx(bs, None)
    return [(list(end.losers), "BASE-TYPE-5", Text(end.condition.text, end.condition.text))
            for end in bs.battle.ends
            if end.condition.mode == "level" and block_holds(ctx, end.condition)]

