"""Platform events → engine actions: who acts, and which subsystem makes the action.

`translate_event` finds who acts (`resolve_user`), then hands a dropped object to the
subsystem that lets players move that kind by hand (`TableSubsystem.moves`) and a chat
line to chat.py, or says in both languages why there is no action. The engine stays the
judge: what is translated here may still be refused there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import EventResult
from .chat import chat_event
from .geometry import AdapterSettings, Geometry
from .objects import Drop, Legal, Objects, TableObject
from .projection import as_dict
from .replies import (
    IGN_ENGINE_MOVES,
    IGN_NO_POSITION,
    IGN_UNKNOWN_EVENT,
    IGN_UNKNOWN_OBJECT,
    IGN_USER,
    ignored,
)
from .subsystems import SUBSYSTEMS

__all__ = ["MOVES", "legal_drop", "resolve_user", "translate_event", "user_id"]

#: Kinds a player may drop by hand → the subsystem hook that makes the action.
MOVES = {kind: hook for s in SUBSYSTEMS for kind, hook in s.moves.items()}


def translate_event(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects,
                    geo: Geometry, settings: AdapterSettings) -> EventResult:
    """A bridge's event as an engine action (see docs/adapters.md, "Events")."""
    kind = event.get("kind")
    known, by, label = resolve_user(event.get("user"), tree, settings.users)
    if kind == "move":
        return _move(event, tree, objs, geo, settings, known, by, label)
    if kind == "chat":
        return chat_event(event, tree, objs, known, by, label)
    return ignored(IGN_UNKNOWN_EVENT.format(kind=str(kind)[:40]))


def resolve_user(user: Any, tree: Mapping[str, Any],
                 users: Mapping[str, str]) -> tuple[bool, str | None, str]:
    """Who acts on the table: (known, komasync player or None for the GM, label).

    In order: the `users` setting (platform user id, then name; value a player id or
    `gm`); a user the platform says is a GM; a komasync player whose id or name equals
    the platform user's id or name. Anything else is unknown (the event is refused).
    """
    u = as_dict(user)
    uid, name = str(u.get("id") or ""), str(u.get("name") or "")
    label = name or uid or "?"
    for key in (uid, name):
        if key and key in users:
            who = users[key]
            return True, (None if who == "gm" else who), label
    if u.get("gm") is True:
        return True, None, label
    players = as_dict(as_dict(tree.get("meta")).get("players"))
    for pid, info in players.items():
        pname = str(as_dict(info).get("name", ""))
        if pid in (uid, name) or (pname and pname in (uid, name)):
            return True, pid, label
    return False, None, label


def user_id(event: Mapping[str, Any]) -> str | None:
    """The platform id of the user who sent `event` (whom a refusal is whispered to)."""
    uid = as_dict(event.get("user")).get("id")
    return str(uid) if isinstance(uid, str | int) and not isinstance(uid, bool) and uid != "" else None


def _move(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects, geo: Geometry,
          settings: AdapterSettings, known: bool, by: str | None, label: str) -> EventResult:
    """An object dropped: its subsystem's action, if players may move that kind by hand."""
    oid = str(event.get("id", ""))
    obj = objs.get(oid)
    if obj is None:
        return ignored(IGN_UNKNOWN_OBJECT.format(id=oid[:64]))
    x, y = event.get("x"), event.get("y")
    if not isinstance(x, int | float) or not isinstance(y, int | float) or isinstance(
            x, bool) or isinstance(y, bool):
        return ignored(IGN_NO_POSITION)
    hook = MOVES.get(obj["kind"])
    if hook is None:
        return ignored(IGN_ENGINE_MOVES.format(name=obj["name"]))
    if not known:
        return ignored(IGN_USER.format(user=label))
    return hook(Drop(oid, obj, float(x), float(y), tree, objs, geo, settings, by))


def legal_drop(o: TableObject, objs: Objects, tree: Mapping[str, Any]) -> Legal | None:
    """Where `o` may be dropped, from the first subsystem with an opinion (None: none has)."""
    for subsystem in SUBSYSTEMS:
        if subsystem.legal is not None:
            found = subsystem.legal(o, objs, tree)
            if found is not None:
                return found
    return None
