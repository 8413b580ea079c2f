"""What the GM's roll ledger is told of a roll a bridge delivered (`RollSeen`): the line,
who spoke, and the PC and player it is credited to — the same for every subsystem.

`chat_roll` is the generic reading of a chat event (the bridges forward only chat that
looks like dice); a translation that knows better (a native roll's formula and faces, an
alias matched to one PC) builds its own with `seen_roll` and sets `EventResult.roll`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.errors import Text
from .base import RollSeen
from .events import resolve_user
from .geometry import AdapterSettings
from .objects import Objects, TableObject
from .projection import as_dict
from .render import OWNER_FIELD

__all__ = ["ALIAS_CREDITED", "ROLLERS", "chat_roll", "credit_alias", "seen_roll"]

#: Object kinds whose speaker can roll a check (as the Ccfolia bridge's `ROLLERS`).
ROLLERS = frozenset({"pc", "piece"})

ALIAS_CREDITED = Text("発言者「{alias}」はどの駒でもないため、{player}の唯一の駒「{pc}」のロールとしました",
                      "speaker '{alias}' is no piece, so the roll is credited to {player}'s only "
                      "piece '{pc}'")


def credit_alias(event: dict[str, Any], tree: Mapping[str, Any], objs: Objects,
                 settings: AdapterSettings) -> dict[str, Any]:
    """A chat event whose speaker is only an alias naming no piece (`speaker.alias_only`: a
    Foundry BCDice module speaking as the game system, a roll with no token), spoken by the
    one rolling piece its player owns; any other event as it came."""
    speaker = as_dict(event.get("speaker"))
    if speaker.get("alias_only") is not True or speaker.get("id") or speaker_piece(objs, speaker):
        return event
    _known, by, _label = resolve_user(event.get("user"), tree, settings.users)
    owned = [(oid, o) for oid, o in objs.items() if by is not None and o["kind"] in ROLLERS
             and o.get(OWNER_FIELD.get(o["kind"], "owner")) == by]
    if len(owned) != 1:
        return event
    oid, piece = owned[0]
    alias = str(speaker.get("name") or "?")
    return {**event, "speaker": {"id": oid, "name": piece["name"], "alias": alias}}


def chat_roll(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects,
              settings: AdapterSettings) -> RollSeen:
    """A chat event's roll: the dice line(s) the bridge picked out, else the whole text;
    a VTT's own roll (`rolls`, adapters/dice_events.py) also with its formula and faces."""
    text = str(event.get("roll") or event.get("text") or "")
    native = [r for r in event.get("rolls") or () if isinstance(r, Mapping)][:1]
    if not native:
        return seen_roll(event, tree, objs, settings, text=text)
    roll = native[0]
    dice = [{"faces": t.get("faces"), "results": [r.get("result") for r in t.get("results") or ()
                                                   if isinstance(r, Mapping)]}
            for t in roll.get("terms") or () if isinstance(t, Mapping) and t.get("type") == "die"]
    total = roll.get("total")
    return seen_roll(event, tree, objs, settings, text=text, formula=str(roll.get("formula", ""))[:200],
                     dice=dice[:40], total=total if isinstance(total, int | float) else None)


def seen_roll(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects,
              settings: AdapterSettings, *, text: str = "", formula: str | None = None,
              dice: list[dict[str, Any]] | None = None, total: float | None = None,
              pc: TableObject | None = None, note: Text | None = None) -> RollSeen:
    """A `RollSeen` with the speaker, credited PC (`pc`, else the speaker's own piece)
    and player filled in from the event."""
    speaker = as_dict(event.get("speaker"))
    name = str(speaker.get("alias") or speaker.get("name") or "")
    credited = pc if pc is not None else speaker_piece(objs, speaker)
    _known, by, _label = resolve_user(event.get("user"), tree, settings.users)
    players = as_dict(as_dict(tree.get("meta")).get("players"))
    player_name = str(as_dict(players.get(by)).get("name") or by) if by else None
    if note is None and credited is not None and speaker.get("alias") and player_name:
        note = ALIAS_CREDITED.format(alias=speaker["alias"], player=player_name, pc=credited["name"])
    return RollSeen(text=text[:2000], speaker=name[:100],
                    pc=credited["ref"] if credited else None,
                    pc_name=str(credited["name"]) if credited else None,
                    player=by, player_name=player_name, formula=formula,
                    dice=list(dice or []), total=total, note=note)


def speaker_piece(objs: Objects, speaker: Mapping[str, Any]) -> TableObject | None:
    """The rolling piece the speaker is: by its stable id, else the only one of that name."""
    sid, name = speaker.get("id"), speaker.get("name")
    if isinstance(sid, str) and objs.get(sid, {}).get("kind") in ROLLERS:
        return objs[sid]
    named = [o for o in objs.values() if o["kind"] in ROLLERS and name and o["name"] == name]
    return named[0] if len(named) == 1 else None
