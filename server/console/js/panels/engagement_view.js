// Engagement (engine/engagement, seed 004) drawn for the GM panel and the player page:
// the characters, the relation graph, who may still melee at the setup, the handover
// questions and the attack being resolved. Nothing here decides a rule: the server
// refuses what is not allowed, with the rule ID and the reason.

import { h } from "../dom.js";
import { t } from "../i18n.js";
import { phaseName } from "../phases.js";

export const ENG_STRINGS = {
  ja: {
    "eng.turn": "ターン{n} · {phase}", "eng.idle": "戦闘前",
    "eng.side.pc": "PC", "eng.side.enemy": "エネミー", "eng.side.neutral": "中立",
    "eng.row.front": "前衛", "eng.row.back": "後衛", "eng.row.none": "—",
    "eng.how.approach": "接近", "eng.how.cover": "カバー", "eng.how.guard": "ガード", "eng.how.ability": "能力",
    "eng.attack.approach": "接近", "eng.attack.melee": "近接攻撃", "eng.attack.shot": "ショット", "eng.attack.homing": "ホーミング",
    "eng.def.evade": "回避", "eng.def.guard": "ガード", "eng.def.cover": "カバー", "eng.def.none": "受ける（防御しない）",
    "eng.await.attack_check": "判定待ち", "eng.await.defence": "防御待ち", "eng.await.cover": "カバー待ち",
    "eng.await.defence_check": "防御判定待ち", "eng.await.damage": "ダメージ待ち", "eng.await.from": "（{names}）",
    "eng.graph": "接近状態", "eng.none_engaged": "接近状態のキャラクターはいません",
    "eng.expires": "このセットアップの終了で解消", "eng.setup_melee": "セットアップの近接攻撃",
    "eng.may_melee": "{name} → {targets}", "eng.used": "{name}（使用済み）", "eng.nobody": "いません",
    "eng.offers": "受け渡し（離脱の問い）", "eng.offer": "「{c}」は「{p}」との接近状態から離脱できます",
    "eng.asked": "回答: {to}", "eng.leave": "離脱する", "eng.stay": "離脱しない",
    "eng.exchange": "処理中の攻撃", "eng.achieved": "達成値 {n}", "eng.goal": "目標値 {n}",
    "eng.waiting_for": "{name}の{what}（{dice}D{sides}{base}）の結果待ち", "eng.what.damage": "ダメージ",
    "eng.what.check": "判定", "eng.victim": "命中: {name}",
  },
  en: {
    "eng.turn": "Turn {n} · {phase}", "eng.idle": "Before the battle",
    "eng.side.pc": "PC", "eng.side.enemy": "enemy", "eng.side.neutral": "neutral",
    "eng.row.front": "front", "eng.row.back": "back", "eng.row.none": "—",
    "eng.how.approach": "approach", "eng.how.cover": "cover", "eng.how.guard": "guard", "eng.how.ability": "ability",
    "eng.attack.approach": "approach", "eng.attack.melee": "melee", "eng.attack.shot": "shot", "eng.attack.homing": "homing",
    "eng.def.evade": "evade", "eng.def.guard": "guard", "eng.def.cover": "cover", "eng.def.none": "take it (no defence)",
    "eng.await.attack_check": "waiting for the check", "eng.await.defence": "waiting for the defence", "eng.await.cover": "a cover may come",
    "eng.await.defence_check": "waiting for the defence check", "eng.await.damage": "waiting for the damage", "eng.await.from": " ({names})",
    "eng.graph": "Engagement", "eng.none_engaged": "Nobody is engaged",
    "eng.expires": "ends with this setup", "eng.setup_melee": "Setup melee",
    "eng.may_melee": "{name} → {targets}", "eng.used": "{name} (used)", "eng.nobody": "nobody",
    "eng.offers": "Handovers (leave?)", "eng.offer": "{c} may leave its engagement with {p}",
    "eng.asked": "answered by: {to}", "eng.leave": "leave", "eng.stay": "stay",
    "eng.exchange": "Attack being resolved", "eng.achieved": "achievement {n}", "eng.goal": "target number {n}",
    "eng.waiting_for": "waiting for {name}'s {what} ({dice}D{sides}{base})", "eng.what.damage": "damage",
    "eng.what.check": "check", "eng.victim": "hit: {name}",
  },
};

