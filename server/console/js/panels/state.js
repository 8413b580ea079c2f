// The whole state as a tree: any value can be overridden (with a reason), GM-only parts
// (as the panels declare them through `secret`) are badged. Branches render when opened.

import { h, pathKey } from "../dom.js";
import { registerPanel, isSecret } from "../registry.js";
import { t } from "../i18n.js";

function summary(value) {
  if (Array.isArray(value)) return `[${value.length}]`;
  return `{${Object.keys(value).length}}`;
}

function node(ctx, path, value, parentIsDict) {
  const key = path.length ? String(path[path.length - 1]) : "state";
  const secret = path.length && isSecret(path, ctx.state) ? ctx.gmBadge() : null;
  if (value !== null && typeof value === "object") {
    const open = ctx.ui.open || (ctx.ui.open = new Set());
    const id = pathKey(path);
    const details = h("details.tree", { dataset: { path: id } });
    const body = h("div.tree-body");
    const fill = () => {
      if (body.childElementCount) return;
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
      for (const [k, v] of entries) body.appendChild(node(ctx, [...path, k], v, !Array.isArray(value)));
    };
    details.appendChild(h("summary", h("span.tree-key", key), " ", h("span.muted.small", summary(value)), secret ? [" ", secret] : null));
    details.appendChild(body);
    if (open.has(id)) {
      details.open = true;
      fill();
    }
    details.addEventListener("toggle", () => {
      if (details.open) {
        open.add(id);
        fill();
      } else {
        open.delete(id);
      }
    });
    return details;
  }
  return h("div.tree-leaf", h("span.tree-key", key), ": ",
    ctx.editable(path, value, { deletable: parentIsDict }), secret ? [" ", secret] : null);
}

registerPanel({
  id: "state",
  key: "*",
  order: 900,
  title: () => t("state.title"),
  collapsed: true,
  roles: ["gm", "bridge", "observer", "viewer"], // a player's page shows their controls instead
  render: (ctx) => h("div.state-tree",
    h("p.muted.small", t("state.hint")),
    Object.entries(ctx.state).map(([k, v]) => node(ctx, [k], v, false))),
});
