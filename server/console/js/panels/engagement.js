// Engagement (engine/engagement, seed 004, rules ENG-*): the turn (setup → initiative/main
// → cleanup), the relation graph (dashed: ends with this setup), who may still melee at
// the setup, the handover questions waiting, the attack being resolved and the
// characters with their rows and counters. The GM runs the turn, declares for NPCs
// (approach, melee, shot, defence), answers NPCs' handovers, pastes a waited-for roll,
// moves rows and cancels an attack. 「GMとして」 the GM plays any character — an NPC or an
// absent player's PC — with the player page's own card (player/engagement.js). Players see
// it read only (their controls are in player/engagement.js).

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { nextPhase, phaseName } from "../phases.js";
import { asGMBadge, feedback, field, input, select, send, val } from "../player/common.js";
import { engagementCard } from "../player/engagement.js";
import { nameOf as playerName } from "../words.js";
import { ENG_WORDS, describeEngagement } from "./engagement_words.js";
import {
  ENG_STRINGS, ROLL_MODES, characters, counterText, exchangeBox, graph, headline, nameOf, partners,
  rollFields, setupList,
} from "./engagement_view.js";

const K = "engagement";
const STRINGS = {
  ja: {
    ...ENG_STRINGS.ja, ...ENG_WORDS.ja, "eng.as_gm": "GMとして操作", "eng.as_gm.who": "操作するキャラクター",
    "eng.title": "近接と接近状態", "eng.start": "戦闘開始", "eng.next": "次へ: {phase}", "eng.end": "戦闘終了",
    "eng.cancel": "攻撃の処理を取り消す", "eng.declare": "宣言（GM）", "eng.who": "誰が", "eng.action": "行動",
    "eng.target": "対象", "eng.dp": "DP", "eng.grazes": "グレイズ", "eng.check": "判定値", "eng.dice": "ダイス数",
    "eng.power": "威力", "eng.roll": "ダイス", "eng.roll.engine": "komasyncで振る", "eng.roll.paste": "BCDiceの結果を貼る",
    "eng.roll.vtt": "VTTのチャットで振る", "eng.line": "BCDiceの結果（1行）", "eng.send": "宣言",
    "eng.defend": "防御（GM）", "eng.defender": "防御する", "eng.kind": "防御", "eng.report": "結果を送る",
    "eng.chars": "キャラクター", "eng.row": "列", "eng.partners": "接近中", "eng.used_turn": "このターン",
    "eng.used.guard": "ガード", "eng.used.cover": "カバー", "eng.used.guard_other": "他人へのガード",
    "eng.to_front": "前衛へ", "eng.to_back": "後衛へ", "eng.data": "データ",
  },
  en: {
    ...ENG_STRINGS.en, ...ENG_WORDS.en, "eng.as_gm": "Play as GM", "eng.as_gm.who": "character to play",
    "eng.title": "Engagement", "eng.start": "Start the battle", "eng.next": "Next: {phase}", "eng.end": "End the battle",
    "eng.cancel": "Cancel the attack", "eng.declare": "Declare (GM)", "eng.who": "who", "eng.action": "action",
    "eng.target": "target", "eng.dp": "DP", "eng.grazes": "grazes", "eng.check": "check value", "eng.dice": "dice",
    "eng.power": "power", "eng.roll": "dice", "eng.roll.engine": "roll with komasync", "eng.roll.paste": "paste a BCDice result",
    "eng.roll.vtt": "roll in the VTT chat", "eng.line": "BCDice result (one line)", "eng.send": "Declare",
    "eng.defend": "Defence (GM)", "eng.defender": "defender", "eng.kind": "defence", "eng.report": "Send the result",
    "eng.chars": "Characters", "eng.row": "row", "eng.partners": "engaged with", "eng.used_turn": "this turn",
    "eng.used.guard": "guard", "eng.used.cover": "cover", "eng.used.guard_other": "guard for another",
    "eng.to_front": "to front", "eng.to_back": "to back", "eng.data": "data",
  },
};
const R = (path, rule, ja, en) => ({ path: [K, ...path], rule, ja, en });
const RULES = [
  R(["pairs"], "ENG-1", "接近状態は二人の間に成立し、常に相互。一人が複数と接近状態になれる",
    "engagement is between two characters, always mutual; one may have several"),
  R(["pairs", "*"], "ENG-EF-3", "次のターンのセットアップ終了時に解消。前衛・後衛の移動では解消しない",
    "ends at the end of the next turn's setup; moving between rows does not end it"),
  R(["used", "*", "setup_melee"], "ENG-EF-2", "セットアップの近接攻撃は1回まで", "one melee per setup"),
  R(["offers"], "ENG-HAND-1", "接近状態が発生するたび、味方の離脱を問う", "each new engagement asks allies whether they leave"),
];

