/**
 * The Ccfolia bridge: watches the page's store, reports moves and dice results, applies
 * the server's operations (docs/adapters.md, "Ccfolia operations").
 *
 * How this works: the page is reached only through page.js (every page assumption lives
 * there; its self-test runs at start and on "re-check"). The store is subscribed once; a
 * change of the characters slice compares each character's x/y with the last seen, and a
 * moved komasync character is pushed into a Settler, so a drag (about 70 store updates a
 * second) becomes one `move` event when the piece has been still for `settleMs`. New chat
 * messages with dice output spoken by a PC become `chat` events.
 *
 * Operations are applied in two ways:
 *  - the data layer, only when the GM turns it on AND every data-layer hook was found:
 *    character, marker and dice documents and the room, merge-written through the page's
 *    own Firestore handle, at most 50 writes at a time;
 *  - otherwise the chat-command path (the fallback, said loudly in the panel and to the GM
 *    console when the GM wanted the data layer): status changes as `:LABEL=N` spoken as the
 *    character, typed into the chat box; what only a write can do (positions, new pieces,
 *    markers, dice) is counted for the panel, and the clipboard JSON / room ZIP exports put
 *    pieces on the board (docs/bridges.md).
 * Public chat lines are typed into the chat box; lines addressed to one user (`to`: a
 * refusal, a prompt) never are — they go to the panel's private lines for that user.
 *
 * Which Ccfolia character is which komasync object: our stable id when we created it
 * (direct write uses it as the document id), else the one character with the name we
 * last gave that object. Nothing here decides a rule.
 */

import { BridgeClient, State } from "../../foundry/module/scripts/core/client.js";
import { resolveServerUrl } from "../../foundry/module/scripts/core/url.js";
import { Settler } from "../../foundry/module/scripts/core/settle.js";
import { getPath } from "../../foundry/module/scripts/core/tree.js";
import { calibrateFromDrop, calibrateFromCellSize, calibrationAction } from "../../foundry/module/scripts/core/calibrate.js";
import * as pageModule from "./page.js";

export const BRIDGE_VERSION = "0.1.0";

/** BCDice output lines (vtt.md): `(2D6) ＞ 7`, `(1D100<=53) … ＞ レギュラー成功`. */
export const CCF_DICE_LINE = /\(\s*[^()]*\d*[dD]\d+[^()]*\)[^\n]*[＞>]/;
/**
 * A Cthulhu7th full-auto (FAR) burst: no `(…D…)` header — the bonus dice on a line of
 * their own, then one `n回目: ＞ …` line per volley (issue 29; corpus entries FAR).
 */
export const CCF_FAR_BURST = /^ボーナス・ペナルティダイス\[[+-]?\d+\][ \t]*\r?\n[ \t]*\d+回目:/m;

/** The dice output in a message's text: a FAR burst from its first line on, else its BCDice lines. */
export function diceLinesOf(text) {
  const far = CCF_FAR_BURST.exec(text);
  if (far) return text.slice(far.index);
  return text.split("\n").filter((l) => CCF_DICE_LINE.test(l)).join("\n");
}

