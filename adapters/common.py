"""The neutral table: the `table` projection rendered once into objects both platforms draw.

How this works
--------------
`render(tree)` reads ONLY the `table` audience projection (`meta`, `table`,
`tower_defense`, `bases`) and returns a dict of *table objects* keyed by a stable id
(`stable_id`): generic pieces, counters and markers; the tower defense's forts, enemy
groups, 特異個体, PCs, traps, directions and its round/phase line (TD-MAP-2); each base's
GP and state. Hidden things are not in the projection, so they never appear here.
A platform adapter turns these objects into its own objects (Ccfolia characters /
markers / dice symbols, Foundry tokens / drawings), keeps the last result, and on every
change emits only the difference (`diff`). Platform events come back through
`translate_event`, which makes the engine action (`table.move`, `td.move`,
`td.pc.place`, `td.attack`, …) or says in both languages why it makes none.

Keys are read defensively (`.get` with defaults): the subsystems' state models may grow,
and a missing key must never break a bridge.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import Field, ValidationError

from ..engine.bcdice import CocCheck, parse_message
from ..engine.errors import Text
from .base import Calibration, EventResult

__all__ = [
    "BASES_ID",
    "BOARD_ID",
    "PHASES",
    "TD_ID",
    "AdapterSettings",
    "Board",
    "Diff",
    "Geometry",
    "Objects",
    "PObjects",
    "PlatformObject",
    "TableAdapter",
    "TableObject",
    "bi",
    "board",
    "diff",
    "each",
    "grid_of",
    "load_settings",
    "number",
    "refusal_line",
    "render",
    "resolve_user",
    "stable_id",
    "translate_event",
    "user_id",
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


# -- reading the projection defensively ----------------------------------------------------


def _d(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any, default: int | None = 0) -> int | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    return default


def _cell(value: Any) -> dict[str, int] | None:
    c = _d(value)
    x, y = _int(c.get("x"), None), _int(c.get("y"), None)
    return {"x": x, "y": y} if x is not None and y is not None else None


def grid_of(tree: Mapping[str, Any]) -> tuple[int, int]:
    """The table grid (width, height) in squares; 20×20 when the projection has none."""
    grid = _d(_d(tree.get("table")).get("grid"))
    return (_int(grid.get("width"), 20) or 20, _int(grid.get("height"), 20) or 20)


# -- render: projection → neutral table objects ------------------------------------------------


def render(tree: Mapping[str, Any]) -> Objects:
    """Every object the table shows, keyed by stable id, in a deterministic order."""
    objs: Objects = {}
    _render_table(tree, objs)
    _render_td(tree, objs)
    _render_bases(tree, objs)
    _stack(objs)
    return objs


def _render_table(tree: Mapping[str, Any], objs: Objects) -> None:
    table = _d(tree.get("table"))
    for pid, p in _d(table.get("pieces")).items():
        p = _d(p)
        objs[stable_id("piece", pid)] = {
            "kind": "piece", "ref": pid, "name": str(p.get("name", pid)),
            "cell": _cell(p.get("cell")), "size": _int(p.get("size"), 1) or 1,
            "owner": p.get("owner"), "color": p.get("color"),
            "labels": {str(k): str(v) for k, v in _d(p.get("labels")).items()},
        }
    for cid, c in _d(table.get("counters")).items():
        c = _d(c)
        objs[stable_id("counter", cid)] = {
            "kind": "counter", "ref": cid, "name": str(c.get("name", cid)),
            "value": _int(c.get("value"), 0), "min": _int(c.get("min"), None),
            "max": _int(c.get("max"), None), "owner": c.get("owner"),
        }
    for mid, m in _d(table.get("markers")).items():
        m = _d(m)
        objs[stable_id("marker", mid)] = {
            "kind": "marker", "ref": mid, "name": str(m.get("text", mid)),
            "text": str(m.get("text", "")), "cell": _cell(m.get("cell")),
            "width": _int(m.get("width"), 1) or 1, "height": _int(m.get("height"), 1) or 1,
        }


def _render_td(tree: Mapping[str, Any], objs: Objects) -> None:
    """TD-MAP-2: forts (耐久力), directions, enemy groups (個体数), 特異個体, PCs, traps."""
    td = tree.get("tower_defense")
    if not isinstance(td, dict):
        return
    width, _height = grid_of(tree)
    forts = _d(td.get("forts"))
    phase = str(td.get("phase", ""))
    outcome = str(td.get("outcome", "none"))
    victory = _d(td.get("victory"))
    objs[TD_ID] = {
        "kind": "td", "ref": "tower_defense", "name": "タワーディフェンス / tower defense",
        "round": _int(td.get("round"), 0), "phase": phase,
        "phase_ja": PHASES.get(phase, (phase, phase))[0],
        "phase_en": PHASES.get(phase, (phase, phase))[1],
        "outcome": outcome, "outcome_reason": str(td.get("outcome_reason", "")),
        "victory_ja": str(victory.get("ja", "")), "victory_en": str(victory.get("en", "")),
    }
    for did, d in _d(td.get("directions")).items():
        d = _d(d)
        name = str(d.get("name", did))
        objs[stable_id("direction", did)] = {
            "kind": "direction", "ref": did, "name": name, "cell": _cell(d.get("cell")),
            "text": bi(f"方角: {name}", f"direction: {name}"),
        }
    for fid, f in forts.items():
        f = _d(f)
        durability = _int(f.get("durability"), 0) or 0
        objs[stable_id("fort", fid)] = {
            "kind": "fort", "ref": fid, "name": str(f.get("name", fid)),
            "cell": _cell(f.get("cell")), "tier": _int(f.get("tier"), 1),
            "durability": durability,
            "max": _int(f.get("max_durability"), durability) or durability,
            "final": bool(f.get("final", False)),
        }
    traps = _d(td.get("traps"))
    for tid, t in traps.items():
        t = _d(t)
        kind = str(t.get("kind", ""))
        ja, en = TRAP_WORDS.get(kind, (kind, kind))
        spent = bool(t.get("spent", False))
        if spent:
            ja, en = f"{ja}（使用済）", f"{en} (spent)"
        objs[stable_id("trap", tid)] = {
            "kind": "trap", "ref": tid, "name": ja, "cell": _cell(t.get("cell")),
            "trap_kind": kind, "passage": t.get("passage"), "pc": t.get("pc"), "spent": spent,
            "text": bi(ja, en),
        }
    marks = _d(td.get("marks"))
    for gid, g in _d(td.get("groups")).items():
        g = _d(g)
        count = _int(g.get("count"), 0) or 0
        most = _int(g.get("max_count"), None) or _int(g.get("initial_count"), None)
        objs[stable_id("group", gid)] = {
            "kind": "group", "ref": gid, "name": str(g.get("name", gid)),
            "cell": _cell(g.get("cell")), "count": count, "max": max(most or count, count),
            "fort": g.get("fort"), "waiting": bool(g.get("waiting", False)),
            "snared": bool(g.get("snared", False)), "marked": gid in marks,
            "direction": g.get("direction"), "tag": g.get("tag"),
        }
    for iid, i in _d(td.get("individuals")).items():
        i = _d(i)
        special = str(i.get("special", "other"))
        objs[stable_id("individual", iid)] = {
            "kind": "individual", "ref": iid, "name": str(i.get("name", iid)),
            "cell": _cell(i.get("cell")), "special": special,
            "special_ja": SPECIALS.get(special, (special, special))[0],
            "special_en": SPECIALS.get(special, (special, special))[1],
            "hp": _int(i.get("hp"), None), "fort": i.get("fort"),
            "waiting": bool(i.get("waiting", False)),
        }
    weapons = _d(td.get("weapons"))
    for row, (pid, p) in enumerate(_d(td.get("pcs")).items()):
        p = _d(p)
        fort = p.get("fort")
        fort_obj = _d(forts.get(fort)) if isinstance(fort, str) else {}
        cell = _cell(fort_obj.get("cell"))
        if cell is None:  # TD-PRE-1 not placed yet: beside the board, one row per PC
            cell = {"x": width + 1, "y": 2 + row}
        objs[stable_id("pc", pid)] = {
            "kind": "pc", "ref": pid, "name": str(p.get("name", pid)), "cell": cell,
            "player": p.get("player"), "fort": fort if fort_obj else None,
            "fort_name": str(fort_obj.get("name", "")) if fort_obj else "",
            "skills": {str(k): _int(v, 0) for k, v in _d(p.get("skills")).items()},
            "weapons": _pc_weapons(_d(p.get("weapons")), weapons),
            "acted": [str(a) for a in p.get("acted", []) if isinstance(a, str)],
        }


def _pc_weapons(states: dict[str, Any], specs: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for wid, state in states.items():
        spec, state = _d(specs.get(wid)), _d(state)
        special = _d(spec.get("special_ammo"))
        out.append({
            "id": wid, "name": str(spec.get("name", wid)), "kind": str(spec.get("kind", "")),
            "skill": str(spec.get("skill", "")), "magazine": _int(spec.get("magazine"), None),
            "loaded": _int(state.get("loaded"), None),
            "attacks_per_round": _int(spec.get("attacks_per_round"), 1) or 1,
            "special_name": str(special.get("name", "")) if special else "",
            "special_uses": _int(special.get("uses"), 0) if special else 0,
            "special_left": _int(state.get("special_left"), 0),
        })
    return out


def _render_bases(tree: Mapping[str, Any], objs: Objects) -> None:
    """Each base's GP (a counter on the table) and state (BASE-GP-1, BASE-ST-1).

    Read defensively: a base without `gp` (GP hidden, BASE-OPT-2) shows `?`.
    """
    bs = tree.get("bases")
    if not isinstance(bs, dict):
        return
    battle = _d(bs.get("battle"))
    outcome = _d(bs.get("outcome"))
    objs[BASES_ID] = {
        "kind": "bases", "ref": "bases", "name": str(battle.get("name", "拠点戦闘")),
        "round": _int(bs.get("round"), 0),
        "outcome_ja": str(outcome.get("ja", "")), "outcome_en": str(outcome.get("en", "")),
    }
    for bid, b in _d(bs.get("bases")).items():
        b = _d(b)
        state = str(b.get("state", "active"))
        ja, en = BASE_STATES.get(state, (state, state))
        objs[stable_id("base", bid)] = {
            "kind": "base", "ref": bid, "name": str(b.get("name", bid)),
            "side": str(b.get("side", "none")), "gp": _int(b.get("gp"), None),
            "base_gp": _int(b.get("base_gp"), None), "state": state, "state_ja": ja,
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


# -- settings and geometry ---------------------------------------------------------------------


class AdapterSettings(Calibration):
    """Settings both platforms share, read from `meta.platforms.<platform>` (issue 5).

    `users` maps a platform user (id or name) to a komasync player id, or to `"gm"`.
    `stack_offset` is how far (in squares) each further thing on a square is shifted;
    `drop_radius` how far (in squares) from a fort a PC may be dropped to mean that fort.
    """

    users: dict[str, str] = Field(default_factory=dict)
    stack_offset: float = Field(default=0.25, ge=0, le=1)
    drop_radius: float = Field(default=1.5, gt=0)


S = TypeVar("S", bound=AdapterSettings)


def load_settings(tree: Mapping[str, Any], platform: str, model: type[S],
                  defaults: Mapping[str, Any] | None = None) -> tuple[S, dict[str, Any], list[str]]:
    """Validated settings, the raw dict, and problems (invalid settings fall back to defaults)."""
    raw = _d(_d(_d(tree.get("meta")).get("platforms")).get(platform))
    try:
        return model.model_validate({**(defaults or {}), **raw}), raw, []
    except ValidationError as e:
        problems = [f"{'.'.join(map(str, err['loc']))}: {err['msg']}" for err in e.errors()]
        return model.model_validate(dict(defaults or {})), raw, problems


@dataclass(frozen=True)
class Geometry:
    """Squares ⇄ platform coordinates: `origin` is where square (0, 0)'s top-left corner is.

    `units`: `px` (coordinates are pixels, `cell` px per square) or `cell` (coordinates
    are squares). `stack` shifts the n-th thing on a square by n × stack squares.
    """

    origin_x: float
    origin_y: float
    cell: float
    units: Literal["px", "cell"] = "px"
    stack: float = 0.25

    @property
    def unit(self) -> float:
        return self.cell if self.units == "px" else 1.0

    def pos(self, cell: Mapping[str, int], slot: int = 0, dx: float = 0.0,
            dy: float = 0.0) -> tuple[float | int, float | int]:
        shift = slot * self.stack
        return (number(self.origin_x + (cell["x"] + shift + dx) * self.unit),
                number(self.origin_y + (cell["y"] + shift + dy) * self.unit))

    def square(self, x: float, y: float) -> tuple[float, float]:
        """Fractional square of a platform position (the top-left of a dropped piece)."""
        return ((x - self.origin_x) / self.unit, (y - self.origin_y) / self.unit)

    def cell_at(self, x: float, y: float) -> dict[str, int]:
        """The square a piece whose top-left is at (x, y) covers most: the nearest corner."""
        fx, fy = self.square(x, y)
        return {"x": math.floor(fx + 0.5), "y": math.floor(fy + 0.5)}


def number(v: float) -> float | int:
    """Integral floats as ints, others rounded to 3 decimals (stable JSON)."""
    r = round(v, 3)
    return int(r) if r == int(r) else r


# -- platform objects and their difference --------------------------------------------------


@dataclass
class PlatformObject:
    """One object on a platform: its `type` (character, Token…), data, and what it shows."""

    type: str
    data: dict[str, Any]
    ref: dict[str, Any] = field(default_factory=dict)


PObjects = dict[str, PlatformObject]


@dataclass
class Diff:
    """`updated` holds (id, new object, changed fields, old object)."""

    removed: list[tuple[str, PlatformObject]] = field(default_factory=list)
    created: list[tuple[str, PlatformObject]] = field(default_factory=list)
    updated: list[tuple[str, PlatformObject, dict[str, Any], PlatformObject]] = field(
        default_factory=list)


def diff(old: PObjects, new: PObjects) -> Diff:
    """What changed between two renders: removed, created, and changed top-level fields.

    An object whose `type` changed is removed and created again.
    """
    out = Diff()
    for oid, obj in old.items():
        if oid not in new or new[oid].type != obj.type:
            out.removed.append((oid, obj))
    for oid, obj in new.items():
        before = old.get(oid)
        if before is None or before.type != obj.type:
            out.created.append((oid, obj))
            continue
        changes = {k: v for k, v in obj.data.items() if before.data.get(k, _MISSING) != v}
        if changes:
            out.updated.append((oid, obj, changes, before))
    return out


_MISSING = object()


# -- platform events → engine actions --------------------------------------------------------

IGN_UNKNOWN_EVENT = Text("知らない種類のイベントです（{kind}）", "unknown event kind ({kind})")
IGN_UNKNOWN_OBJECT = Text("komasyncの駒ではありません（{id}）", "not a komasync piece ({id})")
IGN_NO_POSITION = Text("移動先の座標がありません", "the event has no x/y position")
IGN_ENGINE_MOVES = Text("「{name}」はルールが動かします。手では動かせません",
                        "'{name}' is moved by the rules, not by hand")
IGN_NOT_A_FORT = Text("探索者の駒は砦の上に置いてください", "drop a PC on a fort")
IGN_SAME_FORT = Text("「{name}」は{fort}にいます（移動なし）", "'{name}' is already at {fort}")
IGN_USER = Text("卓のユーザー「{user}」が誰かわかりません（設定 users で対応付けてください）",
                "unknown table user '{user}' (map it in the platform setting `users`)")
IGN_NO_ROLL = Text("成功度のわかるCC判定の結果がありません", "no CC check result with a success level")
IGN_NO_PC = Text("発言者「{name}」は探索者の駒ではありません", "speaker '{name}' is not a PC piece")
IGN_NO_TD = Text("この部屋にタワーディフェンスはありません", "this room has no tower defense")
IGN_WEAPON = Text("どの武器の判定かわかりません（技能値{target}）。武器名を書いてください",
                  "which weapon? (target {target}); name the weapon in the message")
IGN_TARGET = Text("攻撃対象の敵グループを書いてください（例: {example}）",
                  "name the target group in the message (e.g. {example})")


def _ignored(text: Text) -> EventResult:
    return EventResult(ignored=bi(text.ja, text.en))


def resolve_user(user: Any, tree: Mapping[str, Any],
                 users: Mapping[str, str]) -> tuple[bool, str | None, str]:
    """Who acts on the table: (known, komasync player or None for the GM, label).

    In order: the `users` setting (platform user id, then name; value a player id or
    `gm`); a user the platform says is a GM; a komasync player whose id or name equals
    the platform user's id or name. Anything else is unknown (the event is refused).
    """
    u = _d(user)
    uid, name = str(u.get("id") or ""), str(u.get("name") or "")
    label = name or uid or "?"
    for key in (uid, name):
        if key and key in users:
            who = users[key]
            return True, (None if who == "gm" else who), label
    if u.get("gm") is True:
        return True, None, label
    players = _d(_d(tree.get("meta")).get("players"))
    for pid, info in players.items():
        pname = str(_d(info).get("name", ""))
        if pid in (uid, name) or (pname and pname in (uid, name)):
            return True, pid, label
    return False, None, label


def translate_event(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects,
                    geo: Geometry, settings: AdapterSettings) -> EventResult:
    """A bridge's event as an engine action (see docs/adapters.md, "Events")."""
    kind = event.get("kind")
    known, by, label = resolve_user(event.get("user"), tree, settings.users)
    if kind == "move":
        return _move(event, tree, objs, geo, settings, known, by, label)
    if kind == "chat":
        return _chat(event, tree, objs, known, by, label)
    return _ignored(IGN_UNKNOWN_EVENT.format(kind=str(kind)[:40]))


