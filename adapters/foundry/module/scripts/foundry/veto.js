/**
 * The synchronous move check of the pre-hooks (`preUpdateToken` v12, `preMoveToken` v13).
 *
 * Foundry runs these only in the mover's browser and cancels only on a synchronous
 * `false`, so no server round trip is possible here (vtt.md). The server pushes what it
 * knows ahead of time into the token's flags, and this file only compares:
 *
 *   flags.komasync.legal = {
 *     users?:     [Foundry user id or name | "gm"]   who may drag it (absent: anyone)
 *     positions?: [{x, y}]                           top-left pixels it may land on
 *                                                    (absent: anywhere; [] : nowhere)
 *     radius?:    px                                 how far from a position still counts
 *                                                    (default: half a grid square)
 *     reason:     {ja, en}                           what the mover is told on a veto
 *     user_reason?: {ja, en}                         told when the user is the problem
 *   }
 *
 * No flag, no opinion: the move goes through and the server decides (and snaps back).
 */

import { FLAG } from "./apply.js";

/**
 * @param {object} doc    the token document (before the change)
 * @param {{x:number,y:number}} dest  where it would land (top-left, px)
 * @param {object} user   the moving user (id, name, isGM)
 * @param {object} [scene]  for the grid size (default radius)
 * @returns {{ok: true} | {ok: false, reason: object|string|undefined, code: string}}
 */
export function checkMove(doc, dest, user, scene) {
  const f = doc && doc.flags && doc.flags[FLAG];
  const legal = f && f.legal;
  if (!legal || typeof legal !== "object") return { ok: true };
  if (dest.x === doc.x && dest.y === doc.y) return { ok: true };
  if (Array.isArray(legal.users)) {
    const who = legal.users.map(String);
    const allowed =
      (user && (who.includes(String(user.id)) || who.includes(String(user.name)))) ||
      (user && user.isGM && who.includes("gm"));
    if (!allowed) return { ok: false, code: "user", reason: legal.user_reason || legal.reason };
  }
  if (Array.isArray(legal.positions)) {
    const size = (scene && scene.grid && scene.grid.size) || 100;
    const radius = typeof legal.radius === "number" ? legal.radius : size / 2;
    const near = legal.positions.some((p) => Math.hypot(p.x - dest.x, p.y - dest.y) <= radius);
    if (!near) return { ok: false, code: "position", reason: legal.reason };
  }
  return { ok: true };
}
