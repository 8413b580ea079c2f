"""Protocol v2 for grid combat over real sockets (issue 28): every outcome is read from the
ack's `results`/`created`, a query answer or a prompt — never from log text or by diffing
state. Rule IDs covered: GRID-MV-1, GRID-ST-4, GRID-X-2, GRID-X-3, GRID-RNG-3, GRID-RND-2."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import Client, Running, gm, invite, join, start_server

SCENARIO = """
room: {{name: 試験場 / The proving ground, enforcement: enforce, seed: v2-grid}}
players:
  - {{id: alice, name: アリス}}
  - {{id: bob, name: ボブ}}
table:
  grid: {{width: 10, height: 6}}
  pieces:
    - {{id: hero, name: 勇者, owner: alice, cell: {{x: 0, y: 0}}}}
    - {{id: bird, name: 鳥使い, owner: alice, cell: {{x: 0, y: 3}}}}
    - {{id: owl, name: 梟術師, owner: alice, cell: {{x: 0, y: 5}}}}
    - {{id: rest, name: 控え, owner: bob, cell: {{x: 9, y: 5}}}}
    - {{id: goblin, name: ゴブリン, cell: {{x: 2, y: 1}}}}
    - {{id: spy, name: 密偵, cell: {{x: 8, y: 0}}, hidden: true}}
grid:
  settings: {{{settings}}}
  combatants:
    - {{id: hero, side: pc}}
    - {{id: bird, side: pc, statuses: [{{id: wings, kind: flying}}]}}
    - {{id: owl, side: pc, statuses: [{{id: feathers, kind: flying}}]}}
    - {{id: rest, side: pc}}
    - {{id: goblin, side: enemy}}
    - {{id: spy, side: enemy}}
