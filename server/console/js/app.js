// The GM console: sign-in → room list → the room (panels from the registry, header
// commands, side column with prompts, timeline, notices, connections, invites).
//
// Secrets: the GM secret is typed once, kept in sessionStorage (this tab only) and sent
// only in the POST body of /api/rooms and in the WebSocket `auth` frame. The URL holds at
// most `#room=<id>`. An invite link's token (in the fragment) is moved to sessionStorage
// and removed from the address bar before anything else runs.

import "./panels/index.js";
import { h, clear } from "./dom.js";
import { t, pick, lang, setLang, onLangChange } from "./i18n.js";
import { Store } from "./store.js";
import { Connection } from "./connection.js";
import { activePanels, activeCommands } from "./registry.js";
import { editable } from "./overrides.js";
import { askReason, closePopover, focusKept, popoverOpen, toast, gmBadge, showPopover } from "./ui.js";
import { Timeline, sentence } from "./side/timeline.js";
import { fmtDateTime } from "./words.js";
import { loadSchema, schemaNow } from "./schema_form.js";
import { Notices } from "./side/notices.js";
import { Connections } from "./side/connections.js";
import { Invites } from "./side/invites.js";
import { Feed } from "./side/feed.js";
import { dropStale } from "./player/common.js";
import { ScenarioEditor } from "./editor/editor.js";

const SECRET_KEY = "komasync.secret";
const INVITE_KEY = "komasync.invite";
const root = document.getElementById("app");

// -- the URL: only the room id may stay in it ------------------------------------------------

function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  return { room: params.get("room"), invite: params.get("invite") };
}

function setHash(room) {
  const url = `${location.pathname}${location.search}${room ? `#room=${encodeURIComponent(room)}` : ""}`;
  history.replaceState(null, "", url);
}

function takeInviteFromUrl() {
  const { room, invite } = readHash();
  if (invite && room) {
    sessionStorage.setItem(INVITE_KEY, JSON.stringify({ room, token: invite }));
    setHash(room);
  }
}

// -- sign in and room list ---------------------------------------------------------------

// The rooms the signed-in secret opens (every room for the server's GM key): the room
// view's picker switches between them with the same secret, no sign-in again.
let knownRooms = [];

async function fetchRooms(secret) {
  const res = await fetch("/api/rooms", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ secret }), cache: "no-store", credentials: "omit",
  });
  const body = await res.json();
  if (!res.ok) throw new Error(pick(body.reason) || res.statusText);
  knownRooms = body.rooms || [];
  return knownRooms;
}

function langButton() {
  return h("button.lang-toggle", { type: "button", title: "l", on: { click: toggleLang } }, t("lang.toggle"));
}

function toggleLang() {
  setLang(lang() === "ja" ? "en" : "ja");
}

function showSignIn(message) {
  current?.destroy();
  current = null;
  const input = h("input#secret", { type: "password", autocomplete: "current-password", required: true,
                                    "aria-label": t("signin.secret") });
  const err = h("div.form-error", { role: "alert" }, message || "");
  const submit = async (ev) => {
    ev.preventDefault();
    const secret = input.value.trim();
    if (!secret) return;
    err.textContent = "";
    try {
      const rooms = await fetchRooms(secret);
      if (!rooms.length) {
        err.textContent = t("signin.empty");
        return;
      }
      sessionStorage.setItem(SECRET_KEY, secret);
      sessionStorage.removeItem(INVITE_KEY);
      showRooms(rooms);
    } catch (e) {
      err.textContent = t("signin.failed", { why: e.message });
    }
  };
  clear(root).appendChild(h("div.center-page",
    h("div.card.signin",
      h("div.card-top", h("h1", t("app.title")), langButton()),
      h("form", { on: { submit }, autocomplete: "off" },
        h("label", { for: "secret" }, t("signin.secret")), input,
        h("p.muted.small", t("signin.hint")), err,
        h("button.primary", { type: "submit" }, t("signin.submit"))))));
  input.focus();
  rerender = () => showSignIn(err.textContent);
}

