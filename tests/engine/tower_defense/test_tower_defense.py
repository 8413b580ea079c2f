"""Tower defense rules (rules.md TD-*), one small fortress, driven through Engine.apply.

Map used here (tiers 1-3):   north      east
                               |          |
                             A(10) ──── D(10)      (A–D lateral: PCs only)
                                 \\      /
                                  B(20)
                                    |
                                  C(40) final
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from engine_kit import GM, do, engine_of, part, refusal_of

from komasync.engine.core import Outcome
from komasync.engine.errors import Refusal
from komasync.engine.scenario import ScenarioError, load_scenario
from komasync.engine.tower_defense.model import TowerDefenseState
from komasync.engine.tx import Actor
from komasync.engine.views import Audience, View, project


def cc(target: int, value: int, level: str, bonus: int = 0, dice: str | None = None) -> str:
    """A BCDice CC line as Ccfolia shows it."""
    shown = dice or str(value)
    return f"(1D100<={target}) ボーナス・ペナルティダイス[{bonus}] ＞ {shown} ＞ {value} ＞ {level}"


def cell(x: int, y: int) -> dict[str, int]:
    return {"x": x, "y": y}


def weapons() -> list[dict[str, Any]]:
    return [
        {"id": "pistol", "name": "デザートイーグル", "skill": "射撃（拳銃）", "magazine": 7,
         "attacks_per_round": 3, "range": 1, "damage": 1},
        {"id": "rifle", "name": "M4カービン", "skill": "射撃（ライフル／ショットガン）",
         "magazine": 30, "attacks_per_round": 2, "range": "∞", "damage": 1},
        {"id": "shotgun", "name": "12ゲージショットガン", "skill": "射撃（ライフル／ショットガン）",
         "magazine": 8, "attacks_per_round": 2, "range": 1, "damage": 2,
         "special_ammo": {"name": "特殊グレネード弾", "damage": 5, "uses": 2}},
        {"id": "minigun", "name": "ミニガン", "skill": "射撃（マシンガン）", "magazine": "∞",
         "attacks_per_round": 1, "range": None, "damage": 4},
        {"id": "knife", "name": "ナイフ", "kind": "melee", "skill": "近接戦闘（格闘）",
         "range": 1, "damage": 1},
        {"id": "eye", "name": "魔眼", "kind": "eye", "skill": "目星", "range": "∞", "damage": 0},
    ]


SKILLS = {"射撃（拳銃）": 80, "射撃（ライフル／ショットガン）": 60, "射撃（マシンガン）": 50,
          "近接戦闘（格闘）": 70, "目星": 70, "手さばき": 50}


def scenario(**wave_rounds: Any) -> dict[str, Any]:
    rounds = {1: [{"name": "深きもの共Ａ", "count": 5, "direction": "north"}]}
    rounds.update({int(k[1:]): v for k, v in wave_rounds.items()})
    return {
        "room": {"name": "t"},
        "players": [{"id": "p1", "name": "P1"}, {"id": "p2", "name": "P2"}],
        "table": {"grid": {"width": 8, "height": 9}},
        "tower_defense": {
            "victory": {"kind": "survive", "rounds": 3, "ja": "3ラウンド守れ", "en": "Hold 3"},
            "directions": [{"id": "north", "name": "北", "cell": cell(1, 0)},
                           {"id": "east", "name": "東", "cell": cell(5, 0)}],
            "forts": [
                {"id": "a", "name": "砦A", "tier": 1, "durability": 10, "cell": cell(1, 2)},
                {"id": "d", "name": "砦D", "tier": 1, "durability": 10, "cell": cell(5, 2)},
                {"id": "b", "name": "砦B", "tier": 2, "durability": 20, "cell": cell(3, 4)},
                {"id": "c", "name": "最終砦C", "tier": 3, "durability": 40, "cell": cell(3, 7)},
            ],
            "passages": [
                {"id": "n_a", "outer": "north", "inner": "a", "cells": [cell(1, 1)]},
                {"id": "e_d", "outer": "east", "inner": "d", "cells": [cell(5, 1)]},
                {"id": "a_b", "outer": "a", "inner": "b", "cells": [cell(2, 3)]},
                {"id": "d_b", "outer": "d", "inner": "b", "cells": [cell(4, 3)]},
                {"id": "b_c", "outer": "b", "inner": "c", "cells": [cell(3, 5), cell(3, 6)]},
                {"id": "a_d", "outer": "a", "inner": "d",
                 "cells": [cell(2, 2), cell(3, 2), cell(4, 2)]},
            ],
            "weapons": weapons(),
            "pcs": [
                {"id": "pc1", "name": "カルデロン", "player": "p1", "fort": "a",
                 "weapons": ["pistol", "rifle", "minigun", "knife"], "skills": SKILLS},
                {"id": "pc2", "name": "ミニー", "player": "p2", "fort": "a",
                 "weapons": ["shotgun", "eye"], "skills": SKILLS},
                {"id": "npc", "name": "NPC", "player": None, "fort": "c",
                 "weapons": ["rifle"], "skills": SKILLS},
            ],
            "waves": {"mode": "fixed", "rounds": rounds},
        },
    }


class Game:
    """One room built from a scenario dict, with shortcuts for the actors."""

    def __init__(self, data: dict[str, Any] | None = None, seed: str = "td",
                 enforcement: str = "enforce", player_rolls: str = "allow") -> None:
        data = copy.deepcopy(data or scenario())
        data["room"]["enforcement"] = enforcement
        # These tests read players' reported lines: the GM allows typed results here.
        data["room"]["player_rolls"] = player_rolls
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        self.engine = engine_of(text, seed)

    @property
    def td(self) -> TowerDefenseState:
        return part(self.engine, "tower_defense", TowerDefenseState)

    def act(self, actor: Actor, kind: str, **fields: Any) -> Outcome:
        return do(self.engine, actor, kind=kind, **fields)

    def gm(self, kind: str, **fields: Any) -> Outcome:
        return self.act(GM, kind, **fields)

    def p(self, player: str, kind: str, **fields: Any) -> Outcome:
        return self.act(Actor(role="player", player=player), kind, **fields)

    def refused(self, actor: Actor, kind: str, **fields: Any) -> Refusal:
        """`act`, expecting a refusal; the state must be rolled back whole."""
        return refusal_of(self.engine, lambda: self.act(actor, kind, **fields), kind)

    def next(self) -> Outcome:
        out = self.gm("td.next_phase")
        for pid, prompt in list(self.engine.state.prompts.items()):
            if prompt.resume == "td.san":
                self.gm("answer", prompt=pid, choice="done")
        return out

    def to(self, phase: str, round_: int = 1) -> None:
        while not (self.td.phase == phase and self.td.round == round_):
            self.next()

    def group_at(self, fort: str) -> str:
        return next(g.id for g in self.td.groups.values() if g.fort == fort)


def kinds(out: Outcome) -> list[str]:
    return [h.kind for h in out.happenings]


P1 = Actor(role="player", player="p1")
P2 = Actor(role="player", player="p2")


# -- TD-MAP-1 / TD-SET-1: the scenario --------------------------------------------------------


def test_map_builds_tiers_final_fort_and_inward_routes() -> None:  # TD-MAP-1
    td = Game().td
    assert [f.id for f in td.forts.values() if f.final] == ["c"]
    assert td.passages["a_d"].lateral and not td.passages["a_b"].lateral
    assert (td.forts["b"].durability, td.forts["b"].max_durability) == (20, 20)
    assert (td.round, td.phase, td.outcome) == (0, "setup", "none")


@pytest.mark.parametrize("change, message", [
    (lambda t: t["passages"].append({"id": "x", "outer": "b", "inner": "a"}), "outward"),
    (lambda t: t["passages"].append({"id": "x", "outer": "a", "inner": "c"}),
     "more than one inward"),
    (lambda t: t["waves"]["rounds"][1].append({"name": "g", "count": 3, "direction": "west"}),
     "unknown direction"),
    (lambda t: t["pcs"][0]["weapons"].append("bazooka"), "unknown weapon"),
    (lambda t: t["forts"].append(dict(t["forts"][0])), "duplicate"),
    (lambda t: t["victory"].update(kind="destroy", tag="boss"), "destroy needs a tag"),
    (lambda t: t["directions"].append({"id": "west", "name": "西", "cell": cell(0, 0)}),
     "no passage leads inward"),
])
def test_scenario_errors_name_the_problem(change: Any, message: str) -> None:  # TD-MAP-1
    data = scenario()
    change(data["tower_defense"])
    with pytest.raises(ScenarioError) as info:
        load_scenario(yaml.safe_dump(data, allow_unicode=True), "td.yaml")
    assert message in str(info.value)
    assert info.value.problems[0].line is not None


def test_table_projection_carries_map_pieces() -> None:  # TD-MAP-2
    g = Game()
    g.gm("td.trap.set", pc="pc1", passage="n_a", trap="snare", check=False)
    g.to("advance")
    table = project(g.engine.state, Audience("table"))["tower_defense"]
    assert table["forts"]["a"]["cell"] == cell(1, 2) and table["forts"]["a"]["durability"] == 10
    assert table["passages"]["b_c"]["cells"] == [cell(3, 5), cell(3, 6)]
    group = next(iter(table["groups"].values()))
    assert group["cell"] == cell(1, 2) and group["count"] == 5 and group["fort"] == "a"
    assert next(iter(table["traps"].values()))["cell"] == cell(1, 1)
    assert table["directions"]["north"]["cell"] == cell(1, 0)


def test_victory_condition_is_shown_to_players() -> None:  # TD-SET-1
    view = project(Game().engine.state, Audience("player", "p1"))["tower_defense"]
    assert view["victory"]["ja"] == "3ラウンド守れ" and view["victory"]["rounds"] == 3


def test_waves_alternate_odd_even() -> None:  # TD-SET-1
    data = scenario()
    data["tower_defense"]["waves"] = {
        "mode": "alternate",
        "odd": [{"name": "奇", "count": 2, "direction": "north"}],
        "even": [{"name": "偶", "count": 3, "direction": "east"}],
    }
    g = Game(data)
    names = []
    for r in (1, 2, 3):
        g.to("reinforcement", r)
        names.append(sorted(x.name for x in g.td.groups.values() if x.round == r))
    assert names == [["奇"], ["偶"], ["奇"]]


def test_waves_random_use_the_seeded_dice() -> None:  # TD-SET-1
    data = scenario()
    data["tower_defense"]["waves"] = {"mode": "random", "table": [
        [{"name": f"row{i}", "count": i, "direction": "north"}] for i in range(1, 7)]}
    picks = []
    for _ in range(2):
        g = Game(data, seed="same")
        out = g.gm("td.next_phase")
        (roll,) = out.rolls
        assert roll.dice == "1D6" and roll.source == "engine"
        picks.append(next(iter(g.td.groups.values())).name)
        assert picks[-1] == f"row{roll.total}"
    assert picks[0] == picks[1]


def test_victory_destroy_target_and_gm_declare() -> None:  # TD-SET-1
    data = scenario()
    data["tower_defense"]["victory"] = {"kind": "destroy", "tag": "boss"}
    data["tower_defense"]["waves"]["rounds"][1][0]["tag"] = "boss"
    g = Game(data)
    g.to("pc_attack")
    out = g.p("p1", "td.attack", pc="pc1", weapon="minigun", group=g.group_at("a"),
              results=[cc(50, 10, "イクストリーム成功")])
    assert "td.outcome" in kinds(out)
    assert (g.td.outcome, g.td.outcome_reason) == ("victory", "target_destroyed")
    g2 = Game()
    g2.gm("td.declare", outcome="defeat", note="呪文が完成した")
    assert (g2.td.outcome, g2.td.outcome_reason) == ("defeat", "gm")


# -- TD-PRE-1: setup ----------------------------------------------------------------------------


def test_setup_place_pcs_and_every_pc_needs_a_fort() -> None:  # TD-PRE-1
    data = scenario()
    data["tower_defense"]["pcs"][1]["fort"] = None
    g = Game(data)
    r = g.refused(GM, "td.next_phase")
    assert (r.code, r.rule) == ("pc_without_fort", "TD-PRE-1")
    out = g.p("p2", "td.pc.place", pc="pc2", fort="b")
    assert "td.pc.placed" in kinds(out) and g.td.pcs["pc2"].fort == "b"
    g.next()
    r = g.refused(P2, "td.pc.place", pc="pc2", fort="a")
    assert (r.code, r.rule) == ("not_setup", "TD-PRE-1")


def test_setup_traps_need_a_check_and_respect_the_limit() -> None:  # TD-PRE-1
    data = scenario()
    data["tower_defense"]["settings"] = {"trap_limit": 1}
    g = Game(data)
    out = g.p("p1", "td.trap.set", pc="pc1", passage="n_a", trap="explosive",
              result=cc(50, 77, "失敗"))
    assert "td.trap.failed" in kinds(out) and not g.td.traps
    assert out.rolls[0].source == "external" and out.rolls[0].raw is not None
    out = g.p("p1", "td.trap.set", pc="pc1", passage="n_a", trap="explosive",
              result=cc(50, 30, "レギュラー成功"))
    assert "td.trap.set" in kinds(out) and len(g.td.traps) == 1
    r = g.refused(P1, "td.trap.set", pc="pc1", passage="a_b", trap="snare")
    assert (r.code, r.rule) == ("trap_limit", "TD-PRE-1")
    r = g.refused(P1, "td.trap.set", pc="pc1", passage="a_b", trap="snare", check=False)
    assert r.code in ("trap_limit", "gm_only")


# -- TD-RND: the round --------------------------------------------------------------------------


def test_round_is_reinforcement_advance_pc_attack_enemy_attack() -> None:  # TD-RND
    g = Game()
    seen = []
    for _ in range(9):
        g.next()
        seen.append((g.td.round, g.td.phase))
    assert seen == [(1, "reinforcement"), (1, "advance"), (1, "pc_attack"),
                    (1, "enemy_attack"), (2, "reinforcement"), (2, "advance"),
                    (2, "pc_attack"), (2, "enemy_attack"), (3, "reinforcement")]


def test_stale_phase_button_is_refused() -> None:  # TD-RND
    g = Game()
    g.gm("td.next_phase", expect="setup")
    r = g.refused(GM, "td.next_phase", expect="setup")
    assert (r.code, r.rule) == ("stale_phase", "TD-RND")


@pytest.mark.parametrize("kind, fields", [
    ("td.attack", {"pc": "pc1", "weapon": "rifle", "group": "G"}),
    ("td.move", {"pc": "pc1", "to": "d"}),
    ("td.reload", {"pc": "pc1", "weapon": "pistol"}),
    ("td.melee", {"pc": "pc1", "weapon": "knife", "group": "G"}),
    ("td.special", {"pc": "pc2", "group": "G"}),
])
def test_pc_actions_outside_pc_attack_are_refused(kind: str, fields: dict[str, str]) -> None:
    # TD-RND / TD-ATK-1
    g = Game()
    g.to("advance")
    fields = {k: (g.group_at("a") if v == "G" else v) for k, v in fields.items()}
    r = g.refused(GM, kind, **fields)
    assert (r.code, r.rule) == ("wrong_phase", "TD-ATK-1")


def test_warn_mode_applies_out_of_phase_with_a_warning() -> None:  # TD-RND
    g = Game(enforcement="warn")
    g.to("advance")
    out = g.gm("td.move", pc="pc1", to="d")
    assert [w.rule for w in out.warnings] == ["TD-ATK-1"]
    assert g.td.pcs["pc1"].fort == "d"


def test_nothing_moves_once_decided() -> None:  # TD-RND
    g = Game()
    g.gm("td.declare", outcome="victory")
    r = g.refused(GM, "td.next_phase")
    assert (r.code, r.rule) == ("td_over", "TD-RND")


# -- TD-REIN-1: reinforcement ---------------------------------------------------------------------


def test_reinforcement_places_groups_and_asks_gm_for_san() -> None:  # TD-REIN-1
    data = scenario()
    data["tower_defense"]["waves"]["rounds"][1][0]["san"] = "0/1D6"
    g = Game(data)
    out = g.gm("td.next_phase")
    assert kinds(out)[:3] == ["td.phase", "td.round.started", "td.group.placed"]
    (group,) = g.td.groups.values()
    assert (group.count, group.direction, group.cell.x, group.cell.y) == (5, "north", 1, 0)
    assert group.route == ["n_a", "a_b", "b_c"] and group.fort is None
    (prompt,) = g.engine.state.prompts.values()
    assert prompt.to == "gm" and "0/1D6" in prompt.ja
    r = g.refused(GM, "td.next_phase")
    assert (r.code, r.rule) == ("san_pending", "TD-REIN-1")
    out = g.gm("answer", prompt=prompt.id, choice="done")
    assert "td.san.done" in kinds(out)
    g.gm("td.next_phase")
    assert g.td.phase == "advance"


def test_group_at_zero_is_removed_at_once() -> None:  # TD-REIN-1
    g = Game()
    g.to("pc_attack")
    gid = g.group_at("a")
    out = g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid,
              results=[cc(80, 1, "クリティカル"), cc(80, 16, "イクストリーム成功")])
    assert gid not in g.td.groups
    assert "td.group.removed" in kinds(out)
    assert next(h for h in out.happenings if h.kind == "td.group.removed").data == {
        "group": gid, "reason": "destroyed"}


# -- TD-ADV-1 / TD-ADV-2 / TD-OPT-1: advance and traps ------------------------------------------


def test_advance_stops_at_first_intact_fort_and_reports_cells() -> None:  # TD-ADV-1
    g = Game()
    g.to("reinforcement")
    out = g.next()
    moved = next(h for h in out.happenings if h.kind == "td.group.moved")
    assert moved.data["fort"] == "a" and moved.data["passages"] == ["n_a"]
    assert moved.data["cells"] == [cell(1, 1), cell(1, 2)]
    g.to("advance", 2)
    assert g.td.groups[moved.data["group"]].fort == "a"  # stays at an intact fort


def test_advance_passes_broken_forts_and_never_goes_sideways() -> None:  # TD-ADV-1
    g = Game()
    g.gm("override", path=["tower_defense", "forts", "a", "durability"], value=0, reason="t")
    g.to("advance")
    (group,) = g.td.groups.values()
    assert group.fort == "b" and group.at == 2
    assert all(not g.td.passages[p].lateral for p in group.route)


@pytest.mark.parametrize("setting, fort, present", [
    ("stay_at_last", "c", True),
    ("remove", None, False),
])
def test_when_every_fort_on_the_way_is_broken(setting: str, fort: str | None,
                                              present: bool) -> None:  # TD-ADV-1
    data = scenario()
    data["tower_defense"]["settings"] = {"when_all_broken": setting}
    data["tower_defense"]["victory"]["defeat_on_final_fort"] = False
    g = Game(data)
    for f in ("a", "b", "c"):
        g.gm("override", path=["tower_defense", "forts", f, "durability"], value=0, reason="t")
    g.to("advance")
    groups = list(g.td.groups.values())
    assert bool(groups) == present
    if groups:
        assert groups[0].fort == fort


def test_group_at_intact_fort_may_advance_by_setting() -> None:  # TD-ADV-1
    data = scenario()
    data["tower_defense"]["settings"] = {"group_at_intact_fort": "advance"}
    g = Game(data)
    g.to("advance")
    g.to("advance", 2)
    assert next(iter(g.td.groups.values())).fort == "b"


def test_full_fort_makes_a_group_wait_on_its_passage() -> None:  # TD-ADV-1
    data = scenario(r1=[{"name": "g1", "count": 3, "direction": "north"},
                        {"name": "g2", "count": 3, "direction": "north"}])
    data["tower_defense"]["settings"] = {"max_groups_per_fort": 1}
    g = Game(data)
    g.to("advance")
    first, second = g.td.groups.values()
    assert (first.fort, first.waiting) == ("a", False)
    assert (second.fort, second.waiting, second.cell.y) == (None, True, 1)
    g.to("enemy_attack")
    assert g.td.forts["a"].durability == 7  # the waiting group does not attack


def test_explosive_trap_hits_every_group_on_the_passage_then_is_spent() -> None:
    # TD-ADV-2 / TD-OPT-1
    data = scenario(r1=[{"name": "g1", "count": 3, "direction": "north"},
                        {"name": "g2", "count": 1, "direction": "north"}],
                    r2=[{"name": "g3", "count": 3, "direction": "north"}])
    g = Game(data)
    g.gm("td.trap.set", pc="pc1", passage="n_a", trap="explosive", check=False)
    g.to("reinforcement")
    out = g.next()
    assert [h.data["group"] for h in out.happenings if h.kind == "td.trap.fired"] == [
        "r1-north", "r1-north-2"]
    assert [x.count for x in g.td.groups.values()] == [2]  # g2 removed at 0 (TD-REIN-1)
    assert "td.trap.spent" in kinds(out) and g.td.traps["trap1"].spent
    g.to("advance", 2)
    assert g.td.groups["r2-north"].count == 3


def test_persistent_traps_fire_every_round() -> None:  # TD-OPT-1
    data = scenario(r2=[{"name": "g3", "count": 3, "direction": "north"}])
    data["tower_defense"]["settings"] = {"traps_persist": True}
    g = Game(data)
    g.gm("td.trap.set", pc="pc1", passage="n_a", trap="explosive", check=False)
    g.to("advance", 2)
    assert g.td.groups["r2-north"].count == 2 and not g.td.traps["trap1"].spent


def test_snare_trap_holds_a_group_for_one_enemy_attack() -> None:  # TD-OPT-1 / TD-ADV-2
    g = Game()
    g.gm("td.trap.set", pc="pc1", passage="n_a", trap="snare", check=False)
    g.to("advance")
    assert next(iter(g.td.groups.values())).snared
    g.to("pc_attack")
    out = g.next()
    assert "td.group.held" in kinds(out) and g.td.forts["a"].durability == 10
    assert not next(iter(g.td.groups.values())).snared
    g.to("enemy_attack", 2)
    assert g.td.forts["a"].durability == 5


# -- TD-ATK-1..4: the PCs ------------------------------------------------------------------------


def test_example_1_three_shots_regular_fail_extreme() -> None:  # TD-ATK-2 (seed example 1)
    g = Game()
    g.to("pc_attack")
    gid = g.group_at("a")
    out = g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, results=[
        cc(80, 45, "レギュラー成功"), cc(80, 91, "失敗"), cc(80, 12, "イクストリーム成功")])
    assert g.td.groups[gid].count == 2
    attack = next(h for h in out.happenings if h.kind == "td.attack")
    assert [s["removed"] for s in attack.data["shots"]] == [1, 0, 2]
    assert [r.source for r in out.rolls] == ["external"] * 3
    assert [r.reporter for r in out.rolls] == ["p1"] * 3
    assert g.td.pcs["pc1"].weapons["pistol"].loaded == 4


def test_example_2_shotgun_damage_2_regular_and_extreme() -> None:  # TD-ATK-2 (example 2)
    g = Game(scenario(r1=[{"name": "深きもの共B", "count": 10, "direction": "north"}]))
    g.to("pc_attack")
    gid = g.group_at("a")
    g.p("p2", "td.attack", pc="pc2", weapon="shotgun", group=gid,
        results=[cc(60, 45, "レギュラー成功"), cc(60, 12, "イクストリーム成功")])
    assert g.td.groups[gid].count == 4  # 2 + 4 = 6 removed


@pytest.mark.parametrize("value, level, removed", [
    (1, "クリティカル", 3), (10, "イクストリーム成功", 2), (30, "ハード成功", 1),
    (50, "レギュラー成功", 1), (70, "失敗", 0), (100, "ファンブル", 0),
])
def test_removal_per_level(value: int, level: str, removed: int) -> None:  # TD-ATK-2
    g = Game(scenario(r1=[{"name": "g", "count": 9, "direction": "north"}]))
    g.to("pc_attack")
    gid = g.group_at("a")
    g.p("p1", "td.attack", pc="pc1", weapon="rifle", group=gid,
        results=[cc(60, value, level)])
    assert g.td.groups[gid].count == 9 - removed


def test_engine_rolls_when_no_result_is_reported() -> None:  # TD-ATK-2
    g = Game(scenario(r1=[{"name": "g", "count": 30, "direction": "north"}]), seed="s1")
    g.to("pc_attack")
    gid = g.group_at("a")
    out = g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, shots=3)
    assert [r.source for r in out.rolls] == ["engine"] * 3
    assert all(r.target == 80 and r.level for r in out.rolls)
    removal = {"critical": 3, "extreme": 2, "hard": 1, "regular": 1}
    assert 30 - g.td.groups[gid].count == sum(removal.get(r.level or "", 0) for r in out.rolls)


@pytest.mark.parametrize("line, code", [
    ("よくわからない", "bad_result"),
    ("(2D6) ＞ 7[1,6] ＞ 7", "bad_result"),
    ("(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 53 ＞ 53 ＞ 成功", "bad_result"),
    (cc(70, 45, "レギュラー成功"), "result_target_mismatch"),
    (cc(80, 90, "レギュラー成功"), "result_inconsistent"),
])
def test_reported_lines_must_be_readable_and_honest(line: str, code: str) -> None:  # TD-ATK-2
    g = Game()
    g.to("pc_attack")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=g.group_at("a"),
                  results=[line])
    assert r.code == code


@pytest.mark.parametrize("line", [
    "(1D100<=40) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 12 ＞ 成功",  # CC<=80H (BCDice's own)
    "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 53 ＞ 53 ＞ 成功",  # CC<=80r
])
def test_a_difficulty_set_check_is_refused_as_one(line: str) -> None:  # TD-ATK-2, issue 29
    """A bare 成功 is a difficulty-set roll: no degree, and a target that is not the skill;
    the reason says so (not a target mismatch, not an unreadable line)."""
    g = Game()
    g.to("pc_attack")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=g.group_at("a"),
                  results=[line])
    assert r.code == "bad_result" and "難易度" in r.ja and "difficulty" in r.en


def test_an_unread_line_is_refused_with_the_readers_reason_in_each_language() -> None:
    g = Game()
    g.to("pc_attack")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=g.group_at("a"),
                  results=["(4D6KH3) ＞ 14[1,2,6,6] ＞ 14"])
    assert r.code == "bad_result"
    assert "キープロール（4D6KH3）" in r.ja and "a keep roll (4D6KH3)" in r.en
    assert "keep roll" not in r.ja


def test_typed_results_need_the_gms_leave_bridges_do_not() -> None:  # TD-ATK-2 reported
    g = Game(player_rolls="refuse")
    g.to("pc_attack")
    gid = g.group_at("a")
    line = cc(80, 45, "レギュラー成功")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=gid, results=[line])
    assert (r.code, r.about) == ("player_rolls_refused", (("meta", "player_rolls"),))
    assert g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=gid,
                     results=["読めない"]).code == "player_rolls_refused"  # not even read
    out = g.act(Actor(role="bridge", label="ccfolia"), "td.attack", pc="pc1", weapon="pistol",
                group=gid, results=[line], by="p1")
    assert [(x.source, x.reporter) for x in out.rolls] == [("external", "p1")]
    g.gm("room.player_rolls", mode="allow")
    out = g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, results=[line])
    assert [x.source for x in out.rolls] == ["external"]


def test_player_acts_only_for_own_pc_bridge_names_player() -> None:  # TD-ATK-1
    g = Game()
    g.to("pc_attack")
    r = g.refused(P2, "td.move", pc="pc1", to="d")
    assert (r.code, r.rule) == ("not_your_pc", "TD-ATK-1")
    r = g.refused(Actor(role="bridge"), "td.move", pc="pc1", to="d", by="p2")
    assert r.code == "not_your_pc"
    g.act(Actor(role="bridge"), "td.move", pc="pc1", to="d", by="p1")
    r = g.refused(P1, "td.move", pc="npc", to="b")
    assert r.code == "not_your_pc"
    g.gm("td.move", pc="npc", to="b")  # the GM runs the NPC
    assert (g.td.pcs["pc1"].fort, g.td.pcs["npc"].fort) == ("d", "b")


@pytest.mark.parametrize("start, to, ok", [
    ("a", "d", True),   # sideways along a lateral passage
    ("a", "b", True),   # inward
    ("b", "a", True),   # outward
    ("a", "c", False),  # not adjacent
])
def test_pc_move_one_passage_any_direction(start: str, to: str, ok: bool) -> None:  # TD-ATK-1
    data = scenario()
    data["tower_defense"]["pcs"][0]["fort"] = start
    g = Game(data)
    g.to("pc_attack")
    if ok:
        out = g.p("p1", "td.move", pc="pc1", to=to)
        assert "td.pc.moved" in kinds(out) and g.td.pcs["pc1"].fort == to
    else:
        r = g.refused(P1, "td.move", pc="pc1", to=to)
        assert (r.code, r.rule) == ("not_adjacent", "TD-ATK-1")


def test_firearm_limits_ammo_and_reload() -> None:  # TD-ATK-3
    data = scenario(r1=[{"name": "g", "count": 40, "direction": "north"}])
    data["tower_defense"]["forts"][0]["durability"] = 500
    data["tower_defense"]["victory"]["rounds"] = 5
    g = Game(data)
    g.to("pc_attack")
    gid = g.group_at("a")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=gid, shots=4)
    assert (r.code, r.rule) == ("too_many_attacks", "TD-ATK-3")
    g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, shots=2)
    g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, shots=1)
    assert g.td.pcs["pc1"].weapons["pistol"].loaded == 4
    g.to("pc_attack", 2)
    g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, shots=3)
    g.to("pc_attack", 3)
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=gid, shots=3)
    assert (r.code, r.rule) == ("out_of_ammo", "TD-ATK-3")
    out = g.p("p1", "td.reload", pc="pc1", weapon="pistol")
    assert "td.reloaded" in kinds(out) and g.td.pcs["pc1"].weapons["pistol"].loaded == 7
    r = g.refused(P1, "td.attack", pc="pc1", weapon="rifle", group=gid, shots=1)
    assert (r.code, r.rule) == ("already_acted", "TD-ATK-3")  # reloading took the phase


def test_no_move_and_shoot_in_one_phase() -> None:  # TD-ATK-3
    g = Game()
    g.to("pc_attack")
    gid = g.group_at("a")
    g.p("p1", "td.move", pc="pc1", to="b")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="rifle", group=gid, shots=1)
    assert (r.code, r.rule) == ("already_acted", "TD-ATK-3")
    g.p("p2", "td.attack", pc="pc2", weapon="shotgun", group=gid, shots=1)
    r = g.refused(P2, "td.move", pc="pc2", to="b")
    assert (r.code, r.rule) == ("already_acted", "TD-ATK-3")


def test_melee_moves_and_attacks_in_one_phase_never_reloads() -> None:  # TD-ATK-3
    data = scenario()
    data["tower_defense"]["pcs"][0]["fort"] = "b"
    g = Game(data)
    g.to("pc_attack")
    gid = g.group_at("a")
    out = g.p("p1", "td.melee", pc="pc1", weapon="knife", group=gid, to="a",
              result=cc(70, 14, "イクストリーム成功"))
    assert kinds(out)[:2] == ["td.pc.moved", "td.attack"]
    assert g.td.groups[gid].count == 3 and g.td.pcs["pc1"].fort == "a"
    r = g.refused(P1, "td.melee", pc="pc1", weapon="knife", group=gid)
    assert r.rule == "TD-ATK-3"
    r = g.refused(P1, "td.reload", pc="pc1", weapon="knife")
    assert (r.code, r.rule) == ("no_reload", "TD-ATK-3")


def test_special_ammo_has_its_own_damage_and_uses() -> None:  # TD-ATK-3 / TD-DATA
    data = scenario(r1=[{"name": "g", "count": 30, "direction": "north"}])
    data["tower_defense"]["forts"][0]["durability"] = 500
    g = Game(data)
    g.to("pc_attack")
    gid = g.group_at("a")
    g.p("p2", "td.attack", pc="pc2", weapon="shotgun", group=gid, ammo="special",
        results=[cc(60, 45, "レギュラー成功"), cc(60, 50, "レギュラー成功")])
    state = g.td.pcs["pc2"].weapons["shotgun"]
    assert (g.td.groups[gid].count, state.special_left, state.loaded) == (20, 0, 8)
    g.to("pc_attack", 2)
    r = g.refused(P2, "td.attack", pc="pc2", weapon="shotgun", group=gid, ammo="special",
                  shots=1)
    assert (r.code, r.rule) == ("out_of_special", "TD-DATA")


@pytest.mark.parametrize("weapon, pc_fort, mode, ok", [
    ("pistol", "a", "same_fort_is_1", True),    # range 1: own fort
    ("pistol", "b", "same_fort_is_1", False),   # range 1: not the next fort (seed ex. 2)
    ("pistol", "b", "steps", True),             # range 1 = one passage under `steps`
    ("pistol", "c", "steps", False),
    ("rifle", "c", "same_fort_is_1", True),     # ∞ (seed ex. 3: M4 from the back)
])
def test_weapon_range(weapon: str, pc_fort: str, mode: str, ok: bool) -> None:  # TD-ATK-4
    data = scenario()
    data["tower_defense"]["pcs"][0]["fort"] = pc_fort
    data["tower_defense"]["settings"] = {"range_mode": mode}
    g = Game(data)
    g.to("pc_attack")
    fields = {"pc": "pc1", "weapon": weapon, "group": g.group_at("a"), "shots": 1}
    if ok:
        g.p("p1", "td.attack", **fields)
    else:
        r = g.refused(P1, "td.attack", **fields)
        assert (r.code, r.rule) == ("out_of_range", "TD-ATK-4")


# -- TD-EATK-1/2: enemy attack -------------------------------------------------------------------


def test_enemy_attack_deals_count_to_own_fort_only() -> None:  # TD-EATK-1
    g = Game(scenario(r1=[{"name": "g", "count": 4, "direction": "north"},
                          {"name": "h", "count": 3, "direction": "east"}]))
    g.to("pc_attack")
    out = g.next()
    hits = [(h.data["fort"], h.data["amount"]) for h in out.happenings
            if h.kind == "fort.damaged"]
    assert hits == [("a", 4), ("d", 3)]
    assert not [h for h in out.happenings if h.kind.startswith("pc")]  # never the PCs


def test_enemy_attack_stops_at_broken_fort() -> None:  # TD-EATK-2
    g = Game(scenario(r1=[{"name": f"g{i}", "count": 6, "direction": "north"}
                          for i in range(3)]))
    g.to("pc_attack")
    out = g.next()
    assert [h.data["amount"] for h in out.happenings if h.kind == "fort.damaged"] == [6, 6]
    assert g.td.forts["a"].durability == 0
    assert [h.kind for h in out.happenings].count("td.enemy_attack.stopped") == 1
    assert "fort.broken" in kinds(out)
    g.to("advance", 2)
    assert {x.fort for x in g.td.groups.values()} == {"b"}  # they walk on past it


def test_final_fort_broken_is_defeat_at_once() -> None:  # TD-EATK-1 / TD-SET-1
    g = Game()
    g.to("reinforcement")
    out = g.gm("override", path=["tower_defense", "forts", "c", "durability"], value=0,
               reason="test")
    assert "td.outcome" in kinds(out)
    assert (g.td.outcome, g.td.outcome_reason) == ("defeat", "final_fort_broken")


def test_survive_victory_at_end_of_last_round() -> None:  # TD-SET-1
    g = Game()
    g.to("pc_attack", 3)
    out = g.next()
    assert kinds(out)[-2:] == ["td.round.ended", "td.outcome"]
    assert (g.td.outcome, g.td.outcome_reason) == ("victory", "survived")


# -- TD-OPT-2: special individuals ------------------------------------------------------------------


def test_priest_doubles_counts_in_enemy_attack() -> None:  # TD-OPT-2
    g = Game(scenario(r1=[{"name": "g", "count": 3, "direction": "north"},
                          {"name": "深きもの共の司祭", "special": "priest", "direction": "east"}]))
    g.to("enemy_attack")
    assert g.td.forts["a"].durability == 4
    (iid,) = g.td.individuals
    g.gm("td.individual.remove", individual=iid)
    g.to("enemy_attack", 2)
    assert g.td.forts["a"].durability == 1


def test_nofke_deals_4_to_its_fort() -> None:  # TD-OPT-2
    g = Game(scenario(r1=[{"name": "ノフケー", "special": "nofke", "direction": "east"}]))
    g.to("enemy_attack")
    assert g.td.forts["d"].durability == 6
    assert next(iter(g.td.individuals.values())).fort == "d"


def test_frozen_one_gives_pc_checks_a_penalty_die() -> None:  # TD-OPT-2
    data = scenario(r1=[{"name": "g", "count": 20, "direction": "north"},
                        {"name": "凍てつく者", "special": "frozen", "direction": "east"}])
    g = Game(data, seed="frozen")
    g.to("pc_attack")
    gid = g.group_at("a")
    r = g.refused(P1, "td.attack", pc="pc1", weapon="pistol", group=gid,
                  results=[cc(80, 45, "レギュラー成功")])
    assert (r.code, r.rule) == ("penalty_die_missing", "TD-OPT-2")
    g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid,
        results=[cc(80, 45, "レギュラー成功", bonus=-1, dice="45, 25")])
    out = g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid, shots=1)
    base, extra = out.rolls
    assert extra.dice == "1D10" and base.total == max(base.results)
    assert base.results[1] % 10 == base.results[0] % 10


# -- TD-DATA: 魔眼 --------------------------------------------------------------------------------


def test_evil_eye_doubles_damage_on_one_group_this_round() -> None:  # TD-DATA
    g = Game(scenario(r1=[{"name": "g", "count": 20, "direction": "north"}]))
    g.to("pc_attack")
    gid = g.group_at("a")
    out = g.p("p2", "td.special", pc="pc2", group=gid, result=cc(70, 50, "レギュラー成功"))
    assert "td.eye.marked" in kinds(out) and g.td.marks == {gid: "pc2"}
    g.p("p1", "td.attack", pc="pc1", weapon="pistol", group=gid,
        results=[cc(80, 12, "イクストリーム成功")])
    assert g.td.groups[gid].count == 16  # 2 × 2
    r = g.refused(P2, "td.special", pc="pc2", group=gid, result=cc(70, 50, "レギュラー成功"))
    assert r.code == "too_many_attacks"
    g.to("reinforcement", 2)
    assert g.td.marks == {}


def test_evil_eye_failure_marks_nothing() -> None:  # TD-DATA
    g = Game()
    g.to("pc_attack")
    out = g.p("p2", "td.special", pc="pc2", group=g.group_at("a"), result=cc(70, 88, "失敗"))
    assert "td.eye.marked" not in kinds(out) and g.td.marks == {}


# -- secrets ----------------------------------------------------------------------------------------


def test_future_waves_never_reach_players_or_table() -> None:  # TD-SET-1
    g = Game()
    state = g.engine.state
    for aud in (Audience("player", "p1"), Audience("table")):
        assert "waves" not in project(state, aud)["tower_defense"]
    assert project(state, Audience("gm"))["tower_defense"]["waves"]["rounds"]
    view = View(Audience("player", "p1"), state)
    out = g.gm("override", path=["tower_defense", "waves", "rounds"], value={"2": []},
               reason="GM edits the waves")
    assert view.update(state, out.units) == []
    out = g.gm("override", path=["tower_defense", "waves"],
               value={"mode": "fixed", "rounds": {}}, reason="again")
    assert view.update(state, out.units) == []
