"""Phase and step tables (issue 27): each subsystem declares its turn once, the engine walks
that table, and the core's one loop settles every follow-up."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel, ValidationError

from komasync.engine import core
from komasync.engine.core import Engine
from komasync.engine.engagement.model import EngagementState
from komasync.engine.errors import CascadeTooDeep
from komasync.engine.grid.model import Process
from komasync.engine.mass.model import MassState
from komasync.engine.phases import PhaseSpec, PhaseTable
from komasync.engine.registry import PHASE_TABLES, parse_action
from komasync.engine.scenario import build_room, load_scenario
from komasync.engine.tower_defense.model import TowerDefenseState
from komasync.engine.tower_defense.phases import NEXT
from komasync.engine.tx import Actor, Tx

sys.path.insert(0, str(Path(__file__).parent / "mass"))
from mass_kit import War, scenario, two_by_two

GM = Actor(role="gm", label="GM")
HOLDERS: dict[str, tuple[type[BaseModel], str]] = {
    "tower_defense": (TowerDefenseState, "phase"), "mass": (MassState, "step"),
    "engagement": (EngagementState, "phase"), "grid": (Process, "step"),
}


@pytest.mark.parametrize("name", sorted(HOLDERS))
def test_each_table_lists_exactly_the_values_its_state_field_takes(name: str) -> None:
    """The table is the one list: its ids, in order, are the Literal the state holds."""
    model, field = HOLDERS[name]
    table = PHASE_TABLES[name]
    assert table.ids() == get_args(model.model_fields[field].annotation)
    assert table.path[-1] == field
    assert all(p.ja and p.en and p.rule for p in table.phases)


def test_the_tables_say_what_comes_next() -> None:
    td, mass, eng, grid = (PHASE_TABLES[n] for n in ("tower_defense", "mass", "engagement", "grid"))
    assert NEXT == {"setup": "reinforcement", "reinforcement": "advance", "advance": "pc_attack",
                    "pc_attack": "enemy_attack", "enemy_attack": "reinforcement"}  # TD-RND
    assert NEXT == {p: td.next_of(p) for p in td.ids()}
    assert [mass.next_of(s) for s in mass.ids()] == ["deployment", "tactics", "battle",
                                                     "deployment", None]  # MASS-T-1..3
    assert [eng.next_of(s) for s in eng.ids()] == ["main", "cleanup", "setup"]
    # GRID-MV-1 allowances; GRID-ST-4 flying's step only when it may be taken
    assert [(s.id, s.allowance, s.ends) for s in grid.phases] == [
        ("move", 1, "actor"), ("minor", 2, "actor"), ("major", 2, "spent"), ("post", 1, "spent")]
    assert grid.get("post").when == "flying" and grid.get("post").spends == ("move",)


@pytest.mark.parametrize("phases", [
    (PhaseSpec(id="a", ja="甲", en="a", rule="X-1", acts="gm", ends="gm", next="b"),),
    (PhaseSpec(id="a", ja="甲", en="a", rule="X-1", acts="gm", ends="gm"),
     PhaseSpec(id="a", ja="乙", en="b", rule="X-1", acts="gm", ends="gm")),
], ids=["dangling next", "repeated id"])
def test_a_table_that_names_no_phase_or_repeats_one_is_refused(phases: Any) -> None:
    with pytest.raises(ValidationError):
        PhaseTable(path=("x", "phase"), rule="X-1", phases=phases)


SCENARIO = "table:\n  counters:\n    - {id: clock, name: Clock, value: 0, min: 0, max: 99}\n"


def _tick(limit: int | None) -> Any:
    """A settler that moves the clock on (without any happening) while below `limit`."""
    def settle(tx: Tx) -> bool:
        value = tx.state.table.counters["clock"].value
        if limit is not None and value >= limit:
            return False
        tx.set(("table", "counters", "clock", "value"), min(value + 1, 99))
        return True
    return settle


def test_a_follow_up_settler_runs_again_until_nothing_is_due(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The core's loop goes round while a settler reports progress, happening or not."""
    e = Engine(build_room(load_scenario(SCENARIO), "seed"))
    monkeypatch.setattr(core, "SETTLERS", (_tick(5),))
    e.apply(parse_action({"kind": "table.counter.add", "counter": "clock", "delta": 0}), GM)
    assert e.state.table.counters["clock"].value == 5


def test_endless_follow_ups_are_bounded_and_rolled_back(monkeypatch: pytest.MonkeyPatch) -> None:
    e = Engine(build_room(load_scenario(SCENARIO), "seed"))
    monkeypatch.setattr(core, "SETTLERS", (_tick(None),))
    with pytest.raises(CascadeTooDeep) as info:
        e.apply(parse_action({"kind": "table.counter.add", "counter": "clock", "delta": 0}), GM)
    assert info.value.code == "cascade_too_deep"
    assert e.version == 0 and e.state.table.counters["clock"].value == 0


def test_a_gm_override_that_leaves_the_war_due_moves_it_on_at_once() -> None:
    """The named difference: mass's follow-ups are a settler, so a GM override that makes
    one due (here: closing the turn) runs it in the same action, as the end check does."""
    w = War(scenario(two_by_two()))
    w.to_battle()
    assert w.m.step == "battle" and w.m.turn == 1
    w.do(kind="override", path=["mass", "closing"], value="turn_end", reason="test")
    assert (w.m.step, w.m.turn, w.m.closing) == ("deployment", 2, None)
