// The panel registry: the view layer's one extension point.
//
// A panel module calls registerPanel({...}) once, at import, and app.js imports the
// module (one line in panels/index.js). A panel declares:
//
//   id        unique name (its subsystem's name, e.g. "table")
//   key       the top-level state key it renders (a subsystem's part such as "table",
//             or "prompts"); the panel exists while state[key] is present and not null, and
//             is re-rendered only when a change touches that key. `key: "*"` = whole state.
//   also      optional ["meta", …]: other state keys whose changes re-render it too
//   area      "main" (default) or "side" (top of the side column)
//   order     sort order within its area (smaller first)
//   title     {ja, en} or (ctx) => string
//   render(ctx) → Node          build the panel body (called again after each change)
//   rules     [{path: ["table","counters","*","value"], rule: "TABLE-CT-1",
//              ja: "...", en: "..."}]  — shown beside an override of a matching path
//   secret(path, state) → bool  optional: is the value at `path` GM-only?
//   commands  [{id, key, label(ctx), enabled(ctx), run(ctx)}] — header buttons and
//             keyboard shortcuts (e.g. next phase on `n`)
//   headline(ctx) → string      optional: shown in the header (round, phase…)
//   describe(action, state, {actor, log}) → string | null   optional: the timeline's
//             sentence for an action of this subsystem ("騎士が(4,4)へ移動"), in the current
//             language; `actor` and `log` (the engine's lines) when the history has them
//   lookahead(data, state) → action | null   optional: the GM's step-closing action
//             (e.g. mass.next_step) the override editor dry-runs after an edit of this
//             panel's part, so the GM sees what the next step would bring (戦力0 → 敗走)
//   strings   {ja: {...}, en: {...}} — the panel's own UI strings
//   roles     optional ["player", …]: shown only to those roles (welcome `role`); without
//             it a panel is shown to everyone (read only for non-GMs)
//
// Panels never reach into one another: adding a subsystem's panel is a new module and
// one import line (docs/architecture.md, "Adding a subsystem").

import { addStrings } from "./i18n.js";

const PANELS = [];

export function registerPanel(panel) {
  if (!panel.id || !panel.key || typeof panel.render !== "function") {
    throw new Error("a panel needs id, key and render()");
  }
  if (PANELS.some((p) => p.id === panel.id)) throw new Error(`panel ${panel.id} registered twice`);
  if (panel.strings) addStrings(panel.strings);
  PANELS.push({ area: "main", order: 100, rules: [], commands: [], ...panel });
  PANELS.sort((a, b) => a.order - b.order);
  return panel;
}

export function allPanels() {
  return [...PANELS];
}

/** The panels that have something to show in this state (for `role`, when given). */
export function activePanels(state, role) {
  if (!state) return [];
  return PANELS.filter((p) => (p.key === "*" || (state[p.key] !== undefined && state[p.key] !== null))
    && (role === undefined || !p.roles || p.roles.includes(role)));
}

function matches(pattern, path) {
  if (pattern.length !== path.length) return false;
  return pattern.every((seg, i) => seg === "*" || String(seg) === String(path[i]));
}

/** The rules that would have applied to the value at `path` (from every panel). */
export function rulesFor(path) {
  const out = [];
  for (const p of PANELS) {
    for (const r of p.rules) if (matches(r.path, path)) out.push(r);
  }
  return out;
}

/** The step-closing action to dry-run after an edit at `path` (see `lookahead`), or null. */
export function lookaheadFor(path, state) {
  for (const p of PANELS) {
    if (typeof p.lookahead !== "function" || p.key !== path[0] || !state?.[p.key]) continue;
    const action = p.lookahead(state[p.key], state);
    if (action) return action;
  }
  return null;
}

/** Whether any panel declares the value at `path` GM-only. */
export function isSecret(path, state) {
  return PANELS.some((p) => typeof p.secret === "function" && p.secret(path, state));
}

/** The timeline's sentence for `action`, from the panel that knows its kind (or null). */
export function describeAction(action, state, entry = {}) {
  for (const p of PANELS) {
    if (typeof p.describe !== "function") continue;
    const text = p.describe(action, state || {}, entry);
    if (text) return text;
  }
  return null;
}

/** Commands of the panels active in this state. */
export function activeCommands(state) {
  return activePanels(state, "gm").flatMap((p) => p.commands.map((c) => ({ ...c, panel: p.id })));
}
