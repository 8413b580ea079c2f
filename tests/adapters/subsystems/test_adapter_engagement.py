"""Engagement on both tables (adapters/subsystems/engagement.py): a line (Foundry) or a
marker panel (Ccfolia) per engaged pair that appears when the pair forms and vanishes
when it is handed over or ends with the setup (ENG-1, ENG-IN-1, ENG-HAND-1, ENG-EF-3),
partners on the pieces, the turn on the board (ENG-TURN), dice from the chat."""

from __future__ import annotations

from typing import Any

from adapter_support import GM, FakeCcfolia, FakeFoundry, Room, player

from komasync.adapters.render import stable_id
from komasync.engine.core import Outcome

ALICE, BOB = player("alice"), player("bob")
SIX = "(4D6) ＞ 24[6,6,6,6] ＞ 24"


class Tables:
    """The example shrine steps with both adapters attached and both fakes applying ops."""

    def __init__(self) -> None:
        self.room = Room.build("engagement.yaml", seed="e")
        resets = self.room.attach()
        self.foundry, self.ccfolia = FakeFoundry(), FakeCcfolia()
        self.foundry.apply(resets["foundry"], reset=True)
        self.ccfolia.apply(resets["ccfolia"], reset=True)

    def act(self, actor: Any = GM, **action: Any) -> Outcome:
        outcome, ops = self.room.act(action, actor)
        self.foundry.apply(ops["foundry"])
        self.ccfolia.apply(ops["ccfolia"])
        return outcome

    def links(self) -> dict[str, set[str]]:
        """The engagement objects on each table, by stable id."""
        return {"foundry": {k for k, d in self.foundry.by_ks().items()
                            if d["data"]["flags"]["komasync"]["kind"] == "link"},
                "ccfolia": {k for k in self.ccfolia.objects if k.startswith("ks-eng-")}}

    def board(self) -> str:
        return str(self.foundry.by_ks()["ks-board"]["data"]["text"])


def _both(t: Tables, *pairs: str) -> None:
    want = {stable_id("link", p) for p in pairs}
    assert t.links() == {"foundry": want, "ccfolia": want}


def test_eng_1_a_line_appears_on_both_tables_when_a_pair_forms() -> None:
    t = Tables()
    _both(t)
    t.act(kind="engagement.start")
    t.act(kind="engagement.phase")
    assert "ターン1 イニシアチブ／メインフェイズ" in t.board()
    t.act(ALICE, kind="engagement.approach", combatant="aya", target="oni", dp=4, result=SIX)
    assert "カバー待ち" in t.board()  # the fox stands in front and may cover
    _both(t)
    t.act(kind="engagement.defend", combatant="oni", defence="none")
    _both(t, "aya|oni")
    line = t.foundry.by_ks()[stable_id("link", "aya|oni")]["data"]
    # aya (3,1) to oni (8,1): from the centre of one square to the centre of the other
    assert line["shape"]["type"] == "p" and line["shape"]["points"] == [50, 50, 550, 50]
    assert (line["x"], line["y"]) == t.room.adapters["foundry"].geometry.pos({"x": 3, "y": 1})
    marker = t.ccfolia.objects[stable_id("link", "aya|oni")]
    assert marker["type"] == "marker" and "剣士アヤ⇔鬼武者" in marker["data"]["text"]
    params = t.ccfolia.objects["ks-piece-aya"]["data"]["params"]
    assert {"label": "接近", "value": "鬼武者"} in params
    assert "接近1組" in t.board()


def test_eng_in_1_a_guard_transfer_moves_the_line_and_the_setup_end_removes_it() -> None:
    t = Tables()
    t.act(kind="engagement.start")
    t.act(kind="engagement.phase")
    t.act(ALICE, kind="engagement.approach", combatant="aya", target="oni", dp=4, result=SIX)
    t.act(kind="engagement.defend", combatant="oni", defence="none")
    t.act(kind="engagement.melee", combatant="oni", target="aya", dp=1, result="(1D6) ＞ 1")
    t.act(BOB, kind="engagement.defend", combatant="gou", defence="guard", dp=2,
          result="(2D6) ＞ 8[4,4] ＞ 8")
    _both(t, "gou|oni")  # ENG-GUARD: the guard takes the engagement over, aya leaves
    for _ in range(2):
        t.act(kind="engagement.phase")
    _both(t, "gou|oni")  # turn 2's setup: still engaged
    t.act(kind="engagement.phase")
    _both(t)  # ENG-EF-3: gone at the end of the setup
    assert {"label": "接近", "value": "鬼武者"} not in t.ccfolia.objects["ks-piece-gou"]["data"]["params"]


def test_eng_hand_1_a_leave_removes_the_line() -> None:
    t = Tables()
    t.act(kind="engagement.start")
    t.act(kind="engagement.link", a="gou", b="fox")
    t.act(kind="engagement.phase")
    t.act(ALICE, kind="engagement.approach", combatant="aya", target="fox", dp=4, result=SIX)
    t.act(kind="engagement.defend", combatant="fox", defence="none")
    _both(t, "fox|gou", "aya|fox")
    prompt = next(iter(t.room.engine.state.prompts.values()))
    assert prompt.to == "player:bob"
    t.act(BOB, kind="answer", prompt=prompt.id, choice="leave")
    _both(t, "aya|fox")


def test_eng_act_1_a_dice_line_in_chat_answers_the_check_waiting_for_it() -> None:
    t = Tables()
    t.act(kind="engagement.start")
    t.act(kind="engagement.phase")
    t.act(ALICE, kind="engagement.approach", combatant="aya", target="ghost", dp=4, report_check=True)
    assert "判定待ち" in t.board()
    adapter = t.room.adapters["ccfolia"]
    event = {"kind": "chat", "text": "4D6 接近", "roll": SIX, "speaker": {"name": "剣士アヤ"},
             "user": {"id": "u-bob", "name": "bob"}}
    assert adapter.event(event, t.room.tree).action is None  # bob is not aya's player
    event["user"] = {"id": "u-alice", "name": "alice"}
    result = adapter.event(event, t.room.tree)
    assert result.action == {"kind": "engagement.roll", "combatant": "aya", "result": SIX,
                             "by": "alice"}
    t.act(ALICE, **result.action)
    t.act(kind="engagement.defend", combatant="ghost", defence="none")  # no cover comes
    _both(t, "aya|ghost")
    idle = t.room.adapters["foundry"].event(event, t.room.tree)
    assert idle.action is None and idle.ignored
