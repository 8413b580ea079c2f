// Seamless combat (engine/grid, seed 001, rules GRID-*): round and side, the open main
// process and what it has left (move/minor/major), the map with the legal squares of the
// character in process and range/area/sight/[独妙閃光] overlays on hover, the characters
// with their statuses and counters. The GM starts and ends the fight, plays any
// character's process — an enemy's or an absent player's PC — with the player page's own
// card (player/grid.js), marked 「GMとして」 (click a legal square to move), adds and
// removes statuses. Players see it read only, except that their own character in process
// moves by a click too.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { asGMBadge, feedback, send, setVal, val } from "../player/common.js";
import { cardKey, gridCard } from "../player/grid.js";
import { nameOf } from "../words.js";
import { phaseName } from "../phases.js";
import { GRID_STRINGS, ask, askNow, gridMap, hoverOverlay, isDown, placed, processChips, timingOf } from "./grid_map.js";
import { GRID_WORDS, describeGrid } from "./grid_words.js";

const K = "grid";
const STATUS_KINDS = ["poison", "paralysis", "bind", "flying", "incapacitated", "dead", "no_major_move", "effect"];
const DURATIONS = ["until_removed", "scene", "round", "cleanup"];
const OVERLAYS = ["legal", "range", "area", "scene", "sight", "flash"];

const STRINGS = {
  ja: {
    ...GRID_STRINGS.ja, ...GRID_WORDS.ja,
    "grid.title": "シームレス戦闘", "grid.round": "第{n}ラウンド · {side}",
    "grid.idle": "戦闘前（コマは自由に動かせます）", "grid.over.wiped": "終了: エネミー全滅",
    "grid.over.ended": "終了: シーン切り替え",
    "grid.start": "シームレス戦闘開始", "grid.surprise": "[不意打ち]（エネミーラウンドから）",
    "grid.end": "シーン終了", "grid.process": "メインプロセス: {name}", "grid.no_process": "メインプロセス中のキャラクターはいません",
    "grid.declare": "メインプロセス開始", "grid.next_step": "次のステップへ", "grid.end_process": "メインプロセス終了",
    "grid.act": "アクション", "grid.act.name": "名前（任意）", "grid.do": "実行",
    "grid.chars": "キャラクター", "grid.square": "マス", "grid.acted": "行動済み", "grid.statuses": "状態",
    "grid.add_status": "状態を付ける", "grid.kind": "種類", "grid.value": "値", "grid.duration": "持続",
    "grid.add": "付ける", "grid.remove": "解除", "grid.spots": "イベントスポット", "grid.events": "予告イベント",
    "grid.event.at": "第{r}ラウンド {side}", "grid.profile": "データ", "grid.publish": "公開", "grid.unpublish": "非公開に",
    "grid.any_seven": "エニーセブン", "grid.settings": "追加ルール",
  },
  en: {
    ...GRID_STRINGS.en, ...GRID_WORDS.en,
    "grid.title": "Seamless combat", "grid.round": "Round {n} · {side}",
    "grid.idle": "Before combat (pieces move freely)", "grid.over.wiped": "Over: every enemy is down",
    "grid.over.ended": "Over: the scene changed",
    "grid.start": "Start seamless combat", "grid.surprise": "[surprise] (enemy round first)",
    "grid.end": "End the scene", "grid.process": "Main process: {name}", "grid.no_process": "No main process is open",
    "grid.declare": "Start main process", "grid.next_step": "Next step", "grid.end_process": "End main process",
    "grid.act": "Action", "grid.act.name": "name (optional)", "grid.do": "Do",
    "grid.chars": "Characters", "grid.square": "square", "grid.acted": "acted", "grid.statuses": "statuses",
    "grid.add_status": "Add a status", "grid.kind": "kind", "grid.value": "value", "grid.duration": "duration",
    "grid.add": "Add", "grid.remove": "Remove", "grid.spots": "Event spots", "grid.events": "Announced events",
    "grid.event.at": "round {r}, {side}", "grid.profile": "data", "grid.publish": "Publish", "grid.unpublish": "Hide",
    "grid.any_seven": "any seven", "grid.settings": "Extra rules",
  },
};

