// The seamless-combat map (engine/grid, seed 001), drawn for the GM panel and the player
// page: squares, obstacles, the off-map area, event spots, the characters (by side, with
// their statuses), and overlays. Geometry is never computed here: ranges, areas, sight
// and legal squares come from the server's `query` answers (engine/grid/queries.py), so
// what the screen shows is exactly what the engine will accept.

import { h, clear } from "../dom.js";
import { t } from "../i18n.js";
import { phaseName, phaseSpec, phases } from "../phases.js";
import { cellAt, makeBoard, pieceLabels } from "../board.js";

export const S = 28; // map units per square

export const SIDE_COLORS = { pc: "#1f5fbf", enemy: "#c4320a", neutral: "#6b7785" };
export const STATUS_SHORT = {
  poison: "毒", paralysis: "麻", bind: "束", flying: "飛", incapacitated: "倒", dead: "死",
  no_major_move: "止", hindered: "妨", effect: "効",
};

/** The combatants with their piece, square and name (those on the board). */
export function placed(state) {
  const g = state.grid || {};
  const pieces = state.table?.pieces || {};
  return Object.values(g.combatants || {}).map((c) => {
    const piece = pieces[c.piece];
    return { ...c, name: piece?.name || c.id, owner: piece?.owner ?? null,
             movers: piece?.movers || [], cell: piece?.cell ?? null };
  });
}

export const isDown = (c) => Object.values(c.statuses || {}).some((s) => s.kind === "incapacitated" || s.kind === "dead");

/**
 * Send a query and keep its answer in `ctx.ui.answers[key]`; the panel is drawn again
 * when it arrives. Asked once per key (the key carries the room version where the
 * answer depends on the state).
 */
export function ask(ctx, key, query) {
  const answers = (ctx.ui.answers ||= {});
  if (key in answers) return answers[key];
  answers[key] = null;
  request(ctx, query).then((reply) => {
    answers[key] = reply;
    ctx.refresh();
  });
  return null;
}

/** A query, asked again (a few times, after the wait it names) while the room says it is busy. */
async function request(ctx, query) {
  let reply = null;
  for (let i = 0; i < 4; i++) {
    reply = await ctx.app.conn.request({ type: "query", query });
    if (reply.type !== "error" || reply.code !== "busy") break;
    await new Promise((ok) => setTimeout(ok, 1000 * (reply.details?.retry_after ?? 0.1) + 10));
  }
  return reply;
}

/** Ask for a query whose answer goes straight to `draw` (hover overlays: no re-render). */
export async function askNow(ctx, query) {
  const reply = await request(ctx, query);
  return reply.type === "query.result" ? reply.result : null;
}

function square(cls, x, y, extra = {}) {
  return h(`rect.${cls}`, { x: x * S, y: y * S, width: S, height: S, ...extra });
}

/**
 * The map (a board: board.js). `opts`: selected (combatant id), legal ({cell:{x,y},cost,steps}[]
 * highlighted, clickable), onSquare(x, y) (click on a square, nothing held), onPiece(c) (click
 * on a character), onHover(x, y, overlay) (the pointer entered a square; `overlay` is the
 * <g> to draw into), movable(c), reach(c) and move(c, to) (drag, click-click, keys: board.js).
 */