const COLORS = { pc: "#1f5fbf", enemy: "#c4320a", neutral: "#6b7785" };
const EDGE = { approach: "#e65100", cover: "#2e7d32", guard: "#6a1b9a", ability: "#455a64" };

/** The characters with their piece's name and owner, in the state's order. */
export function characters(state) {
  const e = state.engagement || {};
  const pieces = state.table?.pieces || {};
  return Object.values(e.combatants || {}).map((c) => {
    const piece = pieces[c.piece];
    return { ...c, name: piece?.name || c.id, owner: piece?.owner ?? null, movers: piece?.movers || [] };
  });
}

export const nameOf = (state, id) => {
  const c = state.engagement?.combatants?.[id];
  return state.table?.pieces?.[c?.piece]?.name || id;
};

export function partners(e, id) {
  return Object.values(e.pairs || {}).filter((p) => p.a === id || p.b === id).map((p) => (p.a === id ? p.b : p.a));
}

/** ENG-EF-2: at a setup, the partners a character may still melee (none once used). */
export function setupTargets(e, id) {
  if (!e.active || e.phase !== "setup" || e.used?.[id]?.setup_melee === e.turn) return [];
  const earlierOnly = (e.settings?.setup_targets || "earlier") === "earlier";
  return Object.values(e.pairs || {}).filter((p) => (p.a === id || p.b === id) && (!earlierOnly || p.turn < e.turn))
    .map((p) => (p.a === id ? p.b : p.a));
}

export function headline(e) {
  if (!e.active) return t("eng.idle");
  return t("eng.turn", { n: e.turn, phase: phaseName("engagement", e.phase) });
}

/** The relation graph: PCs left, enemies right, the front rows facing each other. */
export function graph(state) {
  const e = state.engagement || {};
  const chars = characters(state);
  const col = { pc: { front: 230, back: 90 }, enemy: { front: 410, back: 550 }, neutral: { front: 320, back: 320 } };
  const count = {};
  const at = {};
  for (const c of chars) {
    const x = col[c.side]?.[c.row || "front"] ?? 320;
    count[x] = (count[x] || 0) + 1;
    at[c.id] = { x, y: 64 + (count[x] - 1) * 56 };
  }
  const height = Math.max(90, ...Object.values(at).map((p) => p.y + 36));
  const edges = Object.entries(e.pairs || {}).filter(([, p]) => at[p.a] && at[p.b]).map(([key, p]) => {
    const [a, b] = [at[p.a], at[p.b]];
    const old = e.active && p.turn < e.turn;
    // a pair that spans more than the gap between the front rows bends over the nodes between
    const bend = Math.abs(a.x - b.x) > 200 ? 14 + Math.abs(a.x - b.x) / 20 : 0;
    const [mx, my] = [(a.x + b.x) / 2, (a.y + b.y) / 2 - bend];
    return h("g.eng-edge", { dataset: { pair: key, how: p.how, expiring: String(old) } },
      h("path", { d: `M ${a.x} ${a.y} Q ${mx} ${my - bend} ${b.x} ${b.y}`, fill: "none", stroke: EDGE[p.how] || "#555",
                  "stroke-width": 3, "stroke-dasharray": old ? "6 4" : null }),
      h("text.eng-edge-label", { x: mx, y: my - 4, "text-anchor": "middle" },
        `${t(`eng.how.${p.how}`)}${p.note ? ` ${p.note}` : ""} T${p.turn}`),
      h("title", old ? t("eng.expires") : `${t(`eng.how.${p.how}`)} · T${p.turn}`));
  });
  const nodes = chars.map((c) => h("g.eng-node", { dataset: { combatant: c.id, side: c.side, row: c.row || "" },
                                                   transform: `translate(${at[c.id].x},${at[c.id].y})` },
    h("circle", { r: 15, fill: COLORS[c.side] || "#888" }),
    h("text.eng-node-label", { y: 29, "text-anchor": "middle" }, c.name),
    h("text.eng-node-row", { y: 4, "text-anchor": "middle" }, c.row === "back" ? "後" : "前")));
  return h("svg.eng-graph", { viewBox: `0 0 640 ${height}`, role: "img", "aria-label": t("eng.graph") }, edges, nodes);
}