def _with_by(action: dict[str, Any], by: str | None) -> dict[str, Any]:
    if by is not None:
        action["by"] = by
    return action


def _move(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects, geo: Geometry,
          settings: AdapterSettings, known: bool, by: str | None, label: str) -> EventResult:
    oid = str(event.get("id", ""))
    obj = objs.get(oid)
    if obj is None:
        return _ignored(IGN_UNKNOWN_OBJECT.format(id=oid[:64]))
    x, y = event.get("x"), event.get("y")
    if not isinstance(x, int | float) or not isinstance(y, int | float) or isinstance(
            x, bool) or isinstance(y, bool):
        return _ignored(IGN_NO_POSITION)
    if obj["kind"] not in ("piece", "pc"):
        return _ignored(IGN_ENGINE_MOVES.format(name=obj["name"]))
    if not known:
        return _ignored(IGN_USER.format(user=label))
    context = {"object": oid, "kind": obj["kind"]}
    if obj["kind"] == "piece":
        to = geo.cell_at(float(x), float(y))
        action = {"kind": "table.move", "piece": obj["ref"], "to": to}
        return EventResult(action=_with_by(action, by), context=context)
    fort = _nearest_fort(objs, geo.square(float(x), float(y)), settings.drop_radius)
    if fort is None:
        return _ignored(IGN_NOT_A_FORT)
    if fort["ref"] == obj["fort"]:
        return _ignored(IGN_SAME_FORT.format(name=obj["name"], fort=fort["name"]))
    td = _d(tree.get("tower_defense"))
    if td.get("phase") == "setup":  # TD-PRE-1 picking the starting fort
        action = {"kind": "td.pc.place", "pc": obj["ref"], "fort": fort["ref"]}
    else:  # TD-ATK-1 move along one passage (the engine checks adjacency and phase)
        action = {"kind": "td.move", "pc": obj["ref"], "to": fort["ref"]}
    return EventResult(action=_with_by(action, by), context={**context, "fort": fort["ref"]})


