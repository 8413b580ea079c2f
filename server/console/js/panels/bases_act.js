// The GM plays any character of the base battle (issue 30): the player page's own controls
// (player/bases.js) — 【能動誘発】 triggers and reports of what happened — for any PC or
// enemy, marked 「GMとして」, so an absent player's character or the enemy side can act.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { asGMBadge } from "../player/common.js";
import { baseControls, playerOf } from "../player/bases.js";

const STRINGS = {
  ja: { "gb.title": "GMとしてキャラクターを動かす（拠点戦闘）", "gb.help": "欠席したプレイヤーのキャラクターやエネミーの能動誘発・報告をGMが行います。" },
  en: { "gb.title": "Play a character as GM (base battle)", "gb.help": "Trigger and report for an absent player's character or an enemy, as the GM." },
};

registerPanel({
  id: "bases_act",
  key: "bases",
  order: 21,
  roles: ["gm"],
  title: () => t("gb.title"),
  strings: STRINGS,
  render(ctx) {
    const bs = ctx.data;
    return h("div.pl-bases.gm-acts", { dataset: { panel: "bases_act" } },
      h("p.small.muted", t("gb.help")),
      h("div.pl-row", asGMBadge(playerOf(ctx, bs))),
      ...baseControls(ctx, bs));
  },
});
