// Inline override: click a value, pick or type the new one and a reason; the rule that
// would have applied (declared by the panels, see registry.js `rules`) is shown beside it.
// The input is generated from the state's JSON Schema (schema_form.js): pickers in the
// seed's words, numbers within their bounds, checkboxes, ids by name; a raw JSON view for
// experts. Before applying, the engine's dry run (`dry_run`, on a copy of the room) says
// what the edit would cause, and what the panel's next step would then bring (lookahead).
// Sends the `override` action {path, value, reason} (or {path, delete: true, reason}).

import { h, fmtValue, pathKey, pathText } from "./dom.js";
import { t, pick, addStrings } from "./i18n.js";
import { rulesFor, lookaheadFor } from "./registry.js";
import { getPath } from "./store.js";
import { showPopover, closePopover, replacePopover, toast } from "./ui.js";
import { loadSchema, fieldAt, describe, typedInput, valueWords, pathWords } from "./schema_form.js";

addStrings({
  ja: {
    "override.raw": "JSONで編集（上級者向け）",
    "override.effects": "この修正で起きること",
    "override.effects.wait": "確認しています…",
    "override.effects.none": "ほかに変わる値はありません。",
    "override.effects.refused": "このままでは適用できません: {why}",
    "override.then": "続けてGMが次へ進めると:",
    "override.then.refused": "続けて次へは進めません: {why}",
    "override.more": "ほか{n}件",
    "override.preview_reason": "（適用前の確認）",
    "override.applied": "{what} → {v}（v{n}）",
  },
  en: {
    "override.raw": "Edit as JSON (experts)",
    "override.effects": "What this edit causes",
    "override.effects.wait": "Checking…",
    "override.effects.none": "No other value changes.",
    "override.effects.refused": "Cannot be applied as it is: {why}",
    "override.then": "If the GM then moves on:",
    "override.then.refused": "Moving on would then be refused: {why}",
    "override.more": "{n} more",
    "override.preview_reason": "(checked before applying)",
    "override.applied": "{what} → {v} (v{n})",
  },
});

const MAX_CHANGES = 12;

/** Infer the editor for a value the schema does not type: int, number, bool, str, enum or json. */
function legacyDesc(value, opts) {
  if (opts.options) return { kind: "enum", choices: opts.options.map((o) => ({ value: o.value, label: o.label ?? fmtValue(o.value) })) };
  const kind = opts.type || (typeof value === "boolean" ? "bool"
    : typeof value === "number" ? (Number.isInteger(value) ? "int" : "number")
      : typeof value === "string" ? "str" : "json");
  return { kind };
}

export function ruleLines(path) {
  const rules = rulesFor(path);
  if (!rules.length) return [h("div.rule.rule-none", t("override.no_rule"))];
  return rules.map((r) => h("div.rule", { dataset: { rule: r.rule } },
    h("b", r.rule), ": ", pick(r)));
}

function why(r) {
  return `${r.rule ? `${r.rule}: ` : ""}${pick(r.reason)}`;
}

/** One changed value in words: "ボリス隊 › 敗走: いいえ → はい". */
function changeLine(schema, state, c) {
  const field = fieldAt(schema, c.path);
  const desc = field ? describe(field, c.path, state) : { kind: "json" };
  return h("li.ov-change", { dataset: { path: pathKey(c.path) } },
    `${pathWords(schema, state, c.path)}: ${c.had ? valueWords(desc, c.old) : "—"} → ${c.has ? valueWords(desc, c.new) : "—"}`);
}

/** A step's log sentences and changed values (`skip`: the edited path, told already). */
function stepLines(schema, state, step, skip) {
  // Every sentence is kept (they say what happened); a long list of values is cut.
  const said = step.log.map((x) => h("li.ov-said", pick(x)));
  const changes = step.changes.filter((c) => pathKey(c.path) !== skip);
  const shown = changes.slice(0, MAX_CHANGES).map((c) => changeLine(schema, state, c));
  const more = changes.length - shown.length;
  return [...said, ...shown, more > 0 ? h("li.muted", t("override.more", { n: more })) : null].filter(Boolean);
}

function effectsOf(schema, state, reply, path, lookahead) {
  if (reply.type !== "dry_run.result") return [h("div.pop-error", pick(reply.reason))];
  const out = [];
  const [edit, next] = reply.steps;
  if (reply.refused?.step === 0) return [h("div.pop-error", t("override.effects.refused", { why: why(reply.refused) }))];
  // The override's own timeline line ("GM修正: …") comes first and repeats the edit.
  const own = stepLines(schema, state, { ...edit, log: edit.log.slice(1) }, pathKey(path));
  out.push(own.length ? h("ul.ov-effects-list", own) : h("div.muted", t("override.effects.none")));
  if (lookahead && next) {
    out.push(h("div.ov-then", t("override.then")), h("ul.ov-effects-list.ov-then-list", stepLines(schema, state, next, null)));
  } else if (lookahead && reply.refused?.step === 1) {
    out.push(h("div.ov-then.muted", t("override.then.refused", { why: why(reply.refused) })));
  }
  return out;
}

/**
 * Open the override editor for `path` next to `anchor`.
 * opts: type, options (enum [{value, label}]), deletable, label — used where the state's
 * schema does not type the value.
 */