"""

Table = tuple[Client, Client]


@pytest.fixture
async def arena(tmp_path: Path) -> AsyncIterator[Callable[[str], Any]]:
    """`await arena("setting: value, …")`: a started fight, the GM's and alice's clients."""
    servers: list[Running] = []

    async def seat(settings: str = "") -> Table:
        path = tmp_path / f"arena{len(servers)}.yaml"
        path.write_text(SCENARIO.format(settings=settings), encoding="utf-8")
        r = await start_server(tmp_path / f"k{len(servers)}.sqlite3", path)
        servers.append(r)
        g = await gm(r)
        alice = await join(r, await invite(g, "player", "alice"))
        assert (await g.reply({"kind": "grid.start"}))["type"] == "ack"
        return g, alice

    yield seat
    for r in servers:
        await r.runner.cleanup()


async def ok(c: Client, action: dict[str, Any]) -> dict[str, Any]:
    reply = await c.reply(action)
    assert reply["type"] == "ack", reply
    return reply


def result(ack: dict[str, Any], kind: str) -> dict[str, Any]:
    found = [r for r in ack.get("results", []) if r["kind"] == kind]
    assert len(found) == 1, ack
    return found[0]


def cells(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


async def test_a_long_drop_eats_the_major_and_the_ack_says_so(arena: Any) -> None:
    """GRID-MV-1: one drop of 5 squares spends move, minor and major; the ack names the
    cost, the steps and the path, and that the process is over (GRID-RND-2)."""
    _g, alice = await arena()
    began = await ok(alice, {"kind": "grid.process.start", "combatant": "hero"})
    assert result(began, "grid.process") == {"kind": "grid.process", "combatant": "hero",
                                              "step": "move"}
    moved = result(await ok(alice, {"kind": "grid.move", "combatant": "hero",
                                    "to": {"x": 5, "y": 0}}), "grid.move")
    assert moved["from"] == {"x": 0, "y": 0} and moved["to"] == {"x": 5, "y": 0}
    assert (moved["cost"], moved["steps"]) == (5, ["move", "minor", "major"])
    assert moved["path"] == cells((1, 0), (2, 0), (3, 0), (4, 0), (5, 0))
    assert moved["step"] is None  # the major is spent: the process ended itself


async def test_status_add_names_the_id_it_made(arena: Any) -> None:
    """GRID-ST-1 statuses: `grid.status.add` without an id tells the GM the id it made."""
    g, _alice = await arena()
    ack = await ok(g, {"kind": "grid.status.add", "combatant": "hero", "status": "poison",
                       "value": 3})
    made = [c for c in ack["created"] if c["what"] == "status"]
    assert len(made) == 1 and made[0]["id"].startswith("st")
    # the id is the one to remove it by
    await ok(g, {"kind": "grid.status.remove", "combatant": "hero", "status": made[0]["id"]})


async def test_one_drop_one_step_says_end_the_step_first(arena: Any) -> None:
    """GRID-MV-1 with `drop_spans_steps: false`: with the minor and major untouched, a move
    past the current step is refused as `not_this_step` (not `no_step_left`); after
    `grid.step.end` (whose ack names the new step) it is accepted."""
    _g, alice = await arena("drop_spans_steps: false")
    await ok(alice, {"kind": "grid.process.start", "combatant": "hero"})
    moved = result(await ok(alice, {"kind": "grid.move", "combatant": "hero",
                                    "to": {"x": 1, "y": 0}}), "grid.move")
    assert (moved["cost"], moved["steps"], moved["step"]) == (1, ["move"], "move")
    for to, alt in (({"x": 2, "y": 0}, "used up"), ({"x": 3, "y": 0}, "used up")):
        refused = await alice.reply({"kind": "grid.move", "combatant": "hero", "to": to})
        assert (refused["type"], refused["code"], refused["rule"]) == (
            "reject", "not_this_step", "GRID-MV-1"), refused
        assert alt in refused["reason"]["en"] and "grid.step.end" in refused["reason"]["en"]
    ended = await ok(alice, {"kind": "grid.step.end", "combatant": "hero"})
    assert result(ended, "grid.process")["step"] == "minor"
    moved = result(await ok(alice, {"kind": "grid.move", "combatant": "hero",
                                    "to": {"x": 3, "y": 0}}), "grid.move")
    assert (moved["cost"], moved["steps"]) == (2, ["minor"])


async def test_a_process_that_closed_itself_is_refused_for_its_real_reason(arena: Any) -> None:
    """GRID-ST-4: a flyer that moved in its major gets no move after it; GRID-X-2: a flyer
    that moved and then made a magic attack neither — each refusal says so, not
    `not_in_process`."""
    _g, alice = await arena("magic_move_limit: true")
    await ok(alice, {"kind": "grid.process.start", "combatant": "bird"})
    moved = result(await ok(alice, {"kind": "grid.move", "combatant": "bird",
                                    "to": {"x": 5, "y": 3}}), "grid.move")
    assert moved["steps"] == ["move", "minor", "major"] and moved["step"] is None
    again = await alice.reply({"kind": "grid.move", "combatant": "bird", "to": {"x": 6, "y": 3}})
    assert (again["code"], again["rule"]) == ("no_flying_step", "GRID-ST-4"), again

    await ok(alice, {"kind": "grid.process.start", "combatant": "owl"})
    await ok(alice, {"kind": "grid.move", "combatant": "owl", "to": {"x": 1, "y": 5}})
    for step in ("minor", "major"):
        assert result(await ok(alice, {"kind": "grid.step.end", "combatant": "owl"}),
                      "grid.process")["step"] == step
    acted = result(await ok(alice, {"kind": "grid.act", "combatant": "owl", "timing": "major",
                                    "what": "magic_attack", "name": "[ファイアボルト]"}),
                   "grid.act")
    assert (acted["spent"], acted["step"]) == ("major", None)  # no flying step after it
    again = await alice.reply({"kind": "grid.move", "combatant": "owl", "to": {"x": 2, "y": 5}})
    assert (again["code"], again["rule"]) == ("magic_attack_moved", "GRID-X-2"), again


async def test_a_hindrance_prompt_says_what_it_is_and_whom_it_is_about(arena: Any) -> None:
    """GRID-X-3: the move passing the goblin's range 0 asks the GM a `grid.hindrance`
    prompt about the mover; alice's ack carries her move, not the GM's prompt id."""
    g, alice = await arena("hindrance: true")
    await ok(alice, {"kind": "grid.process.start", "combatant": "hero"})
    ack = await ok(alice, {"kind": "grid.move", "combatant": "hero", "to": {"x": 4, "y": 0}})
    assert result(ack, "grid.move")["cost"] == 4
    assert "created" not in ack  # the prompt is the GM's: its id is not alice's to see
    prompt = (await g.expect("prompt"))["prompt"]
    assert (prompt["kind"], prompt["about"]) == ("grid.hindrance", {"mover": "hero"})
    assert {c["id"] for c in prompt["choices"]} == {"hinder:goblin", "pass"}


async def test_a_player_is_not_told_what_is_hidden_from_her(arena: Any) -> None:
    """GRID-RNG-3: alice's range question makes a prompt for the GM only; her ack does not
    name it, the GM's prompt carries `kind` and the character it is about. A hidden enemy
    is unknown to her queries, and its status id is the GM's alone."""
    g, alice = await arena()
    ack = await ok(alice, {"kind": "grid.check.ask", "combatant": "hero", "check": "罠探知"})
    assert "created" not in ack and "results" not in ack
    prompt = (await g.expect("prompt"))["prompt"]
    assert (prompt["kind"], prompt["about"]) == ("grid.check_range", {"combatant": "hero"})
    secret = await ok(g, {"kind": "grid.status.add", "combatant": "spy", "status": "effect"})
    assert [c["what"] for c in secret["created"]] == ["status"]  # the GM is told
    await alice.send({"type": "query", "id": "q1",
                      "query": {"kind": "grid.range", "combatant": "spy", "range": 1}})
    answer = await alice.expect("error", id="q1")
    assert answer["code"] == "unknown_character"
    await alice.send({"type": "query", "id": "q2", "query": {
        "kind": "grid.sight", "combatant": "hero", "to": {"x": 3, "y": 0}}})
    seen = await alice.expect("query.result", id="q2")
    assert seen["result"] == {"kind": "grid.sight", "from": {"x": 0, "y": 0},
                              "to": {"x": 3, "y": 0}, "clear": True}
