/**
 * A fake of the Foundry VTT client API surface the komasync module uses, written from
 * the public API facts in shared/docs/vtt.md (no Foundry source was read).
 *
 * How this works: a `FoundryWorld` is the server side (users, scenes, chat). Each
 * `world.client(userId)` is one browser: its own `game`, `Hooks`, `ChatMessage`, `ui`,
 * `canvas`, with its own replicas of the documents. A write from one client runs that
 * client's pre-hooks only (`preUpdateToken`, v13 `preMoveToken`; a listener returning
 * `false` cancels that document's change), is checked for permission, then lands in the
 * world and in every client's replicas, and the after-hooks (`updateToken`, v13
 * `moveToken`, `createToken`, `deleteToken`, `createChatMessage`) run in every client.
 * Writes land asynchronously (after a macrotask), as they do over Foundry's socket.
 *
 * Modelled: Hooks on/once/off/call/callAll; game.user, game.users (activeGM),
 * game.settings (client scope per browser, world scope shared and broadcast),
 * game.modules, game.release.generation, game.i18n, game.scenes (active/viewed/get);
 * Scene with tokens/drawings/tiles/notes collections and create/update/delete
 * EmbeddedDocuments; documents with flags/getFlag/setFlag/unsetFlag/update/delete;
 * v13 TokenDocument#move; ChatMessage.create with whisper and rolls; ui.notifications.
 *
 * Dice (`FakeRoll`, `world.roll`), from Foundry's public API documentation only:
 * - ChatMessage `rolls` — the message's Roll instances, rebuilt in every client from the
 *   serialized data: https://foundryvtt.com/api/v10/classes/client.ChatMessage.html
 *   (`rolls`, `isRoll`), https://foundryvtt.com/api/classes/foundry.dice.Roll.html
 * - Roll `formula`, `terms` ([Die, OperatorTerm, NumericTerm…] for "2d20kh + @prof"),
 *   `dice` (the DiceTerms), `total`, `result` ("16 + 2 + 4"):
 *   https://foundryvtt.com/api/classes/foundry.dice.Roll.html
 * - DiceTerm/Die `number`, `faces`, `modifiers` (string[]), `results` (DiceTermResult[]),
 *   pre-cast results in termData: https://foundryvtt.com/api/v12/classes/foundry.dice.terms.DiceTerm.html
 * - DiceTermResult `result`, `active` (contributes to the total), `discarded`:
 *   https://foundryvtt.com/api/v14/interfaces/foundry.dice.DiceTermResult.html
 * - OperatorTerm `operator`, NumericTerm `number`:
 *   https://foundryvtt.com/api/v14/modules/foundry.dice.terms.html
 * Not modelled (our choice): evaluation (results are always given), pools, parentheses,
 * functions, roll data (`@…`), modifiers other than keep-highest/lowest (`kh`/`kl`).
 */

import { readFileSync } from "node:fs";

const KOMASYNC_MODULE = JSON.parse(readFileSync(new URL("../../foundry/module/module.json", import.meta.url), "utf8"));

let idCounter = 0;
function randomId() {
  idCounter += 1;
  const base = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  let s = "";
  let n = idCounter * 7919 + 104729;
  for (let i = 0; i < 16; i++) {
    s += base[(n + i * 31) % base.length];
    n = Math.floor(n / 3) + idCounter;
  }
  return s;
}

const clone = (v) => (v === undefined ? undefined : structuredClone(v));
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Foundry-style merge of `changes` into `target` (nested objects merge; `-=key` deletes). */
export function mergeInto(target, changes) {
  for (const [k, v] of Object.entries(changes)) {
    if (k.startsWith("-=")) {
      delete target[k.slice(2)];
    } else if (isObj(v) && isObj(target[k])) {
      mergeInto(target[k], v);
    } else {
      target[k] = clone(v);
    }
  }
  return target;
}

