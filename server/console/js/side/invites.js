// Invites for players, bridges and observers (`invite.create` / `invite.list` /
// `invite.revoke`). A token is shown once, when minted; the invite link carries it in
// the URL fragment (#…), which browsers never send to the server, and the console that
// opens it moves it to sessionStorage and clears the address bar at once.
// Beside a bridge invite: the one-click install of the Ccfolia userscript and the Foundry
// manifest URL, both from the server's public address (`GET /api/links`, issue 14).

import { h, clear } from "../dom.js";
import { t, pick, addStrings } from "../i18n.js";
import { toast } from "../ui.js";
import { replaySection } from "./replay.js";

addStrings({
  ja: {
    "invites.everyone": "全員を招待",
    "invites.everyone_title": "全員の招待リンク",
    "invites.copy_all": "まとめてコピー",
    "invites.no_players": "このルームにはプレイヤーがいません。",
  },
  en: {
    "invites.everyone": "Invite everyone",
    "invites.everyone_title": "Everyone's invite links",
    "invites.copy_all": "Copy all",
    "invites.no_players": "This room has no players.",
  },
});

// Links use the server's public address (`--public-url`, from GET /api/links), not the
// address the GM happens to use (often 127.0.0.1, which no player can open).
let publicBase = location.origin;
fetchLinks().then((links) => { if (links?.public_url) publicBase = String(links.public_url).replace(/\/+$/, ""); });

export function inviteLink(room, token) {
  return `${publicBase}/#room=${encodeURIComponent(room)}&invite=${encodeURIComponent(token)}`;
}

function copyButton(text, label = t("invites.copy")) {
  return h("button.small", { type: "button", on: { click: async (ev) => {
    try {
      await navigator.clipboard.writeText(text);
      toast(t("invites.copied"), "ok", 1500);
    } catch {
      const field = ev.currentTarget.parentElement.querySelector("input, textarea");
      if (field) field.select();
    }
  } } }, label);
}