VETO_ENGINE = Text("敵はルールに従って自動で動きます（TD-ADV-1）。",
                   "Enemies move by the rules, on their own (TD-ADV-1).")
VETO_PHASE = Text("PCが砦を移るのは開始前の配置とPC攻撃フェイズだけです（TD-ATK-1）。",
                  "PCs change forts only while placing before round 1 and in the PC attack "
                  "phase (TD-ATK-1).")
VETO_ACTED = Text("このPCはこのフェイズにもう行動しました（TD-ATK-3）。",
                  "This PC has already acted this phase (TD-ATK-3).")
VETO_ADJACENT = Text("通路でつながった隣の砦にだけ移動できます（TD-ATK-1）。",
                     "A PC moves along one passage to an adjacent fort (TD-ATK-1).")


def legal_forts(tree: Mapping[str, Any], pc_id: str) -> tuple[list[str], Text]:
    """The forts a PC's next drop may land on, and what to say about any other."""
    td = _d(tree.get("tower_defense"))
    pc = _d(_d(td.get("pcs")).get(pc_id))
    forts = list(_d(td.get("forts")))
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
              for p in map(_d, _d(td.get("passages")).values())
              if here in (p.get("outer"), p.get("inner"))}
    return [f for f in forts if f in joined or f == here], VETO_ADJACENT


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