/** The part of `changes` that differs from `source` (what `changed` holds in hooks). */
function diff(source, changes) {
  const out = {};
  for (const [k, v] of Object.entries(changes)) {
    if (k === "_id") continue;
    if (k.startsWith("-=")) {
      if (k.slice(2) in source) out[k] = null;
    } else if (isObj(v) && isObj(source[k])) {
      const d = diff(source[k], v);
      if (Object.keys(d).length) out[k] = d;
    } else if (JSON.stringify(source[k]) !== JSON.stringify(v)) {
      out[k] = clone(v);
    }
  }
  return out;
}

/** Hooks with Foundry's semantics: `call` stops at and returns false when a listener does. */
export class FakeHooks {
  constructor() {
    this.events = new Map();
    this.nextId = 1;
    this.errors = [];
  }

  on(name, fn, { once = false } = {}) {
    const id = this.nextId++;
    if (!this.events.has(name)) this.events.set(name, []);
    this.events.get(name).push({ id, fn, once });
    return id;
  }

  once(name, fn) {
    return this.on(name, fn, { once: true });
  }

  off(name, fnOrId) {
    const list = this.events.get(name) || [];
    const i = list.findIndex((h) => h.id === fnOrId || h.fn === fnOrId);
    if (i >= 0) list.splice(i, 1);
  }

  _run(name, args, stopOnFalse) {
    const list = [...(this.events.get(name) || [])];
    for (const h of list) {
      if (h.once) this.off(name, h.id);
      let r;
      try {
        r = h.fn(...args);
      } catch (e) {
        this.errors.push({ hook: name, error: e });
        continue;
      }
      if (stopOnFalse && r === false) return false;
    }
    return true;
  }

  /** Pre-hooks: a listener that returns `false` (synchronously) cancels. */
  call(name, ...args) {
    return this._run(name, args, true);
  }

  callAll(name, ...args) {
    return this._run(name, args, false);
  }

  count(name) {
    return (this.events.get(name) || []).length;
  }
}

class FakeCollection extends Map {
  get contents() {
    return [...this.values()];
  }

  filter(fn) {
    return this.contents.filter(fn);
  }

  find(fn) {
    return this.contents.find(fn);
  }

  map(fn) {
    return this.contents.map(fn);
  }

  getName(name) {
    return this.find((d) => d.name === name);
  }

  [Symbol.iterator]() {
    return this.values();
  }
}

/** A fair die (`NdF`, optionally `khN`/`klN`) with pre-cast results (Die termData). */
class FakeDie {
  constructor({ number, faces, modifiers = [], results }) {
    this.number = number;
    this.faces = faces;
    this.modifiers = [...modifiers];
    this.results = results.map((r) => ({ result: r, active: true }));
    const keep = /^k([hl])(\d*)$/.exec(this.modifiers[0] || "");
    if (keep) {
      const n = Number(keep[2] || 1);
      const order = [...this.results].sort((a, b) => (keep[1] === "h" ? b.result - a.result : a.result - b.result));
      for (const r of order.slice(n)) Object.assign(r, { active: false, discarded: true });
    }
  }

  get expression() {
    return `${this.number}d${this.faces}${this.modifiers.join("")}`;
  }

  get total() {
    return this.results.filter((r) => r.active).reduce((a, r) => a + r.result, 0);
  }

  toJSON() {
    return { class: "Die", number: this.number, faces: this.faces, modifiers: this.modifiers, results: clone(this.results) };
  }
}

class FakeOperator {
  constructor(operator) {
    this.operator = operator;
  }

  get expression() {
    return ` ${this.operator} `;
  }

  toJSON() {
    return { class: "OperatorTerm", operator: this.operator };
  }
}

class FakeNumber {
  constructor(number) {
    this.number = number;
  }

  get expression() {
    return String(this.number);
  }

  get total() {
    return this.number;
  }

  toJSON() {
    return { class: "NumericTerm", number: this.number };
  }
}

/**
 * An evaluated Roll: `formula` parsed into terms (dice, `+ - * /`, numbers), each die's
 * faces taken in order from `faces` (pre-cast, so tests know the dice).
 */
