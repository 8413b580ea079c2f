// Forms generated from the scenario's JSON Schema: an object is a fieldset with its ja/en
// title, a list has add / remove / move up-down, a dict (keyed by round, by skill name…) is
// rows of key and value, an enum a picker in the seed's words, an `x-ref` a picker of the
// things it names by their names, a number an input with its bounds, a square (x, y) with a
// "place on the map" button, a list of squares drawn on the map. The inputs themselves are
// schema_form.js's typedInput (the override editor's), so both edit alike.

import { h } from "../dom.js";
import { t, pick, addStrings } from "../i18n.js";
import { typedInput } from "../schema_form.js";
import { look, titleOf, wordOf, refChoices, isCell, itemName, blank, keyOf } from "./model.js";

addStrings({
  ja: {
    "ed.add": "追加", "ed.add_to": "{what}に追加", "ed.remove": "削除", "ed.remove_what": "{what}を削除",
    "ed.up": "上へ", "ed.down": "下へ", "ed.up_what": "{what}を上へ", "ed.down_what": "{what}を下へ",
    "ed.add_part": "{what}を加える", "ed.key": "キー", "ed.key_of": "{what}のキー", "ed.new_key": "新しいキー",
    "ed.place": "地図に置く", "ed.place_what": "{what}を地図に置く", "ed.placing": "地図のマスをクリック…",
    "ed.draw": "地図に描く", "ed.draw_what": "{what}を地図に描く", "ed.drawing": "描画中（マスをクリック）",
    "ed.undo_square": "最後のマスを戻す", "ed.clear_squares": "マスを全て消す", "ed.squares": "{n}マス",
    "ed.choose": "—選んでください—", "ed.unknown": "{value}（見つかりません）", "ed.item": "{what} {n}",
    "ed.mixed_hint": "数、または {words}",
  },
  en: {
    "ed.add": "Add", "ed.add_to": "Add to {what}", "ed.remove": "Remove", "ed.remove_what": "Remove {what}",
    "ed.up": "Up", "ed.down": "Down", "ed.up_what": "Move {what} up", "ed.down_what": "Move {what} down",
    "ed.add_part": "Add {what}", "ed.key": "Key", "ed.key_of": "Key of {what}", "ed.new_key": "New key",
    "ed.place": "Place on map", "ed.place_what": "Place {what} on the map", "ed.placing": "Click a square on the map…",
    "ed.draw": "Draw on map", "ed.draw_what": "Draw {what} on the map", "ed.drawing": "Drawing (click squares)",
    "ed.undo_square": "Undo last square", "ed.clear_squares": "Clear squares", "ed.squares": "{n} squares",
    "ed.choose": "— choose —", "ed.unknown": "{value} (not found)", "ed.item": "{what} {n}",
    "ed.mixed_hint": "a number, or {words}",
  },
});

/**
 * The form of the whole scenario. `ctx`: schema, data, ui ({open: Set of keys, placing, drawing}),
 * change(path, value, structural) (structural: the form is drawn again), remove(path), move(path, by),
 * place(path), draw(path, mode), select(path); fields (Map key → {wrap, input, msg}) is filled here.
 */
export function scenarioForm(ctx) {
  ctx.fields = new Map();
  return objectBody(ctx, ctx.schema, ctx.data || {}, [], "");
}

function register(ctx, path, wrap, input, msg) {
  ctx.fields.set(keyOf(path), { wrap, input, msg, path });
}

/** One value of any kind, labelled `label` (its accessible name). */
function field(ctx, node, value, path, label) {
  const { kinds, nullable, meta } = look(ctx.schema, node);
  const obj = kinds.find((k) => k.properties);
  if (obj && isCell(ctx.schema, node)) return cellField(ctx, value, path, label);
  if (obj) return objectField(ctx, node, value, path, label, nullable);
  const arr = kinds.find((k) => k.type === "array" && k.items);
  if (arr && kinds.length === 1) {
    if (isCell(ctx.schema, arr.items)) return squaresField(ctx, meta["x-cells"] || arr["x-cells"] || "area", value, path, label);
    return listField(ctx, arr.items, value, path, label, meta);
  }
  const dict = kinds.find((k) => k.type === "object" && typeof k.additionalProperties === "object");
  if (dict && kinds.length === 1) return dictField(ctx, dict.additionalProperties, value, path, label);
  return scalarField(ctx, node, value, path, label);
}

