/**
 * The Foundry glue: settings, hooks, who connects, what is reported, what is shown.
 *
 * How this works: the module runs in every browser of the world, but only the active GM's
 * (`game.user === game.users.activeGM`) connects to komasync and applies its ops, so no
 * work is done twice; when the active GM changes (a GM joins or leaves) every client
 * re-evaluates. The active GM reports token moves (v12 `updateToken`, v13 `moveToken`;
 * several operations of one drag settle into one report) and dice lines in chat
 * (`createChatMessage`) as `table.event`s, and applies `table.ops` with apply.js.
 *
 * Every browser (players' too) runs the synchronous veto in the mover's client
 * (`preUpdateToken` in v12, `preMoveToken` in v13): where the server pushed legal-move
 * data into a token's flags, an illegal drop is cancelled before it lands and the mover
 * is told why (veto.js). Anything else is accepted, reported, and — if the server refuses
 * it — snapped back by the server's ops with a whisper to the mover.
 *
 * Everything Foundry is reached through `env` (game, Hooks, ChatMessage, ui, canvas,
 * WebSocket, location, document), so the Node tests run this file against a fake world.
 */

import { BridgeClient, State } from "../core/client.js";
import { resolveServerUrl } from "../core/url.js";
import { Settler } from "../core/settle.js";
import { applyFrame, stableIdOf, FLAG } from "./apply.js";
import { checkMove } from "./veto.js";

export const MODULE_ID = FLAG;
export const VERSION = "0.1.0";

/** Settings: the connection ones are client-scoped (this browser's localStorage only). */
export const SETTINGS = Object.freeze({
  serverUrl: { scope: "client", type: String, default: "ws://127.0.0.1:8750/ws" },
  room: { scope: "client", type: String, default: "" },
  token: { scope: "client", type: String, default: "" },
  scene: { scope: "world", type: String, default: "" },
});

/** Register the module's settings (call in the `init` hook). */
export function registerSettings(env) {
  const { game } = env;
  for (const [key, def] of Object.entries(SETTINGS)) {
    game.settings.register(MODULE_ID, key, {
      name: `KOMASYNC.Settings.${key}.Name`,
      hint: `KOMASYNC.Settings.${key}.Hint`,
      scope: def.scope,
      config: true,
      type: def.type,
      default: def.default,
      restricted: def.scope === "world",
      onChange: () => env.__komasync && env.__komasync.reconfigure(),
    });
  }
}

const TEAR = /<\/?[a-zA-Z][^<>]*>/g;
/** Tags that end a line of text: the BCDice modules put each result line in its own `<p>`. */
const BREAK = /<br\s*\/?>|<\/?(?:p|div|li|h[1-6])(?:\s[^<>]*)?>/gi;
const ENTITIES = { "&gt;": ">", "&lt;": "<", "&amp;": "&", "&quot;": '"', "&#39;": "'", "&nbsp;": " ", "&#8203;": "" };
/** Zero-width characters; the BCDice modules write every `,` as `,\u200B`. */
const ZERO_WIDTH = /\u200B|\u200C|\u200D|\u2060|\uFEFF/g;
/** `…＞ 6#2(2D6) ＞ …`: a repeat's `#n` glued to the line before it and to its header. */
const GLUED_REPEAT = /[ \t]*#(\d+)[ \t]*(?=\()/g;

/**
 * Chat HTML as the plain lines BCDice printed: one line per paragraph (or `<br>`), tags
 * dropped, entities decoded, zero-width spaces removed, each `#n` of a repeat on its own line.
 */
export function plainText(html) {
  return String(html || "")
    .replace(BREAK, "\n")
    .replace(TEAR, "")
    .replace(/&(gt|lt|amp|quot|#39|nbsp|#8203);/g, (m) => ENTITIES[m])
    .replace(ZERO_WIDTH, "")
    .replace(GLUED_REPEAT, "\n#$1\n")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .join("\n")
    .trim();
}

/** A BCDice result line: `(2D6) ＞ 7`, `(1D100<=53) … ＞ レギュラー成功` (vtt.md). */
export const DICE_LINE = /\(\s*[^()]*\d*[dD]\d+[^()]*\)[^\n]*[＞>]/;
/** Cthulhu7th FAR prints no `(…D…)` header: its first line is the bonus dice, then volleys. */
const FULL_AUTO = /^ボーナス・ペナルティダイス\[[+-]?\d+\]$/;
const VOLLEY = /^\d+回目:\s*[＞>]/;
const REPEAT = /^#\d+$/;

/**
 * The BCDice result in `text`: its dice lines, a repeat's `#n` lines, and a FAR burst
 * whole (from its bonus-dice line to its `＞ …残弾…` summary); "" when there is none.
 */
export function diceText(text) {
  const lines = String(text || "").split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FULL_AUTO.test(line) && VOLLEY.test(lines[i + 1] || "")) {
      let j = i + 1;
      while (j < lines.length && !/^[＞>]/.test(lines[j])) j++;
      out.push(...lines.slice(i, j + 1));
      i = j;
    } else if (DICE_LINE.test(line) || (REPEAT.test(line) && DICE_LINE.test(lines[i + 1] || ""))) {
      out.push(line);
    }
  }
  return out.join("\n");
}

