// @ts-check
/**
 * The bridge's connection to a komasync room (protocol v2, docs/protocol.md).
 *
 * How this works: one WebSocket at a time. The first frame is `auth` (room, invite token,
 * platform, and `since` after a reconnect). The server answers with a `table.ops` reset
 * (every object the table should show), `welcome`, and a `snapshot` or the `change`
 * frames after `since`. `table.ops` frames go through one serial queue to the platform's
 * `applyOps`; a reset drops the frames still waiting in front of it (it supersedes them).
 * After each applied frame the bridge tells the GM how far it got (`bridge.status`,
 * throttled).
 *
 * Table events (a piece dropped, a chat line) get a globally unique id and stay pending
 * until the server answers `ack` or `reject`; they survive disconnects and are re-sent
 * with the same id, which the server applies at most once (protocol: "A retry with the
 * same id is applied once"). So a disconnect loses nothing: pending events are re-sent,
 * and the reset on re-join rebuilds the table.
 *
 * Reconnects use capped exponential backoff. A wrong or revoked token stops the client
 * (state `auth_failed`): retrying cannot help and the GM must fix the settings.
 *
 * Nothing here knows a platform, a DOM or a clock: the WebSocket class, timers and the
 * platform callbacks are injected, so Node tests drive it against a real server.
 */

import { Backoff } from "./backoff.js";
import { applyOp } from "./tree.js";

// The frames, typed by the declarations generated from `komasync schema` (adapters/types).
/** @typedef {import("../../../../types/protocol").ServerMessage} ServerMessage */
/** @typedef {import("../../../../types/protocol").ClientMessage} ClientMessage */
/** @typedef {import("../../../../types/protocol").Welcome} Welcome */
/** @typedef {import("../../../../types/protocol").Ack} Ack */
/** @typedef {import("../../../../types/protocol").Reject} Reject */
/** @typedef {import("../../../../types/protocol").Error} ErrorFrame */
/** @typedef {import("../../../../types/protocol").TableOps} TableOps */
/** @typedef {import("../../../../types/protocol").Auth} Auth */
/** @typedef {import("../../../../types/protocol").Reason} Reason */

/**
 * Connection states, in the order a healthy connection goes through them.
 * @typedef {typeof State[keyof typeof State]} StateName
 */
export const State = Object.freeze({
  IDLE: "idle",
  CONNECTING: "connecting",
  AUTHENTICATING: "authenticating",
  LIVE: "live",
  WAITING: "waiting",
  AUTH_FAILED: "auth_failed",
  STOPPED: "stopped",
});

/** Error codes after which reconnecting with the same settings cannot succeed. */
const FATAL_AUTH = new Set(["auth_failed", "invite_revoked"]);

const OPEN = 1;

/** A random id prefix, unique per client instance (ids are remembered by the server). */
export function randomPrefix(random = Math.random) {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === "function") return c.randomUUID().replace(/-/g, "").slice(0, 16);
  let s = "";
  for (let i = 0; i < 16; i++) s += Math.floor(random() * 36).toString(36);
  return s;
}

/** A small token bucket for outgoing frames (the server allows 40/s with a burst of 80). */
class Bucket {
  constructor(rate, burst, now) {
    this.rate = rate;
    this.burst = burst;
    this.tokens = burst;
    this.now = now;
    this.stamp = now();
  }

  take() {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.stamp) / 1000) * this.rate);
    this.stamp = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** ms until one token is there. */
  wait() {
    return Math.max(1, Math.ceil(((1 - this.tokens) / this.rate) * 1000));
  }
}

