// The feed of a non-GM page (tab "Log"): the public log lines of every change, newest
// first — the recent past from the `history` message on join (public lines only for
// non-GM roles), then each change as it arrives. The GM's equivalent is the timeline.
// An undo (`undo_to` on a change or a history entry) takes the lines of the versions it
// undid off the feed and says, in their place, that the GM went back.

import { h, clear } from "../dom.js";
import { addStrings, t, pick } from "../i18n.js";
import { undoneVersions } from "../store.js";

addStrings({
  ja: { "feed.undo": "GMがv{v}の時点まで戻しました（その後の変更は取り消し）", "feed.by_gm": "GM",
    "feed.by_gm.title": "GMが行った変更です" },
  en: { "feed.undo": "The GM went back to v{v} (the changes after it are undone)", "feed.by_gm": "GM",
    "feed.by_gm.title": "a change the GM made" },
});

const KEEP = 200;

export class Feed {
  constructor() {
    this.items = [];
    this.undos = new Map(); // an undo's version → the version it went back to
    this.current = 0;
    this.el = h("ul.plain.viewer-log");
    this.render();
  }

  /** A `change` frame: its log lines go on top (an undo: the lines it undid go). */
  add(msg) {
    this.current = Math.max(this.current, msg.to_version);
    if (typeof msg.undo_to === "number") this.undos.set(msg.to_version, msg.undo_to);
    if ((msg.log || []).length || this.undos.has(msg.to_version)) {
      this.items.unshift({ version: msg.to_version, log: msg.log || [], byGM: !!msg.by_gm });
      this.items.length = Math.min(this.items.length, KEEP);
    }
    this.render();
  }

  /** Page in the recent past (the server's public history) under what we already hold. */
  async load(conn, version) {
    const reply = await conn.request({ type: "history", after: Math.max(0, version - KEEP), limit: KEEP });
    if (reply.type !== "history") return;
    this.current = Math.max(this.current, version);
    for (const e of reply.entries) if (typeof e.undo_to === "number") this.undos.set(e.version, e.undo_to);
    const known = new Set(this.items.map((it) => it.version));
    const older = reply.entries.filter((e) => (e.log.length || this.undos.has(e.version)) && !known.has(e.version))
      .map((e) => ({ version: e.version, log: e.log, byGM: !!e.by_gm })).reverse();
    this.items = [...this.items, ...older].sort((a, b) => b.version - a.version).slice(0, KEEP);
    this.render();
  }

  render() {
    const undone = undoneVersions(this.undos, this.current);
    // a change the GM made (their own or for a player's PC) is marked, so a player can tell
    const gm = () => h("span.badge.as-gm.feed-gm", { title: t("feed.by_gm.title") }, t("feed.by_gm"));
    const line = (version, text, byGM) => h("li", { dataset: { version, byGm: byGM ? "1" : undefined } },
      h("span.feed-v", `v${version}`), " ", byGM ? [gm(), " "] : null, text);
    clear(this.el).append(...this.items.filter((it) => !undone.has(it.version)).flatMap((it) => [
      ...(this.undos.has(it.version) ? [line(it.version, h("i.feed-undo", t("feed.undo", { v: this.undos.get(it.version) })))] : []),
      ...it.log.map((l) => line(it.version, pick(l), it.byGM)),
    ]));
    if (!this.el.childElementCount) this.el.appendChild(h("li.muted.small", t("feed.empty")));
  }
}