export class FakeRoll {
  constructor(formula, faces = []) {
    this._formula = formula;
    const left = [...faces];
    this.terms = [];
    for (const m of formula.matchAll(/(\d*)d(\d+)((?:k[hl]\d*)?)|(\d+)|([+\-*/])/gi)) {
      if (m[2]) {
        const number = Number(m[1] || 1);
        this.terms.push(new FakeDie({ number, faces: Number(m[2]), modifiers: m[3] ? [m[3]] : [], results: left.splice(0, number) }));
      } else if (m[4]) {
        this.terms.push(new FakeNumber(Number(m[4])));
      } else {
        this.terms.push(new FakeOperator(m[5]));
      }
    }
  }

  static fromData(data) {
    const roll = Object.create(FakeRoll.prototype);
    roll._formula = data.formula;
    roll.terms = data.terms.map((t) => {
      if (t.class === "Die") {
        const d = Object.create(FakeDie.prototype);
        return Object.assign(d, { number: t.number, faces: t.faces, modifiers: [...t.modifiers], results: clone(t.results) });
      }
      return t.class === "OperatorTerm" ? new FakeOperator(t.operator) : new FakeNumber(t.number);
    });
    return roll;
  }

  get formula() {
    return this.terms.map((t) => t.expression).join("");
  }

  get dice() {
    return this.terms.filter((t) => t instanceof FakeDie);
  }

  get result() {
    return this.terms.map((t) => (t instanceof FakeOperator ? t.expression : String(t.total))).join("");
  }

  get total() {
    let total = 0;
    let op = "+";
    for (const t of this.terms) {
      if (t instanceof FakeOperator) {
        op = t.operator;
        continue;
      }
      const v = t.total;
      total = op === "+" ? total + v : op === "-" ? total - v : op === "*" ? total * v : total / v;
    }
    return total;
  }

  toJSON() {
    return { class: "Roll", formula: this.formula, terms: this.terms.map((t) => t.toJSON()), total: this.total };
  }
}

/** A document replica in one client. */
class FakeDocument {
  constructor(client, documentName, source, parent) {
    this._client = client;
    this.documentName = documentName;
    this._source = source;
    this.parent = parent || null;
  }

  get id() {
    return this._source._id;
  }

  get _id() {
    return this._source._id;
  }

  get flags() {
    return this._source.flags || (this._source.flags = {});
  }

  get name() {
    return this._source.name;
  }

  getFlag(scope, key) {
    const f = this.flags[scope];
    if (!f) return undefined;
    return key.split(".").reduce((o, k) => (o == null ? undefined : o[k]), f);
  }

  async setFlag(scope, key, value) {
    this._client._checkScope(scope);
    return this.update({ flags: { [scope]: { [key]: value } } });
  }

  async unsetFlag(scope, key) {
    this._client._checkScope(scope);
    return this.update({ flags: { [scope]: { [`-=${key}`]: null } } });
  }

  async update(changes, options = {}) {
    const [doc] = await this.parent.updateEmbeddedDocuments(this.documentName, [{ ...changes, _id: this.id }], options);
    return doc;
  }

  async delete(options = {}) {
    const [doc] = await this.parent.deleteEmbeddedDocuments(this.documentName, [this.id], options);
    return doc;
  }

  toObject() {
    return clone(this._source);
  }

  /** GMs own everything; a token is owned through its actor's ownership (level 3). */
  get isOwner() {
    const user = this._client.user;
    if (user.isGM) return true;
    const owners = this._client.world.owners.get(this.id);
    if (owners && owners.has(user.id)) return true;
    const actor = this._source.actorId && this._client.world.actors.get(this._source.actorId);
    if (!actor) return false;
    const level = actor.ownership[user.id] ?? actor.ownership.default ?? 0;
    return level >= 3;
  }
}

class FakeToken extends FakeDocument {
  get x() {
    return this._source.x;
  }

  get y() {
    return this._source.y;
  }

  get width() {
    return this._source.width;
  }

  get height() {
    return this._source.height;
  }

  get hidden() {
    return this._source.hidden;
  }

  get actorId() {
    return this._source.actorId;
  }

