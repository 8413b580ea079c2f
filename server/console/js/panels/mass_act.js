// The GM plays any mass-combat unit (issue 30, rules.md MASS-*): its own units and an
// absent player's, with the player page's controls (player/mass.js `unitCard`), marked
// 「GMとして」. The engine lets the GM act for any unit (engine/mass/rules.py may_act_for);
// what a rule leaves to a unit's side as a question (odd point, LP, reactions, rebalance)
// waits in the prompts panel, where the GM may answer every one.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t, pick } from "../i18n.js";
import { asGMBadge, field, select, unset, val } from "../player/common.js";
import { freshStep, unitCard } from "../player/mass.js";

const CURRENT = "@current";

const STRINGS = {
  ja: {
    "msa.title": "GMとして部隊を動かす",
    "msa.unit": "動かす部隊",
    "msa.current": "▶ 行動中の部隊（{name}）",
    "msa.npc": "GM",
    "msa.prompts": "この部隊への問いが{n}件、「問い」欄で答えを待っています。",
    "msa.none": "動かせる部隊がありません。",
  },
  en: {
    "msa.title": "Play a unit as GM",
    "msa.unit": "unit to play",
    "msa.current": "▶ the acting unit ({name})",
    "msa.npc": "GM",
    "msa.prompts": "{n} question(s) about this unit wait in the prompts panel.",
    "msa.none": "No unit left to play.",
  },
};

function sideName(ms, id) {
  const s = ms.sides?.[id];
  return s ? pick({ ja: s.name, en: s.en || s.name }) : id;
}

/** Every unit not routed, grouped by side; the acting one first while a battle step runs. */
function unitOptions(ctx, ms) {
  const live = Object.values(ms.units || {}).filter((u) => !u.routed);
  const who = (u) => (u.player ? ctx.state.meta?.players?.[u.player]?.name || u.player : t("msa.npc"));
  const opts = live.map((u) => ({ value: u.id, label: `${u.name} — ${who(u)}`, group: sideName(ms, u.side) }));
  const current = ms.current ? ms.units[ms.current] : null;
  return current ? [{ value: CURRENT, label: t("msa.current", { name: current.name }) }, ...opts] : opts;
}

function waitingPrompts(ctx, u) {
  const n = Object.values(ctx.state.prompts || {}).filter((p) => Object.values(p.about || {}).includes(u.id)).length;
  return n ? h("p.small.msa-prompts", t("msa.prompts", { n })) : null;
}

function render(ctx) {
  const ms = ctx.data;
  // A new step: the picker follows the acting unit again (or the first unit).
  if (freshStep(ctx, ms)) unset(ctx, "msa.unit");
  const options = unitOptions(ctx, ms);
  if (!options.length) return h("p.muted.small", t("msa.none"));
  const picker = select(ctx, "msa.unit", options, { dflt: CURRENT, label: t("msa.unit"), name: "unit", redraw: true });
  const chosen = val(ctx, "msa.unit");
  const u = ms.units[chosen === CURRENT ? ms.current : chosen];
  return h("div.msa",
    h("div.pl-row.msa-pick", asGMBadge(), " ", field(t("msa.unit"), picker, "wide")),
    u ? [unitCard(ctx, ms, u, { asGM: true }), waitingPrompts(ctx, u)] : null);
}

registerPanel({
  id: "mass_act",
  key: "mass",
  also: ["prompts", "meta"],
  order: 13,
  roles: ["gm"],
  title: () => t("msa.title"),
  strings: STRINGS,
  render,
});