async function showRooms(rooms) {
  const secret = sessionStorage.getItem(SECRET_KEY);
  if (!secret) return showSignIn();
  current?.destroy();
  current = null;
  if (!rooms) {
    try {
      rooms = await fetchRooms(secret);
    } catch (e) {
      return showSignIn(t("signin.failed", { why: e.message }));
    }
    if (!rooms.length) {
      sessionStorage.removeItem(SECRET_KEY);
      return showSignIn(t("signin.empty"));
    }
  }
  setHash(null);
  clear(root).appendChild(h("div.center-page",
    h("div.card.rooms",
      h("div.card-top", h("h1", t("rooms.title")), langButton(), editorButton(),
        h("button", { type: "button", on: { click: signOut } }, t("signout"))),
      h("ul.room-list", rooms.map((r) => h("li", { dataset: { room: r.id } },
        h("div", h("b.room-name", r.name || r.id), " ", h("code.small", r.id)),
        h("div.muted.small", `${t("rooms.version")} ${r.version ?? "—"} · ${t("rooms.created")} ${fmtDateTime(r.created_at)}`),
        h("button.primary", { type: "button", on: { click: () => openRoom(r.id, { secret }) } }, t("rooms.open"))))))));
  rerender = () => showRooms(rooms);
}

// -- the scenario editor (GM only: it needs the GM's secret) ---------------------------------

function editorButton() {
  return h("button.open-editor", { type: "button", on: { click: showEditor } }, t("ed.open_editor"));
}

function showEditor() {
  const secret = sessionStorage.getItem(SECRET_KEY);
  if (!secret) return showSignIn();
  current?.destroy();
  current = null;
  setHash(null);
  const editor = new ScenarioEditor(root, {
    secret,
    buttons: () => [langButton(),
      h("button", { type: "button", on: { click: () => { editor.destroy(); showRooms(); } } }, t("rooms.title"))],
    // the signed-in secret opens the new room when it is the server's GM key; else the room's own
    openRoom: async (room, roomSecret) => {
      editor.destroy();
      const rooms = await fetchRooms(secret).catch(() => []);
      openRoom(room, { secret: rooms.some((r) => r.id === room) ? secret : roomSecret });
    },
  });
  rerender = () => editor.relabel();
}

function signOut() {
  sessionStorage.removeItem(SECRET_KEY);
  sessionStorage.removeItem(INVITE_KEY);
  setHash(null);
  showSignIn();
}

// -- the room ---------------------------------------------------------------------------------

let current = null;
let rerender = () => {};

function openRoom(room, credentials) {
  current?.destroy();
  setHash(room);
  current = new RoomView(room, credentials);
  rerender = () => current && current.relabel();
}

class RoomView {
  constructor(room, credentials) {
    this.room = room;
    this.credentials = credentials;
    this.isGM = !!credentials.secret;
    this.role = this.isGM ? "gm" : null; // the welcome's role decides
    this.player = null;
    this.logs = new Map(); // version → log lines of that change (player feedback)
    this.store = new Store();
    this.conn = new Connection({ room, credentials, store: this.store,
                                 client: this.isGM ? "komasync console" : "komasync invite page" });
    this.timeline = new Timeline(this);
    this.notices = new Notices(this);
    this.connections = new Connections(this);
    this.invites = new Invites(this);
    this.feed = new Feed();
    this.ui = {};
    this.sections = new Map();
    this.tab = "timeline";
    this.build();
    this.wire();
    this.conn.connect();
    if (this.isGM && !knownRooms.length) {  // opened straight from the URL: learn the others
      fetchRooms(credentials.secret).then(() => this.renderTopButtons(), () => {});
    }
    this.ticker = setInterval(() => { if (this.tab === "connections") this.connections.render(); }, 1000);
    window.komasync = { store: this.store, conn: this.conn, view: this };
  }

  destroy() {
    clearInterval(this.ticker);
    this.unsub?.();
    this.conn.close();
    closePopover();
  }

  // -- layout ----------------------------------------------------------------------------
  build() {
    this.statusEl = h("span.conn-status", { dataset: { status: "connecting" } });
    this.headlineEl = h("span.headline");
    this.commandsEl = h("span.commands");
    this.roomNameEl = h("span.room-title");
    this.mainCol = h("div.col-main");
    this.sideTop = h("div.side-top");
    this.tabsEl = h("nav.tabs", { role: "tablist" });
    this.tabBody = h("div.tab-body");
    this.header = h("header.topbar",
      h("span.brand", "komasync"), this.roomNameEl, this.headlineEl, this.commandsEl,
      h("span.spacer"), this.statusEl,
      h("span.top-buttons"));
    clear(root).appendChild(h("div.console", { dataset: { role: this.roleClass() } },
      this.header,
      h("main.layout", this.mainCol, h("aside.col-side", this.sideTop, this.tabsEl, this.tabBody))));
    this.relabel();
  }

