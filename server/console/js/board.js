// The board every square map shares (grid, table, the player's pieces): which square the
// pointer is over, read through the drawing's own screen matrix (exact at any width, zoom,
// device pixel ratio and scroll); drag and drop with mouse, pen and touch; click-then-click;
// a keyboard cursor (arrows, Enter, Escape); zoom and pan for large maps; the squares a
// held piece may reach lit with their cost; a refusal's words shown beside the piece; and
// short labels that tell pieces with alike names apart. What is legal is never decided
// here: the map's owner says what a piece may reach and the server answers every move.

import { h, clear } from "./dom.js";
import { addStrings, lang, t, pick } from "./i18n.js";

const DRAG_PX = 5; // a press that moves less than this is a click
const FIT_SQUARES = 32; // maps up to this size start fitted; larger ones start zoomed in
const VIEW_SQUARES = 16; // squares down (at least) when a large map opens: pieces stay readable

/** The square under a client point, through `svg`'s screen matrix (null off the board). */
export function cellAt(svg, clientX, clientY, unit, width, height) {
  const m = svg.getScreenCTM();
  if (!m) return null;
  const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
  const x = Math.floor(p.x / unit);
  const y = Math.floor(p.y / unit);
  return x >= 0 && y >= 0 && x < width && y < height ? { x, y } : null;
}

/** A client point in the drawing's own units. */
export function svgPoint(svg, clientX, clientY) {
  const m = svg.getScreenCTM();
  return m ? new DOMPoint(clientX, clientY).matrixTransform(m.inverse()) : null;
}

/** Characters a label takes from the name before a number is added. */
const LABEL_CHARS = 2;

/**
 * Short labels that tell pieces apart (the one helper every board uses): the name's first
 * character where that is unique; else its first two (ゴブリン・ゴーレム → ゴブ・ゴー); else
 * those two and a number — the name's own trailing number when they differ
 * (グール1 → グー1), else a running one (two ゴブリン → ゴブ1・ゴブ2). Spaces are skipped.
 */
export function pieceLabels(pieces) {
  const chars = new Map(pieces.map((p) => [p.id, [...String(p.name || p.id).replace(/\s+/g, "")]]));
  const head = (id, n) => chars.get(id).slice(0, n).join("") || "?";
  const groupBy = (ids, n) => {
    const groups = new Map();
    for (const id of ids) {
      const k = head(id, n);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(id);
    }
    return groups;
  };
  const out = new Map();
  let left = pieces.map((p) => p.id);
  for (let n = 1; n <= LABEL_CHARS && left.length; n += 1) {
    const still = [];
    for (const [k, ids] of groupBy(left, n)) {
      if (ids.length === 1) out.set(ids[0], k);
      else still.push(...ids);
    }
    left = still;
  }
  for (const [k, ids] of groupBy(left, LABEL_CHARS)) {
    const tails = ids.map((id) => chars.get(id).join("").match(/(\d+)$/)?.[1] ?? null);
    const own = tails.every(Boolean) && new Set(tails).size === tails.length;
    ids.forEach((id, i) => out.set(id, `${k}${own ? tails[i] : i + 1}`));
  }
  // A label made with a number may equal another piece's name head ("ゴブ1"): number those too.
  const seen = new Map();
  for (const [id, label] of out) {
    if (!seen.has(label)) seen.set(label, []);
    seen.get(label).push(id);
  }
  for (const [label, ids] of seen) {
    if (ids.length > 1) ids.forEach((id, i) => out.set(id, `${label}${i + 1}`));
  }
  return out;
}

/** A name written "日本語 / English" in the language shown; any other name as it is. */
export function nameIn(name) {
  const parts = String(name || "").split(" / ");
  return parts.length === 2 ? parts[lang() === "en" ? 1 : 0] : String(name || "");
}

/** The accessible name of a square or piece: 「(4,4) 剣士レオ」 / "(4,4) Leo the swordsman". */
export const cellName = (x, y, name = "") => `(${x},${y})${name ? ` ${nameIn(name)}` : ""}`;

export const BOARD_STRINGS = {
  ja: {
    "board.zoom_in": "拡大", "board.zoom_out": "縮小", "board.fit": "全体",
    "board.help": "駒をドラッグ、または駒→マスの順にクリック。矢印キーでカーソル、Enterで持つ・置く、Escapeで取り消し。",
    "board.cursor": "カーソル {cell}", "board.held": "{name}を持っています", "board.put_back": "{name}を元の位置に戻しました",
    "board.refused": "動かせません",
  },
  en: {
    "board.zoom_in": "Zoom in", "board.zoom_out": "Zoom out", "board.fit": "Fit",
    "board.help": "Drag a piece, or click a piece then a square. Arrow keys move the cursor, Enter picks up and drops, Escape cancels.",
    "board.cursor": "cursor {cell}", "board.held": "holding {name}", "board.put_back": "{name} is back where it was",
    "board.refused": "Cannot move",
  },
};

