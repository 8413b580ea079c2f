"""Mass combat on the two tables (adapters/subsystems/mass.py): units as pieces in their
side's front or back row, strength as a bar (Ccfolia status; Foundry token name and
flags), the formation shown; the war's line on the komasync board; a player's unit
dropped into the other row is `mass.deploy` (MASS-T-1)."""

from __future__ import annotations

from typing import Any

import pytest
from adapter_support import BRIDGE, FakeCcfolia, FakeFoundry, Room, player

from komasync.adapters.subsystems.mass import row_columns
from komasync.engine.errors import Refusal

P1 = {"id": "user-1", "name": "アリス"}
STRENGTH = {"alice": 15, "boris": 12, "kana": 13, "dean": 10}
ROWS = {"alice": "back", "boris": "front", "kana": "front", "dean": "back"}


def war(step: str = "battle") -> tuple[Room, FakeCcfolia, FakeFoundry]:
    """The example room, fed to both fakes, walked to `step` of turn 1."""
    room = Room.build("mass_combat.yaml")
    ccf, fvtt = FakeCcfolia(), FakeFoundry()
    resets = room.attach()
    ccf.apply(resets["ccfolia"], reset=True)
    fvtt.apply(resets["foundry"], reset=True)

    def act(action: dict[str, Any], who: Any = None) -> None:
        _o, out = room.act(action, *(() if who is None else (who,)))
        ccf.apply(out["ccfolia"])
        fvtt.apply(out["foundry"])

    for uid, value in STRENGTH.items():
        act({"kind": "mass.strength", "unit": uid, "value": value})
    act({"kind": "mass.next_step", "expect": "preparation"})
    if step == "deployment":
        return room, ccf, fvtt
    for uid, row in ROWS.items():
        act({"kind": "mass.deploy", "unit": uid, "row": row, "odd": "attack"})
    act({"kind": "mass.next_step", "expect": "deployment"})
    for pid in list(room.engine.state.prompts):
        act({"kind": "answer", "prompt": pid, "choice": "attack"})
    act({"kind": "mass.formation", "unit": "orcs", "formation": "強撃陣"})
    act({"kind": "mass.next_step", "expect": "tactics"})
    room.act_fakes = act  # type: ignore[attr-defined]
    return room, ccf, fvtt


def test_units_stand_in_their_rows_with_strength_bars_and_formation() -> None:
    room, ccf, fvtt = war()
    width = room.tree["table"]["grid"]["width"]
    geo = room.adapters["ccfolia"].geometry
    for uid, u in room.tree["mass"]["units"].items():
        side = list(room.tree["mass"]["sides"]).index(u["side"])
        x = row_columns(side, width)[u["row"]]
        char = ccf.objects[f"ks-mass-{uid}"]["data"]
        assert geo.cell_at(char["x"], char["y"])["x"] == x
        assert {"label": "戦力", "value": u["strength"], "max": u["max_strength"]} in char["status"]
        assert {"label": "陣形", "value": u["formation"]} in char["params"]
        token = fvtt.by_ks()[f"ks-mass-{uid}"]["data"]
        assert f"（戦力 {u['strength']}/{u['max_strength']}）" in token["name"]
        assert token["flags"]["komasync"]["bars"][0]["value"] == u["strength"]
        assert token["disposition"] == (1 if u["side"] == "kingdom" else -1)
    orcs = ccf.objects["ks-mass-orcs"]["data"]
    assert {"label": "攻/防", "value": "11/4"} in orcs["params"]  # 13 → 7/6, 強撃陣 +4/−2
    assert ccf.objects["ks-mass-row-0-front"]["data"]["text"] == "前列 / front"
    # Each player's unit is theirs to move on the table; the GM's are nobody's.
    assert fvtt.by_ks()["ks-mass-alice"]["data"]["flags"]["komasync"]["player"] == "p1"
    assert "player" not in fvtt.by_ks()["ks-mass-orcs"]["data"]["flags"]["komasync"]
    board = ccf.objects["ks-board"]["data"]
    params = {p["label"]: p["value"] for p in board["params"]}
    assert params["マスコンバット"] == "第1ターン 戦闘 / turn 1 battle"
    assert params["行動順"].startswith("▶魔狼騎兵 → ")  # initiative 10, the highest (MASS-T-3)


