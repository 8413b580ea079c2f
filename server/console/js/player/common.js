// Shared pieces of the player's controls (panels in player/*.js).
//
// Every control has a key ("pc1.attack"). Form values live in `ctx.ui.form[key…]`, so a
// re-render after someone else's change keeps what the player picked or typed (app.js
// also gives focus back to the field marked `data-keep`). What the server answered to a
// control lives in `ctx.ui.out[key]` and is shown right under it: the refusal with its
// rule ID and reason (in the current language), or the version and the log lines of the
// change it made. A refusal stays until the control is used again; "done" goes after a
// few seconds, and at once when the room moves past its version (another change, an undo):
// it must never describe a state that is no longer the room's.

import { h } from "../dom.js";
import { addStrings, t, pick } from "../i18n.js";

addStrings({
  ja: {
    "pl.refused": "拒否",
    "pl.error": "エラー",
    "pl.done": "反映しました（v{v}）",
    "pl.sending": "送信中…",
    "pl.roll": "ダイス",
    "pl.roll.engine": "komasyncで振る",
    "pl.roll.paste": "BCDiceの結果を貼る",
    "pl.paste.one": "BCDiceの結果（1行）",
    "pl.paste.many": "BCDiceの結果（1回1行）",
    "pl.paste.example": "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 42 ＞ 42 ＞ レギュラー成功",
    "pl.need_lines": "結果の行を貼り付けてください。",
    "pl.paste.off": "この部屋では、ここに貼った結果は使えません（GMの設定）。VTTで振るか、komasyncに振らせてください。",
    "pl.you": "あなた",
    "pl.as_gm": "GMとして",
    "pl.as_gm.for": "GMとして（{who}の代わり）",
  },
  en: {
    "pl.refused": "Refused",
    "pl.error": "Error",
    "pl.done": "Done (v{v})",
    "pl.sending": "sending…",
    "pl.roll": "Dice",
    "pl.roll.engine": "roll with komasync",
    "pl.roll.paste": "paste BCDice results",
    "pl.paste.one": "BCDice result (one line)",
    "pl.paste.many": "BCDice results (one line per shot)",
    "pl.paste.example": "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 42 ＞ 42 ＞ レギュラー成功",
    "pl.need_lines": "Paste the result lines.",
    "pl.paste.off": "Results pasted here are not accepted in this room (the GM's setting). Roll on the VTT, or let komasync roll.",
    "pl.you": "you",
    "pl.as_gm": "as GM",
    "pl.as_gm.for": "as GM (for {who})",
  },
});

const form = (ctx) => (ctx.ui.form ||= {});
const outs = (ctx) => (ctx.ui.out ||= {});

/** How long a "done" note stays while nothing else happens in the room. */
export const DONE_MS = 8000;

/**
 * Drop the "done" notes of a panel's kept state `ui` made at a version before `version`
 * (the room moved on). True if one was dropped: the panel must be drawn again.
 */
export function dropStale(ui, version) {
  let dropped = false;
  for (const [key, out] of Object.entries(ui.out || {})) {
    if (out.ok && version !== null && version > out.version) {
      delete ui.out[key];
      dropped = true;
    }
  }
  return dropped;
}

/** The value kept for `key` (or `dflt`). */
export function val(ctx, key, dflt) {
  const f = form(ctx);
  return key in f ? f[key] : dflt;
}

export function setVal(ctx, key, value) {
  form(ctx)[key] = value;
}

/** Drop the kept values of these keys (the fields show the state's values again). */
export function unset(ctx, ...keys) {
  for (const k of keys) delete form(ctx)[k];
}

/**
 * A <select> whose choice survives re-renders. `options` = [{value, label, group?,
 * disabled?}]; a kept value that is no longer offered falls back to `dflt` (or the
 * first option). `redraw`: re-render the panel on change (other fields depend on it).
 */
export function select(ctx, key, options, { dflt, label, redraw = false, name } = {}) {
  let current = val(ctx, key, dflt);
  if (!options.some((o) => o.value === current && !o.disabled)) {
    current = options.find((o) => !o.disabled)?.value ?? "";
  }
  setVal(ctx, key, current);
  const groups = new Map();
  for (const o of options) {
    if (!groups.has(o.group ?? "")) groups.set(o.group ?? "", []);
    groups.get(o.group ?? "").push(h("option", { value: o.value, selected: o.value === current, disabled: o.disabled }, o.label));
  }
  const children = [...groups].map(([g, opts]) => (g ? h("optgroup", { label: g }, opts) : opts));
  return h("select", {
    name, "aria-label": label, dataset: { keep: key },
    on: { change: (ev) => { setVal(ctx, key, ev.target.value); if (redraw) ctx.refresh(); } },
  }, children);
}

/** An <input> (number or text) whose value survives re-renders; `onInput` after typing. */
export function input(ctx, key, attrs = {}, dflt = "", onInput = null) {
  return h("input", {
    ...attrs, value: String(val(ctx, key, dflt)), dataset: { keep: key },
    on: { input: (ev) => { setVal(ctx, key, ev.target.value); if (onInput) onInput(ev); } },
  });
}

/**
 * Fields that show a value of the state (a square, a counter) until the player types:
 * what they typed is kept while that value stays as it was when they typed, and dropped
 * (the fields follow the state again) once it changes.
 */
export function follow(ctx, key, current, fieldKeys) {
  const now = JSON.stringify(current ?? null);
  if (val(ctx, `${key}.base`, now) !== now) unset(ctx, `${key}.base`, ...fieldKeys);
  return () => setVal(ctx, `${key}.base`, now);
}

/** A labelled field: the small caption above the control. */
export function field(caption, control, cls = "") {
  return h(`label.pl-field${cls ? `.${cls}` : ""}`, h("span", caption), control);
}

