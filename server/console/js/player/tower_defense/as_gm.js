// 「GMとして」: in the GM's console the same controls play any PC — the GM's NPC, an absent
// player's PC (issue 30; the engine lets the GM act for any PC, TD-ATK-1). Every control
// there says so; the player page's words stay as they were.

import { h } from "../../dom.js";
import { addStrings, t } from "../../i18n.js";

addStrings({
  ja: { "ptd.as_gm": "GMとして：{what}", "ptd.as_gm.badge": "GMとして操作" },
  en: { "ptd.as_gm": "As GM: {what}", "ptd.as_gm.badge": "As GM" },
});

/** A control's words, marked 「GMとして」 when the GM is the one using it. */
export function asGM(ctx, text) {
  return ctx.isGM ? t("ptd.as_gm", { what: text }) : text;
}

/** The badge on a card the GM plays. */
export function asGMBadge() {
  return h("span.badge.gm-act.pl-as-gm", t("ptd.as_gm.badge"));
}
