// Who is connected (`notice` kind presence) and each bridge's status (`notice` kind
// bridge: platform, last event, lag in versions behind the room), and each bridge's last
// rolls with what became of each (`notice` kind roll, server/roll_ledger.py): used for
// which rule's check, or why not — so "nobody rolled" and "the VTT's dice module prints
// lines komasync cannot read" look different.

import { h, clear } from "../dom.js";
import { t, ago, lang, pick } from "../i18n.js";
import { BridgeSetup, detailCell } from "./bridge_setup.js";
import { Doctor } from "./doctor.js";

/** Rolls kept per bridge (as the server keeps them). */
const ROLLS_KEPT = 20;

export class Connections {
  constructor(app) {
    this.app = app;
    this.connections = [];
    this.bridges = new Map();
    this.rolls = new Map(); // bridge principal → its last roll entries by id
    this.setups = new Map(); // bridge principal → its set-up section (kept across redraws)
    // Three parts: the set-ups sit between two parts redrawn every second, never detached
    // themselves (a click on their board must not lose its pointer mid-way).
    this.topEl = h("div");
    this.setupEl = h("div.bridge-setups");
    this.restEl = h("div");
    // the check-up (GM only) keeps its own element: the second-by-second redraw leaves it be
    this.doctor = app.isGM ? new Doctor(app) : null;
    this.el = h("div.connections", this.doctor ? this.doctor.el : null, this.topEl, this.setupEl, this.restEl);
    this.render();
  }

  presence(data) {
    this.connections = data.connections || [];
    for (const c of this.connections) {
      if (c.role !== "bridge") continue;
      const prev = this.bridges.get(c.principal) || {};
      this.bridges.set(c.principal, { ...prev, ...c, lag: prev.lag, detail: prev.detail,
                                      reported: c.version ?? prev.reported });
    }
    this.render();
  }

  bridge(data) {
    const prev = this.bridges.get(data.principal) || {};
    this.bridges.set(data.principal, { ...prev, ...data, last_event: Date.now() / 1000,
                                       reported: data.version });
    this.render();
  }

  /** A roll a bridge delivered (a rejoining console is sent the kept ones again). */
  roll(entry) {
    const principal = entry.bridge?.principal ?? "?";
    const kept = this.rolls.get(principal) || new Map();
    kept.set(entry.id, entry);
    const ids = [...kept.keys()].sort((a, b) => a - b);
    for (const id of ids.slice(0, Math.max(0, ids.length - ROLLS_KEPT))) kept.delete(id);
    this.rolls.set(principal, kept);
    this.render();
  }

  online(principal) {
    return this.connections.some((c) => c.principal === principal);
  }

  lagOf(b) {
    const v = this.app.store.version;
    if (typeof b.reported === "number" && typeof v === "number") return Math.max(0, v - b.reported);
    return b.lag ?? null;
  }

  /** Everything again in the UI's language (the check-up too). */
  relabel() {
    if (this.doctor) this.doctor.render();
    this.render();
  }

  render() {
    const bridges = [...this.bridges.values()];
    const rows = bridges.map((b) => {
      const on = this.online(b.principal);
      const lag = this.lagOf(b);
      return h("tr", { class: on ? "online" : "offline", dataset: { principal: b.principal } },
        h("td", h("span", { class: `dot ${on ? "on" : "off"}` }), " ", b.label || b.principal,
          h("div.muted.small", on ? t("connections.online") : t("connections.offline"))),
        h("td.bridge-platform", b.platform || "—"),
        h("td.bridge-last", ago(b.last_event)),
        h("td.bridge-lag", { class: lag ? "lagging" : "" }, lag === null ? "—" : t("connections.lag_value", { n: lag })),
        h("td.small.bridge-detail", detailCell(b)));
    });
    const others = this.connections.map((c) => h("li", { dataset: { role: c.role } },
      h("span.dot.on"), " ", h("b", c.label), " ",
      h("span.muted.small", `[${t(`role.${c.role}`)}${c.player ? `: ${c.player}` : ""}${c.platform ? ` · ${c.platform}` : ""}]`),
      " ", h("span.muted.small", ago(c.last_event))));
    clear(this.topEl).append(
      h("h4", t("connections.bridges")),
      bridges.length ? h("table.grid-table.bridge-table",
        h("thead", h("tr", h("th", ""), h("th", t("connections.platform")), h("th", t("connections.last_event")),
          h("th", t("connections.lag")), h("th", t("connections.detail")))),
        h("tbody", rows)) : h("p.muted.small", t("connections.none")));
    this.renderSetups(bridges);
    clear(this.restEl).append(
      this.renderRolls(bridges),
      h("h4", t("connections.title")),
      h("ul.plain.conn-list", others));
  }

