// The client's copy of the room state, kept exactly as docs/protocol.md says:
// a `snapshot` replaces it; each `change` must start at our version
// (`from_version == version`, no gaps, no repeats) and its ops are applied in order —
// `set` writes (or adds) the value at the path, `del` removes a dict entry.

export class Store {
  constructor() {
    this.state = null;
    this.version = null;
    this.listeners = new Set();
  }

  /** fn(info) with info = {kind: "snapshot"|"change", keys: Set of top-level keys, paths, msg}. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  reset() {
    this.state = null;
    this.version = null;
  }

  applySnapshot(version, state) {
    this.state = state;
    this.version = version;
    this.emit({ kind: "snapshot", keys: new Set(Object.keys(state)), paths: [], msg: null });
  }

  /**
   * Apply a `change` frame. Returns "ok", "repeat" (already applied: ignored), "gap"
   * (a frame is missing: resume with `since`; nothing was applied) or "broken" (an op
   * did not fit our tree: the copy was dropped, the caller must take a fresh snapshot).
   */
  applyChange(msg) {
    if (this.state === null || this.version === null) return "gap";
    if (msg.to_version <= this.version) return "repeat";
    if (msg.from_version !== this.version) return "gap";
    const keys = new Set();
    const paths = [];
    try {
      for (const op of msg.ops) {
        applyOp(this.state, op);
        if (op.path.length) keys.add(String(op.path[0]));
        paths.push(op.path);
      }
    } catch (e) {
      console.warn("cannot apply change; taking a fresh snapshot", e);
      this.reset();
      return "broken";
    }
    this.version = msg.to_version;
    this.emit({ kind: "change", keys, paths, msg });
    return "ok";
  }

  get(path) {
    return getPath(this.state, path);
  }

  emit(info) {
    for (const fn of this.listeners) {
      try {
        fn(info);
      } catch (e) {
        console.error("store listener failed", e);
      }
    }
  }
}

export function getPath(root, path) {
  let obj = root;
  for (const seg of path) {
    if (obj === null || typeof obj !== "object" || !(seg in obj)) return undefined;
    obj = obj[seg];
  }
  return obj;
}

/** One op on a JSON tree. Throws if the parent of the path does not exist. */
export function applyOp(root, op) {
  if (!op.path.length) throw new Error("empty op path");
  const parentPath = op.path.slice(0, -1);
  const key = op.path[op.path.length - 1];
  let parent = root;
  for (const seg of parentPath) {
    if (parent === null || typeof parent !== "object" || !(seg in parent)) {
      throw new Error(`op path ${JSON.stringify(op.path)} has no parent`);
    }
    parent = parent[seg];
  }
  if (parent === null || typeof parent !== "object") {
    throw new Error(`op path ${JSON.stringify(op.path)} has no parent`);
  }
  if (op.op === "set") {
    parent[key] = op.value;
  } else if (op.op === "del") {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else {
    throw new Error(`unknown op ${op.op}`);
  }
}

/**
 * The versions an undo took back, as of `current`: `undos` maps each undo's version to the
 * version it went back to (`change.undo_to`). Walking down from `current`, an undo jumps
 * to its target and every version it jumps over is undone — an undo that was itself
 * undone counts for nothing, and undoing back past an undo brings its versions back.
 */
export function undoneVersions(undos, current) {
  const out = new Set();
  let v = current;
  while (v > 0) {
    const to = undos.get(v);
    if (to === undefined) {
      v -= 1;
      continue;
    }
    for (let u = to + 1; u < v; u += 1) out.add(u);
    v = to;
  }
  return out;
}
