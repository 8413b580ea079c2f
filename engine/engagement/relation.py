"""The relation: forming a pair (ENG-1, ENG-IN-1) with its handover offers (ENG-HAND-1),
dissolving one, and the end of a setup (ENG-EF-3).

A pair is written once under its sorted key, so the relation is symmetric however it
formed. Forming A↔B asks every ally of A engaged with B, and every ally of B engaged
with A, whether it leaves (a prompt to its player, or the GM for NPCs). Leaving ends
that pair at once and is remembered, so the partner is told why it cannot pick the
leaver at the next setup.
"""

from __future__ import annotations

from ..combatants import Combatant
from ..errors import Text
from ..prompts import Prompt
from ..tx import Tx
from .model import EngagementState, How, Left, Offer, Pair, pair_key
from .results import PairChanged
from .rules import PATH, allies, controller, eng, name

__all__ = ["HANDOVER_KIND", "HANDOVER_RESUME", "dissolve", "end_setup", "form", "resume_handover"]

HANDOVER_RESUME = "engagement.handover"
#: The handover question's `Prompt.kind`; its `about`: `leaving` (who may leave),
#: `from` (the partner it would leave) and `joining` (whose new engagement asks it).
HANDOVER_KIND = "engagement.handover"

HOWS: dict[str, tuple[str, str]] = {
    "approach": ("接近", "approach"), "cover": ("カバー", "cover"),
    "guard": ("ガード", "guard"), "ability": ("能力", "ability"),
}
FORMED = Text("「{a}」と「{b}」が接近状態になりました（{how}）",
              "{a} and {b} are now engaged ({how_en})")
ENDED = {
    "left": Text("「{a}」は「{b}」との接近状態から離脱しました（ENG-HAND-1）",
                 "{a} left its engagement with {b} (ENG-HAND-1)"),
    "guard": Text("「{a}」と「{b}」の接近状態はガードで受け渡されました（「{b}」は離脱、ENG-GUARD）",
                  "{b} leaves its engagement with {a}, taken over by a guard (ENG-GUARD)"),
    "cover": Text("「{a}」と「{b}」の接近状態はカバーで受け渡されました（「{b}」は離脱、ENG-COVER）",
                  "{b} leaves its engagement with {a}, taken over by a cover (ENG-COVER)"),
    "expired": Text("「{a}」と「{b}」の接近状態はセットアップ終了で解消されました（ENG-EF-3）",
                    "The engagement of {a} and {b} ended with the setup (ENG-EF-3)"),
    "ability": Text("「{a}」と「{b}」の接近状態は解除されました（{note}）",
                    "The engagement of {a} and {b} was dissolved ({note})"),
    "ended": Text("「{a}」と「{b}」の接近状態は戦闘終了で解消されました",
                  "The engagement of {a} and {b} ended with the battle"),
}
ASK = Text("「{new}」と「{other}」が接近状態になりました。「{c}」は「{p}」との接近状態から離脱できます"
           "（判定なし）。離脱すると「{p}」は次のセットアップで「{c}」を近接攻撃の対象にできません"
           "（ENG-HAND-1）。",
           "{new} and {other} are now engaged. {c} may leave its engagement with {p} (no "
           "check); then {p} cannot pick {c} for its melee at the next setup (ENG-HAND-1).")
LEAVE = Text("離脱する", "leave")
STAY = Text("離脱しない", "stay")
STAYED = Text("「{c}」は「{p}」との接近状態を維持", "{c} stays engaged with {p}")


def form(tx: Tx, a: Combatant, b: Combatant, how: How, note: str = "") -> Pair:
    """A↔B engaged from now for this turn (ENG-IN-1, ENG-SETUP), then ENG-HAND-1."""
    s = eng(tx)
    pair = Pair(a=min(a.id, b.id), b=max(a.id, b.id), turn=s.turn, phase=s.phase, how=how,
                note=note[:100], hidden=a.hidden or b.hidden)
    key = pair_key(a.id, b.id)
    tx.set((PATH, "pairs", key), pair)
    tx.delete((PATH, "left", key))
    ja, en = HOWS[how]
    tx.emit("engagement.formed", pair=key, a=a.id, b=b.id, how=how)
    tx.report(PairChanged(pair=key, a=pair.a, b=pair.b, engaged=True, how=how),
              about=[(PATH, "combatants", pair.a), (PATH, "combatants", pair.b)])
    tx.say(FORMED.format(a=name(tx, a), b=name(tx, b), how=ja, how_en=en), chat=not pair.hidden)
    _offer_handovers(tx, s, a, b, key)
    _offer_handovers(tx, s, b, a, key)
    return pair