const R = (path, rule, ja, en) => ({ path: [K, ...path], rule, ja, en });
const RULES = [
  R(["process"], "GRID-MV-1", "ムーブ1・マイナー1〜2・メジャー1〜2マス。各ステップは移動かアクションのどちらか",
    "move 1, minor 1–2, major 1–2 squares; each step is a move or an action"),
  R(["round"], "GRID-RND-2", "プレイヤーラウンド→エネミーラウンド。陣営全員がメインプロセスを終えると次へ",
    "player round → enemy round; a side's round ends when all of it has acted"),
  R(["combatants", "*", "statuses"], "GRID-DUR-2", "1ラウンド持続とクリンナップ消滅の効果は一巡で消える",
    "one-round and until-cleanup effects last one cycle"),
  R(["obstacles"], "GRID-MV-3", "障害物は通過できず、射程視界をさえぎる", "obstacles block movement and line of sight"),
];

function headline(ctx) {
  const g = ctx.data;
  if (g.active) return t("grid.round", { n: g.round, side: t(`grid.round.${g.side}`) });
  return g.outcome && g.outcome !== "none" ? t(`grid.over.${g.outcome}`) : t("grid.idle");
}

function mayMove(ctx, c) {
  if (ctx.isGM) return true;
  return !!ctx.player && c && c.side === "pc" && (c.owner === ctx.player || c.movers.includes(ctx.player));
}

function controls(ctx) {
  const g = ctx.data;
  if (!ctx.isGM) return null;
  if (!g.active) {
    return h("div.grid-controls",
      g.settings?.surprise ? h("label.small", h("input", { type: "checkbox", dataset: { keep: "grid.surprise" },
        checked: !!val(ctx, "surprise", false), on: { change: (ev) => setVal(ctx, "surprise", ev.target.checked) } }),
        " ", t("grid.surprise")) : null,
      h("button.primary", { type: "button", dataset: { act: "grid.start" },
        on: { click: (ev) => send(ctx, "grid.ctl", { kind: "grid.start", surprise: !!val(ctx, "surprise", false) }, ev.currentTarget) } },
      t("grid.start")), feedback(ctx, "grid.ctl"));
  }
  return h("div.grid-controls",
    h("button", { type: "button", dataset: { act: "grid.end" },
      on: { click: (ev) => send(ctx, "grid.ctl", { kind: "grid.end" }, ev.currentTarget) } }, t("grid.end")),
    feedback(ctx, "grid.ctl"));
}

/** The GM plays the character in process with the player's card, marked as the GM's. */
function gmProcess(ctx, c) {
  const owner = c.side === "pc" && c.owner ? nameOf(ctx.state, c.owner) : null;
  return h("div.grid-process.grid-as-gm", { dataset: { combatant: c.id, step: ctx.data.process.step, asGm: "1" } },
    h("div.grid-as-gm-head", h("b", t("grid.process", { name: c.name })), " ", asGMBadge(owner)),
    h("ul.plain.pg-cards", gridCard(ctx, c, { asGM: true })));
}

/** The open process: whose, its steps, and the buttons (GM, or the owning player). */
function processBox(ctx, chars) {
  const g = ctx.data;
  const p = g.process;
  if (!g.active) return null;
  if (!p) return h("div.grid-process.muted.small", t("grid.no_process"));
  const c = chars.find((x) => x.id === p.combatant);
  if (ctx.isGM && c) return gmProcess(ctx, c);
  const can = mayMove(ctx, c);
  const key = cardKey({ id: p.combatant });
  const act = (kind, extra = {}) => (ev) => send(ctx, key, { kind, combatant: p.combatant, ...extra }, ev.currentTarget);
  const timing = timingOf(p);
  return h("div.grid-process", { dataset: { combatant: p.combatant, step: p.step } },
    h("b", t("grid.process", { name: c?.name || p.combatant })), " ", processChips(p),
    can ? h("div.grid-process-buttons",
      h("button", { type: "button", dataset: { act: "grid.step.end" }, on: { click: act("grid.step.end") } }, t("grid.next_step")),
      h("button", { type: "button", dataset: { act: "grid.process.end" }, on: { click: act("grid.process.end") } }, t("grid.end_process")),
      h("input.grid-act-name", { type: "text", placeholder: t("grid.act.name"), dataset: { keep: "grid.act.name" },
        value: val(ctx, "act.name", ""), on: { input: (ev) => setVal(ctx, "act.name", ev.target.value) } }),
      h("button", { type: "button", dataset: { act: "grid.act" },
        on: { click: (ev) => send(ctx, key, { kind: "grid.act", combatant: p.combatant, timing,
                                              name: val(ctx, "act.name", "") }, ev.currentTarget) } },
      `${t("grid.act")} (${phaseName("grid", timing)})`)) : null,
    feedback(ctx, key));
}

