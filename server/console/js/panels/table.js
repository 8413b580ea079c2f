// Generic table (engine/table.py, TABLE-*): pieces, counters, markers on a square grid.
// Hidden pieces and markers and GM-only counters carry the "GM only" badge.

import { h, fmtValue } from "../dom.js";
import { registerPanel } from "../registry.js";
import { t } from "../i18n.js";
import { askReason } from "../ui.js";
import { makeBoard, nameIn, pieceLabels } from "../board.js";
import { nameOf } from "../words.js";

const K = "table";
const CELL = 26;

const STRINGS = {
  ja: {
    "table.do.move": "{piece}を({x}, {y})へ移動",
    "table.do.piece.place": "駒「{piece}」を置く", "table.do.piece.remove": "駒「{piece}」を取り除く",
    "table.do.piece.reveal": "駒「{piece}」の公開を変更", "table.do.piece.allow": "駒「{piece}」の移動許可を変更",
    "table.do.counter.set": "{counter}を{value}にする", "table.do.counter.add": "{counter}を{delta}",
    "table.do.counter.place": "カウンター「{counter}」を置く", "table.do.counter.remove": "カウンター「{counter}」を取り除く",
    "table.do.marker.place": "マーカー「{marker}」を置く", "table.do.marker.remove": "マーカー「{marker}」を取り除く",
    "table.title": "卓（駒・カウンター・マーカー）",
    "table.pieces": "駒", "table.counters": "カウンター", "table.markers": "マーカー",
    "table.owner": "持ち主", "table.cell": "マス", "table.hidden": "非公開",
    "table.value": "値", "table.range": "範囲", "table.visibility": "公開",
    "table.vis.all": "全員", "table.vis.gm": "GMのみ", "table.vis.owner": "持ち主のみ（{o}）",
    "table.empty": "駒・カウンター・マーカーはありません。",
    "table.reveal_marker": "マーカー「{m}」を公開", "table.hide_marker": "マーカー「{m}」を隠す",
  },
  en: {
    "table.do.move": "moved {piece} to ({x}, {y})",
    "table.do.piece.place": "placed piece “{piece}”", "table.do.piece.remove": "removed piece “{piece}”",
    "table.do.piece.reveal": "changed who sees “{piece}”", "table.do.piece.allow": "changed who may move “{piece}”",
    "table.do.counter.set": "set {counter} to {value}", "table.do.counter.add": "{counter} {delta}",
    "table.do.counter.place": "placed counter “{counter}”", "table.do.counter.remove": "removed counter “{counter}”",
    "table.do.marker.place": "placed marker “{marker}”", "table.do.marker.remove": "removed marker “{marker}”",
    "table.title": "Table (pieces, counters, markers)",
    "table.pieces": "Pieces", "table.counters": "Counters", "table.markers": "Markers",
    "table.owner": "owner", "table.cell": "square", "table.hidden": "hidden",
    "table.value": "value", "table.range": "range", "table.visibility": "visible to",
    "table.vis.all": "everyone", "table.vis.gm": "GM only", "table.vis.owner": "owner only ({o})",
    "table.empty": "No pieces, counters or markers.",
    "table.reveal_marker": "Reveal marker '{m}'", "table.hide_marker": "Hide marker '{m}'",
  },
};

const RULES = [
  { path: [K, "pieces", "*", "cell"], rule: "TABLE-MV-1", ja: "プレイヤーは自分の駒（許可された駒）だけ動かせる",
    en: "players move only their own (or allowed) pieces" },
  { path: [K, "pieces", "*", "cell"], rule: "TABLE-MV-2", ja: "駒は盤面の中に置く", en: "a piece stays on the grid" },
  { path: [K, "pieces", "*", "hidden"], rule: "GM", ja: "非公開の駒はプレイヤーと卓に送られない",
    en: "a hidden piece is never sent to players or the table" },
  { path: [K, "counters", "*", "value"], rule: "TABLE-CT-1",
    ja: "GM（持ち主カウンターは持ち主）が変更、最小・最大で切り詰め", en: "changed by the GM (owner counters: the owner), clamped to min/max" },
  { path: [K, "markers", "*", "hidden"], rule: "GM", ja: "非公開のマーカーはプレイヤーと卓に送られない",
    en: "a hidden marker is never sent to players or the table" },
];

