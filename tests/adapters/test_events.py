"""Platform events → engine actions, and snap-back operations for refused ones.

A PC dropped on another fort → `td.move` (TD-ATK-1; `td.pc.place` in setup, TD-PRE-1);
a generic piece dropped on a square → `table.move` (TABLE-MV-1/2); a BCDice line spoken
by a PC → `td.attack` with the reported lines (TD-ATK-2). A refused event gets snap-back
operations: the piece back where the projection has it, and a line to the mover.
"""

from __future__ import annotations

from typing import Any

import pytest
from adapter_support import BRIDGE, START, Room, cc

from komasync.adapters.base import EventResult
from komasync.adapters.common import TableAdapter
from komasync.adapters.render import stable_id
from komasync.engine.core import Outcome
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action

P1 = {"id": "user-1", "name": "プレイヤー1"}
P2 = {"id": "user-2", "name": "プレイヤー2"}


def td_room(phase: str = "pc_attack", **kw: Any) -> Room:
    """The example after setup, advanced to `phase` of round 1."""
    room = Room.build(**kw)
    room.attach()
    if phase == "setup":
        return room
    for pc, fort in START.items():
        room.act({"kind": "td.pc.place", "pc": pc, "fort": fort})
    room.act({"kind": "td.next_phase"})
    room.act({"kind": "answer", "prompt": room.san_prompt(), "choice": "done"})
    for _ in ("advance", "pc_attack"):
        if room.tree["tower_defense"]["phase"] == phase:
            break
        room.act({"kind": "td.next_phase"})
    assert room.tree["tower_defense"]["phase"] == phase
    return room


def submit(room: Room, platform: str, event: dict[str, Any]) -> tuple[EventResult, Any]:
    """What the server does with a `table.event`: translate, then apply as the bridge."""
    result = room.adapters[platform].event(event, room.tree)
    if result.action is None:
        return result, None
    try:
        outcome, _out = room.act(result.action, BRIDGE)
    except Refusal as refusal:
        return result, refusal
    return result, outcome


def at(adapter: TableAdapter, cell: dict[str, int], jitter: float = 0.0) -> dict[str, float]:
    x, y = adapter.geometry.pos(cell)
    return {"x": x + jitter, "y": y + jitter}


def fort_cell(room: Room, fort: str) -> dict[str, int]:
    return dict(room.tree["tower_defense"]["forts"][fort]["cell"])


# -- PC dropped on a fort ------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_pc_dropped_on_adjacent_fort_is_td_move(platform: str) -> None:
    # TD-ATK-1: move along a passage to an adjacent fort (f_center_left → f_left, lateral)
    room = td_room()
    adapter = room.adapters[platform]
    event = {"kind": "move", "id": "ks-pc-pc2", "user": P2,
             **at(adapter, fort_cell(room, "f_left"), jitter=0.2 * adapter.geometry.unit)}
    result, outcome = submit(room, platform, event)
    assert result.action == {"kind": "td.move", "pc": "pc2", "to": "f_left", "by": "p2"}
    assert isinstance(outcome, Outcome)
    assert room.tree["tower_defense"]["pcs"]["pc2"]["fort"] == "f_left"


def test_pc_dropped_in_setup_picks_the_starting_fort() -> None:
    # TD-PRE-1: before round 1, dropping a PC on a fort places it there
    room = td_room("setup")
    adapter = room.adapters["foundry"]
    event = {"kind": "move", "id": "ks-pc-pc1", "user": P1, **at(adapter, fort_cell(room, "m_left"))}
    result, outcome = submit(room, "foundry", event)
    assert result.action == {"kind": "td.pc.place", "pc": "pc1", "fort": "m_left", "by": "p1"}
    assert isinstance(outcome, Outcome)


def test_pc_dropped_away_from_any_fort_is_ignored() -> None:
    room = td_room()
    adapter = room.adapters["ccfolia"]
    result = adapter.event({"kind": "move", "id": "ks-pc-pc1", "user": P1,
                            **at(adapter, {"x": 10, "y": 2})}, room.tree)
    assert result.action is None and result.ignored is not None
    assert "砦" in result.ignored and "fort" in result.ignored


def test_pc_dropped_back_on_its_own_fort_is_not_a_move() -> None:
    room = td_room()
    adapter = room.adapters["foundry"]
    result = adapter.event({"kind": "move", "id": "ks-pc-pc1", "user": P1,
                            **at(adapter, fort_cell(room, "f_left"))}, room.tree)
    assert result.action is None and "already" in (result.ignored or "")