/**
 * Foundry's own dice, structured (ChatMessage#rolls, Roll#terms): each roll's formula,
 * total and terms — a die as {faces, number, modifiers, results:[{result, active,
 * discarded}]}, an operator, a number, anything else by its expression. No text is parsed.
 */
export function nativeRolls(msg) {
  const rolls = Array.isArray(msg && msg.rolls) ? msg.rolls : [];
  return rolls.filter((r) => r && Array.isArray(r.terms)).slice(0, 10).map((r) => ({
    formula: String(r.formula || ""),
    total: typeof r.total === "number" ? r.total : null,
    terms: r.terms.slice(0, 40).map(termOf),
  }));
}

function termOf(t) {
  if (t && Array.isArray(t.results) && typeof t.faces === "number") {
    return {
      type: "die", faces: t.faces, number: t.number, modifiers: [...(t.modifiers || [])],
      results: t.results.map((x) => ({ result: x.result, active: x.active !== false, discarded: Boolean(x.discarded) })),
    };
  }
  if (t && typeof t.operator === "string") return { type: "op", operator: t.operator };
  if (t && typeof t.number === "number") return { type: "number", number: t.number };
  return { type: "other", expression: String((t && (t.expression || t.formula)) || "?").slice(0, 200) };
}

export class FoundryBridge {
  /**
   * @param {object} env  {game, Hooks, ChatMessage, ui, canvas, CONST, WebSocket, location,
   *                       document?, timers?}
   * @param {object} [opts]  {settleMs, backoff, pingEvery, clientOptions}
   */
  constructor(env, opts = {}) {
    this.env = env;
    this.opts = opts;
    this.client = null;
    this.expect = new Map();
    this.lastNoGM = null;
    this.applied = [];
    this.reported = [];
    this.vetoes = [];
    this.lastSummary = null;
    this.lastUnbound = null;
    this.resyncAt = 0;
    const t = opts.timers || {};
    this.now = t.now || (() => Date.now());
    this.settler = new Settler((id, ev) => this._report(ev), {
      quietMs: opts.settleMs ?? 150,
      setTimeout: t.setTimeout,
      clearTimeout: t.clearTimeout,
    });
    env.__komasync = this;
  }

  get game() {
    return this.env.game;
  }

  t(key, data) {
    const i18n = this.game.i18n;
    return data ? i18n.format(`KOMASYNC.${key}`, data) : i18n.localize(`KOMASYNC.${key}`);
  }

  /** Is this browser the one that connects and applies? */
  get isActiveGM() {
    const { game } = this;
    return Boolean(game.user && game.users.activeGM && game.user === game.users.activeGM);
  }

  /** Register the hooks (every client); then decide whether to connect. */
  ready() {
    const { Hooks } = this.env;
    const v13 = this.generation >= 13;
    if (v13) {
      Hooks.on("preMoveToken", (doc, movement, operation) => this._preMove(doc, movement && movement.destination, operation, this.game.user));
      Hooks.on("moveToken", (doc, movement, operation, user) => this._moved(doc, movement && movement.destination, operation, user));
    } else {
      Hooks.on("preUpdateToken", (doc, changes, options, userId) => {
        if (!("x" in changes) && !("y" in changes)) return undefined;
        const dest = { x: changes.x ?? doc.x, y: changes.y ?? doc.y };
        return this._preMove(doc, dest, options, this.game.users.get(userId) || this.game.user);
      });
      Hooks.on("updateToken", (doc, changed, options, userId) => {
        if (!("x" in changed) && !("y" in changed)) return;
        this._moved(doc, { x: doc.x, y: doc.y }, options, this.game.users.get(userId));
      });
    }
    Hooks.on("createChatMessage", (msg, options, userId) => this._chat(msg, userId));
    Hooks.on("userConnected", () => this.evaluate());
    this.evaluate();
    return this;
  }