/** Whether a roll text is BCDice output komasync reads (a `#n` repeat's rolls, a FAR burst too). */
export function isDiceOutput(roll) {
  return CCF_DICE_LINE.test(roll.replace(/^#\d+\s*/gm, "")) || CCF_FAR_BURST.test(roll);
}
/** Kinds of komasync characters whose dice results in chat are reported. */
const ROLLERS = new Set(["pc", "piece"]);

export class CcfoliaBridge {
  /**
   * @param {object} o
   * @param {object} o.win          the page's window (document, location, WebSocket…)
   * @param {object} o.settings     {serverUrl, room, token, directWrite?, gm?, userId?, userName?}
   * @param {object} [o.page]       the page-structure module (page.js)
   * @param {Function} [o.WebSocket]
   * @param {number} [o.settleMs]   how long a piece must be still to count as dropped
   * @param {number} [o.chatPaceMs] pause between chat lines
   * @param {object} [o.clientOptions]  passed to BridgeClient (backoff, timers…)
   * @param {(info: object) => void} [o.onChange]  the panel's redraw
   */
  constructor(o) {
    this.o = o;
    this.win = o.win;
    this.page = o.page || pageModule;
    this.settings = { directWrite: false, gm: true, ...(o.settings || {}) };
    this.settler = new Settler((id, ev) => this._report(ev), { quietMs: o.settleMs ?? 300 });
    this.client = null;
    this.store = null;
    this.unsubscribe = null;
    this.known = new Map(); // stable id -> {type, ref, name, data}
    this.seen = new Map(); // ccfolia character id -> {x, y}
    this.seenMessages = new Set();
    this.expect = new Map(); // stable id -> {x, y, at}
    this.chatNames = new Set(["komasync"]);
    this.lastChars = null;
    this.lastMsgs = null;
    this.chatQueue = Promise.resolve();
    this.reported = [];
    this.skipped = { writes: 0, statusCommands: 0 };
    this.chatErrors = [];
    this.writeErrors = [];
    this.privateLines = [];
    this.selftest = null;
    this.dl = null; // the data layer's writer (page.dataLayer), when every hook was found
    this.lastError = null;
    this.calib = null;
  }

  /** Run the page's self-test; keep what it found (the store, the data layer). */
  probe() {
    const { report, handles } = this.page.probe(this.win);
    this.selftest = report;
    this.dl = report.can.dataLayer ? this.page.dataLayer(handles.firestore, handles.roomId) : null;
    return handles;
  }

  /** The panel's "re-check": the page may have finished loading since. */
  recheck() {
    const had = this.directWrite;
    const handles = this.probe();
    if (!this.store && handles.store) {
      this.store = handles.store;
      this._baseline();
      this.unsubscribe = this.store.subscribe(() => this._onStore());
    }
    if (this.client) {
      this._status();
      if (this.directWrite && !had) this.client.resync();
    }
    this._changed();
    return this.selftest;
  }

  // -- lifecycle ------------------------------------------------------------------------

  /** Self-test, hook the store, connect. Returns the self-test result. */
  start() {
    const handles = this.probe();
    this.store = handles.store;
    if (this.store) {
      this._baseline();
      this.unsubscribe = this.store.subscribe(() => this._onStore());
    }
    const s = this.settings;
    if (!s.serverUrl || !s.room || !s.token) {
      this.lastError = "not configured: server URL, room and bridge token";
      this._changed();
      return this.selftest;
    }
    let url;
    try {
      url = resolveServerUrl(s.serverUrl, (this.win.location && this.win.location.protocol) || "https:");
    } catch (e) {
      this.lastError = String(e.message || e);
      this._changed();
      return this.selftest;
    }
    this.client = new BridgeClient({
      url,
      room: s.room,
      token: s.token,
      platform: "ccfolia",
      client: `Ccfolia ${s.userName || "bridge"}`,
      WebSocket: this.o.WebSocket || this.win.WebSocket,
      applyOps: (frame) => this._apply(frame),
      onChange: () => this._changed(),
      onRefusal: () => this._changed(),
      ...(this.o.clientOptions || {}),
    });
    this._status();
    this.client.start();
    this._changed();
    return this.selftest;
  }

  stop() {
    this.settler.flush();
    if (this.unsubscribe) this.unsubscribe();
    this.unsubscribe = null;
    if (this.client) this.client.stop();
  }

  /** The GM switches direct write on or off (the panel's checkbox). */
  setDirectWrite(on) {
    this.settings.directWrite = Boolean(on);
    if (this.client) {
      this._status();
      if (on) this.client.resync(); // draw everything through the data layer now
    }
    this._changed();
  }

  get directWrite() {
    return Boolean(this.settings.directWrite && this.dl);
  }

  /** When the GM wants the data layer but a hook is missing: what is missing (loudly). */
  get fallback() {
    if (!this.settings.directWrite || this.dl) return null;
    const t = this.selftest;
    const need = this.page.NEEDS.dataLayer;
    const missing = t ? need.filter((id) => !(t.hooks[id] && t.hooks[id].found)) : need;
    return {
      missing,
      ja: `データ層が使えません（見つからない: ${missing.join(", ")}）。チャットコマンドで代わりに動かします。駒の位置・マーカー・ダイスは手で動かすか、ZIP/クリップボードで置いてください。`,
      en: `The data layer is unavailable (missing: ${missing.join(", ")}). Falling back to chat commands; move pieces, markers and dice by hand or place them with the ZIP/clipboard exports.`,
    };
  }

  /** The room's Ccfolia calibration as the server will use it (docs/bridges.md). */
  get calibration() {
    const s = this.client && this.client.tree && getPath(this.client.tree, ["meta", "platforms", "ccfolia"]);
    const set = s && typeof s === "object" ? s : {};
    return {
      calibrated: typeof set.units === "string",
      units: set.units || "cell",
      cell_size: typeof set.cell_size === "number" ? set.cell_size : 24,
    };
  }

  /** What the panel shows. */
  get info() {
    const c = this.client ? this.client.info : { state: "off" };
    return {
      ...c,
      selftest: this.selftest,
      directWrite: this.directWrite,
      directWriteWanted: Boolean(this.settings.directWrite),
      skipped: { ...this.skipped },
      fallback: this.fallback,
      privateLines: this.privateLines.slice(-20),
      writeErrors: this.writeErrors.slice(-3),
      calibrated: this.client && this.client.tree ? this.calibration.calibrated : null,
      chatErrors: this.chatErrors.slice(-3),
      lastError: c.lastError || (this.lastError ? { code: "bridge", reason: { ja: this.lastError, en: this.lastError } } : null),
      calibration: this.calib ? { ...this.calib } : null,
    };
  }

  /** Tell the GM console how far the bridge is and what its set-up needs. */
  _status() {
    if (!this.client) return;
    this.client.setStatusDetail(this._detail());
    this.client.setStatusReport(this.setupReport());
  }

  /**
   * What the GM console's set-up offers (issue 30): the room's characters by name with
   * their positions (calibration by clicking their squares), the Ccfolia users seen (the
   * uids owning a character or speaking in chat: Ccfolia shows no user list) and the
   * page check in ids the console puts into words.
   */
  setupReport() {
    const state = this._state();
    const chars = Object.entries(this.page.readCharacters(state) || {}).slice(0, 100);
    const tokens = chars.filter(([, c]) => typeof c.x === "number" && typeof c.y === "number")
      .map(([cid, c]) => {
        const tok = { name: String(c.name || "").slice(0, 100), left: c.x, top: c.y };
        const sid = this.known.has(cid) ? cid : null;
        if (sid) tok.id = sid.slice(0, 100);
        return tok;
      });
    const users = new Map();
    const me = this._bridgeUser();
    users.set(me.id, { id: me.id.slice(0, 100), name: me.name.slice(0, 100), gm: me.gm });
    for (const [, c] of chars) {
      if (c.owner && !users.has(String(c.owner))) users.set(String(c.owner), { id: String(c.owner).slice(0, 100), name: String(c.name || "").slice(0, 100), gm: false });
    }
    for (const { message } of this.page.readMessages(state) || []) {
      const uid = message && message.from ? String(message.from) : null;
      if (uid && !users.has(uid)) users.set(uid, { id: uid.slice(0, 100), name: String(message.name || "").slice(0, 100), gm: false });
    }
    const t = this.selftest;
    const page = {
      version: t ? String(t.version).slice(0, 100) : "",
      can: t ? { ...t.can } : {},
      missing: t ? (this.page.HOOKS || pageModule.HOOKS).map((hk) => hk.id).filter((id) => !(t.hooks[id] && t.hooks[id].found)) : [],
      data_layer: this.directWrite ? "on" : this.fallback ? "fallback" : "off",
    };
    return { tokens, users: [...users.values()].slice(0, 100), page };
  }

  /** The line the GM console shows for this bridge (bridge.status `detail`, ≤ 300). */
  _detail() {
    const t = this.selftest;
    const parts = [`ccfolia ${BRIDGE_VERSION} ${t ? t.version : "-"}`];
    const fb = this.fallback;
    if (this.directWrite) parts.push("データ層 ON / data layer on");
    else if (fb) parts.push(`!! データ層なし→チャットコマンド / NO DATA LAYER → chat commands (missing: ${fb.missing.join(", ")})`);
    else parts.push("データ層 OFF / data layer off");
    const other = t ? t.missing.map((m) => m.split(":")[0]).filter((id) => !(fb && fb.missing.includes(id))) : [];
    if (other.length) parts.push(`page missing: ${other.join(", ")}`);
    if (this.client && this.client.tree && !this.calibration.calibrated) parts.push("未キャリブレーション / uncalibrated");
    if (this.writeErrors.length) parts.push(`write errors: ${this.writeErrors.length}`);
    return parts.join(" | ").slice(0, 300);
  }

  _changed() {
    if (this.o.onChange) {
      try {
        this.o.onChange(this.info);
      } catch {
        /* the panel must never break the bridge */
      }
    }
  }

  // -- observing the page ------------------------------------------------------------------

  _state() {
    return this.store ? this.store.getState() : null;
  }

  _baseline() {
    const state = this._state();
    const chars = this.page.readCharacters(state) || {};
    for (const [id, c] of Object.entries(chars)) this.seen.set(id, { x: c.x, y: c.y });
    for (const { id } of this.page.readMessages(state) || []) this.seenMessages.add(id);
    this.lastChars = this.page.charactersSlice(state);
    this.lastMsgs = this.page.messagesSlice(state);
  }

  _onStore() {
    const state = this._state();
    const chars = this.page.charactersSlice(state);
    if (chars !== this.lastChars) {
      this.lastChars = chars;
      this._scanCharacters(this.page.readCharacters(state) || {});
      this._status(); // a character placed for calibration shows in the GM console at once
    }
    const msgs = this.page.messagesSlice(state);
    if (msgs !== this.lastMsgs) {
      this.lastMsgs = msgs;
      this._scanMessages(this.page.readMessages(state) || []);
    }
  }

  _scanCharacters(chars) {
    for (const [cid, c] of Object.entries(chars)) {
      const before = this.seen.get(cid);
      if (before && before.x === c.x && before.y === c.y) continue;
      this.seen.set(cid, { x: c.x, y: c.y });
      if (!before) continue; // a new character: not a move
      const sid = this.stableIdOf(cid, c);
      if (!sid) continue;
      if (this.calib && this.calib.id === sid) continue; // the GM is calibrating with it
      const mine = this.expect.get(sid);
      if (mine && mine.x === c.x && mine.y === c.y) {
        this.expect.delete(sid);
        this.settler.cancel(sid);
        continue;
      }
      this.settler.push(sid, { kind: "move", id: sid, x: c.x, y: c.y, user: this._userFor(c) });
    }
    for (const cid of [...this.seen.keys()]) if (!(cid in chars)) this.seen.delete(cid);
  }

  _scanMessages(list) {
    for (const { id, message } of list) {
      if (this.seenMessages.has(id)) continue;
      this.seenMessages.add(id);
      const name = String(message.name || "");
      if (this.chatNames.has(name)) continue; // our own lines
      const text = String(message.text || "");
      const roll = this.page.rollOf(message) || diceLinesOf(text);
      if (!roll || !isDiceOutput(roll)) continue;
      const pc = this._pcNamed(name);
      if (!pc) continue; // only a komasync character's roll can be a check (docs/adapters.md)
      this._report({
        kind: "chat",
        text,
        roll,
        speaker: { id: pc, name },
        user: message.from ? { id: String(message.from), name: "" } : this._bridgeUser(),
      });
    }
  }

  _pcNamed(name) {
    let hit = null;
    for (const [sid, k] of this.known) {
      // a tower-defense PC, or a generic piece (a grid or engagement character)
      if (k.type === "character" && k.ref && ROLLERS.has(k.ref.kind) && k.name === name) {
        if (hit) return null;
        hit = sid;
      }
    }
    return hit;
  }

  _bridgeUser() {
    const s = this.settings;
    return { id: s.userId || "ccfolia-bridge", name: s.userName || "", gm: Boolean(s.gm) };
  }

  /** Ccfolia does not say who dragged a piece: its owner if it has one, else this bridge's user. */
  _userFor(character) {
    if (character && character.owner) return { id: String(character.owner), name: "" };
    return this._bridgeUser();
  }

  /** The komasync stable id of a Ccfolia character, or null. */
  stableIdOf(cid, character) {
    const k = this.known.get(cid);
    if (k && k.type === "character") return cid;
    const name = character && character.name;
    if (!name) return null;
    let hit = null;
    for (const [sid, kk] of this.known) {
      if (kk.type === "character" && kk.name === name) {
        if (hit) return null; // two objects of that name: ambiguous, report nothing
        hit = sid;
      }
    }
    return hit;
  }

  /** The Ccfolia character id now showing komasync object `sid`, or null. */
  characterIdOf(sid) {
    const chars = this.page.readCharacters(this._state()) || {};
    if (chars[sid]) return sid;
    const k = this.known.get(sid);
    if (!k) return null;
    const same = Object.entries(chars).filter(([, c]) => c.name === k.name);
    return same.length === 1 ? same[0][0] : null;
  }

  _report(ev) {
    this.reported.push(ev);
    if (this.reported.length > 100) this.reported.shift();
    if (this.client) this.client.sendEvent(ev);
  }

  // -- applying operations ------------------------------------------------------------------

  async _apply(frame) {
    const writes = [];
    const chat = [];
    let resetIds = null;
    for (const op of frame.ops || []) {
      const [type, verb] = String(op.op).split(".");
      if (op.op === "reset") {
        resetIds = new Set(op.ids || []);
      } else if (op.op === "chat" && op.to) {
        this._private(op); // never typed into the public chat
      } else if (op.op === "chat") {
        this.chatNames.add(op.name || "komasync");
        chat.push({ text: op.text, name: op.name || "komasync" });
      } else if (op.op === "room.update") {
        writes.push({ op: "set", kind: "room", data: op.data || {} });
      } else if (["character", "marker", "dice"].includes(type)) {
        this._track(type, verb, op, writes, chat, frame.reset);
      }
    }
    if (resetIds) {
      for (const [sid, k] of [...this.known]) {
        if (!resetIds.has(sid)) {
          this.known.delete(sid);
          writes.push({ op: "delete", kind: k.type, id: sid });
        }
      }
      for (const w of this._staleOnPage(resetIds)) writes.push(w);
    }
    if (this.directWrite) {
      await this._write(writes);
    } else {
      this.skipped.writes += writes.length;
    }
    for (const line of chat) await this._say(line.text, line.name, Boolean(line.status));
    this._status();
    this._changed();
  }

  /** Keep our map of objects up to date; queue the writes and status commands. */
  _track(type, verb, op, writes, chat, reset) {
    const sid = op.id;
    if (verb === "remove") {
      this.known.delete(sid);
      writes.push({ op: "delete", kind: type, id: sid });
      return;
    }
    const old = this.known.get(sid);
    const data = { ...(old ? old.data : {}), ...(op.data || {}) };
    const ref = op.ref || (old && old.ref) || null;
    const name = type === "character" ? data.name : undefined;
    this.known.set(sid, { type, ref, name, data });
    const patch = { ...(op.data || {}) };
    if (type === "character" && verb === "create" && ref && ref.player && !patch.owner) {
      const uid = this._uidOfPlayer(ref.player);
      if (uid) patch.owner = uid;
    }
    if ("x" in patch || "y" in patch) this.expect.set(sid, { x: data.x, y: data.y, at: Date.now() });
    writes.push({ op: "set", kind: type, id: sid, data: verb === "create" || reset ? { ...patch } : patch });
    if (type === "character" && verb === "update" && Array.isArray(op.status_commands) && !this.directWrite) {
      // The documented way to change a status bar: speak the command as the character.
      // Ccfolia applies it to the character *named* as the speaker (page.js A6), so a
      // name shared by several characters could change the wrong one: then skip.
      const cid = this.characterIdOf(sid);
      const chars = this.page.readCharacters(this._state()) || {};
      const speaking = cid && chars[cid] ? chars[cid].name : null;
      const unique = speaking && Object.values(chars).filter((c) => c.name === speaking).length === 1;
      for (const cmd of op.status_commands) {
        if (unique) chat.push({ text: cmd, name: speaking, status: true });
        else this.skipped.statusCommands += 1;
      }
    }
  }

  /** Characters/markers/dice named `ks-…` on the page that the reset does not list. */
  _staleOnPage(ids) {
    const out = [];
    const state = this._state();
    const chars = this.page.readCharacters(state) || {};
    for (const cid of Object.keys(chars)) {
      if (cid.startsWith("ks-") && !ids.has(cid) && !this.known.has(cid)) out.push({ op: "delete", kind: "character", id: cid });
    }
    return out;
  }

  /** The Ccfolia uid mapped to komasync player `pid` in meta.platforms.ccfolia.users. */
  _uidOfPlayer(pid) {
    const users = this.client && this.client.tree && getPath(this.client.tree, ["meta", "platforms", "ccfolia", "users"]);
    if (!users || typeof users !== "object") return null;
    const hits = Object.entries(users).filter(([, v]) => v === pid).map(([k]) => k);
    return hits.length === 1 ? hits[0] : null;
  }

  /** Through the data layer, at most MAX_WRITES at a time; a failure is shown, never thrown. */
  async _write(writes) {
    for (let i = 0; i < writes.length; i += this.page.MAX_WRITES) {
      const batch = writes.slice(i, i + this.page.MAX_WRITES);
      try {
        await this.dl.write(batch);
      } catch (e) {
        this.skipped.writes += batch.length;
        this.writeErrors.push({ count: batch.length, error: String((e && e.message) || e).slice(0, 200), at: Date.now() });
        if (this.writeErrors.length > 20) this.writeErrors.shift();
      }
    }
  }

  /** A line for one user (a refusal, a prompt): kept for the panel, never posted. */
  _private(op) {
    this.privateLines.push({
      to: String(op.to),
      toName: this._nameOfUser(String(op.to)),
      kind: op.kind || "log",
      ja: op.ja || op.text,
      en: op.en || op.text,
      text: op.text,
      mine: String(op.to) === this._bridgeUser().id,
      at: Date.now(),
    });
    if (this.privateLines.length > 50) this.privateLines.shift();
  }

  /** A Ccfolia user's komasync player name (through the `users` setting), else the id. */
  _nameOfUser(uid) {
    const tree = this.client && this.client.tree;
    const pid = tree && getPath(tree, ["meta", "platforms", "ccfolia", "users", uid]);
    const player = pid && getPath(tree, ["meta", "players", pid]);
    return (player && player.name) || pid || uid;
  }

  /**
   * One chat line through the chat box, in order with every other line. A status command
   * must be spoken as its character (`exact`); a log line without a speaker-name field is
   * typed as whoever is speaking rather than not at all.
   */
  _say(text, name, exact = false) {
    const pace = this.o.chatPaceMs ?? 120;
    const named = exact || !this.selftest || this.selftest.hooks.speaker_name.found;
    this.chatQueue = this.chatQueue.then(async () => {
      const r = await this.page.sendChat(this.win, text, { name: named ? name : null });
      if (!r.ok) {
        this.chatErrors.push({ text, how: r.how });
        if (this.chatErrors.length > 20) this.chatErrors.shift();
      }
      await new Promise((res) => this.win.setTimeout(res, pace));
    });
    return this.chatQueue;
  }

  // -- calibration --------------------------------------------------------------------------

  /**
   * The square of a komasync object in the room: a `<kind>` object is entry `<id>` of a
   * `<kind>s` collection of some part of the state (pieces, markers, forts…), so the
   * bridge needs no list of subsystems.
   */
  cellOf(sid) {
    const k = this.known.get(sid);
    const tree = this.client && this.client.tree;
    if (!k || !k.ref || !tree) return null;
    for (const part of Object.values(tree)) {
      const cell = part && typeof part === "object" ? getPath(part, [`${k.ref.kind}s`, k.ref.id, "cell"]) : null;
      if (cell && typeof cell.x === "number") return { x: cell.x, y: cell.y };
    }
    return null;
  }

  /**
   * The one calibration step, part 1: the GM picks a komasync character standing alone on
   * its square, and says how many Ccfolia units one square is (`cellSize`: 1 = positions
   * count squares, the default read from Ccfolia's room data; N > 1 = pixels).
   */
  calibrateBegin(sid, cellSize = null) {
    const cell = this.cellOf(sid);
    if (!cell) throw new Error(`calibration: no square known for ${sid}`);
    const cal = this.calibration;
    const size = cellSize ?? (cal.units === "px" ? cal.cell_size : 1);
    this.calib = { id: sid, cell, cellSize: Number(size), result: null, action: null };
    this._changed();
    return this.calib;
  }

  _position(sid) {
    const cid = this.characterIdOf(sid);
    const c = cid && (this.page.readCharacters(this._state()) || {})[cid];
    return c ? { x: c.x, y: c.y } : null;
  }

  /** Part 2: the piece now sits exactly on its square: the origin follows. */
  calibrateMark() {
    const cal = this.calib;
    if (!cal) throw new Error("calibration: not started");
    const pos = this._position(cal.id);
    if (!pos) throw new Error("calibration: the piece is not on the board");
    cal.result = calibrateFromDrop(cal.cell, pos, cal.cellSize);
    cal.action = calibrationAction("ccfolia", this._platformSettings(), cal.result);
    this._changed();
    return cal;
  }

  /** Or only the cell size, typed (the board stays centred on its middle square). */
  calibrateTyped(cellSize) {
    const result = calibrateFromCellSize(cellSize);
    const { origin_x: _x, origin_y: _y, ...rest } = this._platformSettings(); // the old origin was in the old unit
    this.calib = { id: null, cell: null, cellSize: Number(cellSize), result, action: calibrationAction("ccfolia", rest, result) };
    this._changed();
    return this.calib;
  }

  _platformSettings() {
    return (this.client && this.client.tree && getPath(this.client.tree, ["meta", "platforms", "ccfolia"])) || {};
  }

  calibrateCancel() {
    this.calib = null;
    this._changed();
  }
}

export { State };
