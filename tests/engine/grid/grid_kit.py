"""Grid test kit: rooms drawn as text maps, driven through Engine.apply.

Legend (one character per square, rows top to bottom):
  .  empty          #  obstacle          *  a marked square (returned, nothing there)
  A B  PCs of player p1   C D  PCs of player p2   (ids pa, pb, pc, pd)
  e f g h  enemies (ids ee, ef, eg, eh)   n  a neutral (id nn)
  i  an incapacitated PC (id pi)          x  an incapacitated enemy (id ex)
Every PC has an HP counter `<id>_hp` (value 20) and an MP counter.
"""

from __future__ import annotations

from typing import Any

from engine_kit import GM, do, engine_of, part, refused

from komasync.engine.core import Engine, Outcome
from komasync.engine.grid.model import GridState
from komasync.engine.tx import Actor
from komasync.engine.views import Audience, View

__all__ = ["ENEMIES", "GM", "P1", "P2", "PCS", "Sq", "at", "do", "engine", "grid", "move", "parse",
           "process", "refused", "scenario", "start", "statuses", "view"]

P1 = Actor(role="player", player="p1", label="P1")
P2 = Actor(role="player", player="p2", label="P2")
PCS = {"A": ("pa", "p1"), "B": ("pb", "p1"), "C": ("pc", "p2"), "D": ("pd", "p2"),
       "i": ("pi", "p2")}
ENEMIES = {"e": "ee", "f": "ef", "g": "eg", "h": "eh", "x": "ex"}

Sq = tuple[int, int]


def parse(text: str) -> tuple[list[str], dict[str, Sq], list[Sq], list[Sq]]:
    """Rows, each letter's square, obstacle squares, marked squares."""
    rows = [r.strip() for r in text.strip("\n").splitlines() if r.strip()]
    where: dict[str, Sq] = {}
    walls: list[Sq] = []
    marks: list[Sq] = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == "#":
                walls.append((x, y))
            elif ch == "*":
                marks.append((x, y))
            elif ch != ".":
                assert ch not in where, f"{ch} twice"
                where[ch] = (x, y)
    return rows, where, walls, marks


def scenario(text: str, settings: dict[str, Any] | None = None, **grid: Any) -> dict[str, Any]:
    rows, where, walls, _marks = parse(text)
    pieces, counters, combatants = [], [], []
    for ch, (x, y) in where.items():
        if ch in PCS:
            cid, owner = PCS[ch]
            pieces.append({"id": cid, "name": f"PC {ch}", "owner": owner, "cell": {"x": x, "y": y}})
            counters.append({"id": f"{cid}_hp", "name": f"{ch} HP", "value": 20, "min": 0,
                             "max": 20})
            counters.append({"id": f"{cid}_mp", "name": f"{ch} MP", "value": 10, "min": 0})
            spec: dict[str, Any] = {"id": cid, "side": "pc",
                                    "counters": {"HP": f"{cid}_hp", "MP": f"{cid}_mp"}}
            if ch == "i":
                spec["statuses"] = [{"id": "down", "kind": "incapacitated"}]
        elif ch in ENEMIES:
            cid = ENEMIES[ch]
            pieces.append({"id": cid, "name": f"エネミー{ch}", "cell": {"x": x, "y": y}})
            spec = {"id": cid, "side": "enemy", "profile": {"HP": 30, "物理防御": 5}}
            if ch == "x":
                spec["statuses"] = [{"id": "down", "kind": "incapacitated"}]
        elif ch == "n":
            cid = "nn"
            pieces.append({"id": cid, "name": "村人", "cell": {"x": x, "y": y}})
            spec = {"id": cid, "side": "neutral"}
        else:
            raise AssertionError(f"unknown map letter {ch!r}")
        combatants.append(spec)
    return {
        "room": {"name": "grid test", "seed": "grid"},
        "players": [{"id": "p1", "name": "P1"}, {"id": "p2", "name": "P2"}],
        "table": {"grid": {"width": len(rows[0]), "height": len(rows)}, "pieces": pieces,
                  "counters": counters},
        "grid": {"settings": settings or {}, "obstacles": [{"x": x, "y": y} for x, y in walls],
                 "combatants": combatants, **grid},
    }


def engine(text: str, settings: dict[str, Any] | None = None, start: bool = False,
           **grid: Any) -> Engine:
    e = engine_of(scenario(text, settings, **grid))
    if start:
        do(e, GM, kind="grid.start")
    return e


def at(e: Engine, cid: str) -> Sq | None:
    piece = e.state.table.pieces[cid]
    return (piece.cell.x, piece.cell.y) if piece.cell is not None else None


def move(e: Engine, actor: Actor, cid: str, to: Sq) -> Outcome:
    return do(e, actor, kind="grid.move", combatant=cid, to={"x": to[0], "y": to[1]})


def start(e: Engine, actor: Actor, cid: str) -> Outcome:
    return do(e, actor, kind="grid.process.start", combatant=cid)


def grid(e: Engine) -> GridState:
    return part(e, "grid", GridState)


def process(e: Engine) -> dict[str, Any] | None:
    g = grid(e)
    return g.process.model_dump(mode="json") if g.process is not None else None


def view(e: Engine, audience: str) -> dict[str, Any]:
    return View(Audience.parse(audience), e.state).tree


def statuses(e: Engine, cid: str) -> list[str]:
    return [s.kind for s in grid(e).combatants[cid].statuses.values()]