  /** gm, player or viewer (bridge, observer): the page's look follows it. */
  roleClass() {
    if (this.isGM) return "gm";
    return this.role === "player" ? "player" : "viewer";
  }

  /** Everything with words in it, again (language switch). */
  relabel() {
    this.renderTopButtons();
    this.invites.form = this.invites.buildForm();
    this.renderStatus();
    this.renderBanner();
    this.renderTabs();
    this.renderAll();
    this.feed.render();
    this.timeline.render();
    this.notices.render();
    this.connections.relabel();
    this.invites.render();
  }

  /** The GM's other rooms, opened with the same secret (the server's GM key opens all). */
  roomPicker() {
    if (!this.isGM || knownRooms.length < 2) return null;
    const select = h("select.room-switch", { "aria-label": t("rooms.switch"), title: t("rooms.switch"),
      on: { change: () => openRoom(select.value, this.credentials) } },
    knownRooms.map((r) => h("option", { value: r.id }, r.name || r.id)));
    select.value = this.room;
    return select;
  }

  renderTopButtons() {
    const buttons = this.header.querySelector(".top-buttons");
    clear(buttons).append(...[
      this.roomPicker(),
      langButton(),
      h("button.help", { type: "button", title: t("shortcuts.title"), on: { click: () => this.showHelp() } }, "?"),
      this.isGM ? h("button", { type: "button", on: { click: () => { this.destroy(); current = null; showRooms(); } } }, t("rooms.title")) : null,
      this.isGM && this.credentials.secret ? editorButton() : null,
      h("button", { type: "button", on: { click: () => { this.destroy(); current = null; signOut(); } } }, t("signout")),
    ].filter(Boolean));
  }

  /** Non-GM pages: which role (and player) this invite opened, at the top of the side. */
  renderBanner() {
    if (this.isGM || !this.role) {
      this.bannerEl?.remove();
      return;
    }
    this.bannerEl ||= h("div.viewer-banner");
    const name = this.store.state?.meta?.players?.[this.player]?.name || this.player;
    clear(this.bannerEl).append(h("b", t("viewer.title", { role: t(`role.${this.role}`) })),
      this.role === "player"
        ? h("div.small.player-hint", h("span.badge.me", name), " ", t("player.hint"))
        : h("div.small", t("viewer.hint")));
    if (!this.bannerEl.isConnected) this.sideTop.prepend(this.bannerEl);
  }

  /** Log lines of each change, kept a while (player controls show their result). */
  keepLog(msg) {
    if (typeof msg.undo_to === "number") { // what the undo took back is no longer true
      for (const v of [...this.logs.keys()]) if (v > msg.undo_to) this.logs.delete(v);
    }
    this.logs.set(msg.to_version, msg.log || []);
    if (this.logs.size > 300) this.logs.delete(this.logs.keys().next().value);
  }

  renderStatus() {
    const s = this.conn.status;
    this.statusEl.dataset.status = s;
    const v = this.store.version;
    clear(this.statusEl).append(h("span.dot"), " ", t(`status.${s === "idle" ? "connecting" : s}`),
      v !== null ? h("span.version", ` ${t("version", { v })}`) : null);
  }

  tabs() {
    if (!this.isGM) return [["log", t("tab.log"), this.feed.el]];
    return [
      ["timeline", t("tab.timeline"), this.timeline.el],
      ["notices", t("tab.notices"), this.notices.el],
      ["connections", t("tab.connections"), this.connections.el],
      ["invites", t("tab.invites"), this.invites.el],
    ];
  }

  renderTabs() {
    const tabs = this.tabs();
    if (!tabs.some(([id]) => id === this.tab)) this.tab = tabs[0][0];
    if (this.tab === "notices") this.notices.seen();
    clear(this.tabsEl).append(...tabs.map(([id, label]) => h("button.tab", {
      type: "button", role: "tab", "aria-selected": id === this.tab ? "true" : "false",
      dataset: { tab: id }, on: { click: () => { this.tab = id; this.renderTabs(); } },
    }, label, id === "notices" && this.notices.unseen ? h("span.count", String(this.notices.unseen)) : null)));
    const body = tabs.find(([id]) => id === this.tab)[2];
    if (this.tabBody.firstChild !== body) clear(this.tabBody).appendChild(body);
  }

