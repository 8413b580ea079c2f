"""A BCDice result spoken by a PC in chat → `td.attack` (or `td.melee` / `td.special`).

The PC is the speaker; the weapon is named in the message, or the one whose skill value
is the check's target; the group is named by its id, or by the fort or direction it
stands at, or is the only group at the PC's fort / on the board (TD-ATK-2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..engine.bcdice import CocCheck, parse_message
from .base import EventResult
from .projection import as_dict
from .render import Objects, TableObject, stable_id
from .replies import (
    IGN_NO_PC,
    IGN_NO_TD,
    IGN_TARGET,
    IGN_USER,
    IGN_WEAPON,
    accepted,
    ignored,
    unread_roll,
)

__all__ = ["SPECIAL_WORDS", "chat_event"]

#: Words that ask for a weapon's special ammunition, besides its own name.
SPECIAL_WORDS = ("special", "特殊", "特殊弾", "グレネード")
#: Weapon kinds that take one check, not one per shot (TD-DATA).
ONE_CHECK = {"melee": "td.melee", "eye": "td.special"}

_SPLIT = re.compile(r"[\s　,、。;；:：@＠→>＞<＜=＝()（）\[\]［］「」『』【】/／]+")


def chat_event(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects, known: bool,
               by: str | None, label: str) -> EventResult:
    """A chat line as an attack by the speaking PC, or why it is none."""
    if not isinstance(tree.get("tower_defense"), dict):
        return ignored(IGN_NO_TD)
    text = str(event.get("text") or "")
    results = parse_message(str(event.get("roll") or text))
    checks = [r for r in results if isinstance(r, CocCheck)]
    lines = [r.raw for r in checks
             if r.kind == "check" and r.level is not None and r.target is not None]
    if not lines:
        return unread_roll(results)
    target = checks[0].target
    speaker = as_dict(event.get("speaker"))
    pc = _speaker_pc(objs, speaker)
    if pc is None:
        name = str(speaker.get("name") or speaker.get("id") or "?")
        return ignored(IGN_NO_PC.format(name=name[:40]))
    if not known:
        return ignored(IGN_USER.format(user=label))
    words = _words(text)
    weapon = _pick_weapon(pc, words, target)
    if weapon is None:
        return ignored(IGN_WEAPON.format(target=target))
    group = _pick_group(objs, pc, words)
    if group is None:
        example = next((o["ref"] for o in objs.values() if o["kind"] == "group"), "r1-north")
        return ignored(IGN_TARGET.format(example=f"CC<=50 {example}"))
    context = {"pc": pc["ref"], "weapon": weapon["id"], "group": group["ref"]}
    return accepted(_attack(pc, weapon, group, lines, words), by, context)


def _attack(pc: TableObject, weapon: dict[str, Any], group: TableObject, lines: list[str],
            words: set[str]) -> dict[str, Any]:
    """The action: one check for a melee weapon or the evil eye, every shot's otherwise."""
    action: dict[str, Any] = {"kind": ONE_CHECK.get(weapon["kind"], "td.attack"),
                              "pc": pc["ref"], "weapon": weapon["id"], "group": group["ref"]}
    if weapon["kind"] in ONE_CHECK:
        action["result"] = lines[0]
        return action
    action["results"] = lines
    if weapon["special_name"] and any(w in words for w in (weapon["special_name"], *SPECIAL_WORDS)):
        action["ammo"] = "special"
    return action


def _words(text: str) -> set[str]:
    return {w for w in _SPLIT.split(text) if w}


def _speaker_pc(objs: Objects, speaker: Mapping[str, Any]) -> TableObject | None:
    """The PC piece speaking: by its stable id, else the only PC of that name."""
    sid, name = speaker.get("id"), speaker.get("name")
    if isinstance(sid, str) and objs.get(sid, {}).get("kind") == "pc":
        return objs[sid]
    pcs = [o for o in objs.values() if o["kind"] == "pc" and name and o["name"] == name]
    return pcs[0] if len(pcs) == 1 else None


def _pick_weapon(pc: TableObject, words: set[str], target: int | None) -> dict[str, Any] | None:
    """The one weapon named, else the one whose skill value is the target, else the only one."""
    weapons: list[dict[str, Any]] = pc["weapons"]
    named = [w for w in weapons if w["id"] in words or w["name"] in words]
    if len(named) == 1:
        return named[0]
    by_skill = [w for w in weapons if target is not None and pc["skills"].get(w["skill"]) == target]
    if len(by_skill) == 1:
        return by_skill[0]
    return weapons[0] if len(weapons) == 1 else None


def _one(found: Iterable[TableObject]) -> TableObject | None:
    found = list(found)
    return found[0] if len(found) == 1 else None


def _pick_group(objs: Objects, pc: TableObject, words: set[str]) -> TableObject | None:
    """The one group the words name (id, name, its fort, its direction), else the only
    group at the PC's fort, else the only group on the board."""
    groups = [o for o in objs.values() if o["kind"] == "group"]

    def by_id(g: TableObject) -> bool:
        return g["ref"] in words or stable_id(g["kind"], g["ref"]) in words

    def by_name(g: TableObject) -> bool:
        return g["name"] in words

    def by_fort(g: TableObject) -> bool:
        return not g["waiting"] and g["fort"] is not None and (
            g["fort"] in words or _name_of(objs, "fort", g["fort"]) in words)

    def by_direction(g: TableObject) -> bool:
        return g["fort"] is None and (g["direction"] in words or _name_of(
            objs, "direction", g["direction"]) in words)

    for test in (by_id, by_name, by_fort, by_direction):
        hit = _one(g for g in groups if test(g))
        if hit is not None:
            return hit
    here = [g for g in groups if pc["fort"] and g["fort"] == pc["fort"] and not g["waiting"]]
    return _one(here) or _one(groups)


def _name_of(objs: Objects, kind: str, ref: Any) -> str | None:
    if not isinstance(ref, str):
        return None
    o = objs.get(stable_id(kind, ref))
    return str(o["name"]) if o else None
