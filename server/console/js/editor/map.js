// The editor's map: the board component (board.js) at the table's width × height, with
// every thing that has a `cell` as a labelled piece (drag it, or "place" then click a
// square), the lists of squares drawn over it (a path in walking order, numbered; an area
// filled), and — in the player view — the room as the players will see it, what they
// cannot see marked hidden.

import { h } from "../dom.js";
import { t, addStrings } from "../i18n.js";
import { makeBoard, pieceLabels, cellAt } from "../board.js";
import { getAt, keyOf, nameOf, nodeAt } from "./model.js";

addStrings({
  ja: { "ed.map": "地図", "ed.hidden": "（プレイヤーには見えない）", "ed.map_size": "地図 {w}×{h}" },
  en: { "ed.map": "Map", "ed.hidden": "(hidden from players)", "ed.map_size": "map {w}×{h}" },
});

const S = 32;

/** The map's size: the table's grid as the data says, else the schema's defaults. */
export function mapSize(schema, data) {
  const at = (k) => {
    const v = getAt(data, ["table", "grid", k]);
    const d = nodeAt(schema, ["table", "grid", k])?.default ?? 20;
    return Number.isInteger(v) && v > 0 ? Math.min(v, 500) : d;
  };
  return { width: at("width"), height: at("height") };
}

/** Every thing with a square, and every list of squares, in a state tree (the preview's). */
export function stateThings(tree) {
  const pieces = [];
  const lines = [];
  const isCell = (v) => v && typeof v === "object" && !Array.isArray(v) && Number.isInteger(v.x) && Number.isInteger(v.y)
    && Object.keys(v).length === 2;
  const walk = (v, path, owner) => {
    if (!v || typeof v !== "object") return;
    if (Array.isArray(v)) {
      if (v.length && v.every(isCell)) {
        lines.push({ path, mode: "path", cells: v, owner });
        return;
      }
      v.forEach((x, i) => walk(x, [...path, i], owner));
      return;
    }
    if (isCell(v.cell)) pieces.push({ path, cellPath: [...path, "cell"], thing: v, cell: v.cell });
    const named = typeof v.name === "string" ? path : owner;
    for (const [k, x] of Object.entries(v)) if (k !== "cell") walk(x, [...path, k], named);
  };
  walk(tree, [], null);
  return { pieces, lines };
}

function squaresLayer(width, height) {
  const g = h("g.ed-squares-layer");
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      g.appendChild(h("rect.ed-square", { x: x * S, y: y * S, width: S, height: S,
        dataset: { boardCell: "", x, y } }));
    }
  }
  return g;
}

function lineLayer(lines, ctx) {
  const g = h("g.ed-lines", { "pointer-events": "none" });
  for (const line of lines) {
    const k = keyOf(line.path);
    const cls = [line.mode === "path" ? "ed-path" : "ed-area",
      ctx.invalid?.has(k) ? "ed-invalid" : "", ctx.selected && k.startsWith(keyOf(ctx.selected)) ? "ed-selected" : "",
      ctx.hidden?.(line.path) ? "ed-hidden" : ""].filter(Boolean).join(" ");
    const lg = h("g", { class: cls, dataset: { path: JSON.stringify(line.path) } });
    line.cells.forEach((c, i) => {
      lg.appendChild(h("rect", { x: c.x * S + 3, y: c.y * S + 3, width: S - 6, height: S - 6, rx: 4, dataset: { x: c.x, y: c.y } }));
      if (line.mode === "path") lg.appendChild(h("text.ed-step", { x: c.x * S + S / 2, y: c.y * S + S / 2 + 4 }, String(i + 1)));
    });
    if (line.mode === "path" && line.cells.length > 1) {
      lg.appendChild(h("polyline", { points: line.cells.map((c) => `${c.x * S + S / 2},${c.y * S + S / 2}`).join(" ") }));
    }
    g.appendChild(lg);
  }
  return g;
}

/** Drawing an area by dragging: the squares passed over are shown, then toggled together on release
 * (a plain click is the board's own square click). */
function paintByDrag(svg, width, height, paint) {
  let drag = null;
  svg.addEventListener("pointerdown", (ev) => {
    const at = cellAt(svg, ev.clientX, ev.clientY, S, width, height);
    drag = at ? { id: ev.pointerId, cells: new Map([[`${at.x},${at.y}`, at]]), layer: h("g.ed-painting", { "pointer-events": "none" }) } : null;
    if (drag) svg.appendChild(drag.layer);
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const at = cellAt(svg, ev.clientX, ev.clientY, S, width, height);
    if (!at || drag.cells.has(`${at.x},${at.y}`)) return;
    drag.cells.set(`${at.x},${at.y}`, at);
    for (const c of drag.cells.values()) {
      drag.layer.appendChild(h("rect", { x: c.x * S + 2, y: c.y * S + 2, width: S - 4, height: S - 4 }));
    }
  });
  svg.addEventListener("pointerup", (ev) => {
    const done = drag;
    drag = null;
    if (done && ev.pointerId === done.id && done.cells.size > 1) paint([...done.cells.values()]);
  });
}