  onNoticesChanged() {
    if (this.tab === "notices") this.notices.seen();
    this.renderTabs();
  }

  // -- panels ------------------------------------------------------------------------------
  ctxFor(panel) {
    const state = this.store.state;
    return {
      app: this,
      state,
      data: panel.key === "*" ? state : state[panel.key],
      isGM: this.isGM,
      role: this.role,
      player: this.player,
      isPlayer: this.role === "player",
      ui: (this.ui[panel.id] ||= {}),
      editable: (path, value, opts) => editable(this, path, value, opts),
      act: (action, opts) => this.act(action, opts),
      refresh: () => { const sec = this.sections.get(panel.id); if (sec) this.fill(panel, sec); },
      logFor: (version) => this.logs.get(version),
      gmBadge,
    };
  }

  /** Re-render the panels whose state key changed (all of them when `keys` is null). */
  renderPanels(keys) {
    const state = this.store.state;
    if (!state) return;
    const active = activePanels(state, this.role ?? "viewer");
    const ids = new Set(active.map((p) => p.id));
    for (const [id, sec] of this.sections) {
      if (!ids.has(id)) {
        sec.el.remove();
        this.sections.delete(id);
      }
    }
    for (const panel of active) {
      let sec = this.sections.get(panel.id);
      const fresh = !sec;
      if (fresh) {
        sec = this.makeSection(panel);
        this.sections.set(panel.id, sec);
      }
      // A panel whose "done" note the room moved past is drawn again without it.
      const stale = dropStale(this.ui[panel.id] || {}, this.store.version);
      const touched = stale || keys === null || panel.key === "*" || keys.has(panel.key)
        || (panel.also || []).some((k) => keys.has(k));
      if (fresh || touched) this.fill(panel, sec);
    }
    // Registry order; nodes move only when the order changed (moving one drops focus).
    for (const [area, parent] of [["main", this.mainCol], ["side", this.sideTop]]) {
      const want = active.filter((p) => (p.area === "side" ? "side" : "main") === area)
        .map((p) => this.sections.get(p.id).el);
      const have = [...parent.children].filter((el) => el.classList.contains("panel"));
      if (want.length !== have.length || want.some((el, i) => el !== have[i])) {
        for (const el of want) parent.appendChild(el);
      }
    }
    this.renderHeader();
  }

  makeSection(panel) {
    const title = h("span.panel-title");
    const body = h("div.panel-body");
    let el;
    if (panel.collapsed) {
      el = h("details.panel", { dataset: { panel: panel.id } }, h("summary", title), body);
      el.addEventListener("toggle", () => { if (el.open) this.fill(panel, this.sections.get(panel.id)); });
    } else {
      el = h("section.panel", { dataset: { panel: panel.id } }, h("h3", title), body);
    }
    return { el, title, body };
  }

  fill(panel, sec) {
    sec.title.textContent = typeof panel.title === "function" ? panel.title(this.ctxFor(panel)) : pick(panel.title);
    if (panel.collapsed && !sec.el.open) {
      clear(sec.body);
      return;
    }
    let node;
    try {
      node = panel.render(this.ctxFor(panel));
    } catch (e) {
      console.error(`panel ${panel.id} failed`, e);
      node = h("p.form-error", `${panel.id}: ${e.message}`);
    }
    sec.el.hidden = node === null;
    const keep = focusKept(sec.body);
    const top = sec.body.scrollTop;
    clear(sec.body);
    if (node) sec.body.appendChild(node);
    sec.body.scrollTop = top;
    if (keep) keep.restore(sec.body);
  }

  renderAll() {
    this.renderPanels(null);
  }