def _chat(event: Mapping[str, Any], tree: Mapping[str, Any], objs: Objects, known: bool,
          by: str | None, label: str) -> EventResult:
    """A BCDice result from a PC in chat → `td.attack` (or `td.melee` / `td.special`).

    The PC is the speaker; the weapon is named in the message, or the one whose skill
    value is the check's target; the group is named by its id, or by the fort or
    direction it stands at, or is the only group at the PC's fort / on the board.
    """
    if not isinstance(tree.get("tower_defense"), dict):
        return _ignored(IGN_NO_TD)
    text = str(event.get("text") or "")
    roll = str(event.get("roll") or text)
    lines = [r.raw for r in parse_message(roll)
             if isinstance(r, CocCheck) and r.kind == "check" and r.level is not None
             and r.target is not None]
    if not lines:
        return _ignored(IGN_NO_ROLL)
    targets = [r.target for r in parse_message(roll) if isinstance(r, CocCheck)]
    speaker = _d(event.get("speaker"))
    pc = _speaker_pc(objs, speaker)
    if pc is None:
        name = str(speaker.get("name") or speaker.get("id") or "?")
        return _ignored(IGN_NO_PC.format(name=name[:40]))
    if not known:
        return _ignored(IGN_USER.format(user=label))
    words = _words(text)
    weapon = _pick_weapon(pc, words, targets[0] if targets else None)
    if weapon is None:
        return _ignored(IGN_WEAPON.format(target=targets[0] if targets else "?"))
    group = _pick_group(objs, pc, words)
    if group is None:
        example = next((o["ref"] for o in objs.values() if o["kind"] == "group"), "r1-north")
        return _ignored(IGN_TARGET.format(example=f"CC<=50 {example}"))
    context = {"pc": pc["ref"], "weapon": weapon["id"], "group": group["ref"]}
    action: dict[str, Any]
    if weapon["kind"] == "melee":
        action = {"kind": "td.melee", "pc": pc["ref"], "weapon": weapon["id"],
                  "group": group["ref"], "result": lines[0]}
    elif weapon["kind"] == "eye":
        action = {"kind": "td.special", "pc": pc["ref"], "weapon": weapon["id"],
                  "group": group["ref"], "result": lines[0]}
    else:
        action = {"kind": "td.attack", "pc": pc["ref"], "weapon": weapon["id"],
                  "group": group["ref"], "results": lines}
        if weapon["special_name"] and any(w in words for w in (
                weapon["special_name"], "special", "特殊", "特殊弾", "グレネード")):
            action["ammo"] = "special"
    return EventResult(action=_with_by(action, by), context=context)