  /** v13: move along waypoints (`method: "api"` for a teleport from code). */
  async move(waypoints, options = {}) {
    if (this._client.world.generation < 13) throw new Error("TokenDocument#move is v13+");
    const list = Array.isArray(waypoints) ? waypoints : [waypoints];
    const last = list[list.length - 1];
    const method = options.method || "api";
    const [doc] = await this.parent.updateEmbeddedDocuments(
      "Token",
      [{ _id: this.id, x: last.x, y: last.y }],
      { ...options, _moveMethod: method, _moveWaypoints: list },
    );
    return Boolean(doc);
  }
}

const DOC_CLASSES = { Token: FakeToken, Drawing: FakeDocument, Tile: FakeDocument, Note: FakeDocument };
const COLLECTIONS = { Token: "tokens", Drawing: "drawings", Tile: "tiles", Note: "notes" };
const DEFAULTS = {
  Token: { name: "", actorId: null, x: 0, y: 0, width: 1, height: 1, elevation: 0, hidden: false, rotation: 0, disposition: 0, flags: {} },
  Drawing: { x: 0, y: 0, text: "", fontSize: 48, fillColor: "#000000", hidden: false, shape: {}, flags: {} },
  Tile: { x: 0, y: 0, width: 100, height: 100, hidden: false, flags: {} },
  Note: { x: 0, y: 0, text: "", flags: {} },
};

/** A scene replica in one client. */
class FakeScene {
  constructor(client, source) {
    this._client = client;
    this._source = source;
    this.tokens = new FakeCollection();
    this.drawings = new FakeCollection();
    this.tiles = new FakeCollection();
    this.notes = new FakeCollection();
  }

  get id() {
    return this._source._id;
  }

  get name() {
    return this._source.name;
  }

  get active() {
    return this._client.world.activeScene === this.id;
  }

  get grid() {
    return this._source.grid;
  }

  get flags() {
    return this._source.flags;
  }

  getFlag(scope, key) {
    return (this.flags[scope] || {})[key];
  }

  async setFlag(scope, key, value) {
    this._client._checkScope(scope);
    return this._client.world._updateScene(this._client, this.id, { flags: { [scope]: { [key]: value } } });
  }

  /** Geometry the way Foundry derives it: the scene sits inside `padding` of grid cells. */
  get dimensions() {
    const s = this._source;
    const size = s.grid.size;
    const padX = Math.ceil((s.width * s.padding) / size) * size;
    const padY = Math.ceil((s.height * s.padding) / size) * size;
    return {
      size,
      sceneRect: { x: padX, y: padY, width: s.width, height: s.height },
      sceneX: padX,
      sceneY: padY,
      width: s.width + 2 * padX,
      height: s.height + 2 * padY,
    };
  }

  getEmbeddedCollection(type) {
    return this[COLLECTIONS[type]];
  }

  createEmbeddedDocuments(type, data, options = {}) {
    return this._client.world._create(this._client, this.id, type, data, options);
  }

  updateEmbeddedDocuments(type, updates, options = {}) {
    return this._client.world._update(this._client, this.id, type, updates, options);
  }

  deleteEmbeddedDocuments(type, ids, options = {}) {
    return this._client.world._delete(this._client, this.id, type, ids, options);
  }
}