export class BridgeClient {
  /**
   * @param {object} o
   * @param {string} o.url            WebSocket URL (see url.js `resolveServerUrl`)
   * @param {string} o.room           room id
   * @param {string} o.token          bridge invite token (never logged, never shown)
   * @param {"foundry"|"ccfolia"} o.platform
   * @param {new (url: string) => WebSocket} o.WebSocket    a browser-compatible WebSocket class
   * @param {(frame: TableOps) => (void|Promise<void>)} o.applyOps  apply one `table.ops` frame
   * @param {(info: object) => void} [o.onChange]     called whenever `info` changes (UI)
   * @param {(reject: Reject | ErrorFrame, event: object|undefined) => void} [o.onRefusal]
   * @param {(ack: Ack, event: object|undefined) => void} [o.onAck]
   * @param {(frame: ServerMessage) => void} [o.onFrame]     every parsed server frame (tests, UI)
   * @param {string} [o.client]       label shown to the GM
   * @param {object} [o.timers]       {setTimeout, clearTimeout, now}
   * @param {object} [o.backoff]      Backoff options
   * @param {number} [o.pingEvery]    ms between pings while live
   * @param {number} [o.deadAfter]    ms of silence after which the socket is dropped
   * @param {number} [o.resendAfter]  ms before an unanswered event is sent again
   * @param {number} [o.statusEvery]  ms between `bridge.status` reports (at most)
   * @param {number} [o.rate]         outgoing frames per second (burst 2×)
   * @param {(level: string, msg: string, data?: object) => void} [o.log]
   */
  constructor(o) {
    for (const k of ["url", "room", "token", "platform", "WebSocket", "applyOps"]) {
      if (!o || o[k] === undefined || o[k] === null || o[k] === "") {
        throw new TypeError(`BridgeClient: option ${k} is required`);
      }
    }
    this.o = o;
    const t = o.timers || {};
    this.setTimeout = t.setTimeout || ((fn, ms) => setTimeout(fn, ms));
    this.clearTimeout = t.clearTimeout || ((h) => clearTimeout(h));
    this.now = t.now || (() => Date.now());
    this.backoff = o.backoff instanceof Backoff ? o.backoff : new Backoff(o.backoff || {});
    this.pingEvery = o.pingEvery ?? 15000;
    this.deadAfter = o.deadAfter ?? 45000;
    this.resendAfter = o.resendAfter ?? 10000;
    this.statusEvery = o.statusEvery ?? 1000;
    this.bucket = new Bucket(o.rate ?? 20, 2 * (o.rate ?? 20), this.now);
    this.prefix = randomPrefix();
    this.seq = 0;

    /** @type {StateName} */
    this.state = State.IDLE;
    this.tree = null; // the table view (snapshot + change ops): `this.state` is the connection state
    this.ws = null;
    this.version = null; // the table view's version (snapshot / change frames)
    this.applied = null; // version of the last applied table.ops frame
    this.pending = new Map(); // id -> {event, sentAt}
    /** @type {ClientMessage[]} */
    this.outbox = []; // frames waiting for the rate limit
    this.queue = []; // table.ops frames waiting to be applied
    this.applying = false;
    this.lastHeard = 0;
    this.lastError = null; // {code, reason}
    this.lastRefusal = null; // {code, rule, reason, event}
    this.lastApplyError = null;
    this.nextRetryAt = null;
    this.connects = 0;
    this.resets = 0;
    this.timers = { retry: null, ping: null, status: null, drain: null, resend: null };
    this.statusDetail = "";
    this.statusReport = {};
    this.statusReportText = "{}";
    this.idle = [];
  }

  // -- public ---------------------------------------------------------------------------

  /** Open the connection (and keep it open until `stop`). */
  start() {
    if (this.state !== State.IDLE && this.state !== State.STOPPED && this.state !== State.AUTH_FAILED) return;
    this._connect();
  }

  /** Close for good: no reconnect; pending events stay in `pending` (not lost to the caller). */
  stop() {
    this._set(State.STOPPED);
    this._clear("retry");
    this._drop("stopped");
  }

  /** Drop the current socket and connect again at once (a full re-sync through the reset). */
  resync() {
    if (this.state === State.STOPPED || this.state === State.AUTH_FAILED) return;
    this.backoff.reset();
    this._drop("resync");
    this._connect();
  }

  /**
   * Report a table event; returns its id. It is sent now if connected, else after the
   * next successful join; it stays pending until the server answers for it.
   * @param {object} event  the platform event (shape: docs/adapters.md)
   */
  sendEvent(event) {
    const id = `${this.prefix}-${(++this.seq).toString(36)}`;
    this.pending.set(id, { event, sentAt: null });
    if (this.state === State.LIVE) this._sendEvent(id);
    this._changed();
    return id;
  }

  /** Extra text for the next `bridge.status` (e.g. a self-test result). */
  setStatusDetail(detail) {
    const text = String(detail || "").slice(0, 300);
    const changed = text !== this.statusDetail;
    this.statusDetail = text;
    this._scheduleStatus(changed);
  }

  /**
   * What the GM's set-up needs, sent with the next `bridge.status` (issue 30): `tokens`
   * ([{name, x, y, id?}] on the VTT), `users` ([{id, name, gm}]), `grid` ({size, x, y}) and
   * `page` (Ccfolia's page check). A report equal to the last one sends nothing new.
   */
  setStatusReport(report) {
    const text = JSON.stringify(report || {});
    const changed = text !== this.statusReportText;
    this.statusReportText = text;
    this.statusReport = report || {};
    if (changed) this._scheduleStatus(false);
  }