/**
 * The board. `ctx`: schema, data, things ({pieces, lines}), ui (the board's kept state),
 * invalid (Set of path keys with problems), selected (path), hidden(path) (player view),
 * movable, move(cellPath, to), square(x, y), piece(path), paint(cells) (an area drawn by dragging).
 */
export function drawMap(ctx) {
  const { width, height } = mapSize(ctx.schema, ctx.data);
  const svg = h("svg.ed-map", { width: width * S, height: height * S, "aria-label": t("ed.map_size", { w: width, h: height }) });
  svg.appendChild(squaresLayer(width, height));
  svg.appendChild(lineLayer(ctx.things.lines, ctx));
  const layer = h("g.ed-pieces");
  const extents = h("g.ed-extents", { "pointer-events": "none" });
  svg.append(extents, layer);
  // each list of things its own colour (forts and directions apart at a glance)
  const lists = [...new Set(ctx.things.pieces.map((p) => keyOf(p.path.slice(0, -1))))];
  const hue = (p) => (lists.indexOf(keyOf(p.path.slice(0, -1))) * 67) % 360;
  const named = (p) => p.label || nameOf(p.thing);
  const labels = pieceLabels(ctx.things.pieces.map((p) => ({ id: JSON.stringify(p.path), name: named(p) })));
  const pieces = ctx.things.pieces.map((p) => {
    const id = JSON.stringify(p.path);
    const k = keyOf(p.path);
    const hidden = ctx.hidden?.(p.path);
    const name = `${named(p)}${hidden ? ` ${t("ed.hidden")}` : ""}`;
    const cls = ["ed-piece", ctx.invalid?.has(k) ? "ed-invalid" : "", ctx.selected && keyOf(ctx.selected) === k ? "ed-selected" : "",
      hidden ? "ed-hidden" : ""].filter(Boolean).join(" ");
    const w = Number.isInteger(p.thing.width) ? p.thing.width : 1;
    const hh = Number.isInteger(p.thing.height) ? p.thing.height : 1;
    if (w > 1 || hh > 1) { // a thing covering several squares (an area from its top-left)
      extents.appendChild(h("rect.ed-extent", { x: p.cell.x * S + 1, y: p.cell.y * S + 1, width: w * S - 2, height: hh * S - 2,
        style: { fill: `hsl(${hue(p)} 45% 80% / .5)` } }));
    }
    const el = h("g", { class: cls, dataset: { thing: JSON.stringify(p.path) } },
      h("title", name),
      h("rect", { x: -S / 2 + 2, y: -S / 2 + 2, width: S - 4, height: S - 4, rx: 8, style: hidden ? null : { fill: `hsl(${hue(p)} 60% 94%)` } }),
      h("text.ed-piece-label", { y: 4 }, labels.get(id) || "?"));
    el.setAttribute("transform", `translate(${p.cell.x * S + S / 2},${p.cell.y * S + S / 2})`);
    layer.appendChild(el);
    return { id, x: p.cell.x, y: p.cell.y, name, el, movable: !!ctx.movable };
  });
  if (ctx.paint) paintByDrag(svg, width, height, ctx.paint);
  if (ctx.keyed) { // placing or drawing from the keyboard: Enter on the cursor's square
    svg.addEventListener("keydown", (ev) => {
      if ((ev.key === "Enter" || ev.key === " ") && ctx.ui.cursor) ctx.square(ctx.ui.cursor.x, ctx.ui.cursor.y);
    });
  }
  return makeBoard(svg, {
    unit: S, width, height, ui: ctx.ui, pad: 0, key: "editor", pieces,
    reach: () => null,
    move: async (id, to) => {
      const p = ctx.things.pieces.find((x) => JSON.stringify(x.path) === id);
      if (p) ctx.move(p.cellPath, to);
      return { type: "ack" };
    },
    onSquare: (x, y) => ctx.square(x, y),
    onPiece: (id) => {
      const p = ctx.things.pieces.find((x) => JSON.stringify(x.path) === id);
      if (p) ctx.piece(p.path, p.cell);
    },
  });
}
