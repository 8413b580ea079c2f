// The player's seamless-combat controls (engine/grid, seed 001): one card per own
// character — statuses, counters, acted or not — with its main process: declare it
// (`grid.process.start`), the steps move → minor → major and what is left, an action at
// a timing (`grid.act`: actions, shaking off [麻痺]/[束縛]), the next step, the end; and
// asking the GM a check's range (`grid.check.ask`, GRID-RNG-3). Moving: click a green
// square on the map (the legal squares of the character in process, from the server).
// The GM panel (panels/grid.js) draws the same card for whoever it plays (issue 30).

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { phaseName } from "../phases.js";
import { GRID_STRINGS, actionSteps, isDown, placed, processChips, timingOf } from "../panels/grid_map.js";
import { actButton, feedback, field, input, select, send, val } from "./common.js";

const STRINGS = {
  ja: {
    "pg.title": "あなたのキャラクター（シームレス戦闘）",
    "pg.declare": "メインプロセス開始", "pg.step": "次のステップへ", "pg.end": "メインプロセス終了",
    "pg.act": "アクション", "pg.timing": "タイミング", "pg.what": "内容", "pg.name": "名前（任意）",
    "pg.what.action": "アクション", "pg.what.cure_paralysis": "[麻痺]を解除（ムーブ）",
    "pg.what.break_bind": "[束縛]を解除（メジャー）", "pg.what.magic_attack": "魔法攻撃（メジャー）",
    "pg.acted": "このラウンドは行動済み", "pg.waiting": "相手の番を待っています", "pg.in_process": "メインプロセス中 — 地図の緑のマスをクリックで移動",
    "pg.ask": "判定の射程をGMに聞く", "pg.check": "判定名", "pg.down": "行動できません",
  },
  en: {
    "pg.title": "Your characters (seamless combat)",
    "pg.declare": "Start main process", "pg.step": "Next step", "pg.end": "End main process",
    "pg.act": "Action", "pg.timing": "timing", "pg.what": "what", "pg.name": "name (optional)",
    "pg.what.action": "an action", "pg.what.cure_paralysis": "shake off paralysis (move)",
    "pg.what.break_bind": "break the bind (major)", "pg.what.magic_attack": "magic attack (major)",
    "pg.acted": "already acted this round", "pg.waiting": "waiting for your turn", "pg.in_process": "In main process — click a green square on the map to move",
    "pg.ask": "Ask the GM a check's range", "pg.check": "check", "pg.down": "cannot act",
  },
};

const WHATS = ["action", "cure_paralysis", "break_bind", "magic_attack"];
const mine = (ctx, c) => c.side === "pc" && (c.owner === ctx.player || c.movers.includes(ctx.player));

function counters(state, c) {
  const all = state.table?.counters || {};
  return Object.entries(c.counters || {}).filter(([, id]) => all[id])
    .map(([label, id]) => h("span.pg-counter", { dataset: { counter: id } }, `${label} ${all[id].value}`));
}

/** The control key of `c`'s card: its answers show under the card (and the map's moves too). */
export const cardKey = (c) => `pg.${c.id}`;

function processForm(ctx, c) {
  const p = ctx.data.process;
  const key = cardKey(c);
  // The timing picked is kept per step: once the process moves on, it is the new step's.
  const timingKey = `${c.id}.timing.${p.step}`;
  const timing = val(ctx, timingKey, timingOf(p));
  const doAct = (button) => send(ctx, key, { kind: "grid.act", combatant: c.id, timing: val(ctx, timingKey, timing),
    what: val(ctx, `${c.id}.what`, "action"), name: val(ctx, `${c.id}.name`, "") }, button);
  return h("div.pg-process",
    h("div.small", t("pg.in_process")), processChips(p),
    h("div.pl-row",
      field(t("pg.timing"), select(ctx, timingKey, actionSteps().map((s) => ({ value: s.id, label: phaseName("grid", s.id) })),
        { dflt: timing, label: t("pg.timing"), name: "timing" })),
      field(t("pg.what"), select(ctx, `${c.id}.what`, WHATS.map((w) => ({ value: w, label: t(`pg.what.${w}`) })),
        { dflt: "action", label: t("pg.what"), name: "what" })),
      field(t("pg.name"), input(ctx, `${c.id}.name`, { type: "text", name: "name", "aria-label": t("pg.name") }, "")),
      actButton(t("pg.act"), doAct, { dataset: { act: "grid.act" } })),
    h("div.pl-row",
      h("button", { type: "button", dataset: { act: "grid.step.end" },
        on: { click: (ev) => send(ctx, key, { kind: "grid.step.end", combatant: c.id }, ev.currentTarget) } }, t("pg.step")),
      h("button", { type: "button", dataset: { act: "grid.process.end" },
        on: { click: (ev) => send(ctx, key, { kind: "grid.process.end", combatant: c.id }, ev.currentTarget) } }, t("pg.end"))));
}

/** One character's card; `asGM`: drawn in the GM panel for whoever the GM plays (no
 * asking the GM a range, the side whose round it is rather than the players'). */
export function gridCard(ctx, c, { asGM = false } = {}) {
  const g = ctx.data;
  const key = cardKey(c);
  const inProcess = g.process?.combatant === c.id;
  const acted = (g.acted || []).includes(c.id);
  let body;
  if (isDown(c)) body = h("div.small.muted", t("pg.down"));
  else if (inProcess) body = processForm(ctx, c);
  else if (acted) body = h("div.small.muted", t("pg.acted"));
  else if (g.active && g.side === c.side && !g.process) {
    body = actButton(t("pg.declare"), (button) => send(ctx, key, { kind: "grid.process.start", combatant: c.id }, button),
                     { dataset: { act: "grid.process.start" } });
  } else body = g.active ? h("div.small.muted", t("pg.waiting")) : null;
  const ask = h("div.pl-row.pg-ask",
    field(t("pg.check"), input(ctx, `${c.id}.check`, { type: "text", name: "check", "aria-label": t("pg.check") }, "")),
    h("button.small", { type: "button", dataset: { act: "grid.check.ask" }, on: { click: (ev) => {
      const check = String(val(ctx, `${c.id}.check`, "")).trim();
      if (check) send(ctx, key, { kind: "grid.check.ask", combatant: c.id, check }, ev.currentTarget);
    } } }, t("pg.ask")));
  return h("li.pl-card.pg-card", { class: inProcess ? "active" : "", dataset: { combatant: c.id } },
    h("div.pl-row", h("b.pl-pc-name", c.name), h("span.muted.small", c.cell ? `(${c.cell.x}, ${c.cell.y})` : "—"),
      counters(ctx.state, c)),
    h("div.pg-statuses", Object.values(c.statuses || {}).map((s) => h("span.grid-status", { dataset: { kind: s.kind } },
      s.name || t(`grid.status.${s.kind}`)))),
    body, g.active && !asGM ? ask : null, feedback(ctx, key));
}

registerPanel({
  id: "player_grid",
  key: "grid",
  area: "side",
  order: 6,
  roles: ["player"],
  title: () => t("pg.title"),
  strings: { ja: { ...GRID_STRINGS.ja, ...STRINGS.ja }, en: { ...GRID_STRINGS.en, ...STRINGS.en } },
  render(ctx) {
    const own = placed(ctx.state).filter((c) => mine(ctx, c));
    if (!own.length) return null;
    return h("ul.plain.pg-cards", own.map((c) => gridCard(ctx, c)));
  },
});