/** Roll-mode select and the pasted line for control `key`; returns [nodes, fields()]. */
function rollInputs(ctx, key) {
  const mode = val(ctx, `${key}.roll`, "engine");
  const nodes = [
    field(t("eng.roll"), select(ctx, `${key}.roll`, ROLL_MODES.map((m) => ({ value: m, label: t(`eng.roll.${m}`) })),
      { dflt: "engine", label: t("eng.roll"), name: "roll", redraw: true })),
    mode === "paste" ? field(t("eng.line"), input(ctx, `${key}.line`, { type: "text", name: "line", "aria-label": t("eng.line") }, ""), "wide") : null,
  ];
  return [nodes, (melee = false) => rollFields(val(ctx, `${key}.roll`, "engine"), String(val(ctx, `${key}.line`, "")).trim(), melee)];
}

function controls(ctx) {
  const e = ctx.data;
  if (!ctx.isGM) return null;
  const go = (action) => (ev) => send(ctx, "eng.ctl", action, ev.currentTarget);
  if (!e.active) {
    return h("div.eng-controls", h("button.primary", { type: "button", dataset: { act: "engagement.start" },
      on: { click: go({ kind: "engagement.start" }) } }, t("eng.start")), feedback(ctx, "eng.ctl"));
  }
  const next = nextPhase(K, e.phase);
  return h("div.eng-controls",
    h("button.primary", { type: "button", dataset: { act: "engagement.phase" },
      on: { click: go({ kind: "engagement.phase", to: next }) } }, t("eng.next", { phase: phaseName(K, next) })),
    e.exchange || e.hidden_exchange ? h("button", { type: "button", dataset: { act: "engagement.cancel" },
      on: { click: go({ kind: "engagement.cancel" }) } }, t("eng.cancel")) : null,
    h("button", { type: "button", dataset: { act: "engagement.end" }, on: { click: go({ kind: "engagement.end" }) } }, t("eng.end")),
    feedback(ctx, "eng.ctl"));
}

/** GM: answer the open attack for anyone (NPC defences, covers), or paste a waited-for roll. */
function gmDefence(ctx, chars) {
  const x = ctx.data.exchange || ctx.data.hidden_exchange; // the scene's first, then a hidden one
  if (!ctx.isGM || !x) return null;
  const what = x.awaiting?.what; // the server says what the attack waits for
  if (["attack_check", "defence_check", "damage"].includes(what) && x.check) {
    const key = "eng.roll";
    return h("div.eng-form", h("div.pl-row",
      field(t("eng.line"), input(ctx, `${key}.line`, { type: "text", name: "line", "aria-label": t("eng.line") }, ""), "wide"),
      h("button.primary", { type: "button", dataset: { act: "engagement.roll" }, on: { click: (ev) => send(ctx, key, {
        kind: "engagement.roll", combatant: x.check.who, exchange: x.id, result: String(val(ctx, `${key}.line`, "")).trim() }, ev.currentTarget) } },
      t("eng.report"))), feedback(ctx, key));
  }
  if (what !== "defence" && what !== "cover") return null;
  const key = "eng.def";
  const [rollNodes, rollOf] = rollInputs(ctx, key);
  const submit = (ev) => {
    const kind = val(ctx, `${key}.kind`, "none");
    const extra = kind === "none" ? {} : rollOf() || {};
    send(ctx, key, { kind: "engagement.defend", exchange: x.id, combatant: val(ctx, `${key}.who`, x.target), defence: kind,
                     dp: Number(val(ctx, `${key}.dp`, 0)) || 0, ...extra }, ev.currentTarget);
  };
  return h("div.eng-form", h("h4", t("eng.defend")), h("div.pl-row",
    field(t("eng.defender"), select(ctx, `${key}.who`, chars.map((c) => ({ value: c.id, label: c.name })),
      { dflt: x.target, label: t("eng.defender"), name: "defender" })),
    field(t("eng.kind"), select(ctx, `${key}.kind`, ["evade", "guard", "cover", "none"].map((k) => ({ value: k, label: t(`eng.def.${k}`) })),
      { dflt: "none", label: t("eng.kind"), name: "defence" })),
    field(t("eng.dp"), input(ctx, `${key}.dp`, { type: "number", min: 0, max: 100, name: "dp", "aria-label": t("eng.dp") }, 0)),
    rollNodes,
    h("button.primary", { type: "button", dataset: { act: "engagement.defend" }, on: { click: submit } }, t("eng.send"))),
  feedback(ctx, key));
}

