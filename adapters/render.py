"""The neutral table: the `table` projection rendered once into objects both platforms draw.

`render(tree)` reads ONLY the `table` audience projection (`meta`, `table`,
`tower_defense`, `bases`) and returns a dict of *table objects* keyed by a stable id
(`stable_id`): generic pieces, counters and markers; the tower defense's forts, enemy
groups, 特異個体, PCs, traps, directions and its round/phase line (TD-MAP-2); each base's
GP and state. Hidden things are not in the projection, so they never appear here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from .geometry import beside
from .projection import as_cell, as_dict, as_int, entries, grid_of

__all__ = [
    "BASES_ID",
    "OUTCOMES",
    "PHASES",
    "TD_ID",
    "Objects",
    "TableObject",
    "bi",
    "each",
    "placed",
    "player_of",
    "render",
    "stable_id",
]

TableObject = dict[str, Any]
Objects = dict[str, TableObject]

#: Stable id prefixes, one per kind of table object (`ks-<prefix>-<engine id>`).
PREFIX: dict[str, str] = {
    "piece": "piece", "counter": "counter", "marker": "marker", "fort": "fort",
    "group": "group", "individual": "ind", "pc": "pc", "trap": "trap", "direction": "dir",
    "base": "base",
}
#: Singletons: the tower defense's round/phase line and the base battle's summary.
TD_ID = "ks-td"
BASES_ID = "ks-bases"

#: TD-RND phase names (kept here so a renamed engine table never breaks a bridge).
PHASES: dict[str, tuple[str, str]] = {
    "setup": ("準備", "setup"), "reinforcement": ("敵増援フェイズ", "reinforcement"),
    "advance": ("敵進軍フェイズ", "advance"), "pc_attack": ("PC攻撃フェイズ", "PC attack"),
    "enemy_attack": ("敵攻撃フェイズ", "enemy attack"),
}
OUTCOMES: dict[str, tuple[str, str]] = {
    "victory": ("PC側の勝利", "victory"), "defeat": ("PC側の敗北", "defeat"),
}
#: BASE-ST-1 base states.
BASE_STATES: dict[str, tuple[str, str]] = {
    "active": ("活動", "active"), "stopped": ("停止", "stopped"),
    "excited": ("励起", "excited"), "destroyed": ("撃破", "destroyed"),
}
SPECIALS: dict[str, tuple[str, str]] = {
    "priest": ("司祭", "priest"), "frozen": ("凍てつく者", "frozen one"),
    "nofke": ("ノフケー", "nofke"), "other": ("特異個体", "special"),
}
TRAP_WORDS: dict[str, tuple[str, str]] = {
    "explosive": ("爆破トラップ", "explosive trap"), "snare": ("足止めトラップ", "snare trap"),
}
#: Stacking order of things that share a square (the first sits exactly on it). Enemies
#: come before PCs, so a PC leaving or arriving never shifts the enemies there.
STACK_ORDER: dict[str, int] = {"fort": 0, "individual": 1, "group": 2, "pc": 3, "piece": 4}

_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,48}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def stable_id(kind: str, ref: str) -> str:
    """`ks-<prefix>-<ref>`: the platform id of an engine object, the same on every render.

    Only `[A-Za-z0-9_-]` (safe as a Firestore document id, a marker key or a flag value);
    an engine id with other characters keeps its safe part plus 8 hex of its SHA-1.
    """
    prefix = PREFIX.get(kind, kind)
    if _SAFE.match(ref):
        return f"ks-{prefix}-{ref}"
    digest = hashlib.sha1(ref.encode("utf-8")).hexdigest()[:8]
    safe = _UNSAFE.sub("_", ref).strip("_")[:32]
    return f"ks-{prefix}-{safe}-{digest}" if safe else f"ks-{prefix}-{digest}"


def bi(ja: str, en: str) -> str:
    """One chat line in both languages: `耐久力 12 → 8 / durability 12 → 8`."""
    return f"{ja} / {en}" if en and en != ja else ja


def each(objs: Objects, *kinds: str) -> list[tuple[str, TableObject]]:
    """Objects of `kinds`, in render order."""
    return [(oid, o) for oid, o in objs.items() if o["kind"] in kinds]


def placed(objs: Objects) -> list[tuple[str, TableObject, dict[str, int]]]:
    """Objects that stand on a square, with that square, in render order."""
    return [(oid, o, o["cell"]) for oid, o in objs.items() if o.get("cell") is not None]


def player_of(o: Mapping[str, Any]) -> Any:
    """Whose object it is: a PC's player, a generic piece's owner (falsy: nobody's)."""
    if o["kind"] == "pc":
        return o.get("player")
    return o.get("owner") if o["kind"] == "piece" else None


def render(tree: Mapping[str, Any]) -> Objects:
    """Every object the table shows, keyed by stable id, in a deterministic order."""
    objs: Objects = {}
    _render_table(tree, objs)
    _render_td(tree, objs)
    _render_bases(tree, objs)
    _stack(objs)
    return objs


# -- generic table: pieces, counters, markers ------------------------------------------------


def _render_table(tree: Mapping[str, Any], objs: Objects) -> None:
    table = as_dict(tree.get("table"))
    for pid, p in entries(table, "pieces"):
        objs[stable_id("piece", pid)] = _piece(pid, p)
    for cid, c in entries(table, "counters"):
        objs[stable_id("counter", cid)] = _counter(cid, c)
    for mid, m in entries(table, "markers"):
        objs[stable_id("marker", mid)] = _marker(mid, m)


def _piece(pid: str, p: dict[str, Any]) -> TableObject:
    return {
        "kind": "piece", "ref": pid, "name": str(p.get("name", pid)),
        "cell": as_cell(p.get("cell")), "size": as_int(p.get("size"), 1) or 1,
        "owner": p.get("owner"), "color": p.get("color"),
        "labels": {str(k): str(v) for k, v in as_dict(p.get("labels")).items()},
    }


def _counter(cid: str, c: dict[str, Any]) -> TableObject:
    return {
        "kind": "counter", "ref": cid, "name": str(c.get("name", cid)),
        "value": as_int(c.get("value"), 0), "min": as_int(c.get("min"), None),
        "max": as_int(c.get("max"), None), "owner": c.get("owner"),
    }


def _marker(mid: str, m: dict[str, Any]) -> TableObject:
    return {
        "kind": "marker", "ref": mid, "name": str(m.get("text", mid)),
        "text": str(m.get("text", "")), "cell": as_cell(m.get("cell")),
        "width": as_int(m.get("width"), 1) or 1, "height": as_int(m.get("height"), 1) or 1,
    }


# -- tower defense (TD-MAP-2) ------------------------------------------------------------------


def _render_td(tree: Mapping[str, Any], objs: Objects) -> None:
    """TD-MAP-2: forts (耐久力), directions, enemy groups (個体数), 特異個体, PCs, traps."""
    td = tree.get("tower_defense")
    if not isinstance(td, dict):
        return
    objs[TD_ID] = _td_line(td)
    for did, d in entries(td, "directions"):
        objs[stable_id("direction", did)] = _direction(did, d)
    for fid, f in entries(td, "forts"):
        objs[stable_id("fort", fid)] = _fort(fid, f)
    for tid, t in entries(td, "traps"):
        objs[stable_id("trap", tid)] = _trap(tid, t)
    marks = as_dict(td.get("marks"))
    for gid, g in entries(td, "groups"):
        objs[stable_id("group", gid)] = _group(gid, g, gid in marks)
    for iid, i in entries(td, "individuals"):
        objs[stable_id("individual", iid)] = _individual(iid, i)
    forts, weapons, grid = as_dict(td.get("forts")), as_dict(td.get("weapons")), grid_of(tree)
    for row, (pid, p) in enumerate(entries(td, "pcs")):
        # TD-PRE-1 not placed yet: beside the board, one row per PC
        objs[stable_id("pc", pid)] = _pc(pid, p, forts, weapons, beside(grid, 2 + row))


def _td_line(td: dict[str, Any]) -> TableObject:
    phase = str(td.get("phase", ""))
    phase_ja, phase_en = PHASES.get(phase, (phase, phase))
    victory = as_dict(td.get("victory"))
    return {
        "kind": "td", "ref": "tower_defense", "name": "タワーディフェンス / tower defense",
        "round": as_int(td.get("round"), 0), "phase": phase,
        "phase_ja": phase_ja, "phase_en": phase_en,
        "outcome": str(td.get("outcome", "none")),
        "outcome_reason": str(td.get("outcome_reason", "")),
        "victory_ja": str(victory.get("ja", "")), "victory_en": str(victory.get("en", "")),
    }


def _direction(did: str, d: dict[str, Any]) -> TableObject:
    name = str(d.get("name", did))
    return {
        "kind": "direction", "ref": did, "name": name, "cell": as_cell(d.get("cell")),
        "text": bi(f"方角: {name}", f"direction: {name}"),
    }


def _fort(fid: str, f: dict[str, Any]) -> TableObject:
    durability = as_int(f.get("durability"), 0) or 0
    return {
        "kind": "fort", "ref": fid, "name": str(f.get("name", fid)),
        "cell": as_cell(f.get("cell")), "tier": as_int(f.get("tier"), 1),
        "durability": durability,
        "max": as_int(f.get("max_durability"), durability) or durability,
        "final": bool(f.get("final", False)),
    }


def _trap(tid: str, t: dict[str, Any]) -> TableObject:
    kind = str(t.get("kind", ""))
    ja, en = TRAP_WORDS.get(kind, (kind, kind))
    spent = bool(t.get("spent", False))
    if spent:
        ja, en = f"{ja}（使用済）", f"{en} (spent)"
    return {
        "kind": "trap", "ref": tid, "name": ja, "cell": as_cell(t.get("cell")),
        "trap_kind": kind, "passage": t.get("passage"), "pc": t.get("pc"), "spent": spent,
        "text": bi(ja, en),
    }


def _group(gid: str, g: dict[str, Any], marked: bool) -> TableObject:
    count = as_int(g.get("count"), 0) or 0
    most = as_int(g.get("max_count"), None) or as_int(g.get("initial_count"), None)
    return {
        "kind": "group", "ref": gid, "name": str(g.get("name", gid)),
        "cell": as_cell(g.get("cell")), "count": count, "max": max(most or count, count),
        "fort": g.get("fort"), "waiting": bool(g.get("waiting", False)),
        "snared": bool(g.get("snared", False)), "marked": marked,
        "direction": g.get("direction"), "tag": g.get("tag"),
    }


def _individual(iid: str, i: dict[str, Any]) -> TableObject:
    special = str(i.get("special", "other"))
    ja, en = SPECIALS.get(special, (special, special))
    return {
        "kind": "individual", "ref": iid, "name": str(i.get("name", iid)),
        "cell": as_cell(i.get("cell")), "special": special, "special_ja": ja, "special_en": en,
        "hp": as_int(i.get("hp"), None), "fort": i.get("fort"),
        "waiting": bool(i.get("waiting", False)),
    }


def _pc(pid: str, p: dict[str, Any], forts: dict[str, Any], weapons: dict[str, Any],
        aside: dict[str, int]) -> TableObject:
    """A PC stands on its fort's square, or on `aside` while it has none."""
    fort = p.get("fort")
    fort_obj = as_dict(forts.get(fort)) if isinstance(fort, str) else {}
    return {
        "kind": "pc", "ref": pid, "name": str(p.get("name", pid)),
        "cell": as_cell(fort_obj.get("cell")) or aside,
        "player": p.get("player"), "fort": fort if fort_obj else None,
        "fort_name": str(fort_obj.get("name", "")) if fort_obj else "",
        "skills": {str(k): as_int(v, 0) for k, v in as_dict(p.get("skills")).items()},
        "weapons": _pc_weapons(as_dict(p.get("weapons")), weapons),
        "acted": [str(a) for a in p.get("acted", []) if isinstance(a, str)],
    }


def _pc_weapons(states: dict[str, Any], specs: dict[str, Any]) -> list[dict[str, Any]]:
    """Each weapon a PC carries: its spec (TD-DATA) joined with the PC's ammunition."""
    out = []
    for wid, state in states.items():
        spec, state = as_dict(specs.get(wid)), as_dict(state)
        special = as_dict(spec.get("special_ammo"))
        out.append({
            "id": wid, "name": str(spec.get("name", wid)), "kind": str(spec.get("kind", "")),
            "skill": str(spec.get("skill", "")), "magazine": as_int(spec.get("magazine"), None),
            "loaded": as_int(state.get("loaded"), None),
            "attacks_per_round": as_int(spec.get("attacks_per_round"), 1) or 1,
            "special_name": str(special.get("name", "")) if special else "",
            "special_uses": as_int(special.get("uses"), 0) if special else 0,
            "special_left": as_int(state.get("special_left"), 0),
        })
    return out


# -- bases (BASE-GP-1, BASE-ST-1) ----------------------------------------------------------------


def _render_bases(tree: Mapping[str, Any], objs: Objects) -> None:
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
        objs[stable_id("base", bid)] = _base(bid, b)


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


def _stack(objs: Objects) -> None:
    """Give things sharing a square a `slot` (0 = exactly on it), in `STACK_ORDER`."""
    cells: dict[tuple[int, int], list[tuple[int, str, str]]] = {}
    for oid, o in objs.items():
        o.setdefault("slot", 0)
        cell = o.get("cell")
        if o["kind"] in STACK_ORDER and cell is not None:
            key = (cell["x"], cell["y"])
            cells.setdefault(key, []).append((STACK_ORDER[o["kind"]], str(o["ref"]), oid))
    for items in cells.values():
        for slot, (_order, _ref, oid) in enumerate(sorted(items)):
            objs[oid]["slot"] = slot