_SPLIT = re.compile(r"[\s　,、。;；:：@＠→>＞<＜=＝()（）\[\]［］「」『』【】/／]+")


def _words(text: str) -> set[str]:
    return {w for w in _SPLIT.split(text) if w}


def _speaker_pc(objs: Objects, speaker: Mapping[str, Any]) -> TableObject | None:
    sid, name = speaker.get("id"), speaker.get("name")
    if isinstance(sid, str) and objs.get(sid, {}).get("kind") == "pc":
        return objs[sid]
    pcs = [o for o in objs.values() if o["kind"] == "pc" and name and o["name"] == name]
    return pcs[0] if len(pcs) == 1 else None


def _pick_weapon(pc: TableObject, words: set[str], target: int | None) -> dict[str, Any] | None:
    weapons: list[dict[str, Any]] = pc["weapons"]
    named = [w for w in weapons if w["id"] in words or w["name"] in words]
    if len(named) == 1:
        return named[0]
    by_skill = [w for w in weapons if target is not None and pc["skills"].get(w["skill"]) == target]
    if len(by_skill) == 1:
        return by_skill[0]
    return weapons[0] if len(weapons) == 1 else None


def _pick_group(objs: Objects, pc: TableObject, words: set[str]) -> TableObject | None:
    groups = [o for o in objs.values() if o["kind"] == "group"]

    def one(found: Iterable[TableObject]) -> TableObject | None:
        found = list(found)
        return found[0] if len(found) == 1 else None

    def by_id(g: TableObject) -> bool:
        return g["ref"] in words or _sid(g) in words

    def by_name(g: TableObject) -> bool:
        return g["name"] in words

    def by_fort(g: TableObject) -> bool:
        return not g["waiting"] and g["fort"] is not None and (
            g["fort"] in words or _name_of(objs, "fort", g["fort"]) in words)

    def by_direction(g: TableObject) -> bool:
        return g["fort"] is None and (g["direction"] in words or _name_of(
            objs, "direction", g["direction"]) in words)

    for test in (by_id, by_name, by_fort, by_direction):
        hit = one(g for g in groups if test(g))
        if hit is not None:
            return hit
    here = [g for g in groups if pc["fort"] and g["fort"] == pc["fort"] and not g["waiting"]]
    return one(here) or one(groups)