/** One browser. */
export class FoundryClient {
  constructor(world, userId, lang, code = "en") {
    this.world = world;
    this.userId = userId;
    this.Hooks = new FakeHooks();
    this.notifications = [];
    this.localStorage = new Map();
    this.calls = []; // every embedded-document call this client made: {method, type, n}
    this.scenes = new FakeCollection();
    for (const s of world.scenes.values()) this._replicaScene(s);
    this.lang = lang || {};
    this.document = fakeDocument();
    const client = this;

    const users = new FakeCollection();
    for (const u of world.users.values()) users.set(u.id, u);
    Object.defineProperty(users, "activeGM", {
      get: () => world.activeGM,
    });

    const settingsDefs = new Map();
    this.game = {
      release: { generation: world.generation, version: `${world.generation}.0` },
      get user() {
        return world.users.get(client.userId);
      },
      users,
      // a Module carries its manifest's `version` (foundry.packages.BaseModule); komasync's is
      // read from the module.json Foundry would install
      modules: new Map(world.modules.map((id) => [id, { id, active: true, version: id === "komasync" ? KOMASYNC_MODULE.version : "1.0.0" }])),
      scenes: Object.assign(this.scenes, {
        get active() {
          return client.scenes.get(world.activeScene) || null;
        },
        get viewed() {
          return client.scenes.get(world.viewedScene || world.activeScene) || null;
        },
      }),
      messages: new FakeCollection(),
      actors: (() => {
        const coll = new FakeCollection();
        for (const a of world.actors.values()) coll.set(a.id, a);
        return coll;
      })(),
      settings: {
        register(module, key, config) {
          settingsDefs.set(`${module}.${key}`, { ...config });
        },
        get(module, key) {
          const def = settingsDefs.get(`${module}.${key}`);
          if (!def) throw new Error(`setting ${module}.${key} is not registered`);
          const store = def.scope === "client" ? client.localStorage : world.worldSettings;
          const k = `${module}.${key}`;
          return store.has(k) ? clone(store.get(k)) : clone(def.default);
        },
        async set(module, key, value) {
          const def = settingsDefs.get(`${module}.${key}`);
          if (!def) throw new Error(`setting ${module}.${key} is not registered`);
          const k = `${module}.${key}`;
          if (def.scope === "client") {
            client.localStorage.set(k, clone(value));
            if (def.onChange) def.onChange(value);
          } else {
            if (!client.user.isGM) throw new Error("only a GM may change world settings");
            world.worldSettings.set(k, clone(value));
            world.broadcasts.push({ setting: k, value: clone(value) });
            for (const c of world.clients) {
              const d = c.game.settings._defs.get(k);
              if (d && d.onChange) d.onChange(value);
            }
          }
          return value;
        },
        _defs: settingsDefs,
      },
      i18n: {
        lang: code,
        localize: (key) => lookup(client.lang, key) ?? key,
        format: (key, data = {}) =>
          String(lookup(client.lang, key) ?? key).replace(/\{(\w+)\}/g, (m, k) => (k in data ? String(data[k]) : m)),
      },
    };

    this.ChatMessage = {
      create: (data) => world._chat(client, data),
      getSpeaker: ({ token, user } = {}) => ({
        scene: token ? token.parent.id : null,
        token: token ? token.id : null,
        alias: token ? token.name : (user || client.game.user).name,
      }),
      getWhisperRecipients: (name) => users.filter((u) => u.name === name),
    };
    this.ui = {
      notifications: {
        info: (m, o) => this._notify("info", m, o),
        warn: (m, o) => this._notify("warn", m, o),
        error: (m, o) => this._notify("error", m, o),
      },
    };
    this.CONST = { GRID_TYPES: { GRIDLESS: 0, SQUARE: 1 } };
    this.canvas = {
      get scene() {
        return client.game.scenes.viewed;
      },
      get grid() {
        const s = client.game.scenes.viewed;
        return s ? { size: s.grid.size, type: s.grid.type } : null;
      },
      get dimensions() {
        const s = client.game.scenes.viewed;
        return s ? s.dimensions : null;
      },
    };
  }

  get user() {
    return this.world.users.get(this.userId);
  }

  /** The globals a module script sees in this browser. */
  get globals() {
    return {
      game: this.game,
      Hooks: this.Hooks,
      ChatMessage: this.ChatMessage,
      ui: this.ui,
      canvas: this.canvas,
      CONST: this.CONST,
      location: { protocol: this.world.protocol },
      WebSocket: this.world.WebSocket,
      document: this.document,
    };
  }

  _notify(level, message, options) {
    this.notifications.push({ level, message, options: options || {} });
    return { level, message };
  }

  _checkScope(scope) {
    if (scope === "core" || scope === "world") return;
    if (!this.world.modules.includes(scope)) {
      throw new Error(`Flag scope "${scope}" is not valid or not currently active`);
    }
  }

