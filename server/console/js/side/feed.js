// The feed of a non-GM page (tab "Log"): the public log lines of every change, newest
// first — the recent past from the `history` message on join (public lines only for
// non-GM roles), then each change as it arrives. The GM's equivalent is the timeline.

import { h, clear } from "../dom.js";
import { t, pick } from "../i18n.js";

const KEEP = 200;

export class Feed {
  constructor() {
    this.items = [];
    this.el = h("ul.plain.viewer-log");
    this.render();
  }

  /** A `change` frame: its log lines go on top. */
  add(msg) {
    if (!(msg.log || []).length) return;
    this.items.unshift({ version: msg.to_version, log: msg.log });
    this.items.length = Math.min(this.items.length, KEEP);
    this.render();
  }

  /** Page in the recent past (the server's public history) under what we already hold. */
  async load(conn, version) {
    const reply = await conn.request({ type: "history", after: Math.max(0, version - KEEP), limit: KEEP });
    if (reply.type !== "history") return;
    const known = new Set(this.items.map((it) => it.version));
    const older = reply.entries.filter((e) => e.log.length && !known.has(e.version))
      .map((e) => ({ version: e.version, log: e.log })).reverse();
    this.items = [...this.items, ...older].sort((a, b) => b.version - a.version).slice(0, KEEP);
    this.render();
  }

  render() {
    clear(this.el).append(...this.items.flatMap((it) => it.log.map((l) => h("li",
      { dataset: { version: it.version } }, h("span.feed-v", `v${it.version}`), " ", pick(l)))));
    if (!this.el.childElementCount) this.el.appendChild(h("li.muted.small", t("feed.empty")));
  }
}