/** ENG-EF-2 who may still melee at this setup, and against whom. */
export function setupList(state) {
  const e = state.engagement || {};
  if (!e.active || e.phase !== "setup") return null;
  const rows = characters(state).filter((c) => partners(e, c.id).length).map((c) => {
    const targets = setupTargets(e, c.id);
    const used = e.used?.[c.id]?.setup_melee === e.turn;
    return h("li", { dataset: { combatant: c.id, used: String(used) } }, used ? t("eng.used", { name: c.name })
      : t("eng.may_melee", { name: c.name, targets: targets.map((id) => nameOf(state, id)).join("・") || t("eng.nobody") }));
  });
  return h("section.sub.eng-setup", h("h4", t("eng.setup_melee")),
    rows.length ? h("ul.plain", rows) : h("div.small.muted", t("eng.nobody")));
}

/** The open attack: who on whom, what it waits for and from whom (the server's
 * `awaiting`), the totals, and the dice of a result it waits for. */
export function exchangeBox(state, isGM) {
  const x = state.engagement?.exchange || (isGM ? state.engagement?.hidden_exchange : null);
  if (!x) return null;
  const w = x.awaiting;
  const c = x.check;
  const from = w && w.who.length ? t("eng.await.from", { names: w.who.map((id) => nameOf(state, id)).join("・") }) : "";
  return h("div.eng-exchange", { dataset: { attack: x.attack, stage: x.stage, awaiting: w?.what || "", attacker: x.attacker, target: x.target } },
    h("b", `${nameOf(state, x.attacker)} → ${nameOf(state, x.target)} ${t(`eng.attack.${x.attack}`)}`), " ",
    w ? h("span.eng-stage", { dataset: { who: w.who.join(" "), decides: w.decides || "" } }, t(`eng.await.${w.what}`), from) : null,
    x.attack_total !== null && x.attack_total !== undefined ? h("span.small", ` · ${t("eng.achieved", { n: x.attack_total })}`) : null,
    isGM && x.goal !== null && x.goal !== undefined ? h("span.small", ` · ${t("eng.goal", { n: x.goal })}`) : null,
    x.defence ? h("span.small", ` · ${nameOf(state, x.defence.by)} ${t(`eng.def.${x.defence.kind}`)}`) : null,
    x.victim ? h("span.small", ` · ${t("eng.victim", { name: nameOf(state, x.victim) })}`) : null,
    c && (c.total === null || c.total === undefined) ? h("div.small.eng-waiting", { dataset: { who: c.who } },
      t("eng.waiting_for", { name: nameOf(state, c.who), what: t(c.purpose === "damage" ? "eng.what.damage" : "eng.what.check"),
                             dice: c.dice, sides: c.sides, base: c.base >= 0 ? `+${c.base}` : String(c.base) })) : null);
}

/** Counters of a character as `DP 16 · HP 30`. */
export function counterText(state, c) {
  const all = state.table?.counters || {};
  return Object.entries(c.counters || {}).filter(([, id]) => all[id]).map(([label, id]) => `${label} ${all[id].value}`).join(" · ");
}

/** A select of "how the check is rolled": komasync, a pasted BCDice line, or the VTT chat. */
export const ROLL_MODES = ["engine", "paste", "vtt"];

/** The roll fields of an action from the chosen mode (`line` the pasted result); in the
 * VTT mode a melee's damage is rolled there too (`melee`). */
export function rollFields(mode, line, melee = false) {
  if (mode === "paste") return line ? { result: line } : null;
  if (mode === "vtt") return melee ? { report_check: true, report_damage: true } : { report_check: true };
  return {};
}