function visibility(ctx, c) {
  if (c.visibility === "gm") return ctx.gmBadge(c.id);
  if (c.visibility === "owner") return h("span.badge.owner", t("table.vis.owner", { o: c.owner ? nameOf(ctx.state, c.owner) : "?" }));
  return h("span.muted.small", t("table.vis.all"));
}

function miniMap(ctx, tbl) {
  const { width, height } = tbl.grid;
  const svg = h("svg.table-map", { viewBox: `0 0 ${width * CELL} ${height * CELL}`, role: "img" });
  for (let x = 0; x <= width; x++) svg.appendChild(h("line.gridline", { x1: x * CELL, y1: 0, x2: x * CELL, y2: height * CELL }));
  for (let y = 0; y <= height; y++) svg.appendChild(h("line.gridline", { x1: 0, y1: y * CELL, x2: width * CELL, y2: y * CELL }));
  for (const m of Object.values(tbl.markers)) {
    svg.appendChild(h("g", { class: `table-marker${m.hidden ? " hidden-item" : ""}`, dataset: { id: m.id } },
      h("rect", { x: m.cell.x * CELL, y: m.cell.y * CELL, width: m.width * CELL, height: m.height * CELL }),
      h("text", { x: m.cell.x * CELL + 3, y: m.cell.y * CELL + 16 }, m.text)));
  }
  const shown = Object.values(tbl.pieces).filter((p) => p.cell);
  const labels = pieceLabels(shown.map((p) => ({ id: p.id, name: nameIn(p.name || p.id) })));
  const pieces = shown.map((p) => {
    const r = (p.size * CELL) / 2;
    const mine = !!ctx.player && (p.owner === ctx.player || (p.movers || []).includes(ctx.player));
    const el = h("g", { class: `table-piece${p.hidden ? " hidden-item" : ""}${mine ? " mine" : ""}`, dataset: { id: p.id, label: labels.get(p.id) },
                        transform: `translate(${p.cell.x * CELL + r},${p.cell.y * CELL + r})` },
      h("circle", { r: r - 2, style: p.color ? { fill: p.color } : null }),
      h("text", { y: 5, "text-anchor": "middle", class: labels.get(p.id).length > 2 ? "long" : null }, labels.get(p.id)),
      h("title", p.name));
    svg.appendChild(el);
    return { id: p.id, x: p.cell.x, y: p.cell.y, name: p.name || p.id, el, movable: ctx.isGM || mine, size: p.size };
  });
  // Cells under the pieces give each square its accessible name and data-x/data-y.
  const cells = h("g.table-cells");
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) cells.appendChild(h("rect.table-cell", { x: x * CELL, y: y * CELL, width: CELL, height: CELL, dataset: { x, y, boardCell: "" } }));
  }
  svg.insertBefore(cells, svg.firstChild);
  return makeBoard(svg, {
    unit: CELL, width, height, ui: (ctx.ui.board ||= {}), pieces, key: "table", refresh: ctx.refresh,
    reach: () => null, // anywhere on the grid (TABLE-MV-2); the server refuses the rest
    move: (id, to) => ctx.act({ kind: "table.move", piece: id, to }, { quiet: true }),
  });
}