# -- refused moves snap back ---------------------------------------------------------------------


def _position(ops: list[dict[str, Any]], platform: str, oid: str) -> tuple[Any, Any]:
    if platform == "ccfolia":
        op = next(o for o in ops if o.get("id") == oid and o["op"].endswith(".update"))
        return op["data"]["x"], op["data"]["y"]
    op = next(o for o in ops if o["op"] == "update")
    u = next(u for u in op["updates"] if u["id"] == oid)
    return u["data"]["x"], u["data"]["y"]


def _shown_position(adapter: TableAdapter, oid: str) -> tuple[Any, Any]:
    data = adapter.shown[oid].data
    return data["x"], data["y"]


@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_illegal_move_snaps_back_with_the_reason(platform: str) -> None:
    # TD-ATK-1: f_left and the final fort are not joined by a passage → refused
    room = td_room()
    adapter = room.adapters[platform]
    event = {"kind": "move", "id": "ks-pc-pc1", "user": P1, **at(adapter, fort_cell(room, "final"))}
    result, refusal = submit(room, platform, event)
    assert result.action == {"kind": "td.move", "pc": "pc1", "to": "final", "by": "p1"}
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.rule) == ("not_adjacent", "TD-ATK-1")
    ops = adapter.snap_back(event, room.tree, {"ja": refusal.ja, "en": refusal.en})
    # the piece goes back to where the table projection has it (its fort, its slot)
    assert _position(ops, platform, "ks-pc-pc1") == _shown_position(adapter, "ks-pc-pc1")
    if platform == "foundry":
        assert ops[0]["options"] == {"animate": False}
        chat = ops[-1]["messages"][0]
        assert chat["whisper"] == ["user-1"]
        text = chat["flags"]["komasync"]["ja"] + chat["flags"]["komasync"]["en"]
    else:
        chat = ops[-1]
        assert chat["op"] == "chat" and chat["to"] == "user-1"
        text = chat["text"]
    assert refusal.ja in text and refusal.en in text
    assert "カルロス・ベガ" in text


def test_move_in_the_wrong_phase_snaps_back() -> None:
    # TD-ATK-1: PCs move only in the PC attack phase
    room = td_room("advance")
    adapter = room.adapters["ccfolia"]
    event = {"kind": "move", "id": "ks-pc-pc2", "user": P2, **at(adapter, fort_cell(room, "f_left"))}
    _result, refusal = submit(room, "ccfolia", event)
    assert isinstance(refusal, Refusal) and refusal.code == "wrong_phase"
    ops = adapter.snap_back(event, room.tree, {"ja": refusal.ja, "en": refusal.en})
    assert [o["op"] for o in ops] == ["character.update", "chat"]
    assert refusal.en in ops[1]["text"]


def test_moving_an_enemy_group_by_hand_is_ignored_and_snapped_back() -> None:
    # TD-ADV-1: groups move by the rules only
    room = td_room()
    adapter = room.adapters["foundry"]
    event = {"kind": "move", "id": "ks-group-r1-right_end", "user": P1,
             **at(adapter, {"x": 1, "y": 1})}
    result = adapter.event(event, room.tree)
    assert result.action is None and "rules" in (result.ignored or "")
    ops = adapter.snap_back(event, room.tree, {"ja": "却下", "en": "refused"})
    assert _position(ops, "foundry", "ks-group-r1-right_end") == _shown_position(
        adapter, "ks-group-r1-right_end")


def test_unknown_user_is_refused_unless_mapped() -> None:
    room = td_room()
    adapter = room.adapters["foundry"]
    base = {"kind": "move", "id": "ks-pc-pc2", **at(adapter, fort_cell(room, "f_left"))}
    stranger = {"id": "zz9", "name": "Someone"}
    assert "Someone" in (adapter.event({**base, "user": stranger}, room.tree).ignored or "")
    # a GM user acts without `by`; the `users` setting maps a platform user to a player
    gm = adapter.event({**base, "user": {"id": "g", "name": "GM", "gm": True}}, room.tree)
    assert gm.action == {"kind": "td.move", "pc": "pc2", "to": "f_left"}
    mapped = Room.build(platforms={"foundry": {"users": {"zz9": "p2"}}})
    mapped.attach()
    result = mapped.adapters["foundry"].event({**base, "user": stranger}, mapped.tree)
    assert result.action is not None and result.action["by"] == "p2"