  renderHeader() {
    const state = this.store.state;
    this.roomNameEl.textContent = state?.meta?.name || this.room;
    document.title = `${state?.meta?.name || this.room} — komasync`;
    const lines = state ? activePanels(state, this.role ?? "viewer").filter((p) => p.headline).map((p) => p.headline(this.ctxFor(p))) : [];
    this.headlineEl.textContent = lines.join(" | ");
    clear(this.commandsEl);
    if (!this.isGM || !state) return;
    for (const cmd of activeCommands(state)) {
      const panel = activePanels(state).find((p) => p.id === cmd.panel);
      const ctx = this.ctxFor(panel);
      const enabled = cmd.enabled ? cmd.enabled(ctx) : true;
      this.commandsEl.appendChild(h("button.primary.command", {
        type: "button", disabled: !enabled, dataset: { command: cmd.id }, title: cmd.key ? `${cmd.key}` : "",
        on: { click: () => cmd.run(this.ctxFor(panel)) },
      }, cmd.label(ctx), cmd.key ? h("kbd", cmd.key) : null));
    }
    this.commandsEl.appendChild(h("button.command.undo-last", {
      type: "button", disabled: !(this.store.version > 0), dataset: { command: "undo" },
      on: { click: (ev) => this.undoLast(ev.currentTarget) },
    }, t("undo.last"), h("kbd", "u")));
  }

  // -- actions ---------------------------------------------------------------------------
  async act(action, { quiet = false, baseVersion } = {}) {
    const reply = await this.conn.action(action, { baseVersion });
    // A refusal also arrives as a `notice` (every GM sees those, with a toast), so only
    // errors (bad message, not connected) are toasted here.
    if (!quiet && reply.type !== "ack" && (reply.type !== "reject" || !this.isGM)) {
      const why = `${reply.rule ? reply.rule + " " : ""}${reply.code ? `(${reply.code}) ` : ""}${pick(reply.reason)}`;
      toast(t(reply.type === "reject" ? "rejected" : "error", { reason: why }), "error");
    }
    return reply;
  }

  async undoTo(version, anchor, baseVersion) {
    const gone = this.timeline.undone(); // an undo already took these back
    const undone = [...this.timeline.entries.values()].filter((e) => e.version > version && !gone.has(e.version))
      .sort((a, b) => b.version - a.version);
    // The same sentences as the timeline's, with names, one per line.
    const list = h("ul.undo-list", undone.slice(0, 6).map((e) => h("li", { dataset: { version: e.version } },
      `v${e.version} ${sentence(e, this.store.state)}`)),
    undone.length > 6 ? h("li.muted", `…(+${undone.length - 6})`) : null);
    const reason = await askReason(anchor, {
      title: t("undo.confirm", { v: version }), defaultReason: t("undo.default_reason"),
      detail: undone.length ? h("div", t("undo.undoes", { list: "" }).trim(), list) : null,
      confirm: t("undo.confirm", { v: version }),
    });
    if (!reason) return null;
    return this.act({ kind: "undo", to_version: version, reason }, { baseVersion });
  }

  undoLast(anchor) {
    const v = this.store.version;
    if (!this.isGM || !(v > 0)) {
      toast(t("undo.nothing"));
      return null;
    }
    return this.undoTo(v - 1, anchor || this.header.querySelector(".undo-last"), v);
  }

  showHelp() {
    const rows = [
      ...(this.isGM ? activeCommands(this.store.state) : []).filter((c) => c.key).map((c) => [c.key, c.label(this.ctxFor(activePanels(this.store.state).find((p) => p.id === c.panel)))]),
      this.isGM ? ["u / Ctrl+Z", t("shortcuts.undo")] : null,
      ["l", t("shortcuts.lang")],
      ["?", t("shortcuts.help")],
      ["Esc", t("shortcuts.escape")],
    ];
    showPopover(null, h("div.pop-form.help",
      h("div.pop-title", t("shortcuts.title")),
      h("table.grid-table", h("tbody", rows.filter(Boolean).map(([k, d]) => h("tr", h("td", h("kbd", k)), h("td", d))))),
      h("div.pop-buttons", h("button", { type: "button", on: { click: closePopover } }, t("close")))),
    { label: t("shortcuts.title") });
  }

