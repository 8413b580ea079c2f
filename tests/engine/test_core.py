"""The engine core, synchronously: transactions, refusals, triggers, prompts, views, undo."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import Field

from komasync.engine import core, registry
from komasync.engine.control import Restore
from komasync.engine.core import Engine
from komasync.engine.errors import CascadeTooDeep, Codes, Refusal, Text
from komasync.engine.registry import parse_action
from komasync.engine.registry_types import Trigger
from komasync.engine.rng import RngState, draw
from komasync.engine.scenario import ScenarioError, build_room, load_scenario
from komasync.engine.tx import Actor, Happening, Tx
from komasync.engine.views import Audience, View, project

SCENARIO = """
players: [{id: alice, name: Alice}, {id: bob, name: Bob}]
table:
  grid: {width: 10, height: 10}
  pieces:
    - {id: knight, name: Knight, owner: alice, cell: {x: 1, y: 1}}
    - {id: archer, name: Archer, owner: bob, cell: {x: 2, y: 1}}
    - {id: spy, name: Spy, hidden: true, cell: {x: 5, y: 5}}
  counters:
    - {id: clock, name: Clock, value: 0, min: 0, max: 6}
    - {id: doom, name: Doom, value: 3, visibility: gm}
"""
GM = Actor(role="gm", label="GM")
ALICE = Actor(role="player", player="alice")


def engine() -> Engine:
    return Engine(build_room(load_scenario(SCENARIO), "seed"))


def act(e: Engine, actor: Actor, **action: Any) -> core.Outcome:
    return e.apply(parse_action(action), actor)


def test_move_records_exactly_the_changed_path() -> None:  # TABLE-MV-1
    e = engine()
    out = act(e, ALICE, kind="table.move", piece="knight", to={"x": 3, "y": 4})
    assert out.version == 1
    assert [c.path for c in out.tx.changes] == [("table", "pieces", "knight", "cell")]
    assert out.units == [("table", "pieces", "knight")]
    assert core.change_ops(out.tx) == [{"op": "set", "path": ["table", "pieces", "knight", "cell"],
                                        "value": {"x": 3, "y": 4}}]


@pytest.mark.parametrize(("actor", "action", "code", "rule"), [
    (ALICE, {"kind": "table.move", "piece": "archer", "to": {"x": 0, "y": 0}}, "not_your_piece",
     "TABLE-MV-1"),
    (ALICE, {"kind": "table.move", "piece": "knight", "to": {"x": 10, "y": 0}}, "off_grid",
     "TABLE-MV-2"),
    (ALICE, {"kind": "table.move", "piece": "spy", "to": {"x": 0, "y": 0}}, "unknown_piece", None),
    (ALICE, {"kind": "table.counter.add", "counter": "clock", "delta": 1}, "not_your_counter",
     "TABLE-CT-1"),
    (ALICE, {"kind": "table.counter.add", "counter": "doom", "delta": 1}, "unknown_counter", None),
    (ALICE, {"kind": "table.piece.reveal", "piece": "spy"}, "forbidden_role", None),
    (Actor(role="observer"), {"kind": "table.move", "piece": "knight", "to": {"x": 0, "y": 0}},
     "forbidden_role", None),
])
def test_refusals_leave_state_and_version_untouched(actor: Actor, action: dict[str, Any],
                                                    code: str, rule: str | None) -> None:
    e = engine()
    before = e.state.model_dump_json()
    with pytest.raises(Refusal) as info:
        e.apply(parse_action(action), actor)
    assert (info.value.code, info.value.rule) == (code, rule)
    assert info.value.ja and info.value.en and info.value.ja != info.value.en
    assert e.state.model_dump_json() == before and e.version == 0


def test_warn_mode_applies_and_records_the_rule() -> None:
    e = engine()
    act(e, GM, kind="room.enforcement", mode="warn")
    out = act(e, ALICE, kind="table.move", piece="archer", to={"x": 0, "y": 0})
    assert [(w.code, w.rule) for w in out.warnings] == [("not_your_piece", "TABLE-MV-1")]
    act(e, GM, kind="room.enforcement", mode="off")
    out = act(e, ALICE, kind="table.move", piece="archer", to={"x": 1, "y": 0})
    assert out.warnings == []


def test_override_validates_against_the_declared_type() -> None:
    e = engine()
    act(e, GM, kind="override", path=["table", "pieces", "knight", "cell"], value={"x": 9, "y": 9},
        reason="fix")
    assert e.state.table.pieces["knight"].cell is not None
    assert e.state.table.pieces["knight"].cell.x == 9
    for path, value, code in [
        (["table", "pieces", "knight", "cell"], {"x": "far"}, "bad_value"),
        (["table", "pieces", "nobody", "cell"], {"x": 1, "y": 1}, "bad_path"),
        (["rng", "draws"], 0, "bad_path"),
        (["table", "nothing"], 1, "bad_path"),
    ]:
        with pytest.raises(Refusal) as info:
            act(e, GM, kind="override", path=path, value=value, reason="x")
        assert info.value.code == code
    out = act(e, GM, kind="override", path=["table", "counters", "new"],
              value={"id": "new", "name": "New"}, reason="add one")
    assert e.state.table.counters["new"].value == 0
    assert out.log[0].ja.startswith("GM修正")
    out = act(e, GM, kind="override", path=["table", "pieces", "knight", "cell"],
              value={"x": 2, "y": 2}, reason="押し戻し")
    knight = e.state.table.pieces["knight"].name  # an entry by its name, a field by its title
    assert out.log[0].ja == f"GM修正: テーブル › 駒 › {knight} › マス（理由: 押し戻し）"
    assert out.log[0].en == f"GM override: table › pieces › {knight} › square (reason: 押し戻し)"
    act(e, GM, kind="override", path=["table", "counters", "new"], delete=True, reason="gone")
    assert "new" not in e.state.table.counters


def test_restore_brings_back_an_earlier_state_except_the_dice() -> None:
    e = engine()
    start = e.state.model_dump(mode="json")
    act(e, ALICE, kind="table.move", piece="knight", to={"x": 7, "y": 7})
    act(e, GM, kind="table.piece.remove", piece="archer")
    act(e, GM, kind="override", path=["table", "counters", "extra"],
        value={"id": "extra", "name": "E"}, reason="r")
    e.state.rng.draws = 5
    out = e.apply(Restore(to_version=0, reason="oops", target=start), GM)
    after = e.state.model_dump(mode="json")
    assert after["table"] == start["table"]
    assert after["rng"]["draws"] == 5
    assert ("table", "pieces", "archer") in out.units


def test_dice_are_deterministic_and_unbiased_in_range() -> None:
    a, b = RngState(seed="s"), RngState(seed="s")
    rolls = [draw(a, 6) for _ in range(600)]
    assert rolls == [draw(b, 6) for _ in range(600)]
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    assert a.draws >= 600


def test_a_refusal_after_rolling_rewinds_the_dice_too(monkeypatch: pytest.MonkeyPatch) -> None:
    e = engine()

    def roll_then_refuse(tx: Tx, h: Happening) -> None:
        tx.roll("1D100")
        raise Codes("probe")("nope", "だめ", "no").refuse()

    monkeypatch.setattr(core, "TRIGGERS", (Trigger(roll_then_refuse, frozenset({"piece.moved"})),))
    with pytest.raises(Refusal):
        act(e, ALICE, kind="table.move", piece="knight", to={"x": 3, "y": 3})
    assert e.state.rng.draws == 0
    assert e.state.table.pieces["knight"].cell is not None
    assert e.state.table.pieces["knight"].cell.x == 1


def test_trigger_cascade_is_bounded_and_rolled_back(monkeypatch: pytest.MonkeyPatch) -> None:
    e = engine()

    def echo(tx: Tx, h: Happening) -> None:
        tx.set(("table", "counters", "clock", "value"), tx.state.table.counters["clock"].value)
        tx.emit("piece.moved")

    monkeypatch.setattr(core, "TRIGGERS", (Trigger(echo, frozenset({"piece.moved"})),))
    with pytest.raises(CascadeTooDeep):
        act(e, ALICE, kind="table.move", piece="knight", to={"x": 3, "y": 3})
    assert e.version == 0 and e.state.table.pieces["knight"].cell is not None
    assert e.state.table.pieces["knight"].cell.x == 1


def test_prompt_pauses_and_an_answer_resumes(monkeypatch: pytest.MonkeyPatch) -> None:
    e = engine()
    answers: list[str] = []

    def ask(tx: Tx, h: Happening) -> None:
        if h.data.get("piece") == "knight":
            tx.ask("players", Text("どちら？", "Which?"), "test.resume",
                   [("a", Text("A", "A")), ("b", Text("B", "B"))], piece="knight")

    monkeypatch.setattr(core, "TRIGGERS", (Trigger(ask, frozenset({"piece.moved"})),))
    monkeypatch.setitem(registry.RESUMERS, "test.resume",
                        lambda tx, prompt, choice: answers.append(choice))
    act(e, ALICE, kind="table.move", piece="knight", to={"x": 3, "y": 3})
    (pid,) = e.state.prompts
    assert project(e.state.prompts[pid], Audience("player", "bob"))["ja"] == "どちら？"
    assert "context" not in project(e.state.prompts[pid], Audience("player", "bob"))
    with pytest.raises(Refusal) as info:
        act(e, ALICE, kind="answer", prompt=pid, choice="c")
    assert info.value.code == "bad_choice"
    act(e, ALICE, kind="answer", prompt=pid, choice="b")
    assert answers == ["b"] and not e.state.prompts


def test_ids_only_the_gm_sees_are_counted_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 26 finding 4: a prompt to the GM (about a hidden character, say) must not move
    # the sequence players see, or they learn that something hidden happened.
    def ask(tx: Tx, h: Happening) -> None:
        tx.ask(str(h.data["to"]), Text("?", "?"), "test.resume", [("ok", Text("OK", "OK"))])

    monkeypatch.setattr(core, "TRIGGERS", (Trigger(ask, frozenset({"test.ask"})),))

    e = engine()
    tx = Tx(e.state, GM, registry.RESUMERS)
    tx.emit("test.ask", to="gm")
    core._settle(tx)
    tx.emit("test.ask", to="players")
    core._settle(tx)
    assert sorted(e.state.prompts) == ["gq1", "q1"]
    bob = Audience("player", "bob")
    assert project(e.state.meta, bob)["seq"] == 1 and "gm_seq" not in project(e.state.meta, bob)
    assert project(e.state.meta, Audience("gm"))["gm_seq"] == 1
    # A room made before the GM's own sequence keeps drawing every id from `seq` (replay).
    old = Engine(build_room(load_scenario(SCENARIO), "seed"))
    old.state.meta.gm_seq = None
    tx = Tx(old.state, GM, registry.RESUMERS)
    tx.emit("test.ask", to="gm")
    core._settle(tx)
    assert sorted(old.state.prompts) == ["q1"] and old.state.meta.seq == 1


def test_views_hide_secrets_and_turn_reveals_into_whole_objects() -> None:
    e = engine()
    player, table, gm = (View(a, e.state) for a in (Audience("player", "alice"), Audience("table"),
                                                      Audience("gm")))
    for view in (player, table):
        text = json.dumps(view.tree)
        assert "spy" not in text and "doom" not in text and "rng" not in text
    assert "spy" in json.dumps(gm.tree)
    out = act(e, GM, kind="table.move", piece="spy", to={"x": 4, "y": 4})
    assert player.update(e.state, out.units) == []
    assert gm.update(e.state, out.units) == [
        {"op": "set", "path": ["table", "pieces", "spy", "cell"], "value": {"x": 4, "y": 4}}]
    out = act(e, GM, kind="table.piece.reveal", piece="spy")
    (op,) = player.update(e.state, out.units)
    assert op["op"] == "set" and op["path"] == ["table", "pieces", "spy"]
    assert op["value"]["cell"] == {"x": 4, "y": 4}
    out = act(e, GM, kind="table.piece.reveal", piece="spy", hidden=True)
    assert player.update(e.state, out.units) == [{"op": "del", "path": ["table", "pieces", "spy"]}]


def test_scenario_errors_name_the_line() -> None:
    text = "table:\n  grid: {width: 10, height: 10}\n  pieces:\n    - {id: a, name: A}\n" \
           "    - {id: b, name: B, size: zero}\n"
    with pytest.raises(ScenarioError) as info:
        load_scenario(text, "s.yaml")
    (problem,) = info.value.problems
    assert problem.line == 5 and problem.where == "table.pieces[b].size"  # named by its id
    assert str(problem).startswith("s.yaml:5:")
    with pytest.raises(ScenarioError) as info:
        load_scenario("table: [unclosed", "bad.yaml")
    assert info.value.problems[0].where == "yaml"


def test_unknown_kinds_and_fields_are_refused_by_the_union() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        parse_action({"kind": "table.fly"})
    with pytest.raises(ValidationError):
        parse_action({"kind": "table.move", "piece": "knight", "to": {"x": 1, "y": 1}, "x": 1})


def test_changes_inside_a_secret_field_never_reach_other_audiences() -> None:
    from komasync.engine.state import RoomState
    from komasync.engine.views import Entity

    class Vault(Entity):
        __secret__ = frozenset({"plans"})
        plans: dict[str, str] = Field(default_factory=dict)

    e = engine()
    player = View(Audience("player", "alice"), e.state)
    vault = Vault()
    tx = Tx(e.state, GM)
    # A stand-in subsystem part with a secret dict: written the way a handler would.
    object.__setattr__(e.state, "bases", vault)
    tx.set(("bases", "plans", "ambush"), "at dawn")
    assert "ambush" not in json.dumps(player.update(e.state, tx.units()))
    assert isinstance(e.state, RoomState)


def test_a_settler_that_keeps_emitting_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    e = engine()
    monkeypatch.setattr(core, "SETTLERS", (lambda tx: tx.emit("again"),))
    with pytest.raises(CascadeTooDeep):
        act(e, ALICE, kind="table.move", piece="knight", to={"x": 3, "y": 3})
    assert e.version == 0