  /** A promise that resolves when no table.ops frame is waiting or being applied. */
  whenIdle() {
    if (!this.applying && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** What a UI shows: state, versions, pending events, last error and refusal. */
  get info() {
    return {
      state: this.state,
      version: this.version,
      applied: this.applied,
      pending: this.pending.size,
      queued: this.queue.length,
      connects: this.connects,
      resets: this.resets,
      attempts: this.backoff.attempts,
      nextRetryAt: this.nextRetryAt,
      lastError: this.lastError,
      lastRefusal: this.lastRefusal,
      lastApplyError: this.lastApplyError,
    };
  }

  // -- connection -----------------------------------------------------------------------

  _connect() {
    this._clear("retry");
    this.nextRetryAt = null;
    this._set(State.CONNECTING);
    let ws;
    try {
      ws = new this.o.WebSocket(this.o.url);
    } catch (e) {
      this.lastError = { code: "connect_failed", reason: { ja: String(e), en: String(e) } };
      this._retry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this._set(State.AUTHENTICATING);
      this.lastHeard = this.now();
      /** @type {Auth} */
      const auth = { type: "auth", room: this.o.room, token: this.o.token, platform: this.o.platform };
      if (this.o.client) auth.client = String(this.o.client).slice(0, 100);
      if (this.version !== null) auth.since = this.version;
      this._raw(auth);
      // No welcome in time (a hung server, a proxy that swallowed the frame): start over.
      this._clear("ping");
      this.timers.ping = this.setTimeout(() => {
        this.timers.ping = null;
        if (this.ws !== ws || this.state !== State.AUTHENTICATING) return;
        this._log("warn", "no welcome from the server: reconnecting");
        this._drop("auth timeout");
        this._retry();
      }, this.deadAfter);
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return;
      this.lastHeard = this.now();
      let frame;
      try {
        frame = JSON.parse(typeof ev.data === "string" ? ev.data : String(ev.data));
      } catch {
        this._log("warn", "unreadable frame from the server");
        return;
      }
      this._frame(frame);
    };
    ws.onerror = () => {
      /* a close event always follows */
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this._log("info", `connection closed (${ev && ev.code})`);
      this._drop("closed");
      this._retry();
    };
  }

  /** Forget the current socket (closing it if still open) and everything tied to it. */
  _drop(why) {
    const ws = this.ws;
    this.ws = null;
    this._clear("ping");
    this._clear("drain");
    this._clear("resend");
    this._clear("status");
    this.outbox = [];
    for (const p of this.pending.values()) p.sentAt = null;
    if (ws && ws.readyState !== 3) {
      try {
        ws.close(why === "stopped" ? 1000 : 4000, why);
      } catch {
        /* already closing */
      }
    }
  }

  _retry() {
    if (this.state === State.STOPPED || this.state === State.AUTH_FAILED) return;
    const wait = this.backoff.next();
    this.nextRetryAt = this.now() + wait;
    this._set(State.WAITING);
    this.timers.retry = this.setTimeout(() => {
      this.timers.retry = null;
      if (this.state === State.WAITING) this._connect();
    }, wait);
  }

  /** @param {ServerMessage} f */
  _frame(f) {
    if (this.o.onFrame) {
      try {
        this.o.onFrame(f);
      } catch (e) {
        this._log("warn", `onFrame failed: ${e}`);
      }
    }
    switch (f.type) {
      case "welcome":
        this._welcome(f);
        break;
      case "snapshot":
        this.version = f.version;
        this.tree = f.state;
        break;
      case "change":
        if (this.version !== null && f.from_version !== this.version) {
          // A gap or a repeat: the server guarantees neither, so trust nothing and re-join.
          this._log("warn", `version gap: have ${this.version}, got ${f.from_version}`);
          this.version = null;
          this.resync();
          return;
        }
        this.version = f.to_version;
        if (this.tree) for (const op of f.ops || []) applyOp(this.tree, op);
        break;
      case "table.ops":
        this._enqueue(f);
        break;
      case "ack":
        this._answered(f);
        break;
      case "reject":
        this._answered(f);
        break;
      case "error":
        this._error(f);
        break;
      case "bye":
        this.lastError = { code: f.code, reason: f.reason };
        this._changed();
        break;
      default:
        break; // pong, prompt, notice...: nothing to do
    }
  }

  /** @param {Welcome} f */
  _welcome(f) {
    this.connects += 1;
    this.backoff.reset();
    this.lastError = null;
    if (this.version === null || f.version < this.version) this.version = f.version;
    this._set(State.LIVE);
    this._schedulePing();
    for (const id of this.pending.keys()) this._sendEvent(id);
    this._scheduleResend();
    this._scheduleStatus(true);
  }

  /** @param {ErrorFrame} f */
  _error(f) {
    this.lastError = { code: f.code, reason: f.reason };
    if (this.state === State.AUTHENTICATING && FATAL_AUTH.has(f.code)) {
      this._set(State.AUTH_FAILED);
      this._drop("auth failed");
      return;
    }
    if (f.id && this.pending.has(f.id)) {
      // The server could not read the event (bad_message...): re-sending cannot help.
      const { event } = this.pending.get(f.id);
      this.pending.delete(f.id);
      this.lastRefusal = { code: f.code, rule: null, reason: f.reason, event };
      this.o.onRefusal && this.o.onRefusal(f, event);
    }
    this._changed();
  }

  /** @param {Ack | Reject} f */
  _answered(f) {
    const entry = this.pending.get(f.id);
    if (entry) this.pending.delete(f.id);
    const event = entry ? entry.event : undefined;
    if (f.type === "reject") {
      this.lastRefusal = { code: f.code, rule: f.rule || null, reason: f.reason, event };
      this.o.onRefusal && this.o.onRefusal(f, event);
    } else {
      this.o.onAck && this.o.onAck(f, event);
    }
    this._changed();
  }

  // -- applying table.ops ---------------------------------------------------------------

  /** @param {TableOps} frame */
  _enqueue(frame) {
    if (frame.reset) this.queue = [];
    this.queue.push(frame);
    this._changed();
    if (!this.applying) this._drainOps();
  }

  async _drainOps() {
    this.applying = true;
    while (this.queue.length) {
      const frame = this.queue.shift();
      try {
        await this.o.applyOps(frame);
        this.lastApplyError = null;
      } catch (e) {
        this.lastApplyError = String((e instanceof Error && e.message) || e);
        this._log("error", `applying table.ops failed: ${this.lastApplyError}`);
      }
      if (frame.reset) this.resets += 1;
      this.applied = frame.version;
      this._scheduleStatus(frame.reset);
      this._changed();
    }
    this.applying = false;
    const idle = this.idle;
    this.idle = [];
    for (const r of idle) r();
  }

  // -- sending --------------------------------------------------------------------------

  _sendEvent(id) {
    const entry = this.pending.get(id);
    if (!entry) return;
    entry.sentAt = this.now();
    this._send({ type: "table.event", id, event: entry.event });
  }

  /** @param {ClientMessage} frame */
  _send(frame) {
    this.outbox.push(frame);
    this._drain();
  }

  _drain() {
    this._clear("drain");
    while (this.outbox.length) {
      if (!this.ws || this.ws.readyState !== OPEN || this.state !== State.LIVE) return;
      if (!this.bucket.take()) {
        this.timers.drain = this.setTimeout(() => {
          this.timers.drain = null;
          this._drain();
        }, this.bucket.wait());
        return;
      }
      this._raw(/** @type {ClientMessage} */ (this.outbox.shift())); // length checked above
    }
  }

  /** @param {ClientMessage} frame */
  _raw(frame) {
    if (!this.ws) {
      this._log("warn", "send failed: not connected");
      return;
    }
    try {
      this.ws.send(JSON.stringify(frame));
    } catch (e) {
      this._log("warn", `send failed: ${e}`);
    }
  }

  _schedulePing() {
    this._clear("ping");
    this.timers.ping = this.setTimeout(() => {
      this.timers.ping = null;
      if (this.state !== State.LIVE || !this.ws) return;
      if (this.now() - this.lastHeard > this.deadAfter) {
        this._log("warn", "no answer from the server: reconnecting");
        this._drop("dead");
        this._retry();
        return;
      }
      this._send({ type: "ping", t: this.now() });
      this._schedulePing();
    }, this.pingEvery);
  }

  _scheduleResend() {
    this._clear("resend");
    this.timers.resend = this.setTimeout(() => {
      this.timers.resend = null;
      if (this.state !== State.LIVE) return;
      const now = this.now();
      for (const [id, p] of this.pending) {
        if (p.sentAt !== null && now - p.sentAt >= this.resendAfter) this._sendEvent(id);
      }
      this._scheduleResend();
    }, Math.max(250, Math.floor(this.resendAfter / 2)));
  }

  _scheduleStatus(now = false) {
    if (this.state !== State.LIVE) return;
    if (this.timers.status) {
      if (!now) return;
      this._clear("status");
    }
    this.timers.status = this.setTimeout(() => {
      this.timers.status = null;
      if (this.state !== State.LIVE) return;
      this._send({
        type: "bridge.status",
        platform: this.o.platform,
        version: this.applied,
        detail: this.statusDetail,
        ...(this.statusReport || {}),
      });
    }, now ? 0 : this.statusEvery);
  }

  // -- helpers --------------------------------------------------------------------------

  _set(state) {
    if (this.state === state) return;
    this.state = state;
    this._changed();
  }

  _changed() {
    if (this.o.onChange) {
      try {
        this.o.onChange(this.info);
      } catch (e) {
        this._log("warn", `onChange failed: ${e}`);
      }
    }
  }

  _clear(name) {
    if (this.timers[name]) {
      this.clearTimeout(this.timers[name]);
      this.timers[name] = null;
    }
  }

  _log(level, msg, data) {
    if (this.o.log) this.o.log(level, msg, data);
  }
}
