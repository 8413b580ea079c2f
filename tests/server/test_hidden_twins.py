"""Twin rooms (issue 26 finding 4), over real sockets: the same game played in a room with
a secret and in its twin without it — a hidden character's attack (engagement), a GM-run
unit's reaction strategies (mass). Every frame each non-GM connection receives (a
player, a Ccfolia bridge, a bridge that drives no VTT, an observer) is compared byte for
byte between the twins, grouped by frame type (a bridge's table ops come on their own
clock); only the room's id is written the same. Where the GM acts on the secret in one
twin, it acts on something the table cannot see in the other (its GM-only counter), so
both rooms move through the same versions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from test_hidden_leaks import Table
from twins import ROOMS, act, frames, twins

from conftest import ROOT
from komasync.engine.scenario import Scenario, load_scenario, load_scenario_file

DATA = ROOT / "tests" / "data"
HIDDEN_ENG = DATA / "hidden_twin_engagement.yaml"
HIDDEN_MASS = DATA / "hidden_twin_mass.yaml"


def without(path: Path, strip: Callable[[dict[str, Any]], None]) -> Scenario:
    """The scenario at `path` with the secret taken out by `strip`."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    strip(data)
    return load_scenario(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))


def no_lurk(data: dict[str, Any]) -> None:
    table, eng = data["table"], data["engagement"]
    table["pieces"] = [p for p in table["pieces"] if p["id"] != "lurk"]
    table["counters"] = [c for c in table["counters"] if c["id"] != "lurk_hp"]
    eng["combatants"] = [c for c in eng["combatants"] if c["id"] != "lurk"]


def no_reactions(data: dict[str, Any]) -> None:
    """魔狼隊's picks hold no reaction (it still has fixed picks, as the table sees)."""
    for unit in data["mass"]["units"]:
        if "strategies" in unit:
            unit["strategies"] = ["統率回復"]


# -- engagement: a hidden character's attack takes no turn in the scene --------------------

#: The BCDice line of 潜む影's shot (one die), reported by the GM.
LURK_LINE = "(1D6) ＞ 4"


async def play_engagement(t: Table, hidden: bool) -> None:
    """While the GM resolves 潜む影's shot on 赤鬼 step by step, p1 and the bridge declare
    as if nothing were open; in the twin the GM touches 赤鬼's GM-only HP instead."""
    g, p1, bridge, observer = t.gm, t.p1, t.bridge, t.observer

    async def secretly(action: dict[str, Any]) -> None:
        filler = {"kind": "table.counter.add", "counter": "oni_hp", "delta": 0}
        reply = await act(t, g, action if hidden else filler)
        assert reply["type"] == "ack", reply

    await act(t, g, {"kind": "engagement.start"})
    await act(t, g, {"kind": "engagement.phase"})  # main
    await secretly({"kind": "engagement.shot", "combatant": "lurk", "target": "oni", "check": 2,
                    "dice": 1, "power": 3, "report_check": True})
    # ENG-ACT-1 p1's approach, rolled by komasync (the hidden shot drew no dice)
    approach = await act(t, p1, {"kind": "engagement.approach", "combatant": "hero",
                                 "target": "goblin", "dp": 2})
    assert approach["type"] == "ack", approach
    await act(t, p1, {"kind": "engagement.roll", "combatant": "hero", "result": "(1D6) ＞ 3"})
    await act(t, observer, {"kind": "engagement.defend", "combatant": "hero", "defence": "none"})
    # the bridge declares for p1 (a shot of the base game), the GM's goblin lets it come
    shot = await act(t, bridge, {"kind": "engagement.shot", "combatant": "squire",
                                 "target": "oni", "check": 1, "dice": 0, "power": 0, "by": "p1"})
    assert shot["type"] == "ack", shot
    await act(t, p1, {"kind": "engagement.approach", "combatant": "hero", "target": "goblin",
                      "dp": 1})  # refused in both: 赤鬼's defence is awaited (ENG-TURN)
    await secretly({"kind": "engagement.roll", "combatant": "lurk", "result": LURK_LINE})
    await act(t, g, {"kind": "engagement.defend", "combatant": "oni", "defence": "none"})
    await secretly({"kind": "engagement.defend", "combatant": "oni", "defence": "none"})
    await act(t, g, {"kind": "engagement.phase"})  # cleanup: nothing left open