addStrings(BOARD_STRINGS);

/** The part of the board in view: the whole map, or a window into a large one. */
function viewOf(ui, width, height) {
  if (!ui.view) {
    const big = Math.max(width, height) > FIT_SQUARES;
    ui.view = { z: big ? Math.max(width, height) / VIEW_SQUARES : 1, cx: width / 2, cy: height / 2 };
  }
  const v = ui.view;
  v.z = Math.min(Math.max(v.z, 1), Math.max(1, Math.max(width, height) / 4));
  const w = width / v.z;
  const hh = height / v.z;
  v.cx = Math.min(Math.max(v.cx, w / 2), width - w / 2);
  v.cy = Math.min(Math.max(v.cy, hh / 2), height - hh / 2);
  return { x: v.cx - w / 2, y: v.cy - hh / 2, w, h: hh };
}

/**
 * Make `svg` (drawn in `unit`s per square, `width`×`height` squares) a board. `opts`:
 * ui (the panel's kept state), pad (margin in units), pieces ([{id, x, y, name, el, movable, size?, dx?, dy?}]; `el` is the
 * piece's <g>, drawn around its centre), reach(id) → squares [{x,y,cost?}] or null (= anywhere) or a promise of them,
 * move(id, to) → promise of the server's reply (ack or reject), onSquare(x, y) (a click on
 * a square with nothing held), onPiece(id) (a click on a piece), key (for focus across
 * re-renders). Returns the wrapper to put in the page (tools, the map, the live region).
 */
