// @ts-check
// The WebSocket to /ws: authenticate first (the GM secret or an invite token travels
// only in the `auth` frame, never in a URL), keep the Store in step, resume with
// `since` after a disconnect, and match replies to requests by their `id`.
//
// Events (EventTarget, `detail` = the frame): status, welcome, snapshot, change, notice,
// prompt, reject, error, bye, history, invite, invites, pong, query.result.

import { newId } from "./dom.js";
import { setTables } from "./phases.js";

/** @typedef {import("../../../adapters/types/protocol").ServerMessage} ServerMessage */
/** @typedef {import("../../../adapters/types/protocol").ClientMessage} ClientMessage */
/** @typedef {import("../../../adapters/types/protocol").Welcome} Welcome */
/** @typedef {import("../../../adapters/types/protocol").Auth} Auth */
/** @typedef {import("../../../adapters/types/protocol").Error} ErrorFrame */
/**
 * What a request resolves to: the frame answering it (`ack`, `reject`, `error`, `invite`…).
 * @typedef {Extract<ServerMessage, {id?: string | null}>} Reply
 */
/**
 * A message `request` sends: one that carries an `id`, which it fills in when left out.
 * @typedef {ClientMessage extends infer M ? M extends {id: string} ? Omit<M, "id"> & {id?: string} : never : never} Request
 */
/** @typedef {{secret: string} | {token: string}} Credentials */

const REPLY_TYPES = new Set(["ack", "reject", "error", "invite", "invites", "history", "query.result", "dry_run.result"]);
// Errors while connecting that retrying at once cannot fix: sign in again (the reason
// says why, e.g. how long a throttled address must wait).
const AUTH_STOPS = new Set(["auth_failed", "invite_revoked", "auth_timeout", "auth_throttled",
  "too_many_connections", "too_many_connections_for_invite"]);

export class Connection extends EventTarget {
  /**
   * @param {object} o
   * @param {string} o.room  room id
   * @param {Credentials} o.credentials  {secret} for the GM or {token} for an invite
   * @param {import("./store.js").Store} o.store
   * @param {string} [o.url]  the WebSocket URL (default: this page's /ws)
   * @param {string} [o.client]  label shown to the GM
   */
  constructor({ room, credentials, store, url, client = "komasync console" }) {
    super();
    this.room = room;
    this.credentials = credentials;
    this.store = store;
    this.client = client;
    this.url = url || `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.status = "idle";
    /** @type {Welcome | null} */
    this.welcome = null;
    /** @type {Map<string, {resolve: (reply: Reply) => void}>} */
    this.pending = new Map();
    this.retry = 0;
    this.stopped = false;
    this.fresh = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    this.setStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      /** @type {Auth} */
      const auth = { type: "auth", room: this.room, client: this.client, ...this.credentials };
      if (this.store.version !== null && !this.fresh) auth.since = this.store.version;
      this.fresh = false;
      ws.send(JSON.stringify(auth));
    };
    ws.onmessage = (ev) => this.onFrame(ws, ev.data);
    ws.onclose = () => this.onClose(ws);
    ws.onerror = () => { /* onclose follows */ };
  }

  /** Close for good (sign out, leaving the room). */
  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "bye");
    this.failPending("closed");
    this.setStatus("closed");
  }

  /** Drop the socket and reconnect: with `since` (gap) or for a fresh snapshot. */
  resync(fresh = false) {
    this.fresh = fresh;
    if (fresh) this.store.reset();
    if (this.ws) this.ws.close(4000, "resync");
  }

  setStatus(status) {
    this.status = status;
    this.dispatch("status", { status });
  }

  dispatch(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * @param {WebSocket} ws
   * @param {string} text
   */
  onFrame(ws, text) {
    if (ws !== this.ws) return;
    /** @type {ServerMessage} */
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    switch (msg.type) {
      case "welcome":
        this.welcome = msg;
        setTables(msg.tables);
        this.retry = 0;
        this.setStatus("open");
        this.dispatch("welcome", msg);
        return;
      case "snapshot":
        this.store.applySnapshot(msg.version, msg.state);
        this.dispatch("snapshot", msg);
        return;
      case "change": {
        const result = this.store.applyChange(msg);
        if (result === "gap") this.resync(false);
        else if (result === "broken") this.resync(true);
        else if (result === "ok") this.dispatch("change", msg);
        return;
      }
      case "error":
        if (this.status === "connecting" && AUTH_STOPS.has(msg.code)) {
          this.stopped = true;
          this.setStatus("auth_failed");
          this.dispatch("auth_failed", msg);
          ws.close();
          return;
        }
        break;
      case "bye":
        this.dispatch("bye", msg);
        return;
      default:
        break;
    }
    const id = "id" in msg ? msg.id : null;
    const waiting = id ? this.pending.get(id) : undefined;
    if (REPLY_TYPES.has(msg.type) && id && waiting) {
      this.pending.delete(id);
      waiting.resolve(/** @type {Reply} */ (msg));
    }
    this.dispatch(msg.type, msg);
  }

  /** @param {WebSocket} ws */
  onClose(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.failPending("disconnected");
    if (this.stopped) return;
    this.setStatus("closed");
    const delay = Math.min(5000, 250 * 2 ** this.retry);
    this.retry += 1;
    this.timer = setTimeout(() => this.connect(), this.fresh ? 0 : delay);
  }

  /** @param {string} code */
  failPending(code) {
    for (const { resolve } of this.pending.values()) {
      resolve({ type: "error", code, reason: { ja: "接続が切れました。", en: "The connection closed." } });
    }
    this.pending.clear();
  }

  /** @param {ClientMessage} msg */
  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /**
   * Send a message with an `id` and wait for the reply carrying it.
   * @param {Request} msg
   * @returns {Promise<Reply>}
   */
  request(msg) {
    const id = msg.id || newId("q");
    const full = /** @type {ClientMessage} */ ({ ...msg, id });
    return new Promise((resolve) => {
      if (!this.send(full)) {
        resolve({ type: "error", id, code: "disconnected",
                  reason: { ja: "接続していません。", en: "Not connected." } });
        return;
      }
      this.pending.set(id, { resolve });
    });
  }

  /**
   * An action; resolves to the `ack`, `reject` or `error` frame.
   * @param {import("../../../adapters/types/protocol").ActionMsg["action"]} action
   * @param {{baseVersion?: number | null}} [options]
   */
  action(action, { baseVersion } = {}) {
    /** @type {import("../../../adapters/types/protocol").ActionMsg} */
    const msg = { type: "action", id: newId("a"), action };
    if (baseVersion !== undefined && baseVersion !== null) msg.base_version = baseVersion;
    return this.request(msg);
  }

  /**
   * @param {string} prompt
   * @param {string} choice
   */
  answer(prompt, choice) {
    return this.request({ type: "answer", id: newId("ans"), prompt, choice });
  }
}