def _sid(o: TableObject) -> str:
    return stable_id(o["kind"], o["ref"])


def _name_of(objs: Objects, kind: str, ref: Any) -> str | None:
    if not isinstance(ref, str):
        return None
    o = objs.get(stable_id(kind, ref))
    return str(o["name"]) if o else None


# -- snap-back texts ---------------------------------------------------------------------------

MOVE_REFUSED = Text("{name}は動かせませんでした: {why}", "{name} could not move: {why}")
ROLL_UNUSED = Text("ダイス結果は使われませんでした: {why}", "The roll was not used: {why}")


def refusal_line(event: Mapping[str, Any], objs: Objects, reason: Mapping[str, str]) -> Text:
    """The line told to the mover: what was refused and why, in both languages."""
    ja, en = str(reason.get("ja", "")), str(reason.get("en", ""))
    if event.get("kind") == "move":
        obj = objs.get(str(event.get("id", "")))
        name = obj["name"] if obj else "駒"
        return Text(MOVE_REFUSED.ja.format(name=f"「{name}」", why=ja),
                    MOVE_REFUSED.en.format(name=f"'{obj['name']}'" if obj else "The piece", why=en))
    return Text(ROLL_UNUSED.ja.format(why=ja), ROLL_UNUSED.en.format(why=en))


