"""Tower defense on a VTT (seed 003, TD-MAP-2): forts, enemy groups, 特異個体, PCs, traps.

Render: forts (耐久力), directions, traps, enemy groups (個体数), 特異個体 and PCs, plus
the round/phase line on the komasync board (TD-RND). Moves: a PC dropped on a fort is
`td.pc.place` in setup (TD-PRE-1) and `td.move` later (TD-ATK-1); enemies move by the
rules only (TD-ADV-1). Chat: a BCDice result a PC speaks becomes `td.attack` (or
`td.melee` / `td.special`): the weapon is named in the message, or the one whose skill
value is the check's target; the group is named by its id, or by the fort or direction it
stands at, or is the only group at the PC's fort / on the board (TD-ATK-2). The engine
stays the judge: what is translated here may still be refused there.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel

from ...engine.bcdice import (
    LEVEL_WORDS,
    BCDiceResult,
    CocCheck,
    NotUnderstood,
    PlainRoll,
    coc_level,
    parse_message,
)
from ...engine.bounds import OnlyInt
from ...engine.errors import Text
from ..base import EventResult
from ..drawing import AREA, DICE, MARKER, TOKEN, Area, Bar, Drawing, Param, Surface, Token
from ..geometry import beside
from ..objects import (
    Board,
    Chat,
    Drop,
    Legal,
    Objects,
    TableObject,
    TableSubsystem,
    bi,
    each,
    object_id,
)
from ..projection import as_cell, as_dict, as_int, entries, grid_of
from ..replies import IGN_USER, accepted, ignored

__all__ = [
    "COLORS",
    "OUTCOMES",
    "PHASES",
    "SPECIAL_WORDS",
    "SUBSYSTEM",
    "TD_ID",
    "VETO_ACTED",
    "VETO_ADJACENT",
    "VETO_ENGINE",
    "VETO_PHASE",
    "FortsOnCcfolia",
    "legal_forts",
]

#: The round/phase line's object.
TD_ID = "ks-td"
#: Stable-id prefixes that are not the kind itself.
PREFIXES = {"individual": "ind", "direction": "dir"}
#: TD-RND phase names (kept here so a renamed engine table never breaks a bridge).
PHASES: dict[str, tuple[str, str]] = {
    "setup": ("準備", "setup"), "reinforcement": ("敵増援フェイズ", "reinforcement"),
    "advance": ("敵進軍フェイズ", "advance"), "pc_attack": ("PC攻撃フェイズ", "PC attack"),
    "enemy_attack": ("敵攻撃フェイズ", "enemy attack"),
}
OUTCOMES: dict[str, tuple[str, str]] = {
    "victory": ("PC側の勝利", "victory"), "defeat": ("PC側の敗北", "defeat"),
}
SPECIALS: dict[str, tuple[str, str]] = {
    "priest": ("司祭", "priest"), "frozen": ("凍てつく者", "frozen one"),
    "nofke": ("ノフケー", "nofke"), "other": ("特異個体", "special"),
}
TRAP_WORDS: dict[str, tuple[str, str]] = {
    "explosive": ("爆破トラップ", "explosive trap"), "snare": ("足止めトラップ", "snare trap"),
}

VETO_ENGINE = Text("敵はルールに従って自動で動きます（TD-ADV-1）。",
                   "Enemies move by the rules, on their own (TD-ADV-1).")
VETO_PHASE = Text("PCが砦を移るのは開始前の配置とPC攻撃フェイズだけです（TD-ATK-1）。",
                  "PCs change forts only while placing before round 1 and in the PC attack "
                  "phase (TD-ATK-1).")
VETO_ACTED = Text("このPCはこのフェイズにもう行動しました（TD-ATK-3）。",
                  "This PC has already acted this phase (TD-ATK-3).")
VETO_ADJACENT = Text("通路でつながった隣の砦にだけ移動できます（TD-ATK-1）。",
                     "A PC moves along one passage to an adjacent fort (TD-ATK-1).")

IGN_NOT_A_FORT = Text("探索者の駒は砦の上に置いてください", "drop a PC on a fort")
IGN_SAME_FORT = Text("「{name}」は{fort}にいます（移動なし）", "'{name}' is already at {fort}")
IGN_NO_ROLL = Text("成功度のわかるCC判定の結果がありません", "no CC check result with a success level")
IGN_UNREADABLE = Text("ダイスの結果を読めませんでした（{why_ja}）: {line}",
                      "the dice result could not be read ({why_en}): {line}")
IGN_DIFFICULTY = Text("難易度つきのCC判定（CC<=50H など）は成功/失敗しか出ず目標値も技能値ではないため、"
                      "タワーディフェンスでは使えません。難易度なしで振ってください: {line}",
                      "a CC check with a difficulty (CC<=50H etc.) shows only 成功/失敗 against "
                      "a target that is not the skill, so tower defense cannot use it; roll it "
                      "without a difficulty: {line}")
IGN_NO_PC = Text("発言者「{name}」は探索者の駒ではありません", "speaker '{name}' is not a PC piece")
IGN_NATIVE_WEAPON = Text(
    "Foundryの1D100には技能値がありません。武器名をフレーバーに書いてください（技能値は探索者のものを使います）",
    "a Foundry 1D100 has no target; name the weapon in the roll's flavor (the PC's skill is used)")
IGN_NATIVE_SKILL = Text("「{name}」には技能「{skill}」の値がありません",
                        "{name} has no value for the skill {skill}")
IGN_WEAPON = Text("どの武器の判定かわかりません（技能値{target}）。武器名を書いてください",
                  "which weapon? (target {target}); name the weapon in the message")
IGN_TARGET = Text("攻撃対象の敵グループを書いてください（例: {example}）",
                  "name the target group in the message (e.g. {example})")


def _oid(kind: str, ref: str) -> str:
    return object_id(PREFIXES.get(kind, kind), ref)


# -- render (TD-MAP-2) and the board (TD-RND) -----------------------------------------------


def render(tree: Mapping[str, Any], objs: Objects) -> None:
    """TD-MAP-2: forts (耐久力), directions, enemy groups (個体数), 特異個体, PCs, traps."""
    td = tree.get("tower_defense")
    if not isinstance(td, dict):
        return
    objs[TD_ID] = _td_line(td)
    for did, d in entries(td, "directions"):
        objs[_oid("direction", did)] = _direction(did, d)
    for fid, f in entries(td, "forts"):
        objs[_oid("fort", fid)] = _fort(fid, f)
    for tid, t in entries(td, "traps"):
        objs[_oid("trap", tid)] = _trap(tid, t)
    marks = as_dict(td.get("marks"))
    for gid, g in entries(td, "groups"):
        objs[_oid("group", gid)] = _group(gid, g, gid in marks)
    for iid, i in entries(td, "individuals"):
        objs[_oid("individual", iid)] = _individual(iid, i)
    forts, weapons, grid = as_dict(td.get("forts")), as_dict(td.get("weapons")), grid_of(tree)
    for row, (pid, p) in enumerate(entries(td, "pcs")):
        # TD-PRE-1 not placed yet: beside the board, one row per PC
        objs[_oid("pc", pid)] = _pc(pid, p, forts, weapons, beside(grid, 2 + row))


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


def board(objs: Objects, b: Board) -> None:
    """Round, phase and outcome (TD-RND); the victory condition as the board's memo."""
    for _oid, o in each(objs, "td"):
        b.params.append({"label": "ラウンド", "value": f"{o['round']}"})
        b.params.append({"label": "フェイズ", "value": bi(o["phase_ja"], o["phase_en"])})
        if o["outcome"] in OUTCOMES:
            ja, en = OUTCOMES[o["outcome"]]
            b.params.append({"label": "結果", "value": bi(ja, en)})
        if o["victory_ja"] or o["victory_en"]:
            b.memo.append(bi(o["victory_ja"], o["victory_en"]))