/** Whether the room accepts results typed here: from the GM always (engine Tx.check_reported_roll), from a
 * player when the GM allows it (`meta.player_rolls`). */
function pasteAllowed(ctx) {
  return !!ctx.isGM || ctx.state?.meta?.player_rolls === "allow";
}

/**
 * "roll with komasync" or "paste BCDice results": radio buttons and, for pasting, a
 * textarea (`many`: one line per shot). Pasting is offered only when the GM allows typed
 * results (`room.player_rolls`). Returns the node; read it with readRoll().
 */
export function rollChoice(ctx, key, { many = false } = {}) {
  const allowed = pasteAllowed(ctx);
  const mode = allowed ? val(ctx, `${key}.mode`, "engine") : "engine";
  const radio = (value, text, disabled = false) => h("label.pl-radio",
    h("input", { type: "radio", name: `${key}.mode`, value, checked: mode === value, disabled,
                 dataset: { keep: `${key}.mode.${value}` },
                 on: { change: () => { setVal(ctx, `${key}.mode`, value); ctx.refresh(); } } }),
    " ", text);
  const area = mode === "paste"
    ? h("textarea.pl-lines", {
      rows: many ? 3 : 1, spellcheck: "false", "aria-label": t(many ? "pl.paste.many" : "pl.paste.one"),
      placeholder: t("pl.paste.example"), dataset: { keep: `${key}.lines` },
      on: { input: (ev) => setVal(ctx, `${key}.lines`, ev.target.value) },
    }, val(ctx, `${key}.lines`, ""))
    : null;
  return h("div.pl-roll", { dataset: { mode } },
    h("div.pl-radios", { role: "radiogroup", "aria-label": t("pl.roll") },
      radio("engine", t("pl.roll.engine")), radio("paste", t("pl.roll.paste"), !allowed)),
    allowed ? null : h("div.muted.small.pl-paste-off", t("pl.paste.off")),
    area ? field(t(many ? "pl.paste.many" : "pl.paste.one"), area, "wide") : null);
}

/** Zero-width characters copied text carries (the Foundry BCDice modules put U+200B after every comma). */
const ZERO_WIDTH = /\u200b|\u200c|\u200d|\u2060|\ufeff/g; // alternatives: U+200D in a class trips no-misleading-character-class

/** The pasted text's result lines, zero-width characters dropped, blank lines skipped. */
export function rollLines(text) {
  return String(text).replace(ZERO_WIDTH, "").split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

/** null = let the server roll; [] = pasting but nothing pasted; else the lines. */
export function readRoll(ctx, key) {
  if (!pasteAllowed(ctx) || val(ctx, `${key}.mode`, "engine") !== "paste") return null;
  return rollLines(val(ctx, `${key}.lines`, ""));
}

/** Show a problem found before sending (no rule: the client's own check). */
export function localError(ctx, key, text) {
  outs(ctx)[key] = { error: { type: "local", reason: text } };
  ctx.refresh();
}

/**
 * Send `action` for the control `key`; the answer is shown under the control. The button
 * is disabled while waiting. After an `ack`, the panel is drawn again when the change with
 * the log lines of that version has arrived.
 */
export async function send(ctx, key, action, button) {
  if (button) {
    button.disabled = true;
    button.dataset.busy = "1";
  }
  const reply = await ctx.act(action, { quiet: true });
  if (reply.type === "ack") {
    const out = { ok: true, version: reply.version };
    outs(ctx)[key] = out;
    const ui = ctx.ui;
    setTimeout(() => {
      if (ui.out?.[key] !== out) return; // replaced or already gone
      delete ui.out[key];
      ctx.refresh();
    }, DONE_MS);
    if (ctx.logFor(reply.version) === undefined) {
      const conn = ctx.app.conn;
      const on = (ev) => {
        if (ev.detail.to_version < reply.version) return;
        conn.removeEventListener("change", on);
        ctx.refresh();
      };
      conn.addEventListener("change", on);
    }
  } else {
    outs(ctx)[key] = { error: reply };
  }
  ctx.refresh();
  return reply;
}

/** What the server said about control `key` (or nothing yet). */
export function feedback(ctx, key) {
  dropStale(ctx.ui, ctx.app.store.version);
  const out = outs(ctx)[key];
  if (!out) return null;
  if (out.error) {
    const e = out.error;
    const head = e.type === "local" ? t("pl.error") : t(e.type === "reject" ? "pl.refused" : "pl.error");
    return h("div.pl-refusal", { role: "alert", dataset: { rule: e.rule || "", code: e.code || "" } },
      h("b", head), " ", e.rule ? [h("code.pl-rule", e.rule), " "] : null, pick(e.reason));
  }
  const lines = ctx.logFor(out.version) || [];
  return h("div.pl-done", { role: "status", dataset: { version: out.version } },
    h("b", t("pl.done", { v: out.version })),
    lines.map((l) => h("div.pl-log", pick(l))));
}

/** Forget what the server said about `key` (e.g. the control is gone). */
export function forget(ctx, key) {
  delete outs(ctx)[key];
}

/** A primary button that runs `fn(button)`. */
export function actButton(text, fn, attrs = {}) {
  return h("button.primary.pl-act", { type: "button", ...attrs, on: { click: (ev) => fn(ev.currentTarget) } }, text);
}

/** The "you" badge beside the player's own things. */
export function meBadge() {
  return h("span.badge.me", t("pl.you"));
}

/** The mark on a player's controls drawn in the GM console: the GM plays this character
 * (for `who`, the name of the player who owns it, when a player does). */
export function asGMBadge(who) {
  return h("span.badge.as-gm", { dataset: { asGm: who || "" } }, who ? t("pl.as_gm.for", { who }) : t("pl.as_gm"));
}