  /** The set-up by clicking of each connected bridge that reported what it needs (issue 30). */
  renderSetups(bridges) {
    const shown = !this.app.isGM ? []
      : bridges.filter((b) => this.online(b.principal) && (b.tokens || b.users || b.page));
    const els = shown.map((b) => {
      if (!this.setups.has(b.principal)) this.setups.set(b.principal, new BridgeSetup(this.app, b.principal));
      return this.setups.get(b.principal).update(b);
    });
    const same = els.length === this.setupEl.children.length && els.every((el, i) => this.setupEl.children[i] === el);
    if (!same) clear(this.setupEl).append(...els);
  }

  /** Per bridge (known or not connected any more), its last rolls, newest first. */
  renderRolls(bridges) {
    const labels = new Map(bridges.map((b) => [b.principal, b.label || b.principal]));
    for (const [principal, kept] of this.rolls) {
      if (!labels.has(principal)) {
        const any = [...kept.values()][0];
        labels.set(principal, any?.bridge?.label || principal);
      }
    }
    if (!labels.size) return null;
    return h("div.roll-ledger", h("h4", t("rolls.title")), h("p.muted.small", t("rolls.hint")),
      ...[...labels].map(([principal, label]) => {
        const entries = [...(this.rolls.get(principal)?.values() || [])].sort((a, b) => b.id - a.id);
        const heading = t("rolls.of", { bridge: label });
        return h("section.roll-bridge", { dataset: { principal }, "aria-label": heading },
          h("h5", heading),
          entries.length
            ? h("ol.plain.roll-list", entries.map((e) => rollItem(e)))
            : h("p.muted.small.roll-none", t("rolls.none")));
      }));
  }
}

/** One roll in plain words: when, who → which PC, the line, what became of it. */
function rollItem(e) {
  const o = e.outcome || {};
  const when = new Date(e.at * 1000);
  const locale = lang() === "ja" ? "ja-JP" : (navigator.language?.startsWith("en") ? navigator.language : "en");
  const pc = e.pc ? e.pc.name : t("rolls.unbound");
  const player = e.player ? t("rolls.player", { name: e.player.name }) : "";
  const sentence = o.used ? pick(o.text) : t("rolls.not_used", { why: pick(o.text) });
  return h("li.roll-entry", { dataset: { id: e.id, used: o.used ? "yes" : "no", code: o.code || o.action || "" } },
    h("div.roll-head",
      h("time.roll-time", { datetime: when.toISOString() }, when.toLocaleTimeString(locale)), " ",
      h("span.roll-who", `${e.speaker || "?"} → ${pc}${player}`)),
    h("div.roll-line", rollLine(e)),
    h("div.roll-outcome", { class: o.used ? "used" : "unused" },
      // the internal code stays in data-code only: a person reads the sentence
      h("span.roll-sentence", sentence)),
    e.note ? h("div.muted.small.roll-note", pick(e.note)) : null);
}

/** The line as the VTT printed it, or a native roll's formula, faces and total. */
function rollLine(e) {
  if (e.text) return e.text;
  const faces = (e.dice || []).map((d) => `${d.faces ? `d${d.faces}` : ""}[${(d.results || []).join(", ")}]`).join(" ");
  const total = e.total === null || e.total === undefined ? "" : ` = ${e.total}`;
  return `${e.formula || "?"} → ${faces}${total}`;
}