  // -- the connection ----------------------------------------------------------------------
  wire() {
    const c = this.conn;
    this.unsub = this.store.subscribe((info) => {
      if (info.msg) this.keepLog(info.msg);
      this.renderPanels(info.kind === "snapshot" ? null : info.keys);
      this.renderStatus();
    });
    c.addEventListener("status", () => this.renderStatus());
    c.addEventListener("welcome", (ev) => {
      const w = ev.detail;
      const before = `${this.role}/${this.player}`;
      this.isGM = w.role === "gm";
      this.role = w.role;
      this.player = w.player;
      if (before !== `${this.role}/${this.player}`) {
        root.querySelector(".console").dataset.role = this.roleClass();
        this.renderBanner();
        this.renderTabs();
        this.renderAll();
      }
      if (this.isGM) {
        this.timeline.load();
        this.invites.refresh();
      } else {
        this.feed.load(this.conn, w.version);
      }
    });
    c.addEventListener("snapshot", () => {
      this.renderBanner();
      this.renderAll();
      // overrides in the history name their path by the schema's titles once it is here
      if (!schemaNow()) loadSchema().then((schema) => { if (schema) { this.timeline.render(); this.feed.render(); } });
    });
    c.addEventListener("change", (ev) => {
      const msg = ev.detail;
      this.timeline.addChange(msg);
      if (typeof msg.undo_to === "number") this.notices.render(); // its undone warnings go
      if (!this.isGM) this.feed.add(msg);
      this.renderHeader();
    });
    c.addEventListener("notice", (ev) => {
      const { kind, data } = ev.detail;
      if (kind === "refusal" || kind === "warning") this.notices.add(kind, data);
      else if (kind === "presence") this.connections.presence(data);
      else if (kind === "bridge") this.connections.bridge(data);
      else if (kind === "roll") this.connections.roll(data);
    });
    c.addEventListener("error", (ev) => {
      const e = ev.detail;
      if (e.id) return; // the reply to one of our requests: its caller shows it
      this.notices.add("error", { client: t("app.title"), code: e.code, reason: e.reason });
    });
    c.addEventListener("prompt", () => {
      if (this.role === "player") toast(t("prompt.new"), "warn");
    });
    c.addEventListener("bye", (ev) => toast(t("bye", { reason: pick(ev.detail.reason) }), "warn"));
    c.addEventListener("auth_failed", (ev) => {
      const why = pick(ev.detail.reason);
      this.destroy();
      current = null;
      if (this.isGM) {
        sessionStorage.removeItem(SECRET_KEY);
        showSignIn(t("signin.failed", { why }));
      } else {
        sessionStorage.removeItem(INVITE_KEY);
        clear(root).appendChild(h("div.center-page", h("div.card.dead-invite",
          h("h1", t("invite.dead")), h("p.form-error", why), h("p", t("invite.ask")))));
      }
    });
  }
}

// -- keyboard ---------------------------------------------------------------------------------

function typing(el) {
  return el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") {
    if (popoverOpen()) {
      closePopover();
      ev.preventDefault();
    }
    return;
  }
  if (typing(ev.target) || ev.isComposing) return;
  const view = current;
  if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && ev.key.toLowerCase() === "z") {
    if (view?.isGM) {
      ev.preventDefault();
      view.undoLast();
    }
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey || popoverOpen()) return;
  if (ev.key === "l") {
    toggleLang();
    return;
  }
  if (!view) return;
  if (ev.key === "?") {
    view.showHelp();
    return;
  }
  if (!view.isGM || !view.store.state) return;
  if (ev.key === "u") {
    ev.preventDefault();
    view.undoLast();
    return;
  }
  const state = view.store.state;
  const cmd = activeCommands(state).find((c) => c.key === ev.key);
  if (!cmd) return;
  const panel = activePanels(state).find((p) => p.id === cmd.panel);
  const ctx = view.ctxFor(panel);
  if (!cmd.enabled || cmd.enabled(ctx)) {
    ev.preventDefault();
    cmd.run(ctx);
  }
});

onLangChange(() => rerender());

// A link opened in a tab that already shows a room (only the fragment changes, so the
// page does not reload): open the room it names, with its invite if it carries one.
window.addEventListener("hashchange", () => {
  const { room, invite } = readHash();
  if (!room) return;
  takeInviteFromUrl();
  if (invite) {
    openRoom(room, { token: invite });
    return;
  }
  const secret = sessionStorage.getItem(SECRET_KEY);
  if (secret && current?.room !== room) openRoom(room, { secret });
});

// -- start ---------------------------------------------------------------------------------

function start() {
  takeInviteFromUrl();
  const { room } = readHash();
  const secret = sessionStorage.getItem(SECRET_KEY);
  let invite = null;
  try {
    invite = JSON.parse(sessionStorage.getItem(INVITE_KEY) || "null");
  } catch { /* ignore */ }
  if (invite && (!secret || invite.room === room)) {
    openRoom(invite.room, { token: invite.token });
  } else if (secret && room) {
    openRoom(room, { secret });
  } else if (secret) {
    showRooms();
  } else {
    showSignIn();
  }
}

start();
