// The player's base battle controls (docs/bases.md): as their character, trigger the
// events with an 【能動誘発】 block (`bases.trigger`, including 宣言(timing)) and report what
// happened to the character (`bases.report`: incapacitated, damage taken, timing
// abandoned…). Choices the effects ask of the players (BASE-CHOICE) arrive as prompts.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { actButton, feedback, field, input, select, send, val } from "./common.js";

const HAPPENINGS = ["character.incapacitated", "character.damaged", "timing.abandoned",
  "character.recovered", "character.entered", "character.left", "mana.spent"];
const WITH_AMOUNT = new Set(["character.damaged", "mana.spent"]);

const STRINGS = {
  ja: {
    "pb.title": "あなたの行動（拠点戦闘）",
    "pb.character": "キャラクター",
    "pb.status.on_field": "戦闘空間上", "pb.status.incapacitated": "戦闘不能", "pb.status.off_field": "戦闘空間外",
    "pb.triggers": "能動誘発",
    "pb.triggers.none": "能動誘発のイベントはありません。",
    "pb.do": "行う: {action}", "pb.declare": "宣言（{timing}）",
    "pb.who": "誘発できる人: {who}",
    "pb.who.ally": "味方", "pb.who.foe": "敵", "pb.who.pc": "PC陣営", "pb.who.enemy": "エネミー陣営", "pb.who.any": "誰でも",
    "pb.fired": "発動 {n}/{max}", "pb.used_up": "発動回数を使い切りました",
    "pb.needs_gm": "GMの判断が必要な条件があります",
    "pb.report": "起きたことを報告",
    "pb.happening": "出来事", "pb.amount": "量", "pb.timing": "タイミング", "pb.send_report": "報告する",
    "pb.h.character.incapacitated": "戦闘不能になった", "pb.h.character.damaged": "ダメージを受けた",
    "pb.h.timing.abandoned": "発動タイミングを放棄した", "pb.h.character.recovered": "戦闘不能から回復した",
    "pb.h.character.entered": "戦闘空間に登場した", "pb.h.character.left": "戦闘空間から離脱した",
    "pb.h.mana.spent": "マナを消費した",
  },
  en: {
    "pb.title": "Your actions (base battle)",
    "pb.character": "character",
    "pb.status.on_field": "on the field", "pb.status.incapacitated": "incapacitated", "pb.status.off_field": "off the field",
    "pb.triggers": "Active triggers",
    "pb.triggers.none": "No event has an active trigger.",
    "pb.do": "Do: {action}", "pb.declare": "Declare ({timing})",
    "pb.who": "who may trigger: {who}",
    "pb.who.ally": "allies", "pb.who.foe": "foes", "pb.who.pc": "PC side", "pb.who.enemy": "enemy side", "pb.who.any": "anyone",
    "pb.fired": "fired {n}/{max}", "pb.used_up": "no activations left",
    "pb.needs_gm": "part of the condition is the GM's call",
    "pb.report": "Report what happened",
    "pb.happening": "happening", "pb.amount": "amount", "pb.timing": "timing", "pb.send_report": "Report",
    "pb.h.character.incapacitated": "was incapacitated", "pb.h.character.damaged": "took damage",
    "pb.h.timing.abandoned": "abandoned a timing", "pb.h.character.recovered": "recovered",
    "pb.h.character.entered": "entered the field", "pb.h.character.left": "left the field",
    "pb.h.mana.spent": "spent mana",
  },
};

/** The characters the player may act for (docs/bases.md "Who reports"): those the roster
 * binds to them, or an unbound PC named as they are; every PC with `players_report: any`.
 * The player's own name first. */
function characters(ctx, bs) {
  if (ctx.isGM) return Object.keys(bs.characters || {}); // the GM acts for anyone (panels/bases_act.js)
  const mine = ctx.state.meta?.players?.[ctx.player]?.name;
  const theirs = ([n, c]) => (c.player ? c.player === ctx.player : n === mine || n === ctx.player);
  const roster = Object.entries(bs.characters || {})
    .filter(([n, c]) => c.side !== "enemy" && (bs.players_report === "any" || theirs([n, c])))
    .map(([n]) => n);
  return mine && roster.includes(mine) ? [mine, ...roster.filter((n) => n !== mine)] : roster;
}

/** Who acts: the character's player when the roster binds one (the GM console's card). */
export function playerOf(ctx, bs) {
  const c = bs.characters?.[current(ctx, bs)];
  return c?.player ? ctx.state.meta?.players?.[c.player]?.name || c.player : null;
}

/** The character the player acts as (kept; the player's own roster name by default). */
function current(ctx, bs) {
  const mine = ctx.state.meta?.players?.[ctx.player]?.name || "";
  return String(val(ctx, "character", characters(ctx, bs)[0] ?? mine)).trim();
}