def user_id(event: Mapping[str, Any]) -> str | None:
    uid = _d(event.get("user")).get("id")
    return str(uid) if isinstance(uid, str | int) and not isinstance(uid, bool) and uid != "" else None


def each(objs: Objects, *kinds: str) -> list[tuple[str, TableObject]]:
    """Objects of `kinds`, in render order."""
    return [(oid, o) for oid, o in objs.items() if o["kind"] in kinds]



# -- the adapter skeleton both platforms share ---------------------------------------------------

SETTINGS_BAD = Text("komasync: 卓の設定 meta.platforms.{p} が不正なので既定値を使います: {why}",
                    "komasync: invalid table settings meta.platforms.{p}; using defaults: {why}")


class TableAdapter:
    """One platform's adapter: render → platform objects → difference → operations.

    Subclasses say how settings, geometry, objects and operations look on their platform
    (`_configure`, `_objects`, `_ops`, `_chat_ops`, `_snap_ops`). The adapter keeps the
    platform objects it last sent (`self.shown`), never a reference into the projection.
    """

    platform = "?"

    def __init__(self, tree: Mapping[str, Any]) -> None:
        self.shown: PObjects = {}
        self.problems: list[str] = []
        self._configure(tree)

    @classmethod
    def from_tree(cls, tree: Mapping[str, Any]) -> TableAdapter:
        """A fresh adapter for a room whose `table` projection is `tree`."""
        return cls(tree)

    # -- what subclasses provide --------------------------------------------------------
    settings: AdapterSettings
    geometry: Geometry

    def _configure(self, tree: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _objects(self, objs: Objects, tree: Mapping[str, Any]) -> PObjects:
        raise NotImplementedError

    def _ops(self, change: Diff, reset: bool) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _chat_ops(self, lines: list[tuple[str, str]], to: str | None = None,
                  kind: str = "log") -> list[dict[str, Any]]:
        raise NotImplementedError

    def _snap_ops(self, oid: str, obj: PlatformObject) -> list[dict[str, Any]]:
        raise NotImplementedError

    # -- the PlatformAdapter protocol ----------------------------------------------------
    def draw(self, tree: Mapping[str, Any]) -> tuple[Objects, PObjects]:
        """The neutral objects and this platform's objects for `tree` (no side effects
        beyond re-reading the platform settings)."""
        self._configure(tree)
        objs = render(tree)
        return objs, self._objects(objs, tree)

    def reset(self, tree: dict[str, Any]) -> list[dict[str, Any]]:
        _objs, new = self.draw(tree)
        self.shown = new
        ops = self._ops(Diff(created=list(new.items())), reset=True)
        if self.problems:
            why = "; ".join(self.problems)[:300]
            text = SETTINGS_BAD.format(p=self.platform, why=why)
            ops += self._chat_ops([(text.ja, text.en)], kind="settings")
        return ops

    def update(self, tree: dict[str, Any], ops: list[dict[str, Any]],
               log: list[dict[str, str]]) -> list[dict[str, Any]]:
        _objs, new = self.draw(tree)
        change = diff(self.shown, new)
        self.shown = new
        lines = [(str(x.get("ja", "")), str(x.get("en", ""))) for x in log]
        return self._ops(change, reset=False) + (self._chat_ops(lines) if lines else [])

    def event(self, event: dict[str, Any], tree: dict[str, Any]) -> EventResult:
        objs, _new = self.draw(tree)
        return translate_event(event, tree, objs, self.geometry, self.settings)

    def snap_back(self, event: dict[str, Any], tree: dict[str, Any],
                  reason: dict[str, str]) -> list[dict[str, Any]]:
        """Put the refused piece back where the projection has it; tell the mover why."""
        objs, new = self.draw(tree)
        ops: list[dict[str, Any]] = []
        oid = str(event.get("id", ""))
        if event.get("kind") == "move" and oid in new:
            ops += self._snap_ops(oid, new[oid])
        line = refusal_line(event, objs, reason)
        return ops + self._chat_ops([(line.ja, line.en)], to=user_id(event), kind="refusal")


# -- the board: round/phase, counters, bases' GP (Ccfolia status bars / Foundry text) ------------

BOARD_ID = "ks-board"


@dataclass
class Board:
    """What the 'komasync' board shows: bars (label, value, max) and text params."""

    bars: list[dict[str, Any]] = field(default_factory=list)
    params: list[dict[str, str]] = field(default_factory=list)
    memo: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{p['label']}: {p['value']}" for p in self.params]
        out += [f"{b['label']}: {b['value']}" + (f"/{b['max']}" if b.get("max") is not None else "")
                for b in self.bars]
        return out

    def __bool__(self) -> bool:
        return bool(self.bars or self.params)


def board(objs: Objects) -> Board:
    """The board's contents: TD round/phase/outcome, generic counters, each base's GP/state."""
    b = Board()
    for _oid, o in each(objs, "td"):
        b.params.append({"label": "ラウンド", "value": f"{o['round']}"})
        b.params.append({"label": "フェイズ", "value": bi(o["phase_ja"], o["phase_en"])})
        if o["outcome"] in OUTCOMES:
            ja, en = OUTCOMES[o["outcome"]]
            b.params.append({"label": "結果", "value": bi(ja, en)})
        if o["victory_ja"] or o["victory_en"]:
            b.memo.append(bi(o["victory_ja"], o["victory_en"]))
    for _oid, o in each(objs, "counter"):
        value = o["value"] or 0
        b.bars.append({"label": o["name"], "value": value,
                       "max": o["max"] if o["max"] is not None else value})
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
    return b
