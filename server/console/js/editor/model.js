// The scenario being edited, read through its JSON Schema (GET /api/scenario/schema): where a
// value sits, what a field names (`x-ref`), which things stand on a square (`cell`) and which
// lists are squares (`x-cells`). Nothing here knows a subsystem: the schema says it all.

import { deref, branches } from "../schema_form.js";
import { pick } from "../i18n.js";

/** The value at `path` of `root` (undefined where it is absent). */
export function getAt(root, path) {
  let node = root;
  for (const seg of path) {
    if (node === null || node === undefined || typeof node !== "object") return undefined;
    node = node[seg];
  }
  return node;
}

/** Set the value at `path`, making the objects on the way (lists where the next step is an index). */
export function setAt(root, path, value) {
  let node = root;
  for (let i = 0; i < path.length - 1; i += 1) {
    const seg = path[i];
    if (node[seg] === null || node[seg] === undefined || typeof node[seg] !== "object") {
      node[seg] = typeof path[i + 1] === "number" ? [] : {};
    }
    node = node[seg];
  }
  node[path[path.length - 1]] = value;
}

/** Remove the value at `path` (a list item is spliced out). */
export function removeAt(root, path) {
  const parent = getAt(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (parent && typeof parent === "object") delete parent[last];
}

/** A path's stable key; list indexes and dict keys compare as text (a problem may say either). */
export const keyOf = (path) => path.map(String).join("\u0001");

/** What the schema says of a node: {meta (the node itself), kinds (non-null branches), nullable}. */
export function look(schema, node) {
  return { meta: node || {}, ...branches(schema, node) };
}

/** The schema node of the value at `path` of the scenario (null where the schema has none). */
export function nodeAt(schema, path) {
  let node = schema;
  for (const seg of path) {
    const { kinds } = branches(schema, node);
    const obj = kinds.find((k) => k.properties || k.additionalProperties || k.items);
    if (!obj) return null;
    if (obj.properties && typeof seg === "string" && obj.properties[seg]) node = obj.properties[seg];
    else if (obj.items && typeof seg === "number") node = obj.items;
    else if (typeof obj.additionalProperties === "object") node = obj.additionalProperties;
    else return null;
  }
  return node;
}

/** The field's title in the UI's language, its key when the schema gives none. */
export function titleOf(node, key) {
  const m = node || {};
  if (m.title_ja) return pick({ ja: m.title_ja, en: m.title_en || m.title_ja });
  return String(key ?? "");
}

/** The enum's words (`x-words` or `words`: {value: {ja, en}}) for a value. */
export function wordOf(node, kind, value) {
  const words = node?.["x-words"] || node?.words || kind?.["x-words"] || kind?.words || {};
  return words[value] ? pick(words[value]) : String(value);
}

/** A thing's shown name: its `name` (or `text`), else its id. */
export function nameOf(thing) {
  if (!thing || typeof thing !== "object") return "";
  const said = typeof thing.ja === "string" && thing.ja ? { ja: thing.ja, en: thing.en || thing.ja } : null; // a spot's words
  const n = thing.name ?? thing.text ?? said ?? thing.id ?? "";
  return typeof n === "object" ? pick(n) : String(n);
}

/** Is this schema node the square type ({x, y} integers)? */
export function isCell(schema, node) {
  const square = (n) => !!n?.properties && Object.keys(n.properties).length === 2 && !!n.properties.x && !!n.properties.y;
  const n = deref(schema, node);
  return square(n) || branches(schema, node).kinds.some(square); // a cell or "a cell or none"
}

/**
 * An item's shown name: its own, else the names of the things its `x-ref` fields name
 * (a passage: 「左端 → 左端砦」; an empty one by the field `x-empty-means` says: a
 * character's piece is its id), else its id.
 */
export function itemName(schema, data, node, item, depth = 0) {
  if (!item || typeof item !== "object") return "";
  if (item.name || item.text || item.ja) return nameOf(item);
  const obj = branches(schema, node).kinds.find((k) => k.properties);
  const named = [];
  for (const [key, sub] of Object.entries(obj?.properties || {})) {
    const value = item[key] || item[sub?.["x-empty-means"]];
    if (typeof value !== "string") continue;
    const hit = (refChoices(data, sub, null, depth < 1 ? schema : null, depth + 1) || []).find((c) => c.value === value);
    if (hit) named.push(hit.label);
    if (named.length === 2) break;
  }
  return named.length ? named.join(" → ") : nameOf(item);
}

/** The lists an `x-ref` (or the state schema's `ids`) names, as data paths. */
function refPaths(meta, items) {
  const ref = meta?.["x-ref"] ?? items?.["x-ref"];
  if (ref) return (Array.isArray(ref) ? ref : [ref]).map((r) => String(r).split("."));
  const ids = meta?.ids ?? items?.ids;
  return Array.isArray(ids) ? [ids.map(String)] : null;
}

/**
 * The things an id field may name, [{value, label}] by their names (null: not an id field);
 * with `schema`, a thing without a name is called as its item heading is (`itemName`).
 */
export function refChoices(data, meta, items, schema = null, depth = 0) {
  const paths = refPaths(meta, items);
  if (!paths) return null;
  const out = [];
  for (const path of paths) {
    const where = getAt(data, path);
    const entries = Array.isArray(where)
      ? where.map((thing) => [thing?.id, thing])
      : Object.entries(where || {});
    const node = schema ? nodeAt(schema, [...path, 0]) : null;
    for (const [id, thing] of entries) {
      if (id === undefined || id === null || id === "") continue;
      const label = node ? itemName(schema, data, node, thing, depth) : nameOf(thing);
      out.push({ value: String(id), label: label || String(id) });
    }
  }
  return out;
}

/**
 * Everything the map draws, found by walking the data with its schema: things with a `cell`
 * ({path, cellPath, thing, cell}) and lists of squares ({path, mode: "path"|"area", cells, owner}).
 */
export function mapThings(schema, data) {
  const pieces = [];
  const lines = [];
  // a thing without a name is called by its list's title and place: 「壁 2」
  const walk = (node, value, path, owner, title = "") => {
    if (value === null || value === undefined || !node) return;
    const { kinds, meta } = look(schema, node);
    if (Array.isArray(value)) {
      const arr = kinds.find((k) => k.items);
      if (!arr) return;
      if (isCell(schema, arr.items)) {
        lines.push({ path, mode: meta["x-cells"] || arr["x-cells"] || "area", cells: value, owner });
        return;
      }
      value.forEach((v, i) => walk(arr.items, v, [...path, i], owner, `${titleOf(meta, path[path.length - 1])} ${i + 1}`));
      return;
    }
    if (typeof value !== "object") return;
    const label = title || titleOf(meta, path[path.length - 1]);
    const obj = kinds.find((k) => k.properties || k.additionalProperties);
    if (!obj) return;
    if (obj.properties) {
      for (const [k, sub] of Object.entries(obj.properties)) {
        if (k === "cell" && isCell(schema, sub) && value.cell) {
          pieces.push({ path, cellPath: [...path, "cell"], thing: value, cell: value.cell, label: nameOf(value) || label });
        } else walk(sub, value[k], [...path, k], obj.properties.name || obj.properties.text ? path : owner);
      }
    } else if (typeof obj.additionalProperties === "object") {
      for (const [k, v] of Object.entries(value)) walk(obj.additionalProperties, v, [...path, k], owner);
    }
  };
  walk(schema, data, [], null);
  return { pieces, lines };
}

/** A fresh item for a list: its required fields at their defaults (or first choice, 0, ""). */
export function blank(schema, node, taken = new Set(), hint = "item") {
  const { kinds } = branches(schema, node);
  const k = kinds[0];
  if (!k) return null;
  if (node?.default !== undefined && node.default !== null) return structuredClone(node.default);
  if (Array.isArray(k.enum)) return k.enum[0];
  if (k.type === "integer" || k.type === "number") return Math.max(0, k.minimum ?? 0);
  if (k.type === "boolean") return false;
  if (k.type === "string") return "";
  if (k.type === "array") return [];
  if (k.properties) {
    const out = {};
    for (const name of k.required || []) {
      if (name === "id") {
        let n = taken.size + 1;
        while (taken.has(`${hint}_${n}`)) n += 1;
        out.id = `${hint}_${n}`;
      } else out[name] = blank(schema, k.properties[name], new Set(), name);
    }
    return out;
  }
  return {};
}