// -- objects ---------------------------------------------------------------------------------

function objectBody(ctx, node, value, path, label) {
  const { kinds } = look(ctx.schema, node);
  const obj = kinds.find((k) => k.properties);
  const body = h("div.ed-object");
  for (const [key, sub] of Object.entries(obj?.properties || {})) {
    const title = titleOf(sub, key);
    body.appendChild(field(ctx, sub, value?.[key], [...path, key], label ? `${label} › ${title}` : title));
  }
  return body;
}

function objectField(ctx, node, value, path, label, nullable) {
  const title = label.split(" › ").pop();
  if ((value === undefined || value === null) && nullable) {
    const wrap = h("div.ed-field.ed-absent", { dataset: { path: JSON.stringify(path) } },
      h("button.small", { type: "button", dataset: { add: JSON.stringify(path) },
        on: { click: () => ctx.change(path, blank(ctx.schema, node), true) } }, t("ed.add_part", { what: title })));
    register(ctx, path, wrap, wrap.firstChild, null);
    return wrap;
  }
  const msg = h("div.ed-problem", { role: "note" });
  const legend = h("legend", title,
    nullable ? h("button.small.danger", { type: "button", dataset: { remove: JSON.stringify(path) },
      "aria-label": t("ed.remove_what", { what: label }), on: { click: () => ctx.remove(path) } }, t("ed.remove")) : null);
  const set = h("fieldset.ed-group", { dataset: { path: JSON.stringify(path) } }, legend, msg,
    objectBody(ctx, node, value || {}, path, label));
  register(ctx, path, set, null, msg);
  return set;
}

// -- lists and dicts -----------------------------------------------------------------------------

function listField(ctx, items, value, path, label, meta) {
  const list = Array.isArray(value) ? value : [];
  const title = label.split(" › ").pop();
  // a list of ids may carry its `x-ref` on the list rather than on its items
  if (meta?.["x-ref"] && !items?.["x-ref"]) items = { ...items, "x-ref": meta["x-ref"] };
  const msg = h("div.ed-problem", { role: "note" });
  const itemLook = look(ctx.schema, items);
  const objects = itemLook.kinds.some((k) => k.properties);
  const rows = list.map((item, i) => {
    const p = [...path, i];
    const itemLabel = objects ? (itemName(ctx.schema, ctx.data, items, item) || t("ed.item", { what: title, n: i + 1 }))
      : t("ed.item", { what: title, n: i + 1 });
    const tools = h("span.ed-item-tools",
      h("button.small", { type: "button", disabled: i === 0, "aria-label": t("ed.up_what", { what: itemLabel }),
        dataset: { up: JSON.stringify(p) }, on: { click: () => ctx.move(p, -1) } }, "↑"),
      h("button.small", { type: "button", disabled: i === list.length - 1, "aria-label": t("ed.down_what", { what: itemLabel }),
        dataset: { down: JSON.stringify(p) }, on: { click: () => ctx.move(p, 1) } }, "↓"),
      h("button.small.danger", { type: "button", "aria-label": t("ed.remove_what", { what: itemLabel }),
        dataset: { remove: JSON.stringify(p) }, on: { click: () => ctx.remove(p) } }, "×"));
    if (!objects) {
      const one = field(ctx, items, item, p, itemLabel);
      return h("div.ed-row", one, tools);
    }
    const open = ctx.ui.open.has(keyOf(p));
    const det = h("details.ed-item", { open, dataset: { path: JSON.stringify(p) } },
      h("summary", h("span.ed-item-title", itemLabel), tools),
      objectBody(ctx, items, item, p, itemLabel));
    det.addEventListener("toggle", () => {
      if (det.open) ctx.ui.open.add(keyOf(p));
      else ctx.ui.open.delete(keyOf(p));
    });
    det.addEventListener("focusin", () => ctx.select(p, false));
    register(ctx, p, det, null, null);
    return det;
  });
  const add = h("button.small.ed-add", { type: "button", dataset: { add: JSON.stringify(path) },
    "aria-label": t("ed.add_to", { what: label }),
    on: { click: () => {
      const taken = new Set(list.map((x) => x?.id).filter(Boolean));
      const fresh = blank(ctx.schema, items, taken, String(path[path.length - 1]).replace(/s$/, ""));
      ctx.ui.open.add(keyOf([...path, list.length]));
      ctx.change(path, [...list, fresh], true);
    } } }, `+ ${t("ed.add")}`);
  const wrap = h("fieldset.ed-group.ed-list", { dataset: { path: JSON.stringify(path), ref: meta?.["x-ref"] ? "1" : undefined } },
    h("legend", title, h("span.muted.small", ` (${list.length})`)), msg, rows, add);
  register(ctx, path, wrap, null, msg);
  return wrap;
}