# -- drawings (TD-MAP-2) ----------------------------------------------------------------------

#: Each kind's colour (Ccfolia character colour, Foundry drawing colour, the ZIP's tiles).
COLORS = {"group": "#d32f2f", "individual": "#8e24aa", "pc": "#1e88e5", "fort": "#6d4c41",
          "trap": "#c62828", "direction": "#1565c0"}
#: The fortress map's colours (the room ZIP's foreground): passages, directions, forts.
MAP_COLORS = {"passage": "#80745c", "lateral": "#686880", "direction": "#285096",
              "fort": "#96643c", "final": "#aa3c32"}


class FortsOnCcfolia(BaseModel):
    """What this subsystem adds to `meta.platforms.ccfolia`: `forts_as` — a fort's 耐久力
    as `dice` symbols, a `status` bar on a fort character, or `both`; `fort_die_faces`
    — the faces of each die (a fort above them shows ⌈max/faces⌉ dice, each full but the
    last; a die with nothing left is removed, so a fallen fort has no dice)."""

    forts_as: Literal["dice", "status", "both"] = "both"
    fort_die_faces: Annotated[Literal[4, 6, 8, 10, 12, 20], OnlyInt] = 6


def _forts_on(surface: Surface) -> FortsOnCcfolia:
    s = surface.settings
    return s if isinstance(s, FortsOnCcfolia) else FortsOnCcfolia()