  get generation() {
    const r = this.game.release;
    return (r && Number(r.generation)) || 12;
  }

  setting(key) {
    try {
      return this.game.settings.get(MODULE_ID, key);
    } catch {
      return SETTINGS[key] ? SETTINGS[key].default : undefined;
    }
  }

  /** The scene komasync draws on: the `scene` setting, else the active scene. */
  get scene() {
    const id = this.setting("scene");
    const scenes = this.game.scenes;
    return (id && scenes.get(id)) || scenes.active || null;
  }

  /** Start or stop the connection and warn about a missing GM (on ready and presence changes). */
  evaluate() {
    const { game, ui } = this.env;
    const noGM = !game.users.activeGM;
    if (noGM !== this.lastNoGM) {
      this.lastNoGM = noGM;
      if (noGM) ui.notifications.error(this.t("NoGM"), { permanent: true });
    }
    if (this.isActiveGM) this._connect();
    else this._disconnect();
    this.render();
  }

  /** Settings changed: reconnect with the new ones. */
  reconfigure() {
    this._disconnect();
    this.evaluate();
  }

  _connect() {
    if (this.client) return;
    const url = this.setting("serverUrl");
    const room = this.setting("room");
    const token = this.setting("token");
    if (!url || !room || !token) {
      this.configError = this.t("NotConfigured");
      this.env.ui.notifications.warn(this.configError);
      return;
    }
    let resolved;
    try {
      resolved = resolveServerUrl(url, (this.env.location && this.env.location.protocol) || "http:");
    } catch (e) {
      this.configError = String(e.message || e);
      this.env.ui.notifications.error(this.configError);
      return;
    }
    this.configError = null;
    this.client = new BridgeClient({
      url: resolved,
      room,
      token,
      platform: "foundry",
      client: `Foundry ${this.game.user.name}`,
      WebSocket: this.env.WebSocket,
      timers: this.opts.timers,
      backoff: this.opts.backoff,
      pingEvery: this.opts.pingEvery,
      applyOps: (frame) => this._apply(frame),
      onChange: () => this.render(),
      onRefusal: (r) => this.render(r),
      ...(this.opts.clientOptions || {}),
    });
    this.client.start();
    if (this.scene) this._status(this.scene);
  }

  _disconnect() {
    if (!this.client) return;
    this.client.stop();
    this.client = null;
  }

  stop() {
    this.settler.flush();
    this._disconnect();
  }

  // -- applying -------------------------------------------------------------------------

  async _apply(frame) {
    const scene = this.scene;
    if (!scene) throw new Error(this.t("NoScene"));
    const summary = await applyFrame(frame, {
      scene,
      ChatMessage: this.env.ChatMessage,
      generation: this.generation,
      expect: this.expect,
      now: this.now,
      log: (level, msg) => this._log(level, msg),
      prepareCreate: (type, data) => this._linkActor(type, data),
    });
    this.lastSummary = summary;
    this.applied.push({ version: frame.version, reset: frame.reset, summary });
    if (this.applied.length > 50) this.applied.shift();
    if (summary.missing.length && this.now() - this.resyncAt > 10000) {
      // A komasync document was deleted by hand: the reset of a re-join draws it again.
      this.resyncAt = this.now();
      this.client && this.client.resync();
    }
    this._status(scene);
  }

  /**
   * Players can drag only tokens they own, and a token is owned through its actor. So a
   * hand-movable komasync token (a PC or a generic piece) is linked to the world's actor
   * of the same name when there is exactly one; ownership then follows that actor.
   */
  _linkActor(type, data) {
    const f = data && data.flags && data.flags[MODULE_ID];
    const actors = this.game.actors;
    if (type !== "Token" || data.actorId || !f || !["pc", "piece"].includes(f.kind) || !actors) return data;
    const same = actors.filter ? actors.filter((a) => a.name === data.name) : [];
    return same.length === 1 ? { ...data, actorId: same[0].id } : data;
  }

  /** Tell the GM console how far the bridge is and what its set-up needs. */
  _status(scene) {
    if (!this.client) return;
    this.client.setStatusDetail(this.statusDetail(scene));
    this.client.setStatusReport(this.setupReport(scene));
  }