function dictField(ctx, values, value, path, label) {
  const dict = value && typeof value === "object" ? value : {};
  const title = label.split(" › ").pop();
  const msg = h("div.ed-problem", { role: "note" });
  const rename = (from, to) => {
    if (!to || to === from || to in dict) return;
    const next = {};
    for (const [k, v] of Object.entries(dict)) next[k === from ? to : k] = v;
    ctx.change(path, next, true);
  };
  const rows = Object.entries(dict).map(([key, v]) => {
    const p = [...path, key];
    const keyInput = h("input.ed-key", { type: "text", value: key, "aria-label": t("ed.key_of", { what: `${label} ${key}` }),
      dataset: { key: JSON.stringify(p) }, on: { change: (ev) => rename(key, ev.target.value.trim()) } });
    const remove = h("button.small.danger", { type: "button", "aria-label": t("ed.remove_what", { what: `${label} ${key}` }),
      dataset: { remove: JSON.stringify(p) }, on: { click: () => ctx.remove(p) } }, "×");
    return h("div.ed-dict-row", { dataset: { path: JSON.stringify(p) } }, h("div.ed-row", keyInput, remove),
      field(ctx, values, v, p, `${label} › ${key}`));
  });
  const newKey = h("input.ed-key.ed-new-key", { type: "text", placeholder: t("ed.new_key"),
    "aria-label": t("ed.new_key") + ` (${label})`, dataset: { newKey: JSON.stringify(path) } });
  const add = h("button.small.ed-add", { type: "button", dataset: { addKey: JSON.stringify(path) },
    "aria-label": t("ed.add_to", { what: label }),
    on: { click: () => {
      const k = newKey.value.trim();
      if (!k || k in dict) return;
      ctx.change(path, { ...dict, [k]: blank(ctx.schema, values) }, true);
    } } }, `+ ${t("ed.add")}`);
  const wrap = h("fieldset.ed-group.ed-dict", { dataset: { path: JSON.stringify(path) } },
    h("legend", title), msg, rows, h("div.ed-row", newKey, add));
  register(ctx, path, wrap, null, msg);
  return wrap;
}

// -- squares -------------------------------------------------------------------------------------

function cellField(ctx, value, path, label) {
  const msg = h("div.ed-problem", { role: "note" });
  const num = (axis) => h("input.ed-num", { type: "number", step: 1, value: value?.[axis] ?? "",
    "aria-label": `${label} ${axis}`, dataset: { path: JSON.stringify([...path, axis]) },
    on: { input: (ev) => {
      const n = Number(ev.target.value);
      if (ev.target.value === "" || !Number.isInteger(n)) return;
      ctx.change(path, { ...(value || { x: 0, y: 0 }), [axis]: n }, false);
      value = { ...(value || { x: 0, y: 0 }), [axis]: n };
    } } });
  const x = num("x");
  const y = num("y");
  const placing = ctx.ui.placing && keyOf(ctx.ui.placing) === keyOf(path);
  const wrap = h("div.ed-field.ed-cell", { dataset: { path: JSON.stringify(path) } },
    h("span.ed-label", label.split(" › ").pop()), h("span.ed-xy", "x ", x, " y ", y),
    h("button.small.ed-place", { type: "button", "aria-pressed": placing ? "true" : "false",
      "aria-label": t("ed.place_what", { what: label }), dataset: { place: JSON.stringify(path) },
      on: { click: () => ctx.place(placing ? null : path) } }, placing ? t("ed.placing") : t("ed.place")),
    msg);
  register(ctx, path, wrap, x, msg);
  return wrap;
}

