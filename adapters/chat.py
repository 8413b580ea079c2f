"""A chat line (a BCDice result, say) → the action a subsystem makes of it.

The line is offered to each subsystem with a `chat` hook, in registry order: the first
action made wins; else the first subsystem's reason is told; a line no subsystem takes
is ignored with a plain reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import EventResult
from .objects import Chat, Objects
from .replies import IGN_NO_TAKER, ignored
from .subsystems import SUBSYSTEMS

__all__ = ["chat_event"]


def chat_event(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects, known: bool,
               by: str | None, label: str) -> EventResult:
    """A chat line as the first action a subsystem makes of it, or why there is none."""
    line = Chat(event, tree, objs, known, by, label)
    reason: EventResult | None = None
    for subsystem in SUBSYSTEMS:
        result = subsystem.chat(line) if subsystem.chat is not None else None
        if result is not None and result.action is not None:
            return result
        reason = reason or result
    return reason or ignored(IGN_NO_TAKER)