async def test_a_hidden_attack_shapes_nothing_a_non_gm_is_told(tmp_path: Path) -> None:
    tables = await twins(tmp_path, load_scenario_file(HIDDEN_ENG), without(HIDDEN_ENG, no_lurk),
                         play_engagement)
    secret_gm = tables[0].gm.client.state["engagement"]
    assert secret_gm["hidden_exchange"] is None and secret_gm["hidden_seq"] == 1
    oni = {t.room: t.gm.client.state["table"]["counters"]["oni_hp"]["value"] for t in tables}
    assert oni == {ROOMS[0]: 40 - 3, ROOMS[1]: 40}  # the GM ran the hidden shot to its end
    codes = [json.loads(x)["code"] for x in frames(tables[0].p1, ROOMS[0])["reject"]]
    assert codes == ["no_check_waiting", "exchange_open"], codes


# -- mass: whether an attack waits never tells what a GM-run unit holds ---------------------


async def gm_passes(t: Table) -> int:
    """The GM answers every prompt it holds: pass on reactions, the first choice else."""
    answered = 0
    while t.gm.client.state["prompts"]:
        pid, prompt = sorted(t.gm.client.state["prompts"].items())[0]
        ids = [c["id"] for c in prompt["choices"]]
        reply = await act(t, t.gm, {"kind": "answer", "prompt": pid,
                                    "choice": "pass" if "pass" in ids else ids[0]})
        assert reply["type"] == "ack", reply
        answered += 1
    return answered


async def play_mass(t: Table, hidden: bool) -> None:
    """A turn of battle: p1 and the bridge (for p2) attack GM-run units, the GM passes
    on every window it is asked; p2 meanwhile tries to act and is told to wait."""
    g, p1, bridge, observer = t.gm, t.p1, t.bridge, t.observer
    await act(t, g, {"kind": "mass.next_step", "expect": "preparation"})
    await act(t, g, {"kind": "mass.next_step", "expect": "deployment"})
    assert await gm_passes(t) == 1  # 魔狼隊's odd point (MASS-T-1)
    await act(t, g, {"kind": "mass.next_step", "expect": "tactics"})
    # 甲隊 → 魔王隊, front vs front (MASS-DMG-1): the windows open for the GM either way
    attack = await act(t, p1, {"kind": "mass.attack", "unit": "a1", "target": "b1"})
    assert attack["type"] == "ack", attack
    await act(t, bridge, {"kind": "mass.defend", "unit": "a2", "by": "p2"})
    await act(t, observer, {"kind": "mass.defend", "unit": "a2"})
    assert await gm_passes(t) == 2  # declared (囮作戦) and rolled (情報操作)
    await act(t, g, {"kind": "mass.attack", "unit": "b1", "target": "a1"})
    assert await gm_passes(t) == 0
    await act(t, bridge, {"kind": "mass.attack", "unit": "a2", "target": "b2", "by": "p2"})
    await act(t, p1, {"kind": "mass.delay", "unit": "a1"})
    assert await gm_passes(t) == 2
    await act(t, g, {"kind": "mass.defend", "unit": "b2"})


async def test_a_reaction_window_looks_the_same_whatever_the_gm_holds(tmp_path: Path) -> None:
    tables = await twins(tmp_path, load_scenario_file(HIDDEN_MASS),
                         without(HIDDEN_MASS, no_reactions), play_mass)
    gm_view = {t.room: t.gm.client.state["mass"] for t in tables}
    assert {"囮作戦", "情報操作"} <= set(gm_view[ROOMS[0]]["units"]["b2"]["strategies"])
    assert not {"囮作戦", "情報操作"} & set(gm_view[ROOMS[1]]["units"]["b2"]["strategies"])
    assert all(m["turn"] == 2 and m["step"] == "deployment" for m in gm_view.values()), gm_view
    codes = [json.loads(x)["code"] for x in frames(tables[0].bridge, ROOMS[0])["reject"]]
    assert codes == ["reaction_pending"], codes
