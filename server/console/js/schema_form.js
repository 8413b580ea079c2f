// Typed inputs generated from the state's JSON Schema (GET /api/schema, built from the
// engine's pydantic models): an enum is a picker in the seed's words (the field's `words`),
// a number keeps its bounds, a boolean is a checkbox, an id is a select of the things it
// names (the field's `ids`: a state path) by their names; anything else is JSON.
// Titles are the fields' own `title_ja`/`title_en` (engine/titles.py), never a copy here.

import { h } from "./dom.js";
import { t, pick, addStrings } from "./i18n.js";
import { phases } from "./phases.js";
import { getPath } from "./store.js";

addStrings({
  ja: {
    "sf.none": "—（なし）", "sf.yes": "はい", "sf.no": "いいえ",
    "sf.need_int": "整数を入力してください。", "sf.need_number": "数を入力してください。",
    "sf.min": "{min}以上にしてください。", "sf.max": "{max}以下にしてください。",
    "sf.too_long": "{n}文字以内にしてください。", "sf.range": "{min}〜{max}",
  },
  en: {
    "sf.none": "— (none)", "sf.yes": "yes", "sf.no": "no",
    "sf.need_int": "Enter a whole number.", "sf.need_number": "Enter a number.",
    "sf.min": "At least {min}.", "sf.max": "At most {max}.",
    "sf.too_long": "At most {n} characters.", "sf.range": "{min} to {max}",
  },
});

let loading = null;
let loaded = null;

/** The state tree's schema (fetched once; null when the server has none). */
export function loadSchema() {
  if (!loading) {
    loading = fetch("/api/schema").then((r) => (r.ok ? r.json() : null)).catch(() => null)
      .then((schema) => { loaded = schema; return schema; });
  }
  return loading;
}

/** The schema once it has arrived (null before): for words drawn without waiting. */
export function schemaNow() {
  return loaded;
}

/** `node` with its `$ref`s followed (the scenario editor walks the same schemas). */
export function deref(schema, node) {
  let n = node;
  for (let i = 0; n && n.$ref && i < 20; i += 1) n = schema.$defs[n.$ref.split("/").pop()];
  return n;
}

/** A node's non-null branches (dereferenced) and whether null is allowed. */
export function branches(schema, node) {
  const n = deref(schema, node);
  if (!n) return { kinds: [], nullable: false };
  const alts = n.anyOf || n.oneOf;
  if (!alts) return { kinds: [n], nullable: n.type === "null" };
  const kinds = alts.map((a) => deref(schema, a)).filter((a) => a && a.type !== "null");
  return { kinds, nullable: kinds.length < alts.length };
}

/** The schema of the value at `path` of the room's state: {meta, kinds, nullable} or null.
 * `meta` is the field's own node (title, rule, words, ids sit beside its type). */
export function fieldAt(schema, path) {
  if (!schema?.$defs?.RoomState) return null;
  let meta = schema.$defs.RoomState;
  for (const seg of path) {
    const { kinds } = branches(schema, meta);
    const obj = kinds.find((k) => k.properties || k.additionalProperties || k.items);
    if (!obj) return null;
    if (obj.properties && typeof seg === "string" && obj.properties[seg]) meta = obj.properties[seg];
    else if (typeof obj.additionalProperties === "object") meta = obj.additionalProperties;
    else if (obj.items && typeof seg === "number") meta = obj.items;
    else return null;
  }
  return { meta, ...branches(schema, meta) };
}

/** The field's title in the current language (its key when it has none). */
export function titleOf(field, key) {
  const m = field?.meta;
  return m?.title_ja ? pick({ ja: m.title_ja, en: m.title_en || m.title_ja }) : String(key);
}

/** The things an id field names, as [{value, label}] by name (null: not an id field). */
function idChoices(field, state) {
  const where = field.meta.ids;
  if (!Array.isArray(where)) return null;
  const things = getPath(state, where) || {};
  return Object.entries(things).map(([id, thing]) => ({
    value: id, label: thing && thing.name ? pick({ ja: thing.name, en: thing.en || thing.name }) : id,
  }));
}

/** The value's words: an enum's (the seed's), a phase's name, an id's thing's name. */
function enumChoices(field, path) {
  const e = field.kinds.find((k) => Array.isArray(k.enum));
  if (!e) return null;
  const words = field.meta.words || {};
  const table = phaseTableAt(path);
  return e.enum.map((v) => ({
    value: v,
    label: words[v] ? pick(words[v]) : table?.find((p) => p.id === v) ? pick(table.find((p) => p.id === v)) : String(v),
  }));
}

function phaseTableAt(path) {
  const list = phases(path[0]);
  return list.length && path.length === 2 && path[1] === "step" ? list : null;
}