  /**
   * What the GM console's set-up offers (issue 30): the scene's tokens by name with their
   * top-left pixels (calibration by clicking their squares), the world's users (matched
   * to komasync players), and the scene's grid size and padding.
   */
  setupReport(scene) {
    const tokens = scene && scene.tokens ? scene.tokens.contents.slice(0, 100).map((t) => {
      const tok = { name: String(t.name || "").slice(0, 100), left: Number(t.x) || 0, top: Number(t.y) || 0 };
      const sid = stableIdOf(t);
      if (sid) tok.id = String(sid).slice(0, 100);
      return tok;
    }) : [];
    const all = this.game.users && this.game.users.contents ? this.game.users.contents : [...(this.game.users || [])];
    const users = all.slice(0, 100).map((u) => ({ id: String(u.id).slice(0, 100), name: String(u.name || "").slice(0, 100), gm: Boolean(u.isGM) }));
    const size = scene && scene.grid && scene.grid.size;
    const rect = scene && scene.dimensions && scene.dimensions.sceneRect;
    const report = { tokens, users };
    if (size > 0) report.grid = { size, origin_x: rect ? rect.x : 0, origin_y: rect ? rect.y : 0 };
    return report;
  }

  /** What the GM console shows for this bridge: scene geometry for calibration. */
  statusDetail(scene) {
    const d = scene && scene.dimensions;
    const rect = d && d.sceneRect;
    const size = scene && scene.grid && scene.grid.size;
    const unbound = this.lastUnbound ? ` | 駒を名指ししないロール / roll naming no piece: ${this.lastUnbound.slice(0, 40)}` : "";
    // the module's own version first (as the userscript's line starts): `komasync doctor` reads it
    const mod = this.game.modules && this.game.modules.get && this.game.modules.get("komasync");
    const head = `foundry ${(mod && mod.version) || "?"} v${this.generation}`;
    if (!rect || !size) return `${head}${unbound}`;
    return `${head} scene ${scene.name}: cell_size ${size}, origin_x ${rect.x}, origin_y ${rect.y}${unbound}`;
  }

  /**
   * The calibration for `meta.platforms.foundry`, read from the scene itself (Foundry's
   * grid is known exactly: pixels, `grid.size` per square, the padding offset).
   */
  calibration() {
    const scene = this.scene;
    if (!scene) return null;
    const d = scene.dimensions;
    return { origin_x: d.sceneRect.x, origin_y: d.sceneRect.y, cell_size: scene.grid.size, units: "px" };
  }

  // -- moves ----------------------------------------------------------------------------

  _preMove(doc, dest, options, user) {
    if (!dest || (options && options.komasync)) return undefined;
    if (!stableIdOf(doc)) return undefined;
    const verdict = checkMove(doc, dest, user, this.scene);
    if (verdict.ok) return undefined;
    const reason = this._reason(verdict.reason);
    this.vetoes.push({ id: stableIdOf(doc), dest, reason });
    this.env.ui.notifications.warn(this.t("Vetoed", { name: doc.name || "", reason }));
    return false;
  }

  _moved(doc, dest, options, user) {
    if (!this.isActiveGM || !dest) return;
    if (this.scene) this._status(this.scene); // a token placed for calibration shows at once
    if (options && options.komasync) return;
    const id = stableIdOf(doc);
    if (!id) return;
    const mine = this.expect.get(id);
    if (mine) {
      this.expect.delete(id);
      if (mine.x === dest.x && mine.y === dest.y && this.now() - mine.at < 5000) return;
    }
    const u = user || this.game.user;
    this.settler.push(id, {
      kind: "move",
      id,
      x: dest.x,
      y: dest.y,
      user: { id: u.id, name: u.name, gm: Boolean(u.isGM) },
      token: doc.id,
      scene: doc.parent ? doc.parent.id : undefined,
    });
  }

  _report(event) {
    if (!this.client) return;
    this.reported.push(event);
    if (this.reported.length > 100) this.reported.shift();
    this.client.sendEvent(event);
  }

  // -- chat -----------------------------------------------------------------------------

  _chat(msg, userId) {
    if (!this.isActiveGM || !this.client) return;
    if (msg.flags && msg.flags[MODULE_ID]) return; // our own lines
    const text = plainText(msg.content);
    const roll = diceText(text);
    const rolls = roll ? [] : nativeRolls(msg);
    if (!roll && !rolls.length) return; // only dice results can become actions
    const speaker = msg.speaker || {};
    const flavor = plainText(msg.flavor);
    const ev = { kind: "chat", text: roll ? text : [flavor, text].filter(Boolean).join("\n"), speaker: { name: speaker.alias || "" } };
    if (roll) ev.roll = roll;
    else ev.rolls = rolls;
    const sid = this._speakerId(speaker);
    if (sid) ev.speaker.id = sid;
    else {
      // Only an alias (a BCDice module's game system, a roll with no token): the server
      // credits it to the one piece the rolling player owns, if there is exactly one.
      ev.speaker.alias_only = true;
      this._unbound(ev.speaker.name);
    }
    const tok = sid && this._tokenOf(sid);
    if (tok && !ev.speaker.name) ev.speaker.name = tok.name;
    const u = this.game.users.get(userId || msg.author) || this.game.user;
    ev.user = { id: u.id, name: u.name, gm: Boolean(u.isGM) };
    this._report(ev);
  }