function overlayBar(ctx) {
  const mode = val(ctx, "overlay", "legal");
  return h("div.grid-overlay-bar",
    h("label.small", t("grid.overlay"), " ", h("select", { dataset: { keep: "grid.overlay" }, name: "overlay",
      on: { change: (ev) => { setVal(ctx, "overlay", ev.target.value); ctx.refresh(); } } },
    OVERLAYS.map((o) => h("option", { value: o, selected: o === mode }, t(`grid.ov.${o}`))))),
    mode === "range" ? [
      h("input.grid-range", { type: "number", min: 0, max: 20, step: 1, name: "range", dataset: { keep: "grid.range" },
        value: String(val(ctx, "range", 1)), on: { input: (ev) => setVal(ctx, "range", Number(ev.target.value) || 0) } }),
      h("label.small", h("input", { type: "checkbox", name: "non_attack", checked: !!val(ctx, "nonAttack", false),
        on: { change: (ev) => setVal(ctx, "nonAttack", ev.target.checked) } }), " ", t("grid.ov.non_attack")),
    ] : null,
    h("span.muted.small", t("grid.legend")));
}

function legalSquares(ctx, state) {
  const p = state.grid.process;
  if (!p || val(ctx, "overlay", "legal") !== "legal") return [];
  const c = placed(state).find((x) => x.id === p.combatant);
  if (!mayMove(ctx, c)) return [];
  const reply = ask(ctx, `legal.${p.combatant}@${ctx.app.store.version}`, { kind: "grid.legal", combatant: p.combatant });
  return reply?.type === "query.result" ? reply.result.squares : [];
}

/** Whether the board lets `c` be dragged: the character in process, or any piece before combat. */
function movable(ctx, c) {
  const g = ctx.data;
  if (!mayMove(ctx, c) || isDown(c)) return false;
  return g.active ? c.id === g.process?.combatant : true;
}

/** Where a held piece may go: the engine's legal squares (grid.legal), or anywhere before combat. */
async function reach(ctx, c) {
  const g = ctx.data;
  if (!g.active) return null;
  const cached = ctx.ui.answers?.[`legal.${c.id}@${ctx.app.store.version}`];
  if (cached?.type === "query.result") return cached.result.squares;
  return (await askNow(ctx, { kind: "grid.legal", combatant: c.id }))?.squares || [];
}

/** The move the server judges: grid.move in combat (spends steps), table.move before it. */
function moveTo(ctx, c, to) {
  const action = ctx.data.active ? { kind: "grid.move", combatant: c.id, to } : { kind: "table.move", piece: c.piece, to };
  return ctx.act(action, { quiet: true });
}

function map(ctx) {
  const state = ctx.state;
  const p = ctx.data.process;
  const legal = legalSquares(ctx, state);
  const selected = val(ctx, "selected", p?.combatant);
  const board = gridMap(ctx, state, {
    selected, legal,
    movable: (c) => movable(ctx, c),
    reach: (c) => reach(ctx, c),
    move: (c, to) => moveTo(ctx, c, to),
    onPiece: (c) => { setVal(ctx, "selected", c.id); ctx.refresh(); },
    onSquare: (x, y) => {
      if (!p || !legal.some((s) => s.cell.x === x && s.cell.y === y)) return;
      send(ctx, cardKey({ id: p.combatant }), { kind: "grid.move", combatant: p.combatant, to: { x, y } }, null);
    },
    onHover: (x, y, overlay) => {
      const mode = val(ctx, "overlay", "legal");
      if (mode === "legal") return;
      hoverOverlay(ctx, mode, val(ctx, "selected", p?.combatant), x, y, overlay,
                   { range: val(ctx, "range", 1), nonAttack: !!val(ctx, "nonAttack", false) });
    },
  });
  return h("div.grid-map-wrap", { dataset: { selected: selected || "" } }, board);
}