def draw_fort(o: Mapping[str, Any], surface: Surface) -> list[Drawing]:
    """A fort: its 耐久力 as dice symbols and/or a token with the bar (`forts_as`; only
    the token where dice cannot be shown); a panel on Foundry (`fixed`), fallen at 0."""
    opts = _forts_on(surface)
    out: list[Drawing] = []
    if opts.forts_as in ("dice", "both") and surface.dice:
        out.append({"draw": DICE, "cell": o["cell"], "value": o["durability"], "max": o["max"],
                    "faces": opts.fort_die_faces})
    if opts.forts_as in ("status", "both") or not surface.dice:
        params: list[Param] = [{"label": "段", "value": str(o["tier"])}]
        if o["final"]:
            params.append({"label": "最終砦", "value": bi("はい", "final")})
        token: Token = {"draw": TOKEN, "name": o["name"], "cell": o["cell"], "fixed": True,
                        "bars": [{"label": "耐久力", "value": o["durability"], "max": o["max"]}],
                        "params": params, "memo": f"ID: {o['ref']}", "color": COLORS["fort"]}
        if o["durability"] <= 0:
            token["caption"] = "陥落 / fallen"
        out.append(token)
    return out


def draw_group(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """An enemy group (TD-MAP-2): 個体数 as its bar and in its name (TD-REIN-1), its state."""
    words = [w for flag, w in ((o["waiting"], ("待機", "waiting")), (o["snared"], ("足止め", "snared")),
                               (o["marked"], ("魔眼", "evil eye"))) if flag]
    title = f"{o['name']}（個体数 {o['count']}）" + ("［足止め］" if o["snared"] else "") + (
        "［魔眼］" if o["marked"] else "")
    return [{"draw": TOKEN, "name": o["name"], "cell": o["cell"], "title": title,
             "bars": [{"label": "個体数", "value": o["count"], "max": o["max"]}],
             "params": [{"label": "状態", "value": " ".join(bi(ja, en) for ja, en in words) or "-"}],
             "color": COLORS["group"], "disposition": -1,
             "memo": bi(f"ID: {o['ref']}（攻撃のときに書く）", f"ID: {o['ref']} (write it to attack)")}]


def draw_individual(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """A 特異個体 (TD-OPT-2): its kind, its HP when it has one."""
    bars: list[Bar] = [{"label": "HP", "value": o["hp"], "max": o["hp"]}] if o["hp"] else []
    return [{"draw": TOKEN, "name": o["name"], "cell": o["cell"], "bars": bars,
             "title": f"{o['name']}（{o['special_ja']}）", "color": COLORS["individual"],
             "params": [{"label": "特異個体", "value": bi(o["special_ja"], o["special_en"])}],
             "memo": f"ID: {o['ref']}", "disposition": -1}]


def draw_pc(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """A PC: ammunition bars, its fort, and its attacks as chat palette lines."""
    bars: list[Bar] = []
    commands = []
    for w in o["weapons"]:
        if w["magazine"] is not None and w["loaded"] is not None:
            bars.append({"label": f"{w['name']}残弾", "value": w["loaded"], "max": w["magazine"]})
        if w["special_name"]:
            bars.append({"label": w["special_name"], "value": w["special_left"],
                         "max": w["special_uses"]})
        value = o["skills"].get(w["skill"])
        if value is not None:
            commands.append(f"CC<={value} {w['name']}")
            if w["kind"] == "firearm" and w["attacks_per_round"] > 1:
                commands.append(f"x{w['attacks_per_round']} CC<={value} {w['name']}")
    memo = bi("攻撃: チャットパレットの判定の後ろに敵グループのIDか砦名を書く",
              "attack: after a palette check, write the group id or fort name")
    return [{"draw": TOKEN, "name": o["name"], "cell": o["cell"], "title": o["name"],
             "bars": bars, "params": [{"label": "砦", "value": o["fort_name"] or "未配置 / not placed"}],
             "memo": memo, "color": COLORS["pc"], "commands": "\n".join(commands),
             "disposition": 1}]


def draw_panel(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """A trap or a direction: its text on its square, in its kind's colour."""
    return [{"draw": MARKER, "text": o["text"], "cell": o["cell"], "color": COLORS[o["kind"]]}]


def paint(tree: Mapping[str, Any], objs: Objects) -> list[Area] | None:
    """TD-MAP-2: the fortress map — passages, lateral passages, then directions and forts
    (the final fort darker). None without a tower defense."""
    td = tree.get("tower_defense")
    if not isinstance(td, dict):
        return None
    areas: list[Area] = []
    for p in as_dict(td.get("passages")).values():
        if isinstance(p, dict):
            cells = [c for c in p.get("cells", []) if isinstance(c, dict)
                     and isinstance(c.get("x"), int) and isinstance(c.get("y"), int)]
            areas.append({"draw": AREA, "cells": cells,
                          "color": MAP_COLORS["lateral" if p.get("lateral") else "passage"]})
    for o in objs.values():
        if o["kind"] in ("direction", "fort") and o.get("cell"):
            areas.append({"draw": AREA, "cells": [o["cell"]],
                          "color": MAP_COLORS["final" if o.get("final") else o["kind"]]})
    return areas


# -- a PC dropped on a fort (TD-PRE-1, TD-ATK-1) ---------------------------------------------


def move_pc(drop: Drop) -> EventResult:
    """A PC dropped near a fort: placed there in setup, moved there later."""
    obj, objs = drop.obj, drop.objs
    fort = _nearest_fort(objs, drop.geo.square(drop.x, drop.y), drop.settings.drop_radius)
    if fort is None:
        return ignored(IGN_NOT_A_FORT)
    if fort["ref"] == obj["fort"]:
        return ignored(IGN_SAME_FORT.format(name=obj["name"], fort=fort["name"]))
    return accepted(_pc_to_fort(drop.tree, obj["ref"], fort["ref"]), drop.by,
                    {**drop.context, "fort": fort["ref"]})


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


def legal(o: TableObject, objs: Objects, tree: Mapping[str, Any]) -> Legal | None:
    """Enemies go nowhere by hand (TD-ADV-1); a PC to the forts its next move may reach
    (TD-PRE-1 in setup, TD-ATK-1/3 in the PC attack phase); others: no opinion."""
    if o["kind"] in ("group", "individual"):
        return Legal(VETO_ENGINE)
    if o["kind"] != "pc":
        return None
    forts, reason = legal_forts(tree, o["ref"])
    cells = [objs[_oid("fort", f)].get("cell") for f in forts if _oid("fort", f) in objs]
    return Legal(reason, [c for c in cells if c is not None])


# -- a BCDice result in chat → an attack (TD-ATK-2) -----------------------------------------


#: Words that ask for a weapon's special ammunition, besides its own name.
SPECIAL_WORDS = ("special", "特殊", "特殊弾", "グレネード")
#: Weapon kinds that take one check, not one per shot (TD-DATA).
ONE_CHECK = {"melee": "td.melee", "eye": "td.special"}

_SPLIT = re.compile(r"[\s　,、。;；:：@＠→>＞<＜=＝()（）\[\]［］「」『』【】/／]+")


def chat(line: Chat) -> EventResult | None:
    """A chat line as an attack by the speaking PC, or why it is none (None in a room
    without tower defense: the reason then comes from a subsystem the room has)."""
    event, tree, objs = line.event, line.tree, line.objs
    if not isinstance(tree.get("tower_defense"), dict):
        return None
    text = str(event.get("text") or "")
    results = parse_message(str(event.get("roll") or text))
    checks = [r for r in results if isinstance(r, CocCheck)]
    hard = next((r for r in checks if r.difficulty), None)
    if hard is not None:  # its target is not the skill: never match a weapon by it
        return ignored(IGN_DIFFICULTY.format(line=hard.raw[:60]))
    lines = [r.raw for r in checks
             if r.kind == "check" and r.level is not None and r.target is not None]
    native = [] if lines or event.get("native") is not True else [
        r.value for r in results if isinstance(r, PlainRoll) and r.expr.upper() == "1D100"]
    if not lines and not native:
        return unread_roll(results)
    target = checks[0].target if lines else None
    speaker = as_dict(event.get("speaker"))
    pc = _speaker_pc(objs, speaker)
    if pc is None:
        name = str(speaker.get("name") or speaker.get("id") or "?")
        return ignored(IGN_NO_PC.format(name=name[:40]))
    if not line.known:
        return ignored(IGN_USER.format(user=line.label))
    words = _words(text)
    weapon = _pick_weapon(pc, words, target)
    if weapon is None:
        return ignored(IGN_NATIVE_WEAPON if native else IGN_WEAPON.format(target=target))
    if native:
        skill = pc["skills"].get(weapon["skill"])
        if skill is None:
            return ignored(IGN_NATIVE_SKILL.format(name=pc["name"], skill=weapon["skill"]))
        lines = [cc_line(value, skill) for value in native]
    group = _pick_group(objs, pc, words)
    if group is None:
        example = next((o["ref"] for o in objs.values() if o["kind"] == "group"), "r1-north")
        return ignored(IGN_TARGET.format(example=f"CC<=50 {example}"))
    context = {"pc": pc["ref"], "weapon": weapon["id"], "group": group["ref"]}
    return accepted(_attack(pc, weapon, group, lines, words), line.by, context)


#: The Cthulhu7th word BCDice prints for each level.
_LEVEL_TEXT = {level: word for word, level in LEVEL_WORDS.items()}


def cc_line(value: int, target: int) -> str:
    """The line BCDice's `CC<=target` prints for a d100 of `value` (a native Foundry
    1D100 whose target is the PC's skill, from the scenario)."""
    word = _LEVEL_TEXT[coc_level(value, target)]
    return f"(1D100<={target}) ボーナス・ペナルティダイス[0] ＞ {value} ＞ {value} ＞ {word}"


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
        return g["ref"] in words or _oid(g["kind"], g["ref"]) in words

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
    o = objs.get(_oid(kind, ref))
    return str(o["name"]) if o else None


SUBSYSTEM = TableSubsystem(
    name="tower_defense",
    render=render,
    stack={"fort": 0, "individual": 1, "group": 2, "pc": 3},
    prefixes=PREFIXES,
    owners={"pc": "player"},
    board=board,
    moves={"pc": move_pc},
    chat=chat,
    legal=legal,
    board_kinds=frozenset({"td"}),
    draw={"direction": draw_panel, "fort": draw_fort, "trap": draw_panel, "group": draw_group,
          "individual": draw_individual, "pc": draw_pc},
    options={"ccfolia": FortsOnCcfolia},
    paint=paint,
)


def unread_roll(results: list[BCDiceResult]) -> EventResult:
    """Why a chat line gave no usable check: the parser's reason for the first line it
    could not read (Japanese first), else "no CC check with a success level"."""
    bad = next((r for r in results if isinstance(r, NotUnderstood)), None)
    if bad is None:
        return ignored(IGN_NO_ROLL)
    line = bad.raw.strip().splitlines()[0][:60] if bad.raw.strip() else "-"
    return ignored(IGN_UNREADABLE.format(why_ja=bad.why.ja, why_en=bad.why.en,
                                         line=line))
