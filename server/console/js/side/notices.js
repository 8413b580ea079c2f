// Refusals and warnings as they happen (`notice` kind refusal / warning: which client,
// which rule, the reason), plus errors sent to this console. A warning belongs to the
// version its action made (`data.version`): once an undo took that version back it is
// no longer shown; refusals changed nothing, so they stay.

import { h, clear } from "../dom.js";
import { t, pick } from "../i18n.js";
import { toast } from "../ui.js";
import { actionSentence, actorWords, fmtTime, subsystemWords } from "../words.js";

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
    toast(`${t(`notice.${kind}`)} · ${this.who(data)} · ${rule}${reason}`, kind === "warning" ? "warn" : "error");
    this.render();
    this.app.onNoticesChanged();
  }

  seen() {
    this.unseen = 0;
  }

  /** Who the notice is about: the player's name, the GM, or the client's label. */
  who(data) {
    const state = this.app.store.state;
    if (data.player) return actorWords({ role: "player", player: data.player }, state);
    if (data.role === "gm") return t("role.gm");
    return data.client || t(`role.${data.role || "gm"}`);
  }

  /** What was attempted, in words (the refused action with names, else its subsystem). */
  what(data) {
    if (data.action) return actionSentence(data.action, this.app.store.state, null);
    return data.kind ? t("words.action", { what: subsystemWords(data.kind) }) : null;
  }

  /** The notices still true: warnings of undone versions left out. */
  shown() {
    const undone = this.app.timeline?.undone() ?? new Set();
    return this.items.filter(({ kind, data }) => !(kind === "warning" && undone.has(data.version)));
  }

  render() {
    const items = this.shown();
    if (!items.length) {
      clear(this.el).appendChild(h("p.muted", t("notices.empty")));
      return;
    }
    // Codes and kinds stay in data attributes and tooltips: the text is the rule and the reason.
    clear(this.el).appendChild(h("ul.notice-list", items.map(({ kind, data, at }) => h("li", {
      class: `notice notice-${kind}`, dataset: { kind, rule: data.rule || "", code: data.code || "", action: data.kind || "", version: data.version } },
      h("div.notice-head",
        h(`span.badge.${kind === "warning" ? "warn" : "bad"}`, t(`notice.${kind}`)), " ",
        h("span.muted.small", fmtTime(at)), " ",
        h("span.notice-client", { title: data.client || "" }, this.who(data)),
        data.role && data.role !== "gm" ? h("span.muted.small", ` [${t(`role.${data.role}`)}]`) : null, " ",
        data.kind ? h("span.notice-what.small", { title: data.kind }, this.what(data)) : null),
      h("div.notice-body", { title: data.code || "" },
        data.rule ? h("b.notice-rule", data.rule) : null, data.rule ? " " : null,
        kind === "warning" ? pick(data) : pick(data.reason))))));
  }
}
