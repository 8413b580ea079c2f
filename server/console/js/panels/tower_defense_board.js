// The fortress map on the shared board (issue 31): each placed PC is a piece beside its
// fort, moved by dropping it on a fort — `td.pc.place` in setup (TD-PRE-1), `td.move` in
// the PC attack phase (TD-ATK-1). The forts lit while holding mirror the engine's rules
// (there is no reach query for tower defense): any fort in setup; in the PC attack phase
// the forts one passage away, none once the PC moved, shot or reloaded (TD-ATK-3). The
// server decides every move; groups are moved by the engine and are not pieces.

import { h } from "../dom.js";
import { cellName, makeBoard, nameIn, pieceLabels } from "../board.js";
import { neighbours } from "../player/tower_defense/reach.js";

const DONE = ["attack", "reload", "move", "melee"]; // TD-ATK-3: what rules out a move
const MOVE_PHASES = ["setup", "pc_attack"];

/** Whether the viewer may move `pc` now: the GM any PC, a player their own, in setup or PC attack. */
export function mayMove(ctx, td, pc) {
  const who = ctx.isGM || (!!ctx.player && pc.player === ctx.player);
  return who && !!pc.fort && MOVE_PHASES.includes(td.phase);
}

/** The forts `pc` may be put on now, as the engine's rules read (a hint; the server decides). */
export function reachableForts(td, pc) {
  if (td.phase === "setup") return Object.values(td.forts).filter((f) => f.id !== pc.fort);
  if (DONE.some((k) => (pc.acted || []).includes(k))) return [];
  return [...neighbours(td, pc.fort)].map((id) => td.forts[id]).filter(Boolean);
}

/** The fort on (or, since a fort's box is wider than its square, next to) square `to`. */
export function fortNear(td, to) {
  const forts = Object.values(td.forts);
  return forts.find((f) => f.cell.x === to.x && f.cell.y === to.y)
    || forts.find((f) => Math.abs(f.cell.x - to.x) <= 1 && Math.abs(f.cell.y - to.y) <= 1) || null;
}

const NOT_A_FORT = { ja: "砦の上に置いてください。", en: "Put the PC on a fort." };

function moveAction(td, pc, fort) {
  return td.phase === "setup" ? { kind: "td.pc.place", pc: pc.id, fort: fort.id }
    : { kind: "td.move", pc: pc.id, to: fort.id };
}

/** The PCs' pieces: small discs left of their fort, labelled apart (★ = the viewer's own). */
function pcPieces(ctx, td, S, layer) {
  const placed = Object.values(td.pcs).filter((pc) => pc.fort && td.forts[pc.fort]);
  const labels = pieceLabels(placed.map((pc) => ({ id: pc.id, name: nameIn(pc.name) })));
  const seen = {};
  return placed.map((pc) => {
    const cell = td.forts[pc.fort].cell;
    const i = (seen[pc.fort] = (seen[pc.fort] ?? -1) + 1);
    const mine = !!ctx.player && pc.player === ctx.player;
    const dx = -(S * 1.05 + i * S * 0.74);
    const el = h("g", { class: `td-pc${mine ? " mine" : ""}`, dataset: { pc: pc.id, fort: pc.fort, label: labels.get(pc.id) },
                        transform: `translate(${(cell.x + 0.5) * S + dx},${(cell.y + 0.5) * S})` },
      h("circle", { cx: 0, cy: 0, r: S * 0.34 }),
      h("text", { x: 0, y: 4, "text-anchor": "middle" }, labels.get(pc.id)),
      h("title", pc.name));
    layer.appendChild(el);
    return { id: pc.id, x: cell.x, y: cell.y, name: pc.name, el, movable: mayMove(ctx, td, pc),
             dx, dy: 0 };
  });
}

/** Put `svg` (drawn `S` units a square, `w`×`hh` squares) on the board; returns the board. */
export function tdBoard(ctx, td, svg, { S, w, hh, pad, layer }) {
  for (const f of Object.values(td.forts)) {
    const g = svg.querySelector(`g.td-fort[data-id="${f.id}"]`);
    if (!g) continue;
    g.dataset.x = f.cell.x;
    g.dataset.y = f.cell.y;
    g.setAttribute("aria-label", cellName(f.cell.x, f.cell.y, f.name));
  }
  const pieces = pcPieces(ctx, td, S, layer);
  return makeBoard(svg, {
    unit: S, width: w, height: hh, pad, ui: (ctx.ui.board ||= {}), pieces, key: "td", refresh: ctx.refresh,
    reach: (id) => reachableForts(td, td.pcs[id]).map((f) => ({ x: f.cell.x, y: f.cell.y })),
    move: (id, to) => {
      const fort = fortNear(td, to);
      if (!fort) return Promise.resolve({ type: "reject", code: "not_a_fort", reason: NOT_A_FORT });
      return ctx.act(moveAction(td, td.pcs[id], fort), { quiet: true });
    },
  });
}