export function makeBoard(svg, opts) {
  const { unit: S, width, height, ui } = opts;
  const pieces = new Map(opts.pieces.map((p) => [p.id, p]));
  // A piece's <g> is drawn around its centre; a piece `size` squares wide has its cell top-left;
  // `dx`/`dy` (units) set pieces sharing a square side by side (the forts' PCs).
  const placeAt = (p, c) => `translate(${c.x * S + ((p.size || 1) * S) / 2 + (p.dx || 0)},${c.y * S + ((p.size || 1) * S) / 2 + (p.dy || 0)})`;
  const pad = opts.pad || 0; // units of margin around the squares (labels drawn past the edge)
  const at = new Map(opts.pieces.map((p) => [`${p.x},${p.y}`, p]));
  const reachLayer = h("g.board-reach");
  const cursorLayer = h("g.board-cursor-layer");
  svg.insertBefore(reachLayer, svg.firstChild?.nextSibling || null);
  svg.appendChild(cursorLayer);
  svg.classList.add("board-svg");
  svg.setAttribute("tabindex", "0");
  svg.setAttribute("role", "application");
  svg.setAttribute("aria-roledescription", "board");
  svg.dataset.keep = `board.${opts.key}`;
  const live = h("div.board-live.sr-only", { "aria-live": "polite" });
  const note = h("div.board-refusal-slot");
  const wrap = h("div.board", { dataset: { board: opts.key } });

  for (const p of opts.pieces) {
    p.el.dataset.x = p.x;
    p.el.dataset.y = p.y;
    p.el.dataset.piece = p.id;
    p.el.setAttribute("role", "img");
    p.el.setAttribute("aria-label", cellName(p.x, p.y, p.name));
    if (p.movable) p.el.classList.add("board-movable");
  }
  for (const r of svg.querySelectorAll("[data-board-cell]")) {
    const occupant = at.get(`${r.dataset.x},${r.dataset.y}`);
    r.setAttribute("aria-label", cellName(r.dataset.x, r.dataset.y, occupant?.name));
  }

  // -- view: zoom and pan keep the drawing's own matrix, so cellAt stays exact ----------
  const applyView = () => {
    const v = viewOf(ui, width, height);
    svg.setAttribute("viewBox", `${v.x * S - pad} ${v.y * S - pad} ${v.w * S + 2 * pad} ${v.h * S + 2 * pad}`);
    wrap.dataset.zoom = ui.view.z.toFixed(2);
    placeNote();
  };
  const zoom = (f) => { ui.view.z *= f; applyView(); };

  // -- what is held, and the squares it may reach ------------------------------------------
  const drawReach = (squares) => {
    clear(reachLayer);
    if (squares === null) {
      reachLayer.appendChild(h("rect.board-reach-all", { x: 0, y: 0, width: width * S, height: height * S }));
      return;
    }
    for (const s of squares) {
      const x = s.cell ? s.cell.x : s.x;
      const y = s.cell ? s.cell.y : s.y;
      reachLayer.appendChild(h("g.board-reach-sq", { dataset: { x, y, cost: s.cost ?? "" } },
        h("rect", { x: x * S, y: y * S, width: S, height: S }),
        s.cost !== undefined ? h("text.board-cost", { x: x * S + 3, y: y * S + S - 3 }, String(s.cost)) : null));
    }
  };
  let reachToken = 0;
  const showReach = async (id, t0) => {
    const token = ++reachToken;
    const squares = await opts.reach(id);
    if (token !== reachToken) return;
    drawReach(squares);
    svg.dataset.reach = id;
    if (t0 !== undefined) {
      requestAnimationFrame(() => { svg.dataset.reachMs = (performance.now() - t0).toFixed(1); });
    }
  };
  const hideReach = () => { reachToken++; clear(reachLayer); delete svg.dataset.reach; };

  const hold = (id) => {
    ui.held = id;
    ui.refusal = null;
    placeNote();
    for (const p of pieces.values()) p.el.classList.toggle("board-held", p.id === id);
    if (id) {
      showReach(id, performance.now());
      say(t("board.held", { name: nameIn(pieces.get(id)?.name || id) }));
    } else {
      hideReach();
    }
  };

  const tryMove = async (id, to) => {
    const p = pieces.get(id);
    ui.held = null;
    hideReach();
    if (!p || !to || (to.x === p.x && to.y === p.y)) {
      putBack(p);
      return;
    }
    p.el.setAttribute("transform", placeAt(p, to));
    const reply = await opts.move(id, to);
    if (reply && reply.type !== "ack") {
      ui.refusal = { piece: id, reason: reply.reason, rule: reply.rule || "", code: reply.code || "" };
      putBack(p);
      if (p.el.isConnected) placeNote();
      opts.refresh?.();
    } else {
      ui.refusal = null;
    }
  };
  const putBack = (p) => {
    if (!p) return;
    p.el.classList.remove("board-dragging", "board-held");
    p.el.setAttribute("transform", placeAt(p, p));
  };

  // -- the refusal's words beside the piece (HTML over the map, readable at any zoom) ----
  function placeNote() {
    clear(note);
    const r = ui.refusal;
    const p = r && pieces.get(r.piece);
    if (!p) return;
    const box = h("div.board-refusal", { role: "alert", dataset: { piece: r.piece, code: r.code, rule: r.rule } },
      h("b", t("board.refused")), " ", r.rule ? [h("code", r.rule), " "] : null, pick(r.reason));
    note.appendChild(box);
    const put = () => {
      if (!box.isConnected) return;
      const m = svg.getScreenCTM();
      if (!m) return;
      const a = new DOMPoint((p.x + 1) * S + (p.dx || 0), p.y * S + (p.dy || 0)).matrixTransform(m);
      const base = note.parentNode.getBoundingClientRect();
      box.style.left = `${Math.round(a.x - base.left + 4)}px`;
      box.style.top = `${Math.round(a.y - base.top)}px`;
    };
    requestAnimationFrame(put);
  }

  // -- keyboard cursor -------------------------------------------------------------------
  const say = (text) => { live.textContent = text; };
  const drawCursor = () => {
    clear(cursorLayer);
    const c = ui.cursor;
    if (!c) return;
    cursorLayer.appendChild(h("rect.board-cursor", { x: c.x * S, y: c.y * S, width: S, height: S,
                                                      dataset: { x: c.x, y: c.y } }));
    svg.dataset.cursor = `${c.x},${c.y}`;
  };
  const keepInView = () => {
    const v = viewOf(ui, width, height);
    const c = ui.cursor;
    if (c.x < v.x || c.x + 1 > v.x + v.w) ui.view.cx = c.x + 0.5;
    if (c.y < v.y || c.y + 1 > v.y + v.h) ui.view.cy = c.y + 0.5;
    applyView();
  };
  const KEYS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  svg.addEventListener("focus", () => {
    if (!ui.cursor) {
      const first = [...pieces.values()].find((p) => p.movable) || { x: 0, y: 0 };
      ui.cursor = { x: first.x, y: first.y };
    }
    drawCursor();
  });
  svg.addEventListener("keydown", (ev) => {
    if (KEYS[ev.key]) {
      const [dx, dy] = KEYS[ev.key];
      const c = ui.cursor || { x: 0, y: 0 };
      ui.cursor = { x: Math.min(Math.max(c.x + dx, 0), width - 1), y: Math.min(Math.max(c.y + dy, 0), height - 1) };
      drawCursor();
      keepInView();
      say(t("board.cursor", { cell: cellName(ui.cursor.x, ui.cursor.y, at.get(`${ui.cursor.x},${ui.cursor.y}`)?.name) }));
    } else if (ev.key === "Enter" || ev.key === " ") {
      const c = ui.cursor;
      if (!c) return;
      if (ui.held) tryMove(ui.held, c);
      else {
        const p = at.get(`${c.x},${c.y}`);
        if (p?.movable) hold(p.id);
      }
    } else if (ev.key === "Escape") {
      const p = pieces.get(ui.held);
      hold(null);
      if (p) say(t("board.put_back", { name: nameIn(p.name) }));
    } else if (ev.key === "+" || ev.key === "=") zoom(1.5);
    else if (ev.key === "-") zoom(1 / 1.5);
    else return;
    ev.preventDefault();
  });

  // -- pointer: press, drag (piece or view), release ---------------------------------------
  let press = null;
  svg.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 || press) return;
    const el = ev.target.closest?.("[data-piece]");
    const p = el && pieces.get(el.dataset.piece);
    press = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, piece: p || null, dragging: false,
              view: { ...ui.view }, t0: performance.now() };
    svg.setPointerCapture(ev.pointerId);
    ev.preventDefault();
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!press || ev.pointerId !== press.id) return;
    if (!press.dragging && Math.hypot(ev.clientX - press.x, ev.clientY - press.y) < DRAG_PX) return;
    if (!press.dragging) {
      press.dragging = true;
      if (press.piece?.movable) {
        ui.held = press.piece.id;
        ui.refusal = null;
        placeNote();
        press.piece.el.classList.add("board-dragging");
        press.piece.el.parentNode.appendChild(press.piece.el); // drawn above the others
        showReach(press.piece.id, press.t0);
      }
    }
    if (press.piece?.movable) {
      const q = svgPoint(svg, ev.clientX, ev.clientY);
      if (q) press.piece.el.setAttribute("transform", `translate(${q.x},${q.y})`);
    } else if (!press.piece && ui.view.z > 1) {
      const m = svg.getScreenCTM();
      if (!m) return;
      ui.view.cx = press.view.cx - (ev.clientX - press.x) / m.a / S;
      ui.view.cy = press.view.cy - (ev.clientY - press.y) / m.d / S;
      applyView();
    }
  });
  const release = (ev, cancelled) => {
    if (!press || ev.pointerId !== press.id) return;
    const pr = press;
    press = null;
    const cell = cellAt(svg, ev.clientX, ev.clientY, S, width, height);
    if (pr.dragging) {
      if (pr.piece?.movable) {
        if (cancelled) {
          hold(null);
          putBack(pr.piece);
        } else tryMove(pr.piece.id, cell);
      }
      return;
    }
    if (cancelled) return;
    if (ui.held && cell && pr.piece?.id !== ui.held) {
      tryMove(ui.held, cell); // a second click puts the held piece there, even on another piece
    } else if (pr.piece) {
      if (pr.piece.movable) hold(pr.piece.id === ui.held ? null : pr.piece.id);
      opts.onPiece?.(pr.piece.id);
    } else if (cell) {
      opts.onSquare?.(cell.x, cell.y);
    }
  };
  svg.addEventListener("pointerup", (ev) => release(ev, false));
  svg.addEventListener("pointercancel", (ev) => release(ev, true));
  svg.addEventListener("wheel", (ev) => {
    if (!ev.ctrlKey && !ev.metaKey && ui.view.z <= 1) return;
    ev.preventDefault();
    zoom(ev.deltaY < 0 ? 1.25 : 1 / 1.25);
  }, { passive: false });

  // -- put together; what was held before the re-render stays held -------------------------
  const tools = h("div.board-tools",
    h("button.small", { type: "button", dataset: { zoom: "in" }, "aria-label": t("board.zoom_in"), on: { click: () => zoom(1.5) } }, "+"),
    h("button.small", { type: "button", dataset: { zoom: "out" }, "aria-label": t("board.zoom_out"), on: { click: () => zoom(1 / 1.5) } }, "−"),
    h("button.small", { type: "button", dataset: { zoom: "fit" }, on: { click: () => { ui.view.z = 1; applyView(); } } }, t("board.fit")),
    h("span.muted.small", t("board.help")));
  wrap.append(tools, h("div.board-stage", svg, note), live);
  applyView();
  drawCursor();
  if (ui.held && pieces.get(ui.held)?.movable) {
    pieces.get(ui.held).el.classList.add("board-held");
    showReach(ui.held);
  } else ui.held = null;
  return wrap;
}
