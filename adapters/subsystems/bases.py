"""Base battles on a VTT (seed 000): each base's GP and state, on the komasync board.

Bases stand on no square: the board shows the battle's round and result, each base's
GP as a bar (BASE-GP-1) and its state (BASE-ST-1). Hidden things (a GP under
BASE-OPT-2) are not in the projection, so they never appear: a base without `gp`
shows `?`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..objects import Board, Objects, TableObject, TableSubsystem, bi, each, object_id
from ..projection import as_dict, as_int, entries

__all__ = ["BASES_ID", "BASE_STATES", "SUBSYSTEM"]

#: The base battle's summary object (round, outcome).
BASES_ID = "ks-bases"
#: BASE-ST-1 base states.
BASE_STATES: dict[str, tuple[str, str]] = {
    "active": ("活動", "active"), "stopped": ("停止", "stopped"),
    "excited": ("励起", "excited"), "destroyed": ("撃破", "destroyed"),
}


def render(tree: Mapping[str, Any], objs: Objects) -> None:
    """Each base's GP (a counter on the table) and state (BASE-GP-1, BASE-ST-1).

    Read defensively: a base without `gp` (GP hidden, BASE-OPT-2) shows `?`.
    """
    bs = tree.get("bases")
    if not isinstance(bs, dict):
        return
    battle, outcome = as_dict(bs.get("battle")), as_dict(bs.get("outcome"))
    objs[BASES_ID] = {
        "kind": "bases", "ref": "bases", "name": str(battle.get("name", "拠点戦闘")),
        "round": as_int(bs.get("round"), 0),
        "outcome_ja": str(outcome.get("ja", "")), "outcome_en": str(outcome.get("en", "")),
    }
    for bid, b in entries(bs, "bases"):
        objs[object_id("base", bid)] = _base(bid, b)


def _base(bid: str, b: dict[str, Any]) -> TableObject:
    state = str(b.get("state", "active"))
    ja, en = BASE_STATES.get(state, (state, state))
    return {
        "kind": "base", "ref": bid, "name": str(b.get("name", bid)),
        "side": str(b.get("side", "none")), "gp": as_int(b.get("gp"), None),
        "base_gp": as_int(b.get("base_gp"), None), "state": state, "state_ja": ja,
        "state_en": en, "attributes": [str(a) for a in b.get("attributes", [])
                                       if isinstance(a, str)],
    }


def board(objs: Objects, b: Board) -> None:
    """The battle's round and result; each base's GP bar and state."""
    for _oid, o in each(objs, "bases"):
        b.params.append({"label": "拠点戦闘", "value": f"{o['name']} 第{o['round']}ラウンド"})
        if o["outcome_ja"] or o["outcome_en"]:
            b.params.append({"label": "結果", "value": bi(o["outcome_ja"], o["outcome_en"])})
    for _oid, o in each(objs, "base"):
        if o["gp"] is not None:
            most = o["base_gp"] if o["base_gp"] is not None else o["gp"]
            b.bars.append({"label": f"{o['name']} GP", "value": o["gp"],
                           "max": max(most, o["gp"])})
        gp = "" if o["gp"] is not None else " GP ?"
        b.params.append({"label": o["name"], "value": bi(o["state_ja"], o["state_en"]) + gp})


SUBSYSTEM = TableSubsystem(name="bases", render=render, board=board,
                           board_kinds=frozenset({"bases", "base"}))