def test_unknown_objects_and_events_are_ignored() -> None:
    room = td_room()
    adapter = room.adapters["ccfolia"]
    assert adapter.event({"kind": "move", "id": "abc", "x": 0, "y": 0, "user": P1},
                         room.tree).ignored
    assert adapter.event({"kind": "dance"}, room.tree).ignored
    assert adapter.event({"kind": "move", "id": "ks-pc-pc1", "user": P1}, room.tree).ignored
    ops = adapter.snap_back({"kind": "move", "id": "abc"}, room.tree, {"ja": "x", "en": "y"})
    assert [o["op"] for o in ops] == ["chat"]


# -- chat: BCDice lines → attacks ------------------------------------------------------------


def chat(pc: str, text: str, roll: str, user: dict[str, Any] = P1) -> dict[str, Any]:
    return {"kind": "chat", "text": text, "roll": roll, "speaker": {"name": pc}, "user": user}


def test_bcdice_line_is_td_attack_on_the_named_group() -> None:
    # TD-ATK-2: a reported BCDice line; the group named by its id
    room = td_room()
    line = cc(80, 52, "レギュラー成功")
    event = chat("カルロス・ベガ", "CC<=80 デザートイーグル r1-left_end", line)
    result, outcome = submit(room, "ccfolia", event)
    assert result.action == {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle",
                             "group": "r1-left_end", "results": [line], "by": "p1"}
    assert isinstance(outcome, Outcome)
    roll = outcome.rolls[0]
    assert (roll.source, roll.raw, roll.level) == ("external", line, "regular")


def test_repeated_roll_gives_one_result_per_shot() -> None:
    # TD-ATK-3: several shots in one action (x3 CC<=80 prints #1, #2, #3)
    room = td_room()
    lines = [cc(80, 52, "レギュラー成功"), cc(80, 95, "失敗"), cc(80, 15, "イクストリーム成功")]
    roll = "\n".join(f"#{i + 1}\n{line}" for i, line in enumerate(lines))
    count = room.tree["tower_defense"]["groups"]["r1-left_end"]["count"]
    result, outcome = submit(room, "foundry", chat("カルロス・ベガ", "x3 CC<=80 左端砦", roll))
    assert result.action is not None and result.action["results"] == lines
    assert isinstance(outcome, Outcome)
    after = room.tree["tower_defense"]["groups"].get("r1-left_end", {}).get("count", 0)
    assert after == max(count - 3, 0)  # regular 1 + extreme 2 (example 1 of TD-ATK-2)


def test_target_defaults_to_the_only_group_at_the_pcs_fort() -> None:
    room = td_room()
    result = room.adapters["ccfolia"].event(
        chat("ジャック・モロー", "CC<=70", cc(70, 30, "レギュラー成功"), {"name": "p3"}), room.tree)
    assert result.action is not None
    assert (result.action["group"], result.action["weapon"]) == ("r1-center_right", "sdass")


def test_special_ammo_is_read_from_the_message() -> None:
    room = td_room()
    result = room.adapters["ccfolia"].event(
        chat("ジャック・モロー", "CC<=70 特殊グレネード弾 中央右砦", cc(70, 30, "レギュラー成功"),
             {"name": "p3"}), room.tree)
    assert result.action is not None and result.action["ammo"] == "special"


def test_evil_eye_line_is_td_special() -> None:
    # TD-DATA 魔眼
    room = td_room()
    result = room.adapters["foundry"].event(
        chat("白峰しずく", "CC<=75 魔眼 r1-right_end", cc(75, 20, "ハード成功"),
             {"name": "プレイヤー6"}), room.tree)
    assert result.action is not None
    assert result.action["kind"] == "td.special" and result.action["group"] == "r1-right_end"
    parse_action(result.action)


def test_ambiguous_target_is_ignored_with_a_hint() -> None:
    room = td_room()  # pc5 at m_left: no group there, four on the board
    result = room.adapters["ccfolia"].event(
        chat("剛田ゴウ", "CC<=55", cc(55, 20, "ハード成功"), {"name": "p5"}), room.tree)
    assert result.action is None and "CC<=50 r1-" in (result.ignored or "")


@pytest.mark.parametrize("roll", ["(2D6) ＞ 7[1,6] ＞ 7", "こんにちは", ""])
def test_lines_without_a_check_level_are_ignored(roll: str) -> None:
    room = td_room()
    result = room.adapters["ccfolia"].event(chat("カルロス・ベガ", "2D6", roll), room.tree)
    assert result.action is None and result.ignored


def test_speaker_must_be_a_pc() -> None:
    room = td_room()
    result = room.adapters["ccfolia"].event(
        chat("通りすがり", "CC<=80", cc(80, 52, "レギュラー成功")), room.tree)
    assert result.action is None and "通りすがり" in (result.ignored or "")