  _replicaScene(src) {
    const scene = new FakeScene(this, clone({ ...src, tokens: undefined, drawings: undefined }));
    this.scenes.set(src._id, scene);
    for (const [type, coll] of Object.entries(COLLECTIONS)) {
      for (const d of src[coll].values()) {
        scene[coll].set(d._id, new DOC_CLASSES[type](this, type, clone(d), scene));
      }
    }
    return scene;
  }
}

/** Just enough of a page for a status line: ids, createElement, body, style, text. */
function fakeDocument() {
  const byId = new Map();
  const el = (tag) => ({
    tagName: tag.toUpperCase(),
    style: { cssText: "" },
    textContent: "",
    children: [],
    set id(v) {
      this._id = v;
      byId.set(v, this);
    },
    get id() {
      return this._id;
    },
    appendChild(c) {
      this.children.push(c);
      if (c.id) byId.set(c.id, c);
      return c;
    },
  });
  const body = el("body");
  return { body, createElement: el, getElementById: (id) => byId.get(id) || null };
}

function lookup(obj, key) {
  if (!obj) return undefined;
  if (key in obj) return obj[key];
  return key.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);
}

/** The Foundry server side: users, scenes (canonical data), chat, and connected clients. */
export class FoundryWorld {
  /**
   * @param {{generation?: 12|13, modules?: string[], protocol?: string, WebSocket?: Function}} [o]
   */
  constructor({ generation = 12, modules = ["komasync"], protocol = "http:", WebSocket } = {}) {
    this.generation = generation;
    this.modules = modules;
    this.protocol = protocol;
    this.WebSocket = WebSocket;
    this.users = new Map();
    this.actors = new Map();
    this.scenes = new Map();
    this.owners = new Map(); // token id -> Set(user id)
    this.messages = [];
    this.worldSettings = new Map();
    this.broadcasts = [];
    this.clients = [];
    this.activeScene = null;
    this.viewedScene = null;
    this.latency = 1;
    this.writes = 0;
  }

  addUser({ id, name, isGM = false, active = true }) {
    const user = { id, name, isGM, active, role: isGM ? 4 : 1 };
    this.users.set(id, user);
    return user;
  }

  /** An actor with an ownership map ({userId: level}); level 3 = OWNER. */
  addActor({ id, name, type = "character", ownership = {} }) {
    const actor = { id: id || randomId(), _id: undefined, name, type, ownership: { default: 0, ...ownership } };
    actor._id = actor.id;
    this.actors.set(actor.id, actor);
    return actor;
  }

  /** The active GM: the first active GM user by id (Foundry picks one deterministically). */
  get activeGM() {
    const gms = [...this.users.values()].filter((u) => u.isGM && u.active).sort((a, b) => (a.id < b.id ? -1 : 1));
    return gms[0] || null;
  }

  setActive(userId, active) {
    this.users.get(userId).active = active;
    for (const c of this.clients) c.Hooks.callAll("userConnected", this.users.get(userId), active);
  }

  addScene({ id, name = "Scene", width = 2000, height = 1500, padding = 0.25, gridSize = 100, gridType = 1, active = true }) {
    const src = {
      _id: id || randomId(),
      name,
      width,
      height,
      padding,
      grid: { size: gridSize, type: gridType },
      flags: {},
      tokens: new Map(),
      drawings: new Map(),
      tiles: new Map(),
      notes: new Map(),
    };
    this.scenes.set(src._id, src);
    if (active || !this.activeScene) this.activeScene = src._id;
    for (const c of this.clients) c._replicaScene(src);
    return src._id;
  }

  /** Place a token directly (set-up of a test, like a GM dragging an actor in). */
  seedToken(sceneId, data, ownerIds = []) {
    const src = mergeInto(clone(DEFAULTS.Token), { ...data, _id: data._id || randomId() });
    this.scenes.get(sceneId).tokens.set(src._id, src);
    this.owners.set(src._id, new Set(ownerIds));
    for (const c of this.clients) {
      const scene = c.scenes.get(sceneId);
      scene.tokens.set(src._id, new FakeToken(c, "Token", clone(src), scene));
    }
    return src._id;
  }

  /** A browser of `userId` with a module language file (`lang`) and its code (`en`/`ja`). */
  client(userId, lang, code = "en") {
    const c = new FoundryClient(this, userId, lang, code);
    this.clients.push(c);
    return c;
  }

