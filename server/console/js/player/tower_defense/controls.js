// The player's tower defense controls (rules.md TD-*): one card per PC whose `player` is
// this player (card.js). Setup: the starting fort (`td.pc.place`) and traps (`td.trap.set`);
// PC attack phase: attack, move, reload, melee, 魔眼 (attack.js). Shown only to players
// (`roles`); the map and tables stay in the shared tower defense panel.

import { h } from "../../dom.js";
import { registerPanel } from "../../registry.js";
import { t } from "../../i18n.js";
import { freshPhase, pcCard } from "./card.js";

registerPanel({
  id: "player_td",
  also: ["meta"], // `meta.player_rolls` decides whether pasting dice results is offered
  key: "tower_defense",
  area: "side",
  order: 5,
  roles: ["player"],
  title: () => t("ptd.title"),
  render(ctx) {
    const td = ctx.data;
    freshPhase(ctx, td);
    const mine = Object.values(td.pcs || {}).filter((pc) => pc.player && pc.player === ctx.player);
    if (!mine.length) return h("p.muted.small", t("ptd.none"));
    return h("div.pl-td", mine.map((pc) => pcCard(ctx, td, pc)));
  },
});