export function gridMap(ctx, state, opts = {}) {
  const g = state.grid;
  const { width, height } = state.table?.grid || { width: 10, height: 10 };
  const svg = h("svg.grid-map", { viewBox: `0 0 ${width * S} ${height * S}`, role: "img",
                                  "aria-label": t("grid.map") });
  const cells = h("g.grid-cells");
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      cells.appendChild(square("grid-cell", x, y, { dataset: { x, y, boardCell: "" } }));
    }
  }
  svg.appendChild(cells);
  if (g.off_map) {
    const a = g.off_map;
    svg.appendChild(h("rect.grid-offmap", { x: a.cell.x * S, y: a.cell.y * S, width: a.width * S, height: a.height * S },
      h("title", t("grid.off_map"))));
  }
  for (const o of g.obstacles || []) svg.appendChild(square("grid-obstacle", o.x, o.y, { dataset: { obstacle: `${o.x},${o.y}` } }));
  const legal = h("g.grid-legal");
  for (const { cell: { x, y }, cost } of opts.legal || []) {
    legal.appendChild(h("g.grid-legal-sq", { dataset: { x, y, cost } },
      square("grid-legal-cell", x, y),
      h("text.grid-cost", { x: x * S + S - 4, y: y * S + 10, "text-anchor": "end" }, String(cost))));
  }
  svg.appendChild(legal);
  for (const s of Object.values(g.spots || {})) {
    const cx = s.cell.x * S + S / 2;
    const cy = s.cell.y * S + S / 2;
    svg.appendChild(h("polygon", { class: `grid-spot${s.hidden ? " hidden-item" : ""}`, dataset: { spot: s.id },
      points: `${cx},${cy - 11} ${cx + 11},${cy} ${cx},${cy + 11} ${cx - 11},${cy}` }, h("title", `${s.ja} / ${s.en}`)));
  }
  const active = g.process?.combatant;
  const shown = placed(state).filter((c) => c.cell);
  const labels = pieceLabels(shown);
  const pieces = [];
  const layer = h("g.grid-pieces");
  for (const c of shown) {
    const mine = !!ctx.player && (c.owner === ctx.player || c.movers.includes(ctx.player));
    const cls = ["grid-piece", `side-${c.side}`, isDown(c) ? "down" : "", c.id === active ? "active" : "",
      c.id === opts.selected ? "selected" : "", mine ? "mine" : "", c.hidden ? "hidden-item" : ""].filter(Boolean).join(" ");
    const marks = Object.values(c.statuses || {}).map((s) => STATUS_SHORT[s.kind] || "?").join("");
    const label = labels.get(c.id);
    const el = h("g", { class: cls, dataset: { combatant: c.id, label },
                        transform: `translate(${c.cell.x * S + S / 2},${c.cell.y * S + S / 2})` },
      h("circle", { r: S / 2 - 3, style: { fill: SIDE_COLORS[c.side] || "#888" } }),
      h("text", { y: 4, "text-anchor": "middle", class: label.length > 2 ? "long" : null }, label),
      marks ? h("text.grid-marks", { y: S / 2 - 1, "text-anchor": "middle" }, marks) : null,
      h("title", `${c.name}${marks ? ` [${marks}]` : ""}`));
    layer.appendChild(el);
    pieces.push({ id: c.id, x: c.cell.x, y: c.cell.y, name: c.name, el, movable: !!opts.movable?.(c), c });
  }
  svg.appendChild(layer);
  const overlay = h("g.grid-overlay");
  svg.appendChild(overlay);
  const byId = new Map(pieces.map((p) => [p.id, p.c]));
  const ui = (ctx.ui.board ||= {});
  const wrap = makeBoard(svg, {
    unit: S, width, height, ui, pieces, key: "grid", refresh: ctx.refresh,
    reach: (id) => (opts.reach ? opts.reach(byId.get(id)) : null),
    move: (id, to) => opts.move(byId.get(id), to),
    onSquare: opts.onSquare, onPiece: (id) => opts.onPiece?.(byId.get(id)),
  });
  let last = "";
  svg.addEventListener("pointermove", (ev) => {
    const at = cellAt(svg, ev.clientX, ev.clientY, S, width, height);
    const key = at ? `${at.x},${at.y}` : "";
    if (key === last || !opts.onHover) return;
    last = key;
    if (at) opts.onHover(at.x, at.y, overlay);
  });
  svg.addEventListener("pointerleave", () => { last = ""; clear(overlay); });
  return wrap;
}

/** Draw squares (and an optional sight line) into the overlay group. */
export function drawOverlay(overlay, kind, squares, line = null) {
  clear(overlay);
  overlay.dataset.kind = kind;
  for (const { x, y } of squares || []) overlay.appendChild(square(`grid-ov.ov-${kind}`, x, y, { dataset: { x, y } }));
  if (line) {
    overlay.appendChild(h("line", { class: `grid-sight ${line.clear ? "clear" : "blocked"}`,
      x1: line.from.x * S + S / 2, y1: line.from.y * S + S / 2, x2: line.to.x * S + S / 2, y2: line.to.y * S + S / 2 }));
  }
}

/**
 * Overlay on hover (range N / 範囲 / シーン / sight / [独妙閃光]) from the selected character:
 * the server answers each question; nothing is guessed here.
 */
export async function hoverOverlay(ctx, mode, origin, x, y, overlay, { range = 1, nonAttack = false } = {}) {
  const from = origin ? { combatant: origin } : { from: { x, y } };
  let result = null;
  if (mode === "range") result = await askNow(ctx, { kind: "grid.range", ...from, range, non_attack: nonAttack });
  else if (mode === "area" || mode === "scene") result = await askNow(ctx, { kind: "grid.area", origin: { x, y }, area: mode });
  else if (mode === "flash") result = await askNow(ctx, { kind: "grid.flash", ...from });
  else if (mode === "sight" && origin) {
    result = await askNow(ctx, { kind: "grid.sight", combatant: origin, to: { x, y } });
    if (result) drawOverlay(overlay, "sight", [{ x, y }], result);
    return result;
  }
  if (result) drawOverlay(overlay, mode, result.squares);
  return result;
}