function statusChip(ctx, c, s) {
  const label = s.name || t(`grid.status.${s.kind}`);
  return h("span.grid-status", { dataset: { status: s.id, kind: s.kind } },
    label, s.value ? ` ${s.value}` : "", s.duration !== "until_removed" ? h("small", ` ${t(`grid.dur.${s.duration}`)}`) : null,
    ctx.isGM ? h("button.link.small", { type: "button", title: t("grid.remove"), dataset: { remove: s.id },
      on: { click: (ev) => send(ctx, `chars.${c.id}`, { kind: "grid.status.remove", combatant: c.id, status: s.id }, ev.currentTarget) } },
    "×") : null);
}

function counters(state, c) {
  const all = state.table?.counters || {};
  return Object.entries(c.counters || {}).map(([label, id]) => (all[id] ? `${label} ${all[id].value}` : null)).filter(Boolean).join(" · ");
}

function charRow(ctx, c) {
  const g = ctx.data;
  const canDeclare = g.active && !g.process && c.side === g.side && !g.acted.includes(c.id) && !isDown(c) && c.cell;
  return h("tr", { class: [c.hidden ? "hidden-item" : "", isDown(c) ? "down" : "", c.id === g.process?.combatant ? "active" : ""].join(" "),
                   dataset: { combatant: c.id, side: c.side } },
    h("td", h("span.grid-dot", { style: { background: `var(--side-${c.side}, #888)` } }), " ", c.name,
      c.hidden ? [" ", ctx.gmBadge(c.id)] : null),
    h("td.small", t(`grid.side.${c.side}`)),
    h("td.small", c.cell ? `(${c.cell.x}, ${c.cell.y})` : "—"),
    h("td.small", counters(ctx.state, c)),
    h("td", Object.values(c.statuses || {}).map((s) => statusChip(ctx, c, s))),
    h("td.small", g.acted?.includes(c.id) ? t("grid.acted") : ""),
    h("td", canDeclare && (ctx.isGM || mayMove(ctx, c)) ? h("button.small", { type: "button", dataset: { declare: c.id },
      on: { click: (ev) => send(ctx, `chars.${c.id}`, { kind: "grid.process.start", combatant: c.id }, ev.currentTarget) } },
    t("grid.declare")) : null,
    c.profile && Object.keys(c.profile).length ? h("div.small.muted", t("grid.profile"), ": ",
      Object.entries(c.profile).map(([k, v]) => `${k} ${v}`).join(" / "),
      ctx.isGM && c.side === "enemy" ? [" ", h("button.link.small", { type: "button", dataset: { publish: c.id },
        on: { click: (ev) => send(ctx, `chars.${c.id}`, { kind: "grid.publish", combatant: c.id, published: !c.published }, ev.currentTarget) } },
      c.published ? t("grid.unpublish") : t("grid.publish")), c.published ? null : [" ", ctx.gmBadge(`${c.id}.profile`)]] : null) : null,
    Object.keys(c.any_seven || {}).length ? h("div.small.muted", t("grid.any_seven"), ": ",
      Object.entries(c.any_seven).map(([k, v]) => `${k} 7+${v}`).join(" / ")) : null,
    feedback(ctx, `chars.${c.id}`)));
}