function squaresField(ctx, mode, value, path, label) {
  const cells = Array.isArray(value) ? value : [];
  const msg = h("div.ed-problem", { role: "note" });
  const drawing = ctx.ui.drawing && keyOf(ctx.ui.drawing.path) === keyOf(path);
  const words = cells.map((c) => `(${c.x},${c.y})`).join(mode === "path" ? " → " : " ");
  const wrap = h("div.ed-field.ed-squares", { dataset: { path: JSON.stringify(path), mode } },
    h("span.ed-label", label.split(" › ").pop()),
    h("span.ed-cells-words.small", { title: words }, words || "—", " ", h("span.muted", t("ed.squares", { n: cells.length }))),
    h("span.ed-row",
      h("button.small.ed-draw", { type: "button", "aria-pressed": drawing ? "true" : "false",
        "aria-label": t("ed.draw_what", { what: label }), dataset: { draw: JSON.stringify(path) },
        on: { click: () => ctx.draw(drawing ? null : path, mode) } }, drawing ? t("ed.drawing") : t("ed.draw")),
      h("button.small", { type: "button", disabled: !cells.length, "aria-label": `${t("ed.undo_square")} (${label})`,
        dataset: { undoSquare: JSON.stringify(path) }, on: { click: () => ctx.change(path, cells.slice(0, -1), true) } }, t("ed.undo_square")),
      h("button.small", { type: "button", disabled: !cells.length, "aria-label": `${t("ed.clear_squares")} (${label})`,
        on: { click: () => ctx.change(path, [], true) } }, t("ed.clear_squares"))),
    msg);
  register(ctx, path, wrap, wrap.querySelector("button"), msg);
  return wrap;
}

// -- single values -------------------------------------------------------------------------------

/** How a single value is edited: a typedInput description, or "mixed" (number or a word). */
function describeScalar(ctx, node, path, label) {
  const { kinds, nullable, meta } = look(ctx.schema, node);
  const title = label;
  const strings = kinds.filter((k) => k.type === "string" && !k.enum);
  const enums = kinds.filter((k) => Array.isArray(k.enum));
  const numbers = kinds.filter((k) => k.type === "integer" || k.type === "number");
  const refs = refChoices(ctx.data, meta, null, ctx.schema);
  if (refs && strings.length) return { kind: "id", choices: refs, nullable, title, meta };
  if (enums.length && !numbers.length && !strings.length) {
    const choices = enums.flatMap((e) => e.enum.map((v) => ({ value: v, label: wordOf(meta, e, v) })));
    return { kind: "enum", choices, nullable, title };
  }
  if (numbers.length && (enums.length || strings.length)) return { kind: "mixed", enums, numbers, nullable, title, meta };
  if (kinds.length === 1 && kinds[0].type === "boolean") return { kind: "bool", nullable, title };
  if (numbers.length === 1 && kinds.length === 1) {
    const k = numbers[0];
    return { kind: k.type === "integer" ? "int" : "number", min: k.minimum, max: k.maximum, nullable, title };
  }
  if (strings.length === 1 && kinds.length === 1) return { kind: "str", maxLength: strings[0].maxLength, nullable, title };
  if (kinds.length > 1 && kinds.every((k) => k.type === "boolean")) return { kind: "bool", nullable, title };
  return { kind: "json", nullable, title };
}

