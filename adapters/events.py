"""Platform events → engine actions: who acts, a dropped piece, the forts a PC may reach.

`translate_event` makes the engine action (`table.move`, `td.move`, `td.pc.place`, or
from a chat line `td.attack` …, see chat.py) or says in both languages why it makes none.
The engine stays the judge: what is translated here may still be refused there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..engine.errors import Text
from .base import EventResult
from .chat import chat_event
from .geometry import AdapterSettings, Geometry
from .projection import as_dict
from .render import Objects, TableObject
from .replies import (
    IGN_ENGINE_MOVES,
    IGN_NO_POSITION,
    IGN_NOT_A_FORT,
    IGN_SAME_FORT,
    IGN_UNKNOWN_EVENT,
    IGN_UNKNOWN_OBJECT,
    IGN_USER,
    accepted,
    ignored,
)

__all__ = [
    "VETO_ACTED",
    "VETO_ADJACENT",
    "VETO_ENGINE",
    "VETO_PHASE",
    "legal_forts",
    "resolve_user",
    "translate_event",
    "user_id",
]

VETO_ENGINE = Text("敵はルールに従って自動で動きます（TD-ADV-1）。",
                   "Enemies move by the rules, on their own (TD-ADV-1).")
VETO_PHASE = Text("PCが砦を移るのは開始前の配置とPC攻撃フェイズだけです（TD-ATK-1）。",
                  "PCs change forts only while placing before round 1 and in the PC attack "
                  "phase (TD-ATK-1).")
VETO_ACTED = Text("このPCはこのフェイズにもう行動しました（TD-ATK-3）。",
                  "This PC has already acted this phase (TD-ATK-3).")
VETO_ADJACENT = Text("通路でつながった隣の砦にだけ移動できます（TD-ATK-1）。",
                     "A PC moves along one passage to an adjacent fort (TD-ATK-1).")


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
    """A piece dropped: a generic piece → `table.move`; a PC on a fort → `td.move`/`td.pc.place`."""
    oid = str(event.get("id", ""))
    obj = objs.get(oid)
    if obj is None:
        return ignored(IGN_UNKNOWN_OBJECT.format(id=oid[:64]))
    x, y = event.get("x"), event.get("y")
    if not isinstance(x, int | float) or not isinstance(y, int | float) or isinstance(
            x, bool) or isinstance(y, bool):
        return ignored(IGN_NO_POSITION)
    if obj["kind"] not in ("piece", "pc"):
        return ignored(IGN_ENGINE_MOVES.format(name=obj["name"]))
    if not known:
        return ignored(IGN_USER.format(user=label))
    context = {"object": oid, "kind": obj["kind"]}
    if obj["kind"] == "piece":
        action = {"kind": "table.move", "piece": obj["ref"], "to": geo.cell_at(float(x), float(y))}
        return accepted(action, by, context)
    fort = _nearest_fort(objs, geo.square(float(x), float(y)), settings.drop_radius)
    if fort is None:
        return ignored(IGN_NOT_A_FORT)
    if fort["ref"] == obj["fort"]:
        return ignored(IGN_SAME_FORT.format(name=obj["name"], fort=fort["name"]))
    return accepted(_pc_to_fort(tree, obj["ref"], fort["ref"]), by,
                    {**context, "fort": fort["ref"]})


def _pc_to_fort(tree: Mapping[str, Any], pc: str, fort: str) -> dict[str, Any]:
    if as_dict(tree.get("tower_defense")).get("phase") == "setup":  # TD-PRE-1 the starting fort
        return {"kind": "td.pc.place", "pc": pc, "fort": fort}
    # TD-ATK-1 move along one passage (the engine checks adjacency and phase)
    return {"kind": "td.move", "pc": pc, "to": fort}


def _nearest_fort(objs: Objects, at: tuple[float, float], radius: float) -> TableObject | None:
    """The fort whose square is nearest the dropped piece's centre, within `radius`."""
    cx, cy = at[0] + 0.5, at[1] + 0.5
    best: tuple[float, str] | None = None
    for oid, o in objs.items():
        if o["kind"] != "fort" or o.get("cell") is None:
            continue
        d = math.hypot(o["cell"]["x"] + 0.5 - cx, o["cell"]["y"] + 0.5 - cy)
        if d <= radius and (best is None or (d, oid) < best):
            best = (d, oid)
    return objs[best[1]] if best else None


def legal_forts(tree: Mapping[str, Any], pc_id: str) -> tuple[list[str], Text]:
    """The forts a PC's next drop may land on, and what to say about any other."""
    td = as_dict(tree.get("tower_defense"))
    pc = as_dict(as_dict(td.get("pcs")).get(pc_id))
    forts = list(as_dict(td.get("forts")))
    here = pc.get("fort")
    if td.get("outcome", "none") != "none":
        return [], VETO_PHASE
    if td.get("phase") == "setup":  # TD-PRE-1
        return forts, VETO_PHASE
    if td.get("phase") != "pc_attack":
        return [], VETO_PHASE
    if pc.get("acted"):  # TD-ATK-3: no move after acting
        return [], VETO_ACTED
    joined = {str(p.get("inner")) if p.get("outer") == here else str(p.get("outer"))
              for p in map(as_dict, as_dict(td.get("passages")).values())
              if here in (p.get("outer"), p.get("inner"))}
    return [f for f in forts if f in joined or f == here], VETO_ADJACENT
