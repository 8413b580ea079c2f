// Inline override: click a value, type the new one and a reason; the rule that would
// have applied (declared by the panels, see registry.js `rules`) is shown beside it.
// Sends the `override` action {path, value, reason} (or {path, delete: true, reason}).

import { h, pathText, fmtValue, pathKey } from "./dom.js";
import { t, pick } from "./i18n.js";
import { rulesFor } from "./registry.js";
import { getPath } from "./store.js";
import { showPopover, closePopover, toast } from "./ui.js";

/** Infer the editor for a value: int, number, bool, str, enum (opts.options) or json. */
function kindOf(value, opts) {
  if (opts.type) return opts.type;
  if (opts.options) return "enum";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "number";
  if (typeof value === "string") return "str";
  return "json";
}

function inputFor(kind, value, opts) {
  const common = { class: "ov-input", "aria-label": t("override.new"), autofocus: true };
  switch (kind) {
    case "int":
    case "number":
      return h("input", { ...common, type: "number", step: kind === "int" ? 1 : "any",
                          value: value ?? 0, inputmode: "numeric" });
    case "bool":
      return h("select", common,
        h("option", { value: "true", selected: value === true }, "true"),
        h("option", { value: "false", selected: value !== true }, "false"));
    case "enum":
      return h("select", common, opts.options.map((o) => h("option", {
        value: JSON.stringify(o.value), selected: JSON.stringify(o.value) === JSON.stringify(value),
      }, o.label ?? fmtValue(o.value))));
    case "str":
      return h("input", { ...common, type: "text", value: value ?? "" });
    default:
      return h("textarea", { ...common, rows: 4, spellcheck: "false" },
        JSON.stringify(value, null, 1));
  }
}

function readInput(kind, input) {
  switch (kind) {
    case "int": {
      const n = Number(input.value);
      if (input.value.trim() === "" || !Number.isInteger(n)) throw new Error(t("override.need_int"));
      return n;
    }
    case "number":
      return Number(input.value);
    case "bool":
      return input.value === "true";
    case "enum":
      return JSON.parse(input.value);
    case "str":
      return input.value;
    default:
      return JSON.parse(input.value);
  }
}

export function ruleLines(path) {
  const rules = rulesFor(path);
  if (!rules.length) return [h("div.rule.rule-none", t("override.no_rule"))];
  return rules.map((r) => h("div.rule", { dataset: { rule: r.rule } },
    h("b", r.rule), ": ", pick(r)));
}

/**
 * Open the override editor for `path` next to `anchor`.
 * opts: type, options (enum [{value, label}]), deletable, label.
 */
export function openEditor(app, anchor, path, opts = {}) {
  const current = getPath(app.store.state, path);
  const kind = kindOf(current, opts);
  const input = inputFor(kind, current, opts);
  const reason = h("input.reason", { type: "text", maxlength: 500, placeholder: t("override.reason"),
                                     "aria-label": t("override.reason") });
  const err = h("div.pop-error", { role: "alert" });
  const currentEl = h("code.ov-current", fmtValue(current));
  const changed = h("div.ov-changed");
  let busy = false;

  const unsubscribe = app.store.subscribe(() => {
    const now = getPath(app.store.state, path);
    currentEl.textContent = fmtValue(now);
    changed.textContent = JSON.stringify(now) !== JSON.stringify(current)
      ? t("override.changed", { v: fmtValue(now) }) : "";
  });

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
      toast(`${pathText(path)} → ${action.delete ? "∅" : fmtValue(action.value)} (v${reply.version})`, "ok", 2500);
    } else {
      err.textContent = `${reply.rule ? reply.rule + " " : ""}${reply.code}: ${pick(reply.reason)}`;
    }
  };

  const submit = (ev) => {
    ev.preventDefault();
    let value;
    try {
      value = readInput(kind, input);
    } catch (e) {
      err.textContent = e instanceof SyntaxError ? t("override.bad_json", { why: e.message }) : e.message;
      return;
    }
    send({ kind: "override", path, value, reason: reason.value.trim() });
  };

  const form = h("form.pop-form.ov-form", { on: { submit }, novalidate: true, dataset: { path: pathKey(path) } },
    h("div.pop-title", t("override.title"), opts.label ? ` — ${opts.label}` : ""),
    h("div.ov-path", h("span.muted", t("override.path"), " "), h("code", pathText(path))),
    h("div.ov-rules", h("div.muted", t("override.rule")), ruleLines(path)),
    h("div.ov-row", h("span.muted", t("override.current"), " "), currentEl),
    changed,
    h("label", t("override.new"), input),
    h("label", t("override.reason"), reason),
    err,
    h("div.pop-buttons",
      h("button.primary", { type: "submit" }, t("override.apply")),
      opts.deletable ? h("button.danger", { type: "button", on: { click: () =>
        send({ kind: "override", path, delete: true, reason: reason.value.trim() }) } }, t("override.delete")) : null,
      h("button", { type: "button", on: { click: () => closePopover() } }, t("cancel"))));
  showPopover(anchor, form, { onClose: unsubscribe, label: t("override.title") });
  if (input.select) input.select();
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