function scalarField(ctx, node, value, path, label) {
  const desc = describeScalar(ctx, node, path, label);
  const shown = value === undefined ? node?.default : value;
  const msg = h("div.ed-problem", { role: "note" });
  const wrap = h("div.ed-field", { dataset: { path: JSON.stringify(path), kind: desc.kind } });
  let input;
  if (desc.kind === "mixed") input = mixedInput(ctx, desc, shown, path, label, msg);
  else if (desc.kind === "id" || desc.kind === "enum") input = pickerInput(ctx, desc, shown, value, path, label);
  else {
    // a checkbox's label is its visible text: the field's own title (the item's name is around it)
    const typed = typedInput(desc, shown, desc.kind === "bool" ? label.split(" › ").pop() : label, "ed-input");
    input = typed.focus || typed.el;
    const read = () => {
      try {
        const v = typed.read();
        msg.textContent = "";
        ctx.change(path, v, false);
      } catch (e) {
        msg.textContent = e.message;
      }
    };
    input.addEventListener(desc.kind === "bool" ? "change" : "input", read);
    input.removeAttribute("autofocus");
    if (desc.kind === "bool") input.setAttribute("aria-label", label);
    input.dataset.path = JSON.stringify(path);
    const min = desc.min !== undefined && desc.max !== undefined && desc.max < 1e9 ? h("span.muted.small", ` ${desc.min}–${desc.max}`) : null;
    wrap.append(desc.kind === "bool" ? typed.el : h("label.ed-label", h("span", label.split(" › ").pop()), input, min), hint(node) || "", msg);
    register(ctx, path, wrap, input, msg);
    return wrap;
  }
  wrap.append(h("label.ed-label", h("span", label.split(" › ").pop()), input), hint(node) || "", msg);
  register(ctx, path, wrap, input, msg);
  return wrap;
}

/** The field's description (`description_ja`/`description_en`), when the schema has one. */
function hint(node) {
  return node?.description_ja ? h("div.muted.small.ed-hint", pick({ ja: node.description_ja, en: node.description_en || node.description_ja })) : null;
}

function pickerInput(ctx, desc, shown, value, path, label) {
  const build = () => {
    // an id picker lists the things as they are now (a name typed since the form was drawn)
    const opts = desc.kind === "id" ? [...(refChoices(ctx.data, desc.meta, null, ctx.schema) || [])] : [...desc.choices];
    const cur = shown ?? null;
    if (desc.nullable) opts.unshift({ value: null, label: t("sf.none") });
    if (cur !== null && !opts.some((o) => o.value === cur)) opts.push({ value: cur, label: t("ed.unknown", { value: cur }) });
    if (cur === null && !desc.nullable) opts.unshift({ value: undefined, label: t("ed.choose") });
    return opts;
  };
  let opts = [];
  const sel = h("select.ed-input", { "aria-label": label, dataset: { path: JSON.stringify(path) } });
  const fill = () => {
    opts = build();
    const want = shown ?? (desc.nullable ? null : undefined);
    sel.replaceChildren(...opts.map((o, i) => h("option", { value: String(i), selected: o.value === want,
      dataset: { value: o.value === undefined ? undefined : JSON.stringify(o.value) } }, o.label)));
  };
  fill();
  if (desc.kind === "id") sel.addEventListener("focus", fill);
  sel.addEventListener("change", () => {
    const o = opts[Number(sel.value)];
    if (!o || o.value === undefined) return;
    shown = o.value;
    ctx.change(path, o.value, false);
  });
  void value;
  return sel;
}

/** A number or one of the schema's words (∞): typed as text, read as a number where it is one. */
function mixedInput(ctx, desc, shown, path, label, msg) {
  const words = desc.enums.flatMap((e) => e.enum);
  const el = h("input.ed-input", { type: "text", value: shown ?? "", "aria-label": label,
    title: t("ed.mixed_hint", { words: words.join(" / ") }), dataset: { path: JSON.stringify(path) } });
  el.addEventListener("input", () => {
    const text = el.value.trim();
    msg.textContent = "";
    if (text === "") {
      if (desc.nullable) ctx.change(path, null, false);
      return;
    }
    if (words.includes(text)) {
      ctx.change(path, text, false);
      return;
    }
    const n = Number(text);
    if (!Number.isFinite(n)) {
      msg.textContent = t("ed.mixed_hint", { words: words.join(" / ") });
      return;
    }
    ctx.change(path, n, false);
  });
  return el;
}
