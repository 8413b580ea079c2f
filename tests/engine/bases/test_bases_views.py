"""Hidden bases and hidden element parts (BASE-OPT-2) never reach a player or the table early."""

from __future__ import annotations

from typing import Any

from test_bases_kit import act, dumps, effect, report, room, rounds

from komasync.engine.core import Engine, Outcome
from komasync.engine.errors import Codes, Refusal, Text
from komasync.engine.views import Audience, View, refusal_for, shows

HIDDEN = """
characters: [{name: アリス, side: pc}, {name: ボブ, side: pc}]
bases:
  - id: fort
    name: 砦
    side: pc
    gp: 5
    note: GMだけのメモ
    gp_conditions:
      - {condition: 味方がダメージを受けた時, delta: 37, hidden: [delta]}
    constants:
      - {name: 秘めたる加護, condition: 【励起】, effect: 加護テキスト, hidden: true}
    events:
      - name: 反撃
        condition: ラウンド終了時
        effect: 反撃の秘密効果
        hidden: [effect]
        effects: [{do: message, text: 反撃した}]
  - {id: vault, name: 宝物庫, side: enemy, gp: 2, hide_gp: true}
  - id: secret
    name: 秘密基地
    side: enemy
    gp: 4
    hidden: true
    events:
      - {name: 秘密兵器, condition: 【2ラウンド〜】ラウンド開始時, effect: 秘密の効果}
"""
AUDIENCES = (Audience("player", "p1"), Audience("table"))