/** The server's public URLs (`komasync serve --public-url`, else this page's address). */
async function fetchLinks() {
  try {
    const res = await fetch("/api/links", { cache: "no-store", credentials: "omit" });
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}

const LOCAL = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** The install button, the manifest URL and what wss:// means for a remote server. */
function bridgeInstall(links) {
  if (!links) return h("p.muted.small", t("bridges.no_links"));
  const host = new URL(links.public_url).hostname;
  const remotePlain = links.ws.startsWith("ws://") && !LOCAL.test(host);
  return h("div.bridge-install", { dataset: { section: "bridge-install" } },
    h("div.copy-row",
      h("a.button.primary", { href: links.userscript, target: "_blank", rel: "noopener",
                              dataset: { install: "ccfolia" } }, t("bridges.install_ccfolia"))),
    h("p.muted.small", t("bridges.install_help")),
    h("label.small", t("bridges.foundry_manifest"), h("div.copy-row",
      h("input.foundry-manifest", { readonly: true, value: links.foundry_manifest }),
      copyButton(links.foundry_manifest))),
    h("label.small", t("bridges.server_url"), h("div.copy-row",
      h("input.bridge-server-url", { readonly: true, value: links.ws }), copyButton(links.ws))),
    h("p.small" + (remotePlain ? ".warn" : ".muted"), { dataset: { wss: remotePlain ? "needed" : "ok" } },
      t(remotePlain ? "bridges.wss_needed" : "bridges.wss_help")));
}

/** POST /api/export with the GM secret in the body; the file arrives as a download. */
async function download(app, format) {
  const res = await fetch("/api/export", {
    method: "POST", headers: { "Content-Type": "application/json" }, cache: "no-store",
    credentials: "omit",
    body: JSON.stringify({ secret: app.credentials.secret, room: app.room, format }),
  });
  if (!res.ok) {
    const err = await res.json().catch(() => null);
    toast(t("error", { reason: err ? pick(err.reason) : res.statusText }), "error");
    return;
  }
  // The export itself says when the room has no Ccfolia calibration; say it here too.
  if (res.headers.get("X-Komasync-Calibrated") === "no") toast(t("export.uncalibrated"), "warn", 8000);
  let blob;
  if (format === "zip") {
    blob = await res.blob();
  } else {
    const doc = await res.json();  // {komasync: notice, characters}: the notice is line 1
    const lines = [{ komasync: doc.komasync }, ...doc.characters].map((c) => JSON.stringify(c));
    blob = new Blob([lines.join("\n") + "\n"], { type: "application/json" });
  }
  const a = h("a", { href: URL.createObjectURL(blob),
                     download: `${app.room}-ccfolia.${format === "zip" ? "zip" : "jsonl"}` });
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

function exportSection(app) {
  return h("section.export", { dataset: { section: "export" } },
    h("h4", t("export.title")), h("p.muted.small", t("export.help")),
    h("div.copy-row",
      h("button.small", { type: "button", dataset: { export: "zip" },
                          on: { click: () => download(app, "zip") } }, t("export.zip")),
      h("button.small", { type: "button", dataset: { export: "clipboard" },
                          on: { click: () => download(app, "clipboard") } }, t("export.clipboard"))));
}

export class Invites {
  constructor(app) {
    this.app = app;
    this.list = [];
    this.created = [];
    this.el = h("div.invites");
    this.form = this.buildForm();
    this.links = null;
    this.render();
    fetchLinks().then((links) => {
      this.links = links;
      this.render();
    });
  }

  /** The room's players, {id, name}, in the scenario's order. */
  players() {
    return Object.values(this.app.store.state?.meta?.players || {});
  }

  /** A player's name (the id only where the room has no such player). */
  playerName(id) {
    return this.app.store.state?.meta?.players?.[id]?.name || id;
  }

  buildForm() {
    const role = h("select", { name: "role", "aria-label": t("invites.role") },
      ["player", "bridge", "observer"].map((r) => h("option", { value: r }, t(`role.${r}`))));
    // Players are picked by name from the room's list (their ids are the room's business).
    const player = h("select", { name: "player", "aria-label": t("invites.player") });
    const label = h("input", { name: "label", maxlength: 100, "aria-label": t("invites.label"), placeholder: t("invites.label") });
    const sync = () => { player.disabled = role.value !== "player"; };
    role.addEventListener("change", sync);
    sync();
    const submit = async (ev) => {
      ev.preventDefault();
      const msg = { type: "invite.create", role: role.value, label: label.value.trim() };
      if (role.value === "player") {
        if (!player.value) {
          player.focus();
          return;
        }
        msg.player = player.value;
      }
      const reply = await this.mint(msg);
      if (!reply) return;
      this.created.unshift({ ...reply, label: msg.label });
      label.value = "";
      await this.refresh();
    };
    this.playerSelect = player;
    return h("form.invite-form", { on: { submit } },
      h("label", t("invites.role"), role),
      h("label", t("invites.player"), player),
      h("label", t("invites.label"), label),
      h("div.copy-row",
        h("button.primary", { type: "submit" }, t("invites.create")),
        h("button", { type: "button", dataset: { invite: "everyone" },
                      on: { click: () => this.inviteEveryone() } }, t("invites.everyone"))));
  }

  /** `invite.create`; the `invite` reply, or null once the error is shown. */
  async mint(msg) {
    const reply = await this.app.conn.request(msg);
    if (reply.type === "invite") return reply;
    toast(t("error", { reason: pick(reply.reason) }), "error");
    return null;
  }

  /** One player invite per player of the room, every link shown at once. */
  async inviteEveryone() {
    const players = this.players();
    if (!players.length) {
      toast(t("invites.no_players"), "warn");
      return;
    }
    const batch = [];
    for (const p of players) {
      const reply = await this.mint({ type: "invite.create", role: "player", player: p.id, label: "" });
      if (!reply) break;
      batch.push({ player: p.id, invite: reply.invite, token: reply.token });
    }
    this.everyone = batch;
    await this.refresh();
  }

  /** The links "invite everyone" made: one row per player, and all of them to copy. */
  renderEveryone() {
    if (!this.everyone?.length) return null;
    const rows = this.everyone.map((e) => ({ ...e, name: this.playerName(e.player),
                                            link: inviteLink(this.app.room, e.token) }));
    const all = rows.map((r) => `${r.name}: ${r.link}`).join("\n");
    return h("section.invite-everyone", { dataset: { section: "invite-everyone" } },
      h("div", h("b", t("invites.everyone_title")), h("span.muted.small", ` ${t("invites.once")}`)),
      ...rows.map((r) => h("label.small", { dataset: { player: r.player, invite: r.invite } }, r.name,
        h("div.copy-row", h("input.invite-link", { readonly: true, value: r.link,
                                                   "aria-label": `${t("invites.link")} ${r.name}` }),
          copyButton(r.link)))),
      h("div.copy-row", h("textarea.invite-all", { readonly: true, rows: Math.min(rows.length, 6),
                                                   "aria-label": t("invites.copy_all"), value: all }),
        copyButton(all, t("invites.copy_all"))));
  }

  async refresh() {
    const reply = await this.app.conn.request({ type: "invite.list" });
    if (reply.type === "invites") this.list = reply.invites;
    this.render();
  }

  async revoke(id) {
    const reply = await this.app.conn.request({ type: "invite.revoke", invite: id });
    if (reply.type === "invites") this.list = reply.invites;
    else toast(t("error", { reason: pick(reply.reason) }), "error");
    this.render();
  }

  render() {
    const chosen = this.playerSelect.value;
    clear(this.playerSelect).append(...this.players().map((p) => h("option", { value: p.id }, p.name)));
    if (chosen && this.players().some((p) => p.id === chosen)) this.playerSelect.value = chosen;
    const created = this.created.map((c) => {
      const link = inviteLink(this.app.room, c.token);
      const server = this.links ? this.links.ws : this.app.conn.url;
      const bridge = JSON.stringify({ server, room: this.app.room, token: c.token });
      return h("div.invite-created", { dataset: { invite: c.invite, role: c.role } },
        h("div", h("b", t(`role.${c.role}`)), c.player ? ` · ${this.playerName(c.player)}` : "", c.label ? ` · ${c.label}` : "",
          h("span.muted.small", ` (${c.invite}) ${t("invites.once")}`)),
        h("label.small", t("invites.link"), h("div.copy-row",
          h("input.invite-link", { readonly: true, value: link }), copyButton(link))),
        h("label.small", t("invites.token"), h("div.copy-row",
          h("input.invite-token", { readonly: true, value: c.token }), copyButton(c.token))),
        c.role === "bridge" ? h("label.small", t("invites.bridge_config"), h("div.copy-row",
          h("input.invite-bridge", { readonly: true, value: bridge }), copyButton(bridge))) : null,
        c.role === "bridge" ? bridgeInstall(this.links) : null);
    });
    const rows = this.list.map((i) => h("tr", { class: i.revoked ? "revoked" : "", dataset: { invite: i.invite } },
      h("td", t(`role.${i.role}`)), h("td", i.player ? this.playerName(i.player) : "—"), h("td.small", i.label || ""),
      h("td.small.muted", i.invite),
      h("td", i.revoked ? h("span.badge.bad", t("invites.revoked"))
        : h("button.small.danger", { type: "button", dataset: { revoke: i.invite },
                                     on: { click: () => this.revoke(i.invite) } }, t("invites.revoke")))));
    const bridges = h("section.bridges", { dataset: { section: "bridges" } },
      h("h4", t("bridges.title")), bridgeInstall(this.links));
    clear(this.el).append(this.form, this.renderEveryone(), ...created,
      this.list.length ? h("table.grid-table.invite-table", h("tbody", rows)) : h("p.muted.small", t("invites.none")),
      bridges, exportSection(this.app), replaySection(this.app));
  }
}