export const GRID_STRINGS = {
  ja: {
    "grid.map": "シームレス戦闘マップ", "grid.off_map": "移動不能エリア（死亡したPC）",
    "grid.side.pc": "PC", "grid.side.enemy": "エネミー", "grid.side.neutral": "中立",
    "grid.round.pc": "プレイヤーラウンド", "grid.round.enemy": "エネミーラウンド",
    "grid.spent.move": "移動", "grid.spent.action": "アクション", "grid.spent.skip": "なし",
    "grid.left": "残り{n}マス",
    "grid.status.poison": "[毒]", "grid.status.paralysis": "[麻痺]", "grid.status.bind": "[束縛]",
    "grid.status.flying": "[飛行状態]", "grid.status.incapacitated": "[戦闘不能状態]",
    "grid.status.dead": "[死亡状態]", "grid.status.no_major_move": "メジャー移動不可",
    "grid.status.hindered": "[移動妨害]", "grid.status.effect": "効果",
    "grid.dur.until_removed": "解除まで", "grid.dur.scene": "シーン", "grid.dur.round": "1ラウンド",
    "grid.dur.cleanup": "クリンナップまで",
    "grid.overlay": "表示", "grid.ov.legal": "移動できるマス", "grid.ov.range": "射程",
    "grid.ov.area": "範囲（3×3）", "grid.ov.scene": "シーン（5×5）", "grid.ov.sight": "射程視界",
    "grid.ov.flash": "[独妙閃光]", "grid.ov.non_attack": "非攻撃スキル（+1）",
    "grid.legend": "緑: 移動できるマス（数字は消費マス）。駒をクリックで選択、マスにマウスを重ねると表示。",
  },
  en: {
    "grid.map": "Seamless combat map", "grid.off_map": "off-map area (dead PCs)",
    "grid.side.pc": "PC", "grid.side.enemy": "enemy", "grid.side.neutral": "neutral",
    "grid.round.pc": "player round", "grid.round.enemy": "enemy round",
    "grid.spent.move": "moved", "grid.spent.action": "action", "grid.spent.skip": "unused",
    "grid.left": "{n} left",
    "grid.status.poison": "poison", "grid.status.paralysis": "paralysis", "grid.status.bind": "bind",
    "grid.status.flying": "flying", "grid.status.incapacitated": "incapacitated",
    "grid.status.dead": "dead", "grid.status.no_major_move": "no move in the major",
    "grid.status.hindered": "hindered", "grid.status.effect": "effect",
    "grid.dur.until_removed": "until removed", "grid.dur.scene": "scene", "grid.dur.round": "one round",
    "grid.dur.cleanup": "until cleanup",
    "grid.overlay": "show", "grid.ov.legal": "legal squares", "grid.ov.range": "range",
    "grid.ov.area": "area (3×3)", "grid.ov.scene": "scene (5×5)", "grid.ov.sight": "line of sight",
    "grid.ov.flash": "[独妙閃光]", "grid.ov.non_attack": "non-attack skill (+1)",
    "grid.legend": "Green: legal squares (the number is the cost). Click a piece to select it; hover a square to see.",
  },
};

/** The steps an action may be spent in (GRID-MV-1), from the table the server sent. */
export const actionSteps = () => phases("grid").filter((s) => s.spends?.includes("action"));

/** The timing an action now spends: the current step, or after flying's step the major's. */
export const timingOf = (p) => (phaseSpec("grid", p.step)?.spends?.includes("action") ? p.step : "major");

/** The open process as chips: each step of the table the server sent (a conditional one,
 * flying's after-major move, only while it is the current step), how it was spent, what
 * is left of the current one. */
export function processChips(p) {
  if (!p) return null;
  const steps = phases("grid").filter((s) => !s.when || s.id === p.step).map((s) => s.id);
  const idx = steps.indexOf(p.step);
  return h("span.grid-steps", steps.map((s, i) => {
    const spent = p.spent?.[s];
    const cls = i < idx || (spent && s !== p.step) ? "done" : s === p.step ? "current" : "todo";
    const note = s === p.step && spent !== "action" && spent !== "skip"
      ? t("grid.left", { n: p.left }) : spent ? t(`grid.spent.${spent}`) : "";
    return h(`span.grid-step.${cls}`, { dataset: { step: s, spent: spent || "" } },
      phaseName("grid", s), note ? h("small", ` ${note}`) : null);
  }));
}
