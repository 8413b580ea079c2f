// The player's generic table controls (engine/table.py): move their own pieces (and the
// ones the GM allowed them, TABLE-MV-1) by typing the square or clicking it on the grid
// (`table.move`), and change the counters they own (`table.counter.add` / `.set`,
// TABLE-CT-1). Hidden when the player owns nothing on the table.

import { h } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { makeBoard, nameIn, pieceLabels } from "../board.js";
import { actButton, feedback, field, follow, input, send, setVal, val } from "./common.js";

const CELL = 24;
const MAX_CELLS = 2500; // larger grids: type the square

const STRINGS = {
  ja: {
    "pt.title": "あなたの駒とカウンター",
    "pt.pieces": "自分の駒", "pt.counters": "自分のカウンター",
    "pt.selected": "選択中: {name}（マスをクリックで移動）",
    "pt.select": "選ぶ", "pt.move": "移動", "pt.set": "設定", "pt.value": "値",
    "pt.grid": "盤面（マスをクリック）",
  },
  en: {
    "pt.title": "Your pieces and counters",
    "pt.pieces": "Your pieces", "pt.counters": "Your counters",
    "pt.selected": "Selected: {name} (click a square to move it)",
    "pt.select": "Select", "pt.move": "Move", "pt.set": "Set", "pt.value": "value",
    "pt.grid": "Board (click a square)",
  },
};

const mine = (ctx, p) => p.owner === ctx.player || (p.movers || []).includes(ctx.player);

/** Send the move; the square fields keep the target until the piece has moved. */
function move(ctx, piece, to, button) {
  setVal(ctx, `${piece.id}.x`, String(to.x));
  setVal(ctx, `${piece.id}.y`, String(to.y));
  setVal(ctx, `${piece.id}.base`, JSON.stringify(piece.cell ?? null));
  return send(ctx, `piece.${piece.id}`, { kind: "table.move", piece: piece.id, to }, button);
}

function pieceRow(ctx, piece, selected) {
  const key = `piece.${piece.id}`;
  const typed = follow(ctx, piece.id, piece.cell, [`${piece.id}.x`, `${piece.id}.y`]);
  const go = (button) => move(ctx, piece, {
    x: Number.parseInt(val(ctx, `${piece.id}.x`, piece.cell?.x ?? 0), 10) || 0,
    y: Number.parseInt(val(ctx, `${piece.id}.y`, piece.cell?.y ?? 0), 10) || 0,
  }, button);
  const num = (axis) => input(ctx, `${piece.id}.${axis}`, { type: "number", step: 1, min: 0, inputmode: "numeric",
    name: axis, "aria-label": `${piece.name} ${axis}`, class: "pl-coord" }, String(piece.cell?.[axis] ?? 0), typed);
  return h("li.pl-piece", { class: selected ? "selected" : "", dataset: { piece: piece.id } },
    h("div.pl-row",
      h("button.pl-select", { type: "button", "aria-pressed": selected ? "true" : "false",
        on: { click: () => { setVal(ctx, "selected", piece.id); ctx.refresh(); } } }, piece.name),
      h("span.muted.small", piece.cell ? `(${piece.cell.x}, ${piece.cell.y})` : "—"),
      field("x", num("x")), field("y", num("y")),
      actButton(t("pt.move"), go, { dataset: { act: "move" } })),
    feedback(ctx, key));
}

