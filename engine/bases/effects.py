"""Effects of base elements: targets, GP and state changes, reveals, choices (BASE-CHOICE).

How this works: `run_effects` applies an element's structured effects in order. An effect
names its bases by `target` (relative to the owner base, `eval.select`); with
`choose: N` and more candidates than N, it asks the players (PC-side owner) or the GM and
stops. The prompt carries the rest of the effects; `resume_choice` (resumer
`bases.choose`) continues with the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from ..errors import Text
from .eval import select
from .gp import change_gp, regenerate, set_gp
from .lookup import TABLE, battle, element_by_id, say
from .model import Base, Effect
from .moves import move
from .reveal import reveal_base, reveal_element
from .states import Move, Status

if TYPE_CHECKING:
    from ..prompts import Prompt
    from ..tx import Tx

__all__ = ["EFFECT_MOVES", "resume_choice", "run_effects"]

EFFECT_MOVES: Final = {"stop": Move.STOP, "excite": Move.EXCITE, "calm": Move.CALM,
                       "restart": Move.RESTART}


def run_effects(tx: Tx, owner_id: str | None, effects: Sequence[Effect],
                triggerer: str | None, chosen: Sequence[str] = (), *,
                element: str | None = None) -> None:
    """Apply effects in order; stops at one that asks for a choice (resumed later).
    `element`: the event the effects are of (None for the GM's `bases.effect`)."""
    bs = battle(tx)
    for i, effect in enumerate(effects):
        owner = bs.bases.get(owner_id) if owner_id else None
        if not _apply_effect(tx, owner, effect, effects[i + 1:], Source(triggerer, element),
                             chosen):
            return
        chosen = ()


def resume_choice(tx: Tx, prompt: Prompt, choice: str) -> None:
    """Resumer `bases.choose`: apply the paused effect to the choice, then the rest."""
    context = prompt.context
    effects = [Effect.model_validate(e) for e in context["effects"]]
    run_effects(tx, context.get("owner"), effects, context.get("triggerer"),
                [*context.get("chosen", []), choice], element=context.get("element"))


class Source(NamedTuple):
    """Whose effects these are: the trigger-er (BASE-COND-3) and the event, if any."""

    triggerer: str | None
    element: str | None


def _apply_effect(tx: Tx, owner: Base | None, effect: Effect, rest: Sequence[Effect],
                  source: Source, chosen: Sequence[str]) -> bool:
    """One effect; False when it asked for a choice and the rest must wait."""
    bs, triggerer = battle(tx), source.triggerer
    if effect.do == "message":
        text = effect.text.replace("{誘発者}", triggerer or "誘発者")
        say(tx, owner, Text(text, text))
        return True
    if effect.do == "reveal" and effect.element is not None:
        loc = element_by_id(bs, effect.element)
        if loc is not None:
            reveal_element(tx, loc)
        return True
    candidates = [b for b in select(bs, owner, effect.target) if b.id not in chosen]
    need = None if effect.choose is None else effect.choose - len(chosen)
    if need is not None and 0 < need < len(candidates):
        _ask_choice(tx, owner, effect, rest, source, chosen, candidates)
        return False
    picked = [bs.bases[c] for c in chosen if c in bs.bases]
    for base in picked + (candidates if need is None or need > 0 else []):
        _apply_to(tx, base, effect)
    return True


def _ask_choice(tx: Tx, owner: Base | None, effect: Effect, rest: Sequence[Effect],
                source: Source, chosen: Sequence[str], candidates: list[Base]) -> None:
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
           kind="bases.choose", about=_choice_about(tx, to, owner, source.element),
           owner=owner.id if owner else None, triggerer=source.triggerer, chosen=list(chosen),
           element=source.element, effects=[e.model_dump(mode="json") for e in (effect, *rest)])


def _choice_about(tx: Tx, to: str, owner: Base | None, element: str | None) -> dict[str, str]:
    """The choice prompt's `about`: the base whose effect it is and its event, as far as
    the players may see them (the GM sees all, BASE-OPT-2)."""
    about: dict[str, str] = {}
    if owner is not None and (to == "gm" or owner.visible_to(TABLE)):
        about["base"] = owner.id
        loc = element_by_id(battle(tx), element) if element else None
        if loc is not None and (to == "gm" or loc.element.visible_to(TABLE)):
            about["element"] = loc.element.id
    return about


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
        move(tx, base, EFFECT_MOVES[effect.do])
