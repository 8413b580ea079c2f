"""Engagement on a VTT (seed 004, ENG-*): a line (Foundry) or a marker panel (Ccfolia)
between every two engaged pieces, partners as a label on each piece, the turn and the
attack being resolved on the komasync board, and dice results from the chat.

Render: each pair (ENG-1) whose two pieces stand on the board is one `link` object,
anchored on the square halfway between them with both squares in `from`/`to`; it
vanishes with the pair (a handover, a transfer, the end of a setup: ENG-HAND-1,
ENG-EF-3). Board: the turn and phase (ENG-TURN), the open attack and what it waits for.
Chat: a BCDice sum from the player of the character whose check the open attack waits
for (or from the GM) becomes `engagement.roll`; the engine judges the line. Moves: the pieces are the
generic table's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine.bcdice import PlainRoll, parse_message
from ...engine.errors import Text
from ..base import EventResult
from ..drawing import LINE, Drawing, Surface
from ..objects import Board, Chat, Objects, TableObject, TableSubsystem, bi, each, object_id
from ..projection import as_cell, as_dict, as_int, entries
from ..replies import accepted, ignored

__all__ = ["ENG_ID", "SUBSYSTEM"]

#: The turn line's object (no square: it only feeds the board).
ENG_ID = "ks-eng"
PHASES = {"setup": ("セットアップ", "setup"), "main": ("イニシアチブ／メインフェイズ", "main phase"),
          "cleanup": ("クリンナップ", "cleanup")}
ATTACKS = {"approach": ("接近", "approach"), "melee": ("近接攻撃", "melee"),
           "shot": ("ショット", "shot"), "homing": ("ホーミング", "homing")}
#: What the open attack waits for (`exchange.awaiting.what`), as the board says it.
AWAITED = {"attack_check": ("判定待ち", "waiting for the check"),
           "cover": ("カバー待ち", "a cover may come"),
           "defence": ("防御待ち", "waiting for the defence"),
           "defence_check": ("防御判定待ち", "waiting for the defence check"),
           "damage": ("ダメージ待ち", "waiting for the damage")}

IGN_NO_ENG = Text("この部屋には接近状態のルールがありません", "this room has no engagement rules")
IGN_NOT_WAITING = Text("いま結果を待っている判定はありません", "no check is waiting for a result")
IGN_NO_SUM = Text("ダイスの合計の結果がありません", "no sum of dice in the message")
IGN_WHO = Text("待っているのは「{n}」の判定です", "the check waiting is {n}'s")


def render(tree: Mapping[str, Any], objs: Objects) -> None:
    """The turn line; one `link` per pair of pieces on the board; partners on pieces."""
    e = tree.get("engagement")
    if not isinstance(e, dict):
        return
    pieces = as_dict(as_dict(tree.get("table")).get("pieces"))
    combatants = as_dict(e.get("combatants"))
    objs[ENG_ID] = _line(e, pieces, combatants)
    partners: dict[str, list[str]] = {}
    for key, pair in entries(e, "pairs"):
        a, b = str(pair.get("a", "")), str(pair.get("b", ""))
        ends = [_piece_of(pieces, combatants, cid) for cid in (a, b)]
        names = [str(p.get("name") or cid) for p, cid in zip(ends, (a, b), strict=True)]
        partners.setdefault(a, []).append(names[1])
        partners.setdefault(b, []).append(names[0])
        cells = [as_cell(p.get("cell")) for p in ends]
        if cells[0] is not None and cells[1] is not None:
            objs[object_id("eng", key)] = _link(key, names, cells[0], cells[1])
    for cid, names in partners.items():
        piece_id = str(as_dict(combatants.get(cid)).get("piece", ""))
        piece = objs.get(object_id("piece", piece_id))
        if piece is not None:
            piece["labels"] = {**piece.get("labels", {}), "接近": "・".join(names)}


def _piece_of(pieces: Mapping[str, Any], combatants: Mapping[str, Any], cid: str) -> dict[str, Any]:
    return as_dict(pieces.get(str(as_dict(combatants.get(cid)).get("piece", ""))))


def _link(key: str, names: list[str], a: dict[str, int], b: dict[str, int]) -> TableObject:
    """A pair as an object: on the square halfway between its pieces, both ends kept."""
    mid = {"x": (a["x"] + b["x"]) // 2, "y": (a["y"] + b["y"]) // 2}
    text = bi(f"接近 {names[0]}⇔{names[1]}", f"engaged {names[0]}⇔{names[1]}")
    return {"kind": "link", "ref": key, "name": text, "text": text, "cell": mid,
            "from": dict(a), "to": dict(b)}


#: An engaged pair's line.
LINK_COLOR = "#e65100"


def draw_link(o: Mapping[str, Any], _surface: Surface) -> list[Drawing]:
    """An engaged pair: a line between the two pieces, its text halfway (ENG-1)."""
    return [{"draw": LINE, "text": o["text"], "cell": o["cell"], "from": o["from"], "to": o["to"],
             "color": LINK_COLOR}]


def _line(e: Mapping[str, Any], pieces: Mapping[str, Any], combatants: Mapping[str, Any]
          ) -> TableObject:
    ex = as_dict(e.get("exchange"))
    attack = ""
    if ex:
        who = [str(_piece_of(pieces, combatants, str(ex.get(k, ""))).get("name") or ex.get(k))
               for k in ("attacker", "target")]
        ja, en = ATTACKS.get(str(ex.get("attack")), ("", ""))
        s_ja, s_en = AWAITED.get(str(as_dict(ex.get("awaiting")).get("what")), ("", ""))
        attack = bi(f"{who[0]}→{who[1]} {ja}（{s_ja}）", f"{who[0]}→{who[1]} {en} ({s_en})")
    return {"kind": "engagement", "ref": "engagement", "name": "接近状態 / engagement",
            "active": bool(e.get("active")), "turn": as_int(e.get("turn"), 0),
            "phase": str(e.get("phase", "")), "attack": attack,
            "pairs": len(as_dict(e.get("pairs"))), "offers": len(as_dict(e.get("offers")))}


def board(objs: Objects, b: Board) -> None:
    """The turn and phase (ENG-TURN), engaged pairs, the attack being resolved."""
    for _oid, o in each(objs, "engagement"):
        if not o["active"]:
            continue
        ja, en = PHASES.get(o["phase"], (o["phase"], o["phase"]))
        b.params.append({"label": "接近状態", "value": bi(
            f"ターン{o['turn']} {ja}（接近{o['pairs']}組）",
            f"turn {o['turn']}, {en} ({o['pairs']} engaged)")})
        if o["attack"]:
            b.params.append({"label": "攻撃", "value": o["attack"]})


def chat(line: Chat) -> EventResult | None:
    """A BCDice sum for the check the open attack waits for → `engagement.roll`."""
    e = line.tree.get("engagement")
    if not isinstance(e, dict):
        return None
    ex = as_dict(e.get("exchange"))
    check = as_dict(ex.get("check"))
    what = as_dict(ex.get("awaiting")).get("what")
    if not check or what not in ("attack_check", "defence_check", "damage"):
        return ignored(IGN_NOT_WAITING)
    text = str(line.event.get("roll") or line.event.get("text") or "")
    sums = [r for r in parse_message(text) if isinstance(r, PlainRoll)]
    if not sums:
        return ignored(IGN_NO_SUM)
    who = str(check.get("who", ""))
    piece_id = str(as_dict(as_dict(e.get("combatants")).get(who)).get("piece", ""))
    piece = line.objs.get(object_id("piece", piece_id), {})
    if line.by is not None and line.by != piece.get("owner"):
        return ignored(IGN_WHO.format(n=str(piece.get("name") or who)))
    action = {"kind": "engagement.roll", "combatant": who, "result": sums[0].raw}
    return accepted(action, line.by, {"combatant": who})


SUBSYSTEM = TableSubsystem(
    name="engagement",
    render=render,
    prefixes={"link": "eng"},
    board=board,
    chat=chat,
    board_kinds=frozenset({"engagement"}),
    draw={"link": draw_link},
    reads=frozenset({"table"}),  # it reads the generic table's pieces and alters them
)