/** GM: declare an approach, a melee or a shot for anyone. */
function gmDeclare(ctx, chars) {
  const e = ctx.data;
  if (!ctx.isGM || !e.active || e.exchange || !chars.length) return null;
  const key = "eng.decl";
  const who = val(ctx, `${key}.who`, chars.find((c) => c.side === "enemy")?.id || chars[0].id);
  const action = val(ctx, `${key}.action`, "approach");
  const targets = action === "melee" ? partners(e, who) : chars.filter((c) => c.id !== who).map((c) => c.id);
  const [rollNodes, rollOf] = rollInputs(ctx, key);
  const num = (k, dflt) => Number(val(ctx, `${key}.${k}`, dflt)) || 0;
  const submit = (ev) => {
    const roll = rollOf(action === "melee");
    const base = { combatant: who, target: val(ctx, `${key}.target`, targets[0]), ...(roll || {}) };
    const body = action === "approach" ? { kind: "engagement.approach", dp: num("dp", 3) }
      : action === "melee" ? { kind: "engagement.melee", dp: Number(val(ctx, `${key}.mdp`, "3")), grazes: num("grazes", 0) }
        : { kind: "engagement.shot", attack: action, check: num("check", 0), dice: num("dice", 2), dp: num("dp", 0), power: num("power", 0) };
    send(ctx, key, { ...body, ...base }, ev.currentTarget);
  };
  const numField = (k, label, dflt) => field(label, input(ctx, `${key}.${k}`, { type: "number", min: 0, max: 1000, name: k, "aria-label": label }, dflt));
  return h("section.sub.eng-form", h("h4", t("eng.declare")), h("div.pl-row",
    field(t("eng.who"), select(ctx, `${key}.who`, chars.map((c) => ({ value: c.id, label: c.name })), { dflt: who, label: t("eng.who"), name: "who", redraw: true })),
    field(t("eng.action"), select(ctx, `${key}.action`, ["approach", "melee", "shot", "homing"].map((a) => ({ value: a, label: t(`eng.attack.${a}`) })),
      { dflt: "approach", label: t("eng.action"), name: "action", redraw: true })),
    field(t("eng.target"), select(ctx, `${key}.target`, targets.map((id) => ({ value: id, label: nameOf(ctx.state, id) })),
      { label: t("eng.target"), name: "target" })),
    action === "melee" ? [field(t("eng.dp"), select(ctx, `${key}.mdp`, ["1", "3", "6"].map((d) => ({ value: d, label: d })), { dflt: "3", label: t("eng.dp"), name: "dp" })),
      numField("grazes", t("eng.grazes"), 0)] : numField("dp", t("eng.dp"), action === "approach" ? 3 : 0),
    ["shot", "homing"].includes(action) ? [numField("check", t("eng.check"), 0), numField("dice", t("eng.dice"), 2), numField("power", t("eng.power"), 0)] : null,
    rollNodes,
    h("button.primary", { type: "button", dataset: { act: "engagement.declare" }, on: { click: submit } }, t("eng.send"))),
  feedback(ctx, key));
}

/** Whom the open attack waits for (its target, a defender, a roller), else nobody. */
function awaited(e) {
  const x = e.exchange || e.hidden_exchange;
  const w = x?.awaiting;
  return w ? (w.decides || w.who?.[0] || null) : null;
}

/** GM: play any character with the player's card, marked as the GM's (issue 30); the
 * choice follows whom the open attack waits for until the GM picks someone. */
function asGM(ctx, chars) {
  const e = ctx.data;
  if (!ctx.isGM || !e.active || !chars.length) return null;
  const key = "eng.as";
  const wanted = awaited(e);
  const who = val(ctx, `${key}.who.${wanted || ""}`, wanted || chars[0].id);
  const c = chars.find((x) => x.id === who) || chars[0];
  const owner = c.side === "pc" && c.owner ? playerName(ctx.state, c.owner) : null;
  return h("section.sub.eng-as-gm", { dataset: { asGm: c.id } },
    h("h4", t("eng.as_gm"), " ", asGMBadge(owner)),
    field(t("eng.as_gm.who"), select(ctx, `${key}.who.${wanted || ""}`, chars.map((x) => ({ value: x.id, label: x.name })),
      { dflt: c.id, label: t("eng.as_gm.who"), name: "as_gm", redraw: true })),
    h("ul.plain.pe-cards", engagementCard(ctx, c, chars)));
}