/** How the editor edits this field: "enum", "id", "bool", "int", "number", "str" or "json". */
export function describe(field, path, state) {
  if (!field || field.kinds.length !== 1) {
    const choices = field && enumChoices(field, path);
    return choices ? { kind: "enum", choices, nullable: field.nullable } : { kind: "json" };
  }
  const k = field.kinds[0];
  const base = { nullable: field.nullable, title: titleOf(field, path[path.length - 1]) };
  const choices = enumChoices(field, path);
  if (choices) return { ...base, kind: "enum", choices };
  const ids = k.type === "string" ? idChoices(field, state) : null;
  if (ids) return { ...base, kind: "id", choices: ids };
  if (k.type === "boolean") return { ...base, kind: "bool" };
  if (k.type === "integer" || k.type === "number") {
    return { ...base, kind: k.type === "integer" ? "int" : "number", min: k.minimum, max: k.maximum };
  }
  if (k.type === "string") return { ...base, kind: "str", maxLength: k.maxLength };
  return { ...base, kind: "json" };
}

/** A value in words: an enum's word, an id's name, yes/no, "—" for none. */
export function valueWords(desc, value) {
  if (value === null || value === undefined) return "—";
  if (desc.choices) {
    const c = desc.choices.find((x) => x.value === value);
    if (c) return c.label;
  }
  if (typeof value === "boolean") return value ? t("sf.yes") : t("sf.no");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/**
 * The input for `desc` holding `value`: {el, read()}; read() gives the typed value or
 * throws an Error saying (ja/en) what is wrong. `label` is its accessible name, `cls` its class.
 */
export function typedInput(desc, value, label, cls = "ov-input") {
  const common = { class: cls, "aria-label": label, autofocus: true };
  switch (desc.kind) {
    case "enum":
    case "id": {
      const opts = [...desc.choices];
      if (desc.nullable) opts.unshift({ value: null, label: t("sf.none") });
      const el = h("select", common, opts.map((o, i) => h("option", {
        value: String(i), selected: o.value === (value ?? null),
      }, o.label)));
      return { el, read: () => opts[Number(el.value)].value };
    }
    case "bool": {
      const box = h("input", { type: "checkbox", checked: value === true, class: "ov-input", autofocus: true });
      const el = h("label.ov-check", box, " ", label);
      return { el, read: () => box.checked, focus: box };
    }
    case "int":
    case "number": {
      const bounds = desc.min !== undefined && desc.max !== undefined ? t("sf.range", { min: desc.min, max: desc.max }) : "";
      const el = h("input", { ...common, type: "number", step: desc.kind === "int" ? 1 : "any",
        min: desc.min, max: desc.max, value: value ?? "", inputmode: "numeric", title: bounds });
      return { el, read: () => readNumber(desc, el.value) };
    }
    case "str": {
      const el = h("input", { ...common, type: "text", value: value ?? "", maxlength: desc.maxLength });
      return { el, read: () => {
        if (desc.nullable && el.value === "") return null;
        if (desc.maxLength !== undefined && el.value.length > desc.maxLength) throw new Error(t("sf.too_long", { n: desc.maxLength }));
        return el.value;
      } };
    }
    default: {
      const el = h("textarea", { ...common, rows: 4, spellcheck: "false" }, JSON.stringify(value ?? null, null, 1));
      return { el, read: () => JSON.parse(el.value) };
    }
  }
}

function readNumber(desc, text) {
  if (text.trim() === "") {
    if (desc.nullable) return null;
    throw new Error(t(desc.kind === "int" ? "sf.need_int" : "sf.need_number"));
  }
  const n = Number(text);
  if (!Number.isFinite(n) || (desc.kind === "int" && !Number.isInteger(n))) {
    throw new Error(t(desc.kind === "int" ? "sf.need_int" : "sf.need_number"));
  }
  if (desc.min !== undefined && n < desc.min) throw new Error(t("sf.min", { min: desc.min }));
  if (desc.max !== undefined && n > desc.max) throw new Error(t("sf.max", { max: desc.max }));
  return n;
}

/** "ディーン隊 › 最大戦力": the path by the names of the things on it and the fields' titles. */
export function pathWords(schema, state, path) {
  const words = [];
  for (let i = 0; i < path.length; i += 1) {
    const node = getPath(state, path.slice(0, i + 1));
    if (node && typeof node === "object" && typeof node.name === "string" && node.name) {
      words.length = 0; // the named thing says where; the containers before it add nothing
      words.push(pick({ ja: node.name, en: node.en || node.name }));
    } else if (i === path.length - 1 || typeof path[i] === "string") {
      const field = fieldAt(schema, path.slice(0, i + 1));
      if (field?.meta?.title_ja || i === path.length - 1) words.push(titleOf(field, path[i]));
    }
  }
  return words.join(" › ");
}