function characterField(ctx, bs) {
  const names = characters(ctx, bs);
  const mine = ctx.state.meta?.players?.[ctx.player]?.name || "";
  const control = names.length
    ? select(ctx, "character", names.map((n) => ({ value: n, label: n })), { label: t("pb.character"), name: "character", redraw: true })
    : input(ctx, "character", { type: "text", maxlength: 100, name: "character", "aria-label": t("pb.character") }, mine);
  const status = bs.characters?.[current(ctx, bs)]?.status;
  return h("div.pl-row.pl-character", field(t("pb.character"), control),
    status ? h("span", { class: `badge pl-status status-${status}` }, t(`pb.status.${status}`)) : null);
}

/** Events of the visible bases that have at least one 【能動誘発】 block. */
function activeEvents(bs) {
  const out = [];
  for (const base of Object.values(bs.bases || {})) {
    for (const ev of base.events || []) {
      const blocks = (ev.conditions || []).filter((b) => b.active);
      if (blocks.length) out.push({ base, ev, blocks });
    }
  }
  return out;
}

function triggerItem(ctx, bs, { base, ev, blocks }) {
  const key = `trigger.${ev.id}`;
  const usedUp = ev.count !== null && ev.count !== undefined && (ev.fired ?? 0) >= ev.count;
  const buttons = blocks.map((b, i) => {
    const spec = b.active;
    const action = spec.timing ? { action: "宣言", timing: spec.timing } : { action: spec.action };
    const text = spec.timing ? t("pb.declare", { timing: spec.timing }) : t("pb.do", { action: spec.action });
    return actButton(text, (button) => send(ctx, key, {
      kind: "bases.trigger", event: ev.id, character: current(ctx, bs), ...action,
    }, button), { dataset: { trigger: ev.id, block: i }, disabled: usedUp });
  });
  const who = blocks.map((b) => b.active.character || (b.active.who ? t(`pb.who.${b.active.who}`) : null)).filter(Boolean);
  return h("li.pl-trigger", { dataset: { event: ev.id } },
    h("div", h("b", ev.name || ev.id), " ", h("span.muted.small", `— ${base.name}`), " ",
      h("span.badge", usedUp ? t("pb.used_up") : t("pb.fired", { n: ev.fired ?? 0, max: ev.count ?? "∞" }))),
    ev.effect ? h("div.small", ev.effect) : null,
    h("div.small.muted", blocks.map((b) => b.text).join(" / "),
      who.length ? ` · ${t("pb.who", { who: who.join("・") })}` : "",
      blocks.some((b) => b.manual) ? ` · ${t("pb.needs_gm")}` : ""),
    h("div.pl-buttons", buttons),
    feedback(ctx, key));
}

function reportForm(ctx, bs) {
  const key = "report";
  const kind = val(ctx, `${key}.kind`, HAPPENINGS[0]);
  const go = (button) => {
    const action = { kind: "bases.report", happening: val(ctx, `${key}.kind`, HAPPENINGS[0]) };
    const who = current(ctx, bs);
    if (who) action.character = who;
    if (WITH_AMOUNT.has(action.happening)) {
      const n = Number.parseInt(val(ctx, `${key}.amount`, ""), 10);
      if (Number.isFinite(n)) action.amount = n;
    }
    if (action.happening === "timing.abandoned" && String(val(ctx, `${key}.timing`, "")).trim()) {
      action.timing = String(val(ctx, `${key}.timing`)).trim();
    }
    return send(ctx, key, action, button);
  };
  return h("section.pl-form.pl-report", { dataset: { control: key } },
    h("div.pl-form-title", t("pb.report")),
    h("div.pl-row",
      field(t("pb.happening"), select(ctx, `${key}.kind`, HAPPENINGS.map((k) => ({ value: k, label: t(`pb.h.${k}`) })),
        { label: t("pb.happening"), redraw: true, name: "happening" }), "grow"),
      WITH_AMOUNT.has(kind) ? field(t("pb.amount"), input(ctx, `${key}.amount`, {
        type: "number", step: 1, min: 0, inputmode: "numeric", name: "amount", "aria-label": t("pb.amount") })) : null,
      kind === "timing.abandoned" ? field(t("pb.timing"), input(ctx, `${key}.timing`, {
        type: "text", maxlength: 100, name: "timing", "aria-label": t("pb.timing") })) : null),
    h("div.pl-row", actButton(t("pb.send_report"), go, { dataset: { act: "report" } })),
    feedback(ctx, key));
}

/** The character picker, its 【能動誘発】 triggers and the report form (the player's page;
 * the GM's console draws the same for any character: panels/bases_act.js). */
export function baseControls(ctx, bs) {
  const events = activeEvents(bs);
  return [
    characterField(ctx, bs),
    h("section.pl-form.pl-triggers", h("div.pl-form-title", t("pb.triggers")),
      events.length ? h("ul.plain", events.map((e) => triggerItem(ctx, bs, e))) : h("p.muted.small", t("pb.triggers.none"))),
    reportForm(ctx, bs),
  ];
}

registerPanel({
  id: "player_bases",
  key: "bases",
  area: "side",
  order: 6,
  roles: ["player"],
  title: () => t("pb.title"),
  strings: STRINGS,
  render: (ctx) => h("div.pl-bases", ...baseControls(ctx, ctx.data)),
});