def test_damage_moves_the_bar_and_a_rout_leaves_the_table() -> None:
    room, ccf, fvtt = war()
    act = room.act_fakes  # type: ignore[attr-defined]
    current = room.tree["mass"]["current"]
    _o, out = room.act({"kind": "mass.attack", "unit": current, "target": "boris",
                        "result": "(1D6) ＞ 6"})
    ccf.apply(out["ccfolia"])
    fvtt.apply(out["foundry"])
    for pid in list(room.engine.state.prompts):
        choices = [c.id for c in room.engine.state.prompts[pid].choices]
        act({"kind": "answer", "prompt": pid, "choice": "pass" if "pass" in choices else "0"})
    boris = room.tree["mass"]["units"]["boris"]
    assert boris["strength"] < 12
    status = next(s for s in ccf.objects["ks-mass-boris"]["data"]["status"] if s["label"] == "戦力")
    assert (status["value"], status["max"]) == (boris["strength"], 12)
    assert f"（戦力 {boris['strength']}/12）" in fvtt.by_ks()["ks-mass-boris"]["data"]["name"]
    # A rout: the unit leaves the table and the board lists it.
    act({"kind": "mass.adjust", "unit": "dean", "strength": -99, "note": "test"})
    assert "ks-mass-dean" not in ccf.objects and "ks-mass-dean" not in fvtt.by_ks()
    params = {p["label"]: p["value"] for p in ccf.objects["ks-board"]["data"]["params"]}
    assert params["敗走"] == "ディーン隊"


def test_the_status_change_is_also_a_chat_command() -> None:
    room, _ccf, _fvtt = war()
    current = room.tree["mass"]["current"]
    _o, out = room.act({"kind": "mass.attack", "unit": current, "target": "kana",
                        "result": "(1D6) ＞ 6"})
    for pid in list(room.engine.state.prompts):
        choices = [c.id for c in room.engine.state.prompts[pid].choices]
        _o, out = room.act({"kind": "answer", "prompt": pid,
                            "choice": "pass" if "pass" in choices else "0"})
    update = next(op for op in out["ccfolia"] if op.get("id") == "ks-mass-kana")
    kana = room.tree["mass"]["units"]["kana"]["strength"]
    assert update["status_commands"] == [f":戦力={kana}"]


@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_a_player_drops_their_unit_into_the_other_row(platform: str) -> None:
    """MASS-T-1 on the table: alice (unplaced, drawn in the back row) dropped on the
    front column is `mass.deploy` front, for p1; outside deployment the engine refuses."""
    room, _ccf, _fvtt = war("deployment")
    adapter = room.adapters[platform]
    width = room.tree["table"]["grid"]["width"]
    x, y = adapter.geometry.pos({"x": row_columns(0, width)["front"], "y": 5})
    result = adapter.event({"kind": "move", "id": "ks-mass-alice", "user": P1, "x": x, "y": y},
                           room.tree)
    assert result.action == {"kind": "mass.deploy", "unit": "alice", "row": "front", "by": "p1"}
    room.act(result.action, BRIDGE)
    assert room.tree["mass"]["units"]["alice"]["row"] == "front"
    again = adapter.event({"kind": "move", "id": "ks-mass-alice", "user": P1, "x": x, "y": y},
                          room.tree)
    assert again.action is None and "前列" in (again.ignored or "")
    # Another player's unit is not theirs: the engine refuses (MASS-T-1).
    other = adapter.event({"kind": "move", "id": "ks-mass-boris", "user": P1, "x": x, "y": y},
                          room.tree)
    assert other.action is not None
    with pytest.raises(Refusal) as refused:
        room.act(other.action, BRIDGE)
    assert (refused.value.code, refused.value.rule) == ("not_your_unit", "MASS-T-1")


def test_foundry_veto_data_follows_the_step() -> None:
    _room, _ccf, fvtt = war("deployment")
    legal = fvtt.by_ks()["ks-mass-alice"]["data"]["flags"]["komasync"]["legal"]
    assert legal["positions"] and "MASS-T-1" in legal["reason"]["ja"]
    room2, _c2, fvtt2 = war()
    assert fvtt2.by_ks()["ks-mass-alice"]["data"]["flags"]["komasync"]["legal"]["positions"] == []
    assert room2.tree["mass"]["step"] == "battle"


def test_mass_render_survives_a_sparse_projection() -> None:
    from komasync.adapters.ccfolia import CcfoliaAdapter
    from komasync.adapters.foundry import FoundryAdapter
    from komasync.adapters.render import render

    for tree in ({"mass": {}}, {"mass": {"units": {"u": {}}, "sides": {"a": {}}}},
                 {"mass": {"units": {"u": {"side": "a", "mods": [1, {"attack": "x"}]}},
                           "sides": {"a": {}, "b": {}, "c": {}}, "order": ["u", 3]}}):
        render(tree)
        CcfoliaAdapter.from_tree(tree).reset(tree)
        FoundryAdapter.from_tree(tree).reset(tree)
    assert player("p1").player == "p1"
