/**
 * The table view's state tree as the server sends it: a `snapshot`, then `change` ops
 * (`{"op":"set"|"del","path":[...],"value"}`, docs/protocol.md). The bridges keep it only
 * to read what the room says (calibration settings, an object's square); they never
 * decide anything from it.
 */

/** Apply one op to `tree` in place. */
export function applyOp(tree, op) {
  const path = op.path || [];
  if (!path.length) return;
  let node = tree;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (node[k] === undefined || node[k] === null || typeof node[k] !== "object") node[k] = {};
    node = node[k];
  }
  const last = path[path.length - 1];
  if (op.op === "set") node[last] = op.value === undefined ? null : JSON.parse(JSON.stringify(op.value));
  else if (op.op === "del") delete node[last];
}

/** The value at `path`, or undefined. */
export function getPath(tree, path) {
  let node = tree;
  for (const k of path) {
    if (node === undefined || node === null) return undefined;
    node = node[k];
  }
  return node;
}