function statusForm(ctx, chars) {
  if (!ctx.isGM || !chars.length) return null;
  const pickSel = (key, options, dflt, label) => h("select", { name: key, "aria-label": label, dataset: { keep: `grid.${key}` },
    on: { change: (ev) => setVal(ctx, key, ev.target.value) } },
  options.map(([v, text]) => h("option", { value: v, selected: v === val(ctx, key, dflt) }, text)));
  const submit = (ev) => {
    const value = Number.parseInt(val(ctx, "st.value", ""), 10);
    const action = { kind: "grid.status.add", combatant: val(ctx, "st.who", chars[0].id), status: val(ctx, "st.kind", "poison"),
                     duration: val(ctx, "st.duration", "until_removed"), name: val(ctx, "st.name", "") };
    if (Number.isFinite(value)) action.value = value;
    send(ctx, "grid.status", action, ev.currentTarget);
  };
  return h("section.sub.grid-status-form", h("h4", t("grid.add_status")),
    h("div.grid-form-row",
      pickSel("st.who", chars.map((c) => [c.id, c.name]), chars[0].id, t("grid.chars")),
      pickSel("st.kind", STATUS_KINDS.map((k) => [k, t(`grid.status.${k}`)]), "poison", t("grid.kind")),
      h("input", { type: "text", name: "st.name", placeholder: t("grid.act.name"), value: val(ctx, "st.name", ""),
        dataset: { keep: "grid.st.name" }, on: { input: (ev) => setVal(ctx, "st.name", ev.target.value) } }),
      h("input.grid-range", { type: "number", name: "st.value", min: 0, placeholder: t("grid.value"), value: val(ctx, "st.value", ""),
        dataset: { keep: "grid.st.value" }, on: { input: (ev) => setVal(ctx, "st.value", ev.target.value) } }),
      pickSel("st.duration", DURATIONS.map((d) => [d, t(`grid.dur.${d}`)]), "until_removed", t("grid.duration")),
      h("button.primary", { type: "button", dataset: { act: "grid.status.add" }, on: { click: submit } }, t("grid.add"))),
    feedback(ctx, "grid.status"));
}

function notes(ctx) {
  const g = ctx.data;
  const spots = Object.values(g.spots || {});
  const events = Object.values(g.events || {});
  const extras = Object.entries(g.settings || {}).filter(([k, v]) => v === true && k !== "drop_spans_steps"
    && k !== "diagonal_past_corners" && k !== "neutral_blocks").map(([k]) => k);
  return h("div.grid-notes.small",
    spots.length ? h("div", h("b", t("grid.spots")), ": ", spots.map((s) => h("span.grid-note", { dataset: { spot: s.id } },
      `${s.ja}${s.en ? ` / ${s.en}` : ""} (${s.cell.x}, ${s.cell.y})`, s.hidden ? [" ", ctx.gmBadge(s.id)] : null))) : null,
    events.length ? h("div", h("b", t("grid.events")), ": ", events.map((e) => h("span.grid-note", { class: e.done ? "muted" : "", dataset: { event: e.id } },
      `${t("grid.event.at", { r: e.round, side: t(`grid.round.${e.side}`) })}: ${e.ja}`, e.announced ? null : [" ", ctx.gmBadge(e.id)]))) : null,
    extras.length ? h("div", h("b", t("grid.settings")), ": ", extras.join(", ")) : null);
}

function render(ctx) {
  const chars = placed(ctx.state);
  return h("div.grid-panel", { dataset: { active: String(!!ctx.data.active), side: ctx.data.side || "" } },
    h("div.grid-head", h("b", headline(ctx)), controls(ctx)),
    processBox(ctx, chars),
    overlayBar(ctx),
    map(ctx),
    notes(ctx),
    h("section.sub", h("h4", t("grid.chars")), h("table.grid-table.grid-chars", h("tbody", chars.map((c) => charRow(ctx, c))))),
    statusForm(ctx, chars));
}

registerPanel({
  id: "grid",
  key: K,
  order: 30,
  title: () => t("grid.title"),
  headline,
  describe: describeGrid,
  strings: STRINGS,
  rules: RULES,
  secret: (path, state) => {
    if (path[0] !== K || path.length < 3) return false;
    const item = state?.[K]?.[path[1]]?.[path[2]];
    if (!item) return false;
    if (path[1] === "combatants") return item.hidden === true || (path[3] === "profile" && !item.published);
    if (path[1] === "events") return item.announced === false;
    return path[1] === "spots" && item.hidden === true;
  },
  render,
});