  _tick() {
    return new Promise((r) => setTimeout(r, this.latency));
  }

  async _create(client, sceneId, type, data, options) {
    const coll = COLLECTIONS[type];
    if (!coll) throw new Error(`unknown embedded type ${type}`);
    if (!client.user.isGM) throw new Error(`User ${client.user.name} lacks permission to create ${type}`);
    client.calls.push({ method: "create", type, n: data.length, options: clone(options) });
    const scene = client.scenes.get(sceneId);
    const accepted = [];
    for (const d of data) {
      const src = mergeInto(clone(DEFAULTS[type]), clone(d));
      src._id = options.keepId && d._id ? d._id : randomId();
      for (const k of Object.keys(src.flags || {})) client._checkScope(k);
      const preview = new DOC_CLASSES[type](client, type, src, scene);
      if (client.Hooks.call(`preCreate${type}`, preview, clone(d), options, client.userId) === false) continue;
      accepted.push(src);
    }
    if (!accepted.length) return [];
    await this._tick();
    this.writes += 1;
    const canonical = this.scenes.get(sceneId)[coll];
    for (const src of accepted) {
      if (canonical.has(src._id)) throw new Error(`${type} ${src._id} already exists`);
      canonical.set(src._id, clone(src));
    }
    for (const c of this.clients) {
      const sc = c.scenes.get(sceneId);
      for (const src of accepted) {
        const doc = new DOC_CLASSES[type](c, type, clone(src), sc);
        sc[coll].set(src._id, doc);
        c.Hooks.callAll(`create${type}`, doc, clone(options), client.userId);
      }
    }
    return accepted.map((s) => scene[coll].get(s._id));
  }

  async _update(client, sceneId, type, updates, options) {
    const coll = COLLECTIONS[type];
    const scene = client.scenes.get(sceneId);
    client.calls.push({ method: "update", type, n: updates.length, options: clone(options) });
    const accepted = [];
    for (const u of updates) {
      const doc = scene[coll].get(u._id);
      if (!doc) throw new Error(`${type} ${u._id} does not exist in scene ${sceneId}`);
      if (!doc.isOwner) throw new Error(`User ${client.user.name} lacks permission to update ${type} ${u._id}`);
      for (const k of Object.keys(u.flags || {})) client._checkScope(k);
      const changes = clone(u);
      if (client.Hooks.call(`preUpdate${type}`, doc, changes, options, client.userId) === false) continue;
      let movement = null;
      if (type === "Token" && this.generation >= 13 && ("x" in changes || "y" in changes)) {
        movement = this._movement(doc, changes, options);
        if (client.Hooks.call("preMoveToken", doc, movement, options) === false) continue;
      }
      accepted.push({ changes, movement });
    }
    if (!accepted.length) return [];
    await this._tick();
    this.writes += 1;
    const canonical = this.scenes.get(sceneId)[coll];
    const changed = accepted.map(({ changes }) => {
      const src = canonical.get(changes._id);
      const d = diff(src, changes);
      mergeInto(src, changes);
      return d;
    });
    const user = client.user;
    for (const c of this.clients) {
      const sc = c.scenes.get(sceneId);
      accepted.forEach(({ changes, movement }, i) => {
        const doc = sc[coll].get(changes._id);
        mergeInto(doc._source, changes);
        if (!Object.keys(changed[i]).length) return;
        c.Hooks.callAll(`update${type}`, doc, { ...clone(changed[i]), _id: changes._id }, clone(options), client.userId);
        if (movement && ("x" in changed[i] || "y" in changed[i])) {
          c.Hooks.callAll("moveToken", doc, clone(movement), clone(options), user);
        }
      });
    }
    return accepted.map(({ changes }) => scene[coll].get(changes._id));
  }

