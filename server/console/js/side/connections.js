// Who is connected (`notice` kind presence) and each bridge's status (`notice` kind
// bridge: platform, last event, lag in versions behind the room).

import { h, clear } from "../dom.js";
import { t, ago } from "../i18n.js";

export class Connections {
  constructor(app) {
    this.app = app;
    this.connections = [];
    this.bridges = new Map();
    this.el = h("div.connections");
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

  online(principal) {
    return this.connections.some((c) => c.principal === principal);
  }

  lagOf(b) {
    const v = this.app.store.version;
    if (typeof b.reported === "number" && typeof v === "number") return Math.max(0, v - b.reported);
    return b.lag ?? null;
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
        h("td.small.bridge-detail", b.detail || ""));
    });
    const others = this.connections.map((c) => h("li", { dataset: { role: c.role } },
      h("span.dot.on"), " ", h("b", c.label), " ",
      h("span.muted.small", `[${t(`role.${c.role}`)}${c.player ? `: ${c.player}` : ""}${c.platform ? ` · ${c.platform}` : ""}]`),
      " ", h("span.muted.small", ago(c.last_event))));
    clear(this.el).append(
      h("h4", t("connections.bridges")),
      bridges.length ? h("table.grid-table.bridge-table",
        h("thead", h("tr", h("th", ""), h("th", t("connections.platform")), h("th", t("connections.last_event")),
          h("th", t("connections.lag")), h("th", t("connections.detail")))),
        h("tbody", rows)) : h("p.muted.small", t("connections.none")),
      h("h4", t("connections.title")),
      h("ul.plain.conn-list", others));
  }
}