export async function openEditor(app, anchor, path, opts = {}) {
  const schema = await loadSchema();
  const state = app.store.state;
  const current = getPath(state, path);
  const field = fieldAt(schema, path);
  const typed = field ? describe(field, path, state) : null;
  const desc = typed && typed.kind !== "json" ? typed : legacyDesc(current, opts);
  const where = schema ? pathWords(schema, state, path) : pathText(path);
  const input = typedInput(desc, current, where);
  const raw = typedInput({ kind: "json" }, current, t("override.raw"), "ov-raw-input");
  raw.el.hidden = true;
  const rawToggle = h("input", { type: "checkbox", class: "ov-raw-toggle" });
  const reason = h("input.reason", { type: "text", maxlength: 500, placeholder: t("override.reason"),
                                     "aria-label": t("override.reason") });
  const err = h("div.pop-error", { role: "alert" });
  const currentEl = h("span.ov-current", valueWords(desc, current));
  const changed = h("div.ov-changed");
  const effects = h("div.ov-effects-body", { "aria-live": "polite" });
  const lookahead = lookaheadFor(path, state);
  let busy = false;
  let asked = 0;
  let timer;

  const unsubscribe = app.store.subscribe(() => {
    const now = getPath(app.store.state, path);
    currentEl.textContent = valueWords(desc, now);
    changed.textContent = JSON.stringify(now) !== JSON.stringify(current)
      ? t("override.changed", { v: valueWords(desc, now) }) : "";
  });

  const read = () => (rawToggle.checked ? raw.read() : input.read());

  const preview = async () => {
    let value;
    try {
      value = read();
    } catch (e) {
      effects.replaceChildren(h("div.pop-error", e instanceof SyntaxError ? t("override.bad_json", { why: e.message }) : e.message));
      return;
    }
    const n = ++asked;
    effects.replaceChildren(h("div.muted", t("override.effects.wait")));
    const edit = { kind: "override", path, value, reason: reason.value.trim() || t("override.preview_reason") };
    const reply = await app.conn.request({ type: "dry_run", actions: lookahead ? [edit, lookahead] : [edit] });
    if (n !== asked) return; // a later edit's answer is the one to show
    effects.replaceChildren(...effectsOf(schema, app.store.state, reply, path, lookahead));
    replacePopover(); // the consequences made it taller: keep Apply on screen
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(preview, 250); };

  const send = async (action) => {
    if (busy) return;
    if (!action.reason) {
      err.textContent = t("override.need_reason");
      reason.focus();
      return;
    }
    busy = true;
    err.textContent = "";
    const reply = await app.conn.action(action);
    busy = false;
    if (reply.type === "ack") {
      closePopover();
      toast(t("override.applied", { what: where, v: action.delete ? "∅" : valueWords(desc, action.value), n: reply.version }), "ok", 2500);
    } else {
      err.textContent = why(reply);
    }
  };

  const submit = (ev) => {
    ev.preventDefault();
    let value;
    try {
      value = read();
    } catch (e) {
      err.textContent = e instanceof SyntaxError ? t("override.bad_json", { why: e.message }) : e.message;
      return;
    }
    send({ kind: "override", path, value, reason: reason.value.trim() });
  };

  rawToggle.addEventListener("change", () => {
    if (rawToggle.checked) {
      try { raw.el.value = JSON.stringify(input.read(), null, 1); } catch { /* keep the last JSON */ }
    }
    raw.el.hidden = !rawToggle.checked;
    input.el.hidden = rawToggle.checked;
    later();
  });
  for (const el of [input.el, raw.el]) {
    el.addEventListener("input", later);
    el.addEventListener("change", later);
  }

  const form = h("form.pop-form.ov-form", { on: { submit }, novalidate: true, dataset: { path: pathKey(path), kind: desc.kind } },
    // the panel's label only where the schema does not name the value (the path says it)
    h("div.pop-title", t("override.title"), opts.label && !field?.meta?.title_ja ? ` — ${opts.label}` : ""),
    h("div.ov-path", h("span.muted", t("override.path"), " "), h("b.ov-where", where)),
    h("div.ov-rules", h("div.muted", t("override.rule")), ruleLines(path)),
    h("div.ov-row", h("span.muted", t("override.current"), " "), currentEl),
    changed,
    desc.kind === "bool" ? input.el : h("label", t("override.new"), input.el),
    h("label.ov-raw", h("span", rawToggle, " ", t("override.raw")), raw.el),
    h("div.ov-effects", h("div.muted", t("override.effects")), effects),
    h("label", t("override.reason"), reason),
    err,
    h("div.pop-buttons",
      h("button.primary", { type: "submit" }, t("override.apply")),
      opts.deletable ? h("button.danger", { type: "button", on: { click: () =>
        send({ kind: "override", path, delete: true, reason: reason.value.trim() }) } }, t("override.delete")) : null,
      h("button", { type: "button", on: { click: () => closePopover() } }, t("cancel"))));
  showPopover(anchor, form, { onClose: () => { clearTimeout(timer); unsubscribe(); }, label: t("override.title") });
  const focus = input.focus || input.el;
  if (focus.select) focus.select();
  preview();
}

/**
 * A value a GM can click to override (a plain span for a viewer).
 * `display` is what to show (defaults to the value itself).
 */
export function editable(app, path, value, opts = {}) {
  const shown = opts.display ?? fmtValue(value);
  if (!app.isGM) return h("span.val", shown);
  const title = rulesFor(path).map((r) => `${r.rule}: ${pick(r)}`).join("\n") || t("override.title");
  return h("button.ov", {
    type: "button",
    title,
    dataset: { path: pathKey(path) },
    on: { click: (ev) => { ev.stopPropagation(); openEditor(app, ev.currentTarget, path, opts); } },
  }, shown);
}