function grid(ctx, tbl, selected) {
  const { width, height } = tbl.grid;
  if (width * height > MAX_CELLS) return null;
  const svg = h("svg.pl-grid", { viewBox: `0 0 ${width * CELL} ${height * CELL}`, role: "img", "aria-label": t("pt.grid") });
  const cells = h("g.pl-cells");
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      cells.appendChild(h("rect.pl-cell", { x: x * CELL, y: y * CELL, width: CELL, height: CELL, dataset: { x, y, boardCell: "" } }));
    }
  }
  svg.appendChild(cells);
  for (const m of Object.values(tbl.markers || {})) {
    svg.appendChild(h("rect.pl-marker", { x: m.cell.x * CELL, y: m.cell.y * CELL, width: m.width * CELL,
                                          height: m.height * CELL }, h("title", m.text)));
  }
  const shown = Object.values(tbl.pieces || {}).filter((p) => p.cell);
  const labels = pieceLabels(shown.map((p) => ({ id: p.id, name: nameIn(p.name || p.id) })));
  const pieces = shown.map((p) => {
    const r = (p.size * CELL) / 2;
    const el = h("g", { class: `pl-token${mine(ctx, p) ? " mine" : ""}${p.id === selected ? " selected" : ""}`,
                        dataset: { id: p.id, label: labels.get(p.id) }, transform: `translate(${p.cell.x * CELL + r},${p.cell.y * CELL + r})` },
      h("circle", { r: r - 2 }), h("text", { y: 4, "text-anchor": "middle", class: labels.get(p.id).length > 2 ? "long" : null }, labels.get(p.id)),
      h("title", p.name));
    svg.appendChild(el);
    return { id: p.id, x: p.cell.x, y: p.cell.y, name: p.name || p.id, el, movable: mine(ctx, p), size: p.size };
  });
  const board = makeBoard(svg, {
    unit: CELL, width, height, ui: (ctx.ui.board ||= {}), pieces, key: "player_table", refresh: ctx.refresh,
    reach: () => null, // the table lets a piece go anywhere on the grid (TABLE-MV-2): the server says no otherwise
    move: (id, to) => move(ctx, tbl.pieces[id], to, null),
    onPiece: (id) => { if (mine(ctx, tbl.pieces[id])) { setVal(ctx, "selected", id); ctx.refresh(); } },
    onSquare: (x, y) => { const piece = selected ? tbl.pieces[selected] : null; if (piece) move(ctx, piece, { x, y }, null); },
  });
  return h("div.pl-grid-wrap", board);
}

function counterRow(ctx, c) {
  const key = `counter.${c.id}`;
  const typed = follow(ctx, c.id, c.value, [`${c.id}.value`]);
  const add = (delta) => (button) => send(ctx, key, { kind: "table.counter.add", counter: c.id, delta }, button);
  const set = (button) => {
    const n = Number.parseInt(val(ctx, `${c.id}.value`, c.value), 10);
    if (Number.isFinite(n)) send(ctx, key, { kind: "table.counter.set", counter: c.id, value: n }, button);
  };
  const range = c.min !== null || c.max !== null ? `${c.min ?? "−∞"}…${c.max ?? "∞"}` : "";
  return h("li.pl-counter", { dataset: { counter: c.id } },
    h("div.pl-row",
      h("b", c.name), h("span.pl-counter-value", String(c.value)), h("span.muted.small", range),
      h("button.pl-step", { type: "button", dataset: { delta: -1 }, on: { click: (ev) => add(-1)(ev.currentTarget) } }, "−1"),
      h("button.pl-step", { type: "button", dataset: { delta: 1 }, on: { click: (ev) => add(1)(ev.currentTarget) } }, "+1"),
      field(t("pt.value"), input(ctx, `${c.id}.value`, { type: "number", step: 1, inputmode: "numeric", name: "value",
        "aria-label": `${c.name} ${t("pt.value")}`, class: "pl-coord" }, String(c.value), typed)),
      actButton(t("pt.set"), set, { dataset: { act: "set" } })),
    feedback(ctx, key));
}

registerPanel({
  id: "player_table",
  key: "table",
  area: "side",
  order: 7,
  roles: ["player"],
  title: () => t("pt.title"),
  strings: STRINGS,
  render(ctx) {
    const tbl = ctx.data;
    const pieces = Object.values(tbl.pieces || {}).filter((p) => mine(ctx, p));
    const counters = Object.values(tbl.counters || {}).filter((c) => c.owner && c.owner === ctx.player);
    if (!pieces.length && !counters.length) return null;
    let selected = val(ctx, "selected", pieces[0]?.id);
    if (!pieces.some((p) => p.id === selected)) selected = pieces[0]?.id;
    setVal(ctx, "selected", selected);
    return h("div.pl-table",
      pieces.length ? h("section.pl-form", h("div.pl-form-title", t("pt.pieces")),
        h("ul.plain", pieces.map((p) => pieceRow(ctx, p, p.id === selected))),
        selected ? h("div.small.muted", t("pt.selected", { name: tbl.pieces[selected].name })) : null,
        grid(ctx, tbl, selected)) : null,
      counters.length ? h("section.pl-form", h("div.pl-form-title", t("pt.counters")),
        h("ul.plain", counters.map((c) => counterRow(ctx, c)))) : null);
  },
});