def _offer_handovers(tx: Tx, s: EngagementState, a: Combatant, b: Combatant, formed: str) -> None:
    """ENG-HAND-1 every ally of `a` engaged with `b` may leave that engagement."""
    for cid in s.partners(b.id):
        c = s.combatants.get(cid)
        if c is None or not allies(c, a):
            continue
        key = pair_key(c.id, b.id)
        if any(o.leaver == c.id and o.partner == b.id for o in s.offers.values()):
            continue  # already asked, still waiting
        text = ASK.format(new=name(tx, a), other=name(tx, b), c=name(tx, c), p=name(tx, b))
        hidden = c.hidden or b.hidden or a.hidden
        # a question asked because of a hidden character is about it: the GM's alone
        to = "gm" if hidden else controller(tx, c)
        pid = tx.ask(to, text, HANDOVER_RESUME, [("leave", LEAVE), ("stay", STAY)],
                     kind=HANDOVER_KIND, about=_seen_by(to, leaving=c, from_=b, joining=a),
                     leaver=c.id, partner=b.id, pair=key)
        tx.set((PATH, "offers", pid), Offer(prompt=pid, leaver=c.id, partner=b.id, formed=formed,
                                           hidden=hidden))
        tx.emit("engagement.handover.offered", prompt=pid, leaver=c.id, partner=b.id)


def _seen_by(to: str, **roles: Combatant) -> dict[str, str]:
    """A prompt's `about` as its addressee may see it: a player is not told the id of a
    hidden character (`from_` is the role `from`)."""
    return {role.rstrip("_"): c.id for role, c in roles.items() if to == "gm" or not c.hidden}


def dissolve(tx: Tx, s: EngagementState, key: str, why: str, note: str = "",
             leaver: str | None = None) -> None:
    """End a pair and withdraw the handover questions about it. With `leaver` (a handover,
    ENG-HAND-1, or a transfer by guard/cover) it is remembered who left whom this turn."""
    pair = s.pairs.get(key)
    if pair is None:
        return
    tx.delete((PATH, "pairs", key))
    for pid, offer in list(s.offers.items()):
        if pair_key(offer.leaver, offer.partner) == key:
            tx.delete((PATH, "offers", pid))
            if pid in tx.state.prompts:
                tx.delete(("prompts", pid))
    a, b = pair.a, pair.b
    if leaver is not None:
        partner = pair.other(leaver)
        tx.set((PATH, "left", key), Left(leaver=leaver, partner=partner, turn=s.turn,
                                         by="handover" if why == "left" else why,
                                         hidden=pair.hidden))
        # a leave names the leaver first; a transfer the one who stays engaged
        a, b = (leaver, partner) if why == "left" else (partner, leaver)
    tx.emit("engagement.dissolved", pair=key, why=why, leaver=leaver)
    tx.report(PairChanged(pair=key, a=pair.a, b=pair.b, engaged=False, why=why, leaver=leaver),
              about=[(PATH, "combatants", pair.a), (PATH, "combatants", pair.b)])
    tx.say(ENDED[why].format(a=name(tx, a), b=name(tx, b), note=note or why),
           chat=not pair.hidden)


def resume_handover(tx: Tx, prompt: Prompt, choice: str) -> None:
    """ENG-HAND-1 answered: leave ends the pair now; stay keeps it."""
    s = eng(tx)
    offer = s.offers.get(prompt.id)
    if offer is None:
        return
    tx.delete((PATH, "offers", prompt.id))
    if choice == "leave":
        dissolve(tx, s, pair_key(offer.leaver, offer.partner), "left", leaver=offer.leaver)
        return
    tx.say(STAYED.format(c=name(tx, offer.leaver), p=name(tx, offer.partner)),
           chat=not offer.hidden)


def end_setup(tx: Tx, s: EngagementState) -> None:
    """ENG-EF-3 at the end of a setup every engagement from an earlier turn ends; what a
    guard or cover formed in this setup stays (ENG-SETUP). Leave records expire too."""
    for key, pair in list(s.pairs.items()):
        if pair.turn < s.turn:
            dissolve(tx, s, key, "expired")
    for key, gone in list(s.left.items()):
        if gone.turn < s.turn:
            tx.delete((PATH, "left", key))
