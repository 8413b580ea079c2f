// The feed of a non-GM page (tab "Log"): the public log lines of every change since the
// page opened, newest first (players cannot ask for the history; the GM's is the timeline).

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

  render() {
    clear(this.el).append(...this.items.flatMap((it) => it.log.map((l) => h("li",
      { dataset: { version: it.version } }, h("span.feed-v", `v${it.version}`), " ", pick(l)))));
    if (!this.el.childElementCount) this.el.appendChild(h("li.muted.small", t("feed.empty")));
  }
}