  /**
   * The komasync piece a message speaks for: its speaker token, else the one komasync
   * token named as the alias, else the one whose actor is the one actor of that name
   * (the BCDice modules give only an alias: a token's or actor's name, or a system's).
   */
  _speakerId(speaker) {
    if (speaker.token) {
      const scene = (speaker.scene && this.game.scenes.get(speaker.scene)) || this.scene;
      const tok = scene && scene.tokens.get(speaker.token);
      const sid = tok && stableIdOf(tok);
      if (sid) return sid;
    }
    const alias = speaker.alias;
    const tokens = this.scene ? this.scene.tokens.contents.filter((t) => stableIdOf(t)) : [];
    if (!alias || !tokens.length) return null;
    const named = tokens.filter((t) => t.name === alias);
    if (named.length === 1) return stableIdOf(named[0]);
    const actors = this.game.actors && this.game.actors.filter ? this.game.actors.filter((a) => a.name === alias) : [];
    const theirs = actors.length === 1 ? tokens.filter((t) => t.actorId === actors[0].id) : [];
    return theirs.length === 1 ? stableIdOf(theirs[0]) : null;
  }

  _tokenOf(sid) {
    return this.scene ? this.scene.tokens.contents.find((t) => stableIdOf(t) === sid) : null;
  }

  /** A roll credited to no piece: sent unbound, and the GM console's bridge line says so. */
  _unbound(alias) {
    this.lastUnbound = alias || "?";
    if (this.scene) this._status(this.scene);
  }

  // -- what the GM sees ---------------------------------------------------------------------

  _reason(reason) {
    if (!reason) return this.t("IllegalMove");
    if (typeof reason === "string") return reason;
    const lang = this.game.i18n && this.game.i18n.lang;
    return (lang === "en" ? reason.en || reason.ja : reason.ja || reason.en) || this.t("IllegalMove");
  }

  /** One line for the status indicator. */
  statusText() {
    if (!this.game.users.activeGM) return this.t("Status.NoGM");
    if (!this.isActiveGM) return this.t("Status.OtherGM", { name: this.game.users.activeGM.name });
    if (this.configError) return this.configError;
    if (!this.client) return this.t("Status.Off");
    const info = this.client.info;
    switch (info.state) {
      case State.LIVE:
        return this.t("Status.Live", { version: info.applied ?? "-", pending: info.pending });
      case State.WAITING: {
        const s = Math.max(0, Math.ceil(((info.nextRetryAt || 0) - this.now()) / 1000));
        return this.t("Status.Waiting", { seconds: s, attempts: info.attempts });
      }
      case State.AUTH_FAILED:
        return this.t("Status.AuthFailed");
      case State.CONNECTING:
      case State.AUTHENTICATING:
        return this.t("Status.Connecting");
      default:
        return this.t("Status.Off");
    }
  }

  /** Draw (or update) the status line in the page, when there is a page. */
  render() {
    const doc = this.env.document;
    if (!doc || !this.game.user || !this.game.user.isGM) return;
    let el = doc.getElementById("komasync-status");
    if (!el) {
      el = doc.createElement("div");
      el.id = "komasync-status";
      el.style.cssText =
        "position:fixed;left:8px;bottom:8px;z-index:100;padding:4px 8px;border-radius:4px;" +
        "font:12px sans-serif;color:#fff;background:#555;max-width:40em;pointer-events:none";
      doc.body.appendChild(el);
    }
    const info = this.client ? this.client.info : null;
    const live = info && info.state === State.LIVE;
    const bad = !this.game.users.activeGM || (info && info.state === State.AUTH_FAILED) || this.configError;
    el.style.background = live ? "#2e7d32" : bad ? "#c62828" : "#ef6c00";
    let text = `komasync: ${this.statusText()}`;
    if (info && info.lastRefusal) {
      text += ` — ${this.t("LastRefusal")}: ${this._reason(info.lastRefusal.reason)}`;
    }
    el.textContent = text;
  }

  _log(level, msg) {
    const c = globalThis.console;
    if (c && c[level === "error" ? "error" : "warn"] && level !== "info") c[level === "error" ? "error" : "warn"](`komasync | ${msg}`);
  }
}