function offers(ctx) {
  const e = ctx.data;
  const list = Object.values(e.offers || {});
  if (!list.length) return null;
  return h("section.sub.eng-offers", h("h4", t("eng.offers")), h("ul.plain", list.map((o) => {
    const prompt = ctx.state.prompts?.[o.prompt];
    const answer = (choice) => (ev) => send(ctx, `eng.offer.${o.prompt}`, { kind: "answer", prompt: o.prompt, choice }, ev.currentTarget);
    return h("li.eng-offer", { dataset: { offer: o.prompt, leaver: o.leaver } },
      t("eng.offer", { c: nameOf(ctx.state, o.leaver), p: nameOf(ctx.state, o.partner) }), " ",
      prompt ? h("span.muted.small", t("eng.asked", { to: prompt.to })) : null,
      ctx.isGM && prompt ? h("span.eng-answer", " ",
        h("button.small", { type: "button", dataset: { choice: "leave" }, on: { click: answer("leave") } }, t("eng.leave")), " ",
        h("button.small", { type: "button", dataset: { choice: "stay" }, on: { click: answer("stay") } }, t("eng.stay"))) : null,
      o.hidden ? [" ", ctx.gmBadge(o.prompt)] : null,
      feedback(ctx, `eng.offer.${o.prompt}`));
  })));
}

function usedText(e, id) {
  const u = e.used?.[id];
  if (!u || !e.active) return "";
  return ["guard", "cover", "guard_other"].filter((k) => u[k] === e.turn).map((k) => t(`eng.used.${k}`)).join("・");
}

function charRow(ctx, c) {
  const e = ctx.data;
  const row = c.row || "front";
  const other = row === "front" ? "back" : "front";
  const key = `eng.row.${c.id}`;
  return h("tr", { class: c.hidden ? "hidden-item" : "", dataset: { combatant: c.id, side: c.side, row } },
    h("td", h("span.grid-dot", { style: { background: `var(--side-${c.side}, #888)` } }), " ", c.name, c.hidden ? [" ", ctx.gmBadge(c.id)] : null),
    h("td.small", t(`eng.side.${c.side}`)),
    h("td.small", t(`eng.row.${c.row || "none"}`), ctx.isGM ? [" ", h("button.link.small", { type: "button", dataset: { row: other },
      on: { click: (ev) => send(ctx, key, { kind: "engagement.row", combatant: c.id, row: other }, ev.currentTarget) } },
    t(`eng.to_${other}`))] : null),
    h("td.small", counterText(ctx.state, c)),
    h("td.small.eng-partners", partners(e, c.id).map((id) => nameOf(ctx.state, id)).join("・")),
    h("td.small", usedText(e, c.id)),
    h("td.small.muted", Object.keys(c.profile || {}).length ? Object.entries(c.profile).map(([k, v]) => `${k}${v}`).join(" ") : "",
      ctx.isGM && Object.keys(c.profile || {}).length && !c.published ? [" ", ctx.gmBadge(`${c.id}.profile`)] : null,
      feedback(ctx, key)));
}

function render(ctx) {
  const e = ctx.data;
  const chars = characters(ctx.state);
  const pairs = Object.keys(e.pairs || {}).length;
  return h("div.eng-panel", { dataset: { active: String(!!e.active), phase: e.phase || "", turn: String(e.turn || 0) } },
    h("div.eng-head", h("b", headline(e)), controls(ctx)),
    exchangeBox(ctx.state, ctx.isGM), gmDefence(ctx, chars),
    h("section.sub", h("h4", t("eng.graph")), graph(ctx.state), pairs ? null : h("div.small.muted", t("eng.none_engaged"))),
    asGM(ctx, chars), setupList(ctx.state), offers(ctx), gmDeclare(ctx, chars),
    h("section.sub", h("h4", t("eng.chars")), h("table.grid-table.eng-chars",
      h("thead", h("tr", [t("eng.chars"), "", t("eng.row"), "", t("eng.partners"), t("eng.used_turn"), t("eng.data")].map((x) => h("th", x)))),
      h("tbody", chars.map((c) => charRow(ctx, c))))));
}

registerPanel({
  id: "engagement",
  key: K,
  order: 32,
  title: () => t("eng.title"),
  headline: (ctx) => headline(ctx.data),
  describe: describeEngagement,
  strings: STRINGS,
  rules: RULES,
  secret: (path, state) => {
    if (path[0] !== K || path.length < 3) return false;
    const item = state?.[K]?.[path[1]]?.[path[2]];
    if (!item) return path[1] === "exchange" && path[2] === "goal";
    if (path[1] === "combatants") return item.hidden === true || (path[3] === "profile" && !item.published);
    return item.hidden === true;
  },
  render,
});


