"""Tower defense on a VTT (adapters/subsystems/tower_defense.py): PCs dropped on forts,
refused moves snapped back, BCDice lines spoken by a PC as attacks.

A PC dropped on another fort → `td.move` (TD-ATK-1; `td.pc.place` in setup, TD-PRE-1); a
BCDice line spoken by a PC → `td.attack` with the reported lines (TD-ATK-2). A refused
event gets snap-back operations: the piece back where the projection has it, and a line
to the mover. PCs not placed yet wait beside the board (TD-PRE-1).
"""

from __future__ import annotations

from typing import Any

import pytest
from adapter_support import P1, P2, Room, at, cc, fort_cell, position, shown_position, submit, td_room

from komasync.adapters.render import render
from komasync.engine.core import Outcome
from komasync.engine.errors import Refusal
from komasync.engine.registry import parse_action

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
    assert position(ops, platform, "ks-pc-pc1") == shown_position(adapter, "ks-pc-pc1")
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
    assert position(ops, "foundry", "ks-group-r1-right_end") == shown_position(
        adapter, "ks-group-r1-right_end")


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


@pytest.mark.parametrize("roll", [
    "(1D100<=40) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 12 ＞ 成功",  # CC<=80H: target halved
    "#1\n(1D100<=40) ボーナス・ペナルティダイス[0] ＞ 12 ＞ 12 ＞ 成功\n\n"
    "#2\n(1D100<=40) ボーナス・ペナルティダイス[0] ＞ 52 ＞ 52 ＞ 失敗",  # x2 CC<=80H
])
def test_a_difficulty_set_check_is_not_matched_to_a_weapon(roll: str) -> None:
    """issue 29: CC<=80H prints the halved target (40) and a bare 成功; its target is not
    a skill, so no weapon is picked by it and the GM is told why (no shot is dropped)."""
    room = td_room()
    result = room.adapters["ccfolia"].event(
        chat("カルロス・ベガ", "CC<=80H デザートイーグル r1-left_end", roll), room.tree)
    assert result.action is None and result.ignored is not None
    assert result.ignored.startswith("難易度つきのCC判定") and "difficulty" in result.ignored


def test_an_unread_line_names_its_kind() -> None:
    room = td_room()
    result = room.adapters["ccfolia"].event(
        chat("カルロス・ベガ", "4D6KH3", "(4D6KH3) ＞ 14[1,2,6,6] ＞ 14"), room.tree)
    assert result.ignored is not None and "キープロール（4D6KH3）" in result.ignored
    assert "a keep roll (4D6KH3)" in result.ignored


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


# -- PCs beside the board -----------------------------------------------------------------------


def test_unplaced_pcs_wait_beside_the_board() -> None:
    objs = render(Room.build().tree)  # TD-PRE-1: nobody has picked a fort yet
    width = Room.build().tree["table"]["grid"]["width"]
    assert objs["ks-pc-pc1"]["cell"] == {"x": width + 1, "y": 2}
    assert objs["ks-pc-pc2"]["cell"] == {"x": width + 1, "y": 3}


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


# -- an alias naming no piece (issue 29: fvtt-bcdice speaks as the game system) ---------------


def system_chat(roll: str, user: dict[str, Any] = P1) -> dict[str, Any]:
    """A Foundry message as fvtt-bcdice posts it: the system's name, no token, no command."""
    return {"kind": "chat", "text": roll, "roll": roll, "user": user,
            "speaker": {"name": "Cthulhu7th", "alias_only": True}}


def test_an_alias_naming_no_piece_is_the_rolling_players_only_pc() -> None:
    room = td_room()
    line = cc(80, 52, "レギュラー成功")
    result, outcome = submit(room, "foundry", system_chat(line))
    assert result.action == {"kind": "td.attack", "pc": "pc1", "weapon": "desert_eagle",
                             "group": "r1-left_end", "results": [line], "by": "p1"}
    assert isinstance(outcome, Outcome)
    assert result.roll is not None and result.roll.pc == "pc1" and result.roll.speaker == "Cthulhu7th"
    assert result.roll.note is not None and "Cthulhu7th" in result.roll.note.ja
    assert "カルロス・ベガ" in result.roll.note.en


def test_an_alias_naming_no_piece_stays_unbound_when_the_player_has_two_pcs() -> None:
    room = td_room()
    room.act({"kind": "override", "path": ["tower_defense", "pcs", "pc2", "player"], "value": "p1",
              "reason": "p1 plays two"})
    result = room.adapters["foundry"].event(system_chat(cc(80, 52, "レギュラー成功")), room.tree)
    assert result.action is None and "Cthulhu7th" in (result.ignored or "")
    assert result.roll is not None and result.roll.pc is None


def test_a_named_speaker_is_never_credited_by_its_player() -> None:
    # a Ccfolia speaker is the character the player chose: a name that is no PC stays refused
    room = td_room()
    event = {**system_chat(cc(80, 52, "レギュラー成功")), "speaker": {"name": "通りすがり"}}
    result = room.adapters["foundry"].event(event, room.tree)
    assert result.action is None and "通りすがり" in (result.ignored or "")