def test_refused_roll_whispers_why() -> None:
    room = td_room("advance")
    event = chat("カルロス・ベガ", "CC<=80 r1-left_end", cc(80, 52, "レギュラー成功"))
    _result, refusal = submit(room, "foundry", event)
    assert isinstance(refusal, Refusal) and refusal.rule == "TD-ATK-1"
    ops = room.adapters["foundry"].snap_back(event, room.tree, {"ja": refusal.ja, "en": refusal.en})
    assert [o["op"] for o in ops] == ["chat"]
    assert ops[0]["messages"][0]["whisper"] == ["user-1"]


# -- generic table pieces ----------------------------------------------------------------------------


def demo(platforms: dict[str, Any] | None = None) -> Room:
    room = Room.build("demo_table.yaml", platforms=platforms)
    room.attach()
    return room


@pytest.mark.parametrize("platforms", [
    None,
    {"ccfolia": {"units": "cell"}},
    {"ccfolia": {"units": "px", "cell_size": 48, "origin_x": 10, "origin_y": -20},
     "foundry": {"cell_size": 140, "origin_x": 280, "origin_y": 140}},
])
@pytest.mark.parametrize("platform", ["ccfolia", "foundry"])
def test_piece_dropped_on_a_square_is_table_move(platform: str, platforms: Any) -> None:
    # TABLE-MV-1/2: the owner moves the knight to (4, 3)
    room = demo(platforms)
    adapter = room.adapters[platform]
    event = {"kind": "move", "id": "ks-piece-knight", "user": {"id": "a", "name": "Alice"},
             **at(adapter, {"x": 4, "y": 3}, jitter=0.3 * adapter.geometry.unit)}
    result, outcome = submit(room, platform, event)
    assert result.action == {"kind": "table.move", "piece": "knight", "to": {"x": 4, "y": 3},
                             "by": "alice"}
    assert isinstance(outcome, Outcome)


def test_moving_someone_elses_piece_snaps_back() -> None:
    # TABLE-MV-1
    room = demo()
    adapter = room.adapters["ccfolia"]
    event = {"kind": "move", "id": "ks-piece-archer", "user": {"id": "a", "name": "Alice"},
             **at(adapter, {"x": 5, "y": 5})}
    _result, refusal = submit(room, "ccfolia", event)
    assert isinstance(refusal, Refusal) and refusal.rule == "TABLE-MV-1"
    ops = adapter.snap_back(event, room.tree, {"ja": refusal.ja, "en": refusal.en})
    assert _position(ops, "ccfolia", "ks-piece-archer") == adapter.geometry.pos({"x": 2, "y": 1})
    assert "弓兵" in ops[-1]["text"]


def test_stable_ids_are_safe_and_deterministic() -> None:
    assert stable_id("group", "r1-left_end") == "ks-group-r1-left_end"
    jp = stable_id("piece", "騎士")
    assert jp == stable_id("piece", "騎士") and jp.startswith("ks-piece-")
    assert all(c.isascii() and (c.isalnum() or c in "-_") for c in jp)
    assert stable_id("piece", "a.b") != stable_id("piece", "a_b")


def test_a_line_pasted_with_its_command_first_is_an_attack() -> None:
    # issue 14 / TD-ATK-2: `CC<=80 【拳銃】 (1D100<=80) … ＞ イクストリーム成功` pasted as text
    room = td_room()
    line = cc(80, 12, "イクストリーム成功")
    event = {"kind": "chat", "text": f"CC<=80 デザートイーグル r1-left_end {line}",
             "speaker": {"name": "カルロス・ベガ"}, "user": P1}
    result, outcome = submit(room, "ccfolia", event)
    assert result.action is not None and result.action["results"] == [line]
    assert isinstance(outcome, Outcome) and outcome.rolls[0].level == "extreme"


@pytest.mark.parametrize(("roll", "ja"), [
    ("(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 99 ＞ ハード成功",
     "成功度か採用した出目が読めません"),
    ("CC<=80 【拳銃】", "（…）で始まるダイスの結果がありません"),
])
def test_an_unreadable_roll_says_why_in_japanese_first(roll: str, ja: str) -> None:
    room = td_room()
    result = room.adapters["ccfolia"].event(chat("カルロス・ベガ", "CC<=80", roll), room.tree)
    assert result.action is None and result.ignored is not None
    assert result.ignored.startswith(f"ダイスの結果を読めませんでした（{ja}）")
    assert " / the dice result could not be read (" in result.ignored