class Watch:
    """A player's and the table's views of a room, and everything they were ever sent."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.views = [View(a, engine.state) for a in AUDIENCES]
        self.sent = [dumps(v.tree) for v in self.views]

    def act(self, **action: Any) -> Outcome:
        return self.seen(act(self.engine, **action))

    def seen(self, outcome: Outcome) -> Outcome:
        for i, view in enumerate(self.views):
            self.sent[i] += dumps(view.update(self.engine.state, outcome.units))
            # the incremental view is exactly a fresh projection
            assert view.tree == View(view.audience, self.engine.state).tree
        return outcome

    def shown(self, text: str) -> bool:
        """In every audience's current tree (and so in what it was sent)."""
        return all(text in dumps(v.tree) for v in self.views)

    def never(self, text: str) -> bool:
        """Never sent to any non-GM audience so far."""
        return all(text not in sent for sent in self.sent)

    def base(self, base_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self.views[0].tree["bases"]["bases"].get(base_id, {})
        return data


def test_bases_hidden_base_revealed_by_gm() -> None:
    # BASE-OPT-2: a hidden base is invisible; the GM reveals its existence, then all
    w = Watch(room(HIDDEN))
    gm = View(Audience("gm"), w.engine.state)
    assert "秘密基地" in dumps(gm.tree)
    assert w.never("秘密基地") and w.never("秘密兵器") and w.never("secret")
    w.act(kind="bases.reveal", base="secret", what="base")
    assert w.shown("秘密基地") and w.never("秘密兵器") and "gp" not in w.base("secret")
    w.act(kind="bases.reveal", base="secret")
    assert w.shown("秘密兵器") and w.shown("秘密の効果") and w.base("secret")["gp"] == 4


def test_bases_hidden_event_revealed_when_first_fired() -> None:
    # BASE-OPT-2: an event shows when it first fires (and the base it belongs to)
    w = Watch(room(HIDDEN))
    w.seen(rounds(w.engine)[0])
    assert w.never("秘密基地") and w.never("反撃の秘密効果")
    out = w.seen(rounds(w.engine)[0])  # round 1 ends (反撃), round 2 starts (秘密兵器)
    assert w.shown("反撃の秘密効果") and w.shown("秘密兵器") and w.shown("秘密基地")
    assert "gp" not in w.base("secret")  # its GP stays hidden
    assert "反撃した" in [line.ja for line in out.log]


def test_bases_hidden_gp_revealed_at_zero() -> None:
    # BASE-OPT-2: GP shows when it reaches 0 (and the log never told it before)
    w = Watch(room(HIDDEN))
    out = w.seen(effect(w.engine, "gp", "vault", value=-1))
    assert "gp" not in w.base("vault") and "base_gp" not in w.base("vault")
    assert not any("宝物庫" in line.ja for line in out.log)
    w.seen(effect(w.engine, "gp", "vault", value=-1))
    assert w.base("vault")["gp"] == 0 and w.base("vault")["state"] == "destroyed"


def test_bases_hidden_delta_revealed_when_first_applied() -> None:
    # BASE-OPT-2: a GP change condition shows when it is first applied
    w = Watch(room(HIDDEN))
    w.seen(rounds(w.engine)[0])
    gp_condition = w.base("fort")["gp_conditions"][0]
    assert "delta" not in gp_condition and gp_condition["hidden"] == ["delta"]
    w.seen(report(w.engine, "character.damaged", character="アリス"))
    assert w.base("fort")["gp_conditions"][0]["delta"] == 37


def test_bases_hidden_constant_revealed_when_first_met() -> None:
    # BASE-OPT-2: a constant effect shows when its condition is first met
    w = Watch(room(HIDDEN))
    w.seen(rounds(w.engine)[0])
    assert w.never("秘めたる加護") and w.never("加護テキスト")
    w.seen(effect(w.engine, "excite", "fort"))
    assert w.shown("秘めたる加護") and w.shown("加護テキスト")
    w.seen(effect(w.engine, "calm", "fort"))  # stays revealed, now inactive
    assert w.shown("秘めたる加護") and not w.base("fort")["constants"][0]["active"]


def test_bases_gm_only_notes_never_projected() -> None:
    # BASE-OPT-2 / BASE-OPT-4: GM notes and scenario warnings are the GM's alone
    w = Watch(room(HIDDEN))
    assert w.never("GMだけのメモ") and "notes" not in w.views[0].tree["bases"]


def test_bases_changes_to_hidden_base_do_not_leak() -> None:
    # BASE-OPT-2: effects on a still-hidden base send nothing and log nothing
    w = Watch(room(HIDDEN))
    out = w.seen(effect(w.engine, "stop", "secret"))
    assert w.never("秘密基地") and w.never("secret")
    assert all("秘密基地" not in line.ja for line in out.log)


CHOICE_HIDDEN = """
bases:
  - id: fort
    name: 砦
    side: pc
    gp: 5
    events:
      - name: 補強
        condition: ラウンド開始時
        effects: [{do: gp, value: 1, target: {side: ally}, choose: 1}]
  - {id: wall, name: 城壁, side: pc, gp: 3}
  - {id: mine, name: 隠し坑道, side: pc, gp: 3, hidden: true}
  - id: gate
    name: 門
    side: enemy
    gp: 3
    events:
      - {name: 呼応, condition: ラウンド終了時, effects: [{do: excite, target: {name: mine}}]}
"""


def test_bases_player_prompt_lists_only_visible_bases() -> None:
    # BASE-OPT-2 with BASE-CHOICE: players never see a hidden base among the choices
    w = Watch(room(CHOICE_HIDDEN))
    w.seen(rounds(w.engine)[0])
    prompt = next(iter(w.engine.state.prompts.values()))
    assert prompt.to == "players" and {c.id for c in prompt.choices} == {"fort", "wall"}
    assert w.never("隠し坑道") and w.never("mine")


def test_bases_shown_part_naming_hidden_base_is_hidden_too() -> None:
    # BASE-OPT-2: a public effect that names a hidden base would leak it — hidden as well
    e = room(CHOICE_HIDDEN)
    assert e.state.bases is not None
    assert "effect" in e.state.bases.bases["gate"].events[0].hidden
    assert any("gate.ev1" in note for note in e.state.bases.notes)
    w = Watch(e)
    assert w.never("mine") and w.never("隠し坑道")


def test_shows_follows_every_way_a_value_is_hidden() -> None:
    # BASE-OPT-2: `shows` agrees with the projections: hidden base, secret field, hidden
    # part, hidden GP, wholly hidden element — and everything for the GM.
    state = room(HIDDEN).state
    fort = ("bases", "bases", "fort")
    hidden = [("bases", "bases", "secret"), ("bases", "bases", "secret", "name"),
              (*fort, "note"), (*fort, "gp_conditions", 0, "delta"),
              (*fort, "events", 0, "effect"), (*fort, "constants", 0),
              (*fort, "constants", 0, "name"), ("bases", "bases", "vault", "gp"),
              ("bases", "notes"), (*fort, "no_such_field")]
    shown = [(*fort, "name"), (*fort, "gp"), (*fort, "events", 0, "name"),
             (*fort, "gp_conditions", 0, "conditions"), ("bases", "bases", "vault", "name")]
    for who in AUDIENCES:
        assert [p for p in hidden if shows(state, p, who)] == []
        assert [p for p in shown if not shows(state, p, who)] == []
    assert all(shows(state, p, Audience("gm")) for p in hidden[:-1] + shown)


def test_refusal_for_names_nothing_hidden_to_non_gms() -> None:
    # A refusal built from a hidden part reaches a non-GM as `not_available`, whole to the GM.
    state = room(HIDDEN).state
    codes = Codes("probe")
    secret = Refusal(codes("condition_not_met", "秘密", "secret"), Text("秘密兵器", "secret weapon"),
                     rule="BASE-COND-4",
                     about=[("bases", "bases", "secret", "events", 0, "conditions")], n=3)
    public = Refusal(codes("battle_over", "終了", "over"), Text("終了", "over"), rule="BASE-TYPE-1",
                     about=[("bases", "bases", "fort", "name")])
    for who in AUDIENCES:
        told = refusal_for(secret, state, who)
        assert (told.code, told.rule, told.details) == ("not_available", None, {})
        assert "秘密" not in told.ja and told.en
        assert refusal_for(public, state, who) is public
    assert refusal_for(secret, state, Audience("gm")) is secret
