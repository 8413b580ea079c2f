"""Platform events → engine actions, the neutral part (adapters/events.py, chat.py): who
acts, unknown objects and events, stable ids. Each subsystem's drops and chat lines are
tested in tests/adapters/subsystems/.
"""

from __future__ import annotations

from adapter_support import P1, Room, at, fort_cell, td_room

from komasync.adapters.render import stable_id


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


def test_stable_ids_are_safe_and_deterministic() -> None:
    assert stable_id("group", "r1-left_end") == "ks-group-r1-left_end"
    jp = stable_id("piece", "騎士")
    assert jp == stable_id("piece", "騎士") and jp.startswith("ks-piece-")
    assert all(c.isascii() and (c.isalnum() or c in "-_") for c in jp)
    assert stable_id("piece", "a.b") != stable_id("piece", "a_b")
