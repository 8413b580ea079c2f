// The fortress as a graph, read on the client (TD-ATK-1 adjacency, TD-ATK-4 reach) —
// only a hint to order the player's choices; the server decides (engine/tower_defense/map.py).

/** Forts joined to `fort` by one passage, any direction (lateral ones too). */
export function neighbours(td, fort) {
  const out = new Set();
  for (const p of Object.values(td.passages || {})) {
    if (p.outer === fort && td.forts[p.inner]) out.add(p.inner);
    else if (p.inner === fort && td.forts[p.outer]) out.add(p.outer);
  }
  return out;
}

/** Passages between two forts by the shortest way; null when they are not joined. */
export function distance(td, a, b) {
  if (!a || !b) return null;
  const seen = new Map([[a, 0]]);
  const queue = [a];
  while (queue.length) {
    const node = queue.shift();
    if (node === b) return seen.get(node);
    for (const next of neighbours(td, node)) {
      if (!seen.has(next)) {
        seen.set(next, seen.get(node) + 1);
        queue.push(next);
      }
    }
  }
  return null;
}

/** Distance from `fort` to a group: its fort, or one beyond the fort it walks to. */
export function positionDistance(td, fort, walker) {
  if (walker.fort && !walker.waiting) return distance(td, fort, walker.fort);
  const route = walker.route || [];
  if ((walker.at ?? 0) >= route.length) return null;
  const d = distance(td, fort, td.passages[route[walker.at ?? 0]]?.inner);
  return d === null ? null : d + 1;
}

/** Whether `weapon` used from `fort` reaches `walker` (range null = ∞). */
export function reaches(td, weapon, fort, walker) {
  if (weapon.range === null || weapon.range === undefined) return true;
  if (!fort) return false;
  const d = positionDistance(td, fort, walker);
  if (d === null) return false;
  const limit = td.settings?.range_mode === "steps" ? weapon.range : weapon.range - 1;
  return d <= limit;
}
