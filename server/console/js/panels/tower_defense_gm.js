// Tower defense, the GM playing a PC (issue 30): the GM's NPC (猟師ウォルト, no player) or an
// absent player's PC. The GM picks the PC by name and gets the player page's own card
// for it (player/tower_defense/card.js): place and traps in setup, attack, 魔眼, melee,
// move and reload in the PC attack phase, with komasync's dice or a pasted BCDice line.
// Every control says 「GMとして」; the server logs the actor as the GM (may_act_for, TD-ATK-1).
// The round's SAN checks are the GM's own prompt, answered in the prompts panel.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { freshPhase, pcCard } from "../player/tower_defense/card.js";

const STRINGS = {
  ja: {
    "tdgm.title": "GMとしてPCを操作",
    "tdgm.pick": "操作するPC",
    "tdgm.npc": "NPC",
    "tdgm.of": "{player}のPC",
    "tdgm.label": "{name}（{owner}）",
    "tdgm.none": "PCがいません。",
    "tdgm.hint": "GMのNPCも、欠席したプレイヤーのPCも、プレイヤー画面と同じ操作で動かせます。記録には「GMとして」と残ります。",
  },
  en: {
    "tdgm.title": "Play a PC as GM",
    "tdgm.pick": "PC to play",
    "tdgm.npc": "NPC",
    "tdgm.of": "{player}'s PC",
    "tdgm.label": "{name} ({owner})",
    "tdgm.none": "There is no PC.",
    "tdgm.hint": "The GM's NPC or an absent player's PC, with the player page's own controls. The history says it was done as GM.",
  },
};

/** Whose PC this is, in words: the NPC of the GM, or the player's name. */
function ownerWords(ctx, pc) {
  if (!pc.player) return t("tdgm.npc");
  return t("tdgm.of", { player: ctx.state.meta?.players?.[pc.player]?.name || pc.player });
}

/** The PC the GM plays now: the one picked, else the first NPC, else the first PC. */
function chosen(ctx, pcs) {
  const kept = pcs.find((pc) => pc.id === ctx.ui.pc);
  return kept || pcs.find((pc) => !pc.player) || pcs[0];
}

function picker(ctx, pcs, current) {
  return h("div.pl-buttons.tdgm-pick", { role: "group", "aria-label": t("tdgm.pick") },
    pcs.map((pc) => h("button.pl-select.tdgm-pc", {
      type: "button", dataset: { pc: pc.id }, "aria-pressed": pc.id === current.id ? "true" : "false",
      "aria-label": t("tdgm.label", { name: pc.name, owner: ownerWords(ctx, pc) }),
      on: { click: () => { ctx.ui.pc = pc.id; ctx.refresh(); } },
    }, pc.name, " ", h("span.muted.small", ownerWords(ctx, pc)))));
}

registerPanel({
  id: "tower_defense_gm",
  also: ["meta"], // players' names
  key: "tower_defense",
  order: 11, // right under the fortress map
  roles: ["gm"],
  title: () => t("tdgm.title"),
  strings: STRINGS,
  render(ctx) {
    const td = ctx.data;
    freshPhase(ctx, td);
    // The GM's NPCs first: theirs to play every round; a player's PC only when they are away.
    const pcs = Object.values(td.pcs || {}).sort((x, y) => Number(!!x.player) - Number(!!y.player));
    if (!pcs.length) return h("p.muted.small", t("tdgm.none"));
    const pc = chosen(ctx, pcs);
    return h("div.pl-td.tdgm",
      h("p.muted.small.tdgm-hint", t("tdgm.hint")),
      picker(ctx, pcs, pc),
      pcCard(ctx, td, pc));
  },
});