  _movement(doc, changes, options) {
    const origin = { x: doc.x, y: doc.y, elevation: doc._source.elevation, width: doc.width, height: doc.height };
    const destination = { ...origin, x: changes.x ?? doc.x, y: changes.y ?? doc.y };
    return {
      id: randomId(),
      origin,
      destination,
      waypoints: clone(options._moveWaypoints) || [destination],
      method: options._moveMethod || "dragging",
      passed: { waypoints: [destination] },
      pending: { waypoints: [] },
    };
  }

  async _delete(client, sceneId, type, ids, options) {
    const coll = COLLECTIONS[type];
    if (!client.user.isGM) throw new Error(`User ${client.user.name} lacks permission to delete ${type}`);
    client.calls.push({ method: "delete", type, n: ids.length, options: clone(options) });
    const scene = client.scenes.get(sceneId);
    const accepted = ids.filter((id) => {
      const doc = scene[coll].get(id);
      if (!doc) throw new Error(`${type} ${id} does not exist`);
      return client.Hooks.call(`preDelete${type}`, doc, options, client.userId) !== false;
    });
    if (!accepted.length) return [];
    const docs = accepted.map((id) => scene[coll].get(id));
    await this._tick();
    this.writes += 1;
    for (const id of accepted) this.scenes.get(sceneId)[coll].delete(id);
    for (const c of this.clients) {
      const sc = c.scenes.get(sceneId);
      for (const id of accepted) {
        const doc = sc[coll].get(id);
        sc[coll].delete(id);
        c.Hooks.callAll(`delete${type}`, doc, clone(options), client.userId);
      }
    }
    return docs;
  }

  async _updateScene(client, sceneId, changes) {
    if (!client.user.isGM) throw new Error("only a GM may update a scene");
    await this._tick();
    const src = this.scenes.get(sceneId);
    mergeInto(src.flags, changes.flags || {});
    for (const c of this.clients) {
      const sc = c.scenes.get(sceneId);
      mergeInto(sc._source.flags, clone(changes.flags || {}));
      c.Hooks.callAll("updateScene", sc, clone(changes), {}, client.userId);
    }
    return client.scenes.get(sceneId);
  }

  async _chat(client, data) {
    for (const k of Object.keys(data.flags || {})) client._checkScope(k);
    const msg = {
      _id: randomId(),
      content: String(data.content ?? ""),
      speaker: clone(data.speaker) || { alias: client.user.name },
      whisper: clone(data.whisper) || [],
      flags: clone(data.flags) || {},
      author: client.userId,
      flavor: String(data.flavor ?? ""),
      // Stored serialized; every client rebuilds its own Roll instances (ChatMessage#rolls).
      rolls: (data.rolls || []).map((r) => (r instanceof FakeRoll ? r.toJSON() : clone(r))),
    };
    await this._tick();
    this.messages.push(msg);
    for (const c of this.clients) {
      const visible = !msg.whisper.length || msg.whisper.includes(c.userId) || c.user.isGM || msg.author === c.userId;
      if (!visible) continue;
      const doc = { ...clone(msg), id: msg._id, getFlag: (s, k) => (msg.flags[s] || {})[k] };
      doc.rolls = msg.rolls.map((r) => FakeRoll.fromData(r));
      doc.isRoll = doc.rolls.length > 0;
      c.game.messages.set(msg._id, doc);
      c.Hooks.callAll("createChatMessage", doc, {}, client.userId);
    }
    return msg;
  }

  /**
   * A user rolls Foundry's own dice (`/roll <formula> # <flavor>`, a sheet's roll button):
   * a message whose `rolls` hold the evaluated Roll and whose content is its total.
   */
  roll(userId, formula, faces, { flavor = "", speaker } = {}) {
    const c = this.clients.find((x) => x.userId === userId);
    const roll = new FakeRoll(formula, faces);
    return this._chat(c, { content: String(roll.total), flavor, rolls: [roll], speaker: speaker || { alias: c.user.name } });
  }

  /** A user types a chat line in their own browser (as Foundry's chat box would). */
  say(userId, content, speaker = undefined) {
    const c = this.clients.find((x) => x.userId === userId);
    return this._chat(c, { content, speaker: speaker || { alias: c.user.name } });
  }
}

/** The module's language file as the fake's `game.i18n` reads it. */
export function loadLang(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}
