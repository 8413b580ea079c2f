// The timeline: every action — who, what, why, the rolls with their provenance, rule
// warnings and the log lines — from the `history` message (on join) and each GM
// `change.info` (live). Any entry can be the point to go back to (`undo` to_version).

import { h, clear, fmtClock, fmtValue, pathText } from "../dom.js";
import { t, pick } from "../i18n.js";
import { describeAction } from "../registry.js";

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

  render() {
    const versions = [...this.entries.keys()].sort((a, b) => b - a);
    const current = this.app.store.version;
    const list = h("ol.tl-list", { reversed: true });
    for (const v of versions.slice(0, this.shown)) list.appendChild(this.entry(this.entries.get(v), current));
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

  entry(e, current) {
    const a = e.action || {};
    const actor = e.actor || {};
    const who = [actor.label || actor.role, actor.player && actor.player !== actor.label ? `(${actor.player})` : null,
                 actor.role ? `[${t(`role.${actor.role}`)}]` : null].filter(Boolean).join(" ");
    const reason = a.reason || a.note || null;
    return h("li", { class: `tl-entry kind-${String(a.kind || "").replace(/\W/g, "_")}`, dataset: { version: e.version, kind: a.kind } },
      h("div.tl-head",
        h("span.tl-v", `v${e.version}`), " ",
        h("span.tl-time.muted.small", fmtClock(e.at)), " ",
        h("span.tl-actor", who), " ",
        e.version < current ? this.undoButton(e.version) : null),
      h("div.tl-what", h("span.tl-sentence", sentence(a, this.app.store.state)), " ",
        h("code.tl-kind.muted.small", a.kind || "?")),
      reason ? h("div.tl-why", h("span.muted", `${t("timeline.reason")}: `), reason) : null,
      e.log && e.log.length ? h("ul.tl-log", e.log.map((l) => h("li", pick(l)))) : null,
      e.rolls && e.rolls.length ? h("ul.tl-rolls", e.rolls.map(rollLine)) : null,
      e.warnings && e.warnings.length ? h("ul.tl-warnings", e.warnings.map((w) =>
        h("li", h("b", w.rule || w.code), " ", pick(w)))) : null);
  }
}

/** One line per roll: dice, faces, total, target/level, and where it came from. */
export function rollLine(r) {
  const parts = [h("code", r.dice), " → ", r.results && r.results.length ? `[${r.results.join(", ")}] ` : "",
    h("b", fmtValue(r.total))];
  if (r.target !== null && r.target !== undefined) parts.push(" · ", t("roll.target", { n: r.target }));
  if (r.level) parts.push(" · ", r.level);
  const src = r.source || "engine";
  parts.push(" ", h(`span.badge.roll-${src}`, t(`roll.${src}`)));
  if (r.reporter) parts.push(" ", h("span.muted.small", t("roll.reporter", { who: r.reporter })));
  if (r.raw) parts.push(h("div.small.tl-raw", h("code", r.raw)));
  if (r.purpose) parts.push(h("div.small.muted", r.purpose));
  return h("li.tl-roll", { dataset: { source: src } }, parts);
}

/** The action as a sentence: the room's own kinds here, a subsystem's from its panel. */
function sentence(a, state) {
  switch (a.kind) {
    case "override":
      return a.delete ? t("do.override.delete", { path: pathText(a.path || []) })
        : t("do.override", { path: pathText(a.path || []), value: short(a.value) });
    case "restore":
    case "undo":
      return t("do.undo", { v: a.to_version });
    case "answer": {
      const prompt = state?.prompts?.[a.prompt];
      const choice = prompt?.choices?.find((c) => c.id === a.choice);
      return t("do.answer", { prompt: prompt ? pick(prompt) : a.prompt, choice: choice ? pick(choice) : a.choice });
    }
    case "room.player.add":
      return t("do.room.player.add", { name: a.name || a.id });
    case "room.enforcement":
      return t("do.room.enforcement", { mode: a.mode });
    case "room.player_rolls":
      return t("do.room.player_rolls", { mode: a.mode });
    case "room.uncredited":
      return t(`do.room.uncredited.${a.mode}`);
    default:
      return describeAction(a, state) || fallback(a);
  }
}

function fallback(a) {
  const rest = Object.fromEntries(Object.entries(a).filter(([k, v]) =>
    k !== "kind" && k !== "target" && v !== null && v !== undefined));
  return Object.keys(rest).length ? short(rest) : "";
}

function short(v) {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}
