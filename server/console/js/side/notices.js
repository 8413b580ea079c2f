// Refusals and warnings as they happen (`notice` kind refusal / warning: which client,
// which rule, the reason), plus errors sent to this console.

import { h, clear, fmtClock } from "../dom.js";
import { t, pick } from "../i18n.js";
import { toast } from "../ui.js";

const KEEP = 300;

export class Notices {
  constructor(app) {
    this.app = app;
    this.items = [];
    this.unseen = 0;
    this.el = h("div.notices");
    this.render();
  }

  add(kind, data) {
    this.items.unshift({ kind, data, at: Date.now() / 1000 });
    this.items.length = Math.min(this.items.length, KEEP);
    this.unseen += 1;
    const rule = data.rule ? `${data.rule} ` : "";
    const reason = kind === "warning" ? pick(data) : pick(data.reason);
    toast(`${t(`notice.${kind}`)} · ${data.client ?? ""} · ${rule}${reason}`, kind === "warning" ? "warn" : "error");
    this.render();
    this.app.onNoticesChanged();
  }

  seen() {
    this.unseen = 0;
  }

  render() {
    if (!this.items.length) {
      clear(this.el).appendChild(h("p.muted", t("notices.empty")));
      return;
    }
    clear(this.el).appendChild(h("ul.notice-list", this.items.map(({ kind, data, at }) => h("li", {
      class: `notice notice-${kind}`, dataset: { kind, rule: data.rule || "", code: data.code || "" } },
      h("div.notice-head",
        h(`span.badge.${kind === "warning" ? "warn" : "bad"}`, t(`notice.${kind}`)), " ",
        h("span.muted.small", fmtClock(at)), " ",
        data.client ? h("span.notice-client", data.client) : null,
        data.role ? h("span.muted.small", ` [${t(`role.${data.role}`)}]`) : null, " ",
        data.kind ? h("code.small", data.kind) : null),
      h("div.notice-body",
        data.rule ? h("b.notice-rule", data.rule) : null, data.rule ? " " : null,
        data.code ? h("code.small", data.code) : null, " ",
        kind === "warning" ? pick(data) : pick(data.reason))))));
  }
}