function render(ctx) {
  const tbl = ctx.data;
  const pieces = Object.values(tbl.pieces || {});
  const counters = Object.values(tbl.counters || {});
  const markers = Object.values(tbl.markers || {});
  if (!pieces.length && !counters.length && !markers.length) return h("p.muted.small", t("table.empty"));
  const players = ctx.state.meta?.players || {};
  const out = [];
  if (pieces.length || markers.length) out.push(h("div.table-map-wrap", miniMap(ctx, tbl)));
  if (pieces.length) {
    out.push(h("section.sub", h("h4", t("table.pieces")), h("table.grid-table.table-pieces",
      h("tbody", pieces.map((p) => h("tr", { class: p.hidden ? "hidden-item" : ctx.player && p.owner === ctx.player ? "mine" : "", dataset: { piece: p.id } },
        h("td", { title: p.id }, p.name, p.hidden ? [" ", ctx.gmBadge(p.id)] : null),
        h("td.small", p.owner ? (players[p.owner]?.name || p.owner) : "—"),
        h("td", ctx.editable([K, "pieces", p.id, "cell"], p.cell, { display: p.cell ? `(${p.cell.x}, ${p.cell.y})` : "—" })),
        h("td", ctx.isGM ? h("button.small", {
          type: "button", dataset: { reveal: p.id },
          on: { click: () => ctx.act({ kind: "table.piece.reveal", piece: p.id, hidden: !p.hidden }) },
        }, p.hidden ? t("reveal") : t("hide")) : null)))))));
  }
  if (counters.length) {
    out.push(h("section.sub", h("h4", t("table.counters")), h("table.grid-table.table-counters",
      h("tbody", counters.map((c) => h("tr", { class: c.visibility === "gm" ? "hidden-item" : "", dataset: { counter: c.id } },
        h("td", { title: c.id }, c.name),
        h("td.num", ctx.editable([K, "counters", c.id, "value"], c.value, { type: "int", label: c.name })),
        h("td.small.muted", c.min !== null || c.max !== null ? `${fmtValue(c.min)}…${fmtValue(c.max)}` : ""),
        h("td", visibility(ctx, c))))))));
  }
  if (markers.length) {
    out.push(h("section.sub", h("h4", t("table.markers")), h("table.grid-table.table-markers",
      h("tbody", markers.map((m) => h("tr", { class: m.hidden ? "hidden-item" : "", dataset: { marker: m.id } },
        h("td", { title: m.id }, m.text, m.hidden ? [" ", ctx.gmBadge(m.id)] : null),
        h("td.small", `(${m.cell.x}, ${m.cell.y}) ${m.width}×${m.height}`),
        h("td", ctx.isGM ? h("button.small", {
          type: "button",
          on: { click: async (ev) => {
            const title = t(m.hidden ? "table.reveal_marker" : "table.hide_marker", { m: m.text });
            const reason = await askReason(ev.currentTarget, { title, defaultReason: title });
            if (reason) ctx.act({ kind: "override", path: [K, "markers", m.id, "hidden"], value: !m.hidden, reason });
          } },
        }, m.hidden ? t("reveal") : t("hide")) : null)))))));
  }
  return h("div.table-panel", out);
}

/** The timeline's sentence for a `table.*` action, with names from the state. */
function describe(a, state) {
  const tb = state[K];
  if (!tb || !String(a.kind || "").startsWith("table.")) return null;
  const name = (table, id) => (table && table[id] && (table[id].name || table[id].text)) || id || "";
  const delta = Number(a.delta);
  const p = {
    piece: name(tb.pieces, a.piece), counter: name(tb.counters, a.counter), marker: name(tb.markers, a.marker),
    x: a.to?.x, y: a.to?.y, value: a.value, delta: Number.isFinite(delta) && delta >= 0 ? `+${delta}` : a.delta,
  };
  const key = `table.do.${a.kind.slice(6)}`;
  const text = t(key, p);
  return text === key ? null : text;
}

registerPanel({
  id: "table",
  key: K,
  describe,
  order: 50,
  title: () => t("table.title"),
  strings: STRINGS,
  rules: RULES,
  secret: (path, state) => {
    if (path[0] !== K || path.length < 3) return false;
    const item = state?.[K]?.[path[1]]?.[path[2]];
    if (!item) return false;
    if (path[1] === "counters") return item.visibility !== "all";
    return (path[1] === "pieces" || path[1] === "markers") && item.hidden === true;
  },
  render,
});
