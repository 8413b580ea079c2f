// The timeline: every action — who, what, why, the rolls with their provenance, rule
// warnings and the log lines — from the `history` message (on join) and each GM
// `change.info` (live). Any entry can be the point to go back to (`undo` to_version).
// An entry an undo took back stays (the history is kept) but says so and no longer shows
// what it did: its log lines, rolls and warnings are dropped.

import { h, clear, fmtValue } from "../dom.js";
import { addStrings, t, pick } from "../i18n.js";
import { undoneVersions } from "../store.js";
import { actionSentence, actorWords, fmtTime, rollLevelWords, rollPurposeWords } from "../words.js";

addStrings({
  ja: { "timeline.undone": "取り消し済み", "timeline.undone.title": "この操作は取り消されました" },
  en: { "timeline.undone": "undone", "timeline.undone.title": "This action was undone" },
});

const PAGE = 1000;
const SHOWN = 200;

export class Timeline {
  constructor(app) {
    this.app = app;
    this.entries = new Map();
    this.shown = SHOWN;
    this.el = h("div.timeline");
    this.loading = false;
  }

  reset() {
    this.entries.clear();
    this.render();
  }

  addChange(msg) {
    if (!msg.info) return;
    this.entries.set(msg.to_version, {
      version: msg.to_version, actor: msg.info.actor, action: msg.info.action,
      rolls: msg.info.rolls || [], warnings: msg.info.warnings || [], log: msg.log || [],
      at: Date.now() / 1000, live: true,
    });
    this.render();
  }

  /** Page through the `history` message from the newest entry we hold. */
  async load() {
    if (this.loading) return;
    this.loading = true;
    try {
      let after = 0;
      for (const v of this.entries.keys()) if (!this.entries.get(v).live) after = Math.max(after, v);
      for (;;) {
        const reply = await this.app.conn.request({ type: "history", after, limit: PAGE });
        if (reply.type !== "history") break;
        for (const e of reply.entries) this.entries.set(e.version, { ...e, live: false });
        if (reply.entries.length < PAGE) break;
        after = reply.entries[reply.entries.length - 1].version;
      }
    } finally {
      this.loading = false;
    }
    this.render();
  }

  /** The versions an undo took back (as of the room's version). */
  undone() {
    const undos = new Map();
    for (const e of this.entries.values()) {
      if (e.action?.kind === "restore") undos.set(e.version, e.action.to_version);
    }
    return undoneVersions(undos, this.app.store.version ?? 0);
  }

  render() {
    const versions = [...this.entries.keys()].sort((a, b) => b - a);
    const current = this.app.store.version;
    const undone = this.undone();
    const list = h("ol.tl-list", { reversed: true });
    for (const v of versions.slice(0, this.shown)) list.appendChild(this.entry(this.entries.get(v), current, undone.has(v)));
    if (versions.length > this.shown) {
      list.appendChild(h("li.tl-more", h("button.small", { type: "button", on: { click: () => {
        this.shown += SHOWN;
        this.render();
      } } }, t("timeline.load_more"))));
    }
    list.appendChild(h("li.tl-entry.tl-start", { dataset: { version: 0 } },
      h("div.tl-head", h("span.tl-v", "v0"), " ",
        current > 0 ? this.undoButton(0, t("undo.start")) : null)));
    const top = this.el.scrollTop;
    clear(this.el).appendChild(versions.length ? list : h("div", h("p.muted", t("timeline.empty")), list));
    this.el.scrollTop = top;
  }

  undoButton(version, label) {
    return h("button.small.tl-undo", {
      type: "button", dataset: { to: version },
      on: { click: (ev) => this.app.undoTo(version, ev.currentTarget) },
    }, label || t("undo.to"));
  }

  entry(e, current, undone = false) {
    const a = e.action || {};
    const state = this.app.store.state;
    const reason = a.reason || a.note || null;
    const said = sentence(e, state);
    // The engine's lines tell what happened; the first is not repeated when the sentence says it.
    const lines = undone ? [] : (e.log || []).map((l) => pick(l)).filter((l, i) => !(i === 0 && said.endsWith(l)));
    const rolls = undone ? [] : e.rolls || [];
    const warnings = undone ? [] : e.warnings || [];
    return h("li", { class: `tl-entry kind-${String(a.kind || "").replace(/\W/g, "_")}${undone ? " tl-undone" : ""}`,
                     dataset: { version: e.version, kind: a.kind, undone: undone ? "1" : null } },
      h("div.tl-head",
        h("span.tl-v", `v${e.version}`), " ",
        h("span.tl-time.muted.small", fmtTime(e.at)), " ",
        h("span.tl-actor", { title: e.actor?.label || "" }, actorWords(e.actor, state),
          e.actor?.role && e.actor.role !== "gm" ? h("span.muted.small", ` [${t(`role.${e.actor.role}`)}]`) : null), " ",
        undone ? h("span.badge.tl-undone-badge", { title: t("timeline.undone.title") }, t("timeline.undone")) : null, " ",
        e.version < current ? this.undoButton(e.version) : null),
      h("div.tl-what", { title: a.kind || "" }, h("span.tl-sentence", said)),
      reason ? h("div.tl-why", h("span.muted", `${t("timeline.reason")}: `), reason) : null,
      lines.length ? h("ul.tl-log", lines.map((l) => h("li", l))) : null,
      rolls.length ? h("ul.tl-rolls", rolls.map((r) => rollLine(r, state))) : null,
      warnings.length ? h("ul.tl-warnings", warnings.map((w) =>
        h("li", { dataset: { code: w.code || "" } }, w.rule ? h("b", w.rule) : null, " ", pick(w)))) : null);
  }
}

/** A history entry as one sentence, with names (the timeline and the undo dialog). */
export function sentence(e, state) {
  return actionSentence(e.action || {}, state, e.log, e.actor);
}

/** One line per roll: dice, faces, total, target/level, and where it came from. */
export function rollLine(r, state) {
  const parts = [h("code", r.dice), " → ", r.results && r.results.length ? `[${r.results.join(", ")}] ` : "",
    h("b", fmtValue(r.total))];
  if (r.target !== null && r.target !== undefined) parts.push(" · ", t("roll.target", { n: r.target }));
  if (r.level) parts.push(" · ", rollLevelWords(r.level));
  const src = r.source || "engine";
  parts.push(" ", h(`span.badge.roll-${src}`, t(`roll.${src}`)));
  if (r.reporter) parts.push(" ", h("span.muted.small", t("roll.reporter", { who: r.reporter })));
  if (r.raw) parts.push(h("div.small.tl-raw", h("code", r.raw)));
  if (r.purpose) parts.push(h("div.small.muted", { title: r.purpose }, rollPurposeWords(r.purpose, state)));
  return h("li.tl-roll", { dataset: { source: src } }, parts);
}

