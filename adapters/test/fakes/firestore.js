/**
 * The data layer of a fake Ccfolia page, shared by the Node fake (fakes/ccfolia.js) and the
 * chromium fake (tests/bridges/fake_ccfolia/app.js): a webpack chunk registry holding a
 * Firestore-like SDK module and the app's own module that exports its Firestore instance.
 * Every shape here is one the README beside this file traces to its source
 * (shared/docs/vtt.md, the Firebase JS API reference) or marks as our own signature.
 *
 * - `FakeFirestore`: documents by path; `setDoc(ref, data, {merge})` (merge: nested maps
 *   merged key by key, arrays and other values replaced, `deleteField()` removes a key),
 *   `deleteDoc(ref)`; references `{type: "collection"|"document", id, path, parent}`.
 *   Listeners hear every committed change after `latency` ms (as the page's own Firestore
 *   listeners would); `maxInFlight` records how many writes were outstanding at once.
 * - `sdkModules(fs, {omit, brokenReferences})`: webpack module factories — the SDK module
 *   (minified export names; each function's source names it: `"setDoc"` …), the app's
 *   firebase module exporting the instance, and unrelated modules.
 * - `installWebpack(win, modules, {callsRuntime})`: `win.webpackChunkccfolia` with
 *   webpack's JSONP push: modules of a pushed chunk are registered and its third element
 *   is called with `__webpack_require__` (`.m` the factories, `.d` export definitions).
 */

export const DELETE = Symbol("deleteField");

const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v && v[DELETE]);

function mergeInto(target, patch) {
  const out = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    if (v && v[DELETE]) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = mergeInto(out[k], v);
    else if (isMap(v)) out[k] = mergeInto({}, v);
    else out[k] = Array.isArray(v) ? v.map((x) => (isMap(x) ? { ...x } : x)) : v;
  }
  return out;
}

function clean(value) {
  // A plain set stores no sentinel; a sentinel outside a merge is an error in Firestore too.
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]));
  if (value && value[DELETE]) throw new Error("deleteField() is only allowed with {merge: true}");
  return value;
}

export class FakeFirestore {
  constructor({ latency = 2, setTimeout: st = setTimeout } = {}) {
    this.latency = latency;
    this.setTimeout = st;
    this.docs = new Map();
    this.listeners = new Set();
    this.writes = []; // {op, path, data?, options?}
    this.inFlight = 0;
    this.maxInFlight = 0;
    this.failNext = 0; // make the next N writes reject (a permission error)
    this.db = { type: "firestore", app: { name: "[DEFAULT]", options: { projectId: "ccfolia-fake" } }, toJSON: () => ({ app: "[DEFAULT]" }) };
  }

  get(path) {
    return this.docs.get(path) || null;
  }

  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A document set from elsewhere (another user's client): committed at once. */
  put(path, data, merge = true) {
    this._commit(path, merge ? mergeInto(this.get(path) || {}, data) : clean(data));
  }

  _commit(path, doc) {
    if (doc === null) this.docs.delete(path);
    else this.docs.set(path, doc);
    for (const fn of [...this.listeners]) fn(path, doc);
  }

  _write(op, path, data, options) {
    this.writes.push({ op, path, data, options });
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const fail = this.failNext > 0;
    if (fail) this.failNext -= 1;
    return new Promise((resolve, reject) => {
      (0, this.setTimeout)(() => {
        this.inFlight -= 1;
        if (fail) return reject(new Error("Missing or insufficient permissions."));
        if (op === "delete") this._commit(path, null);
        else this._commit(path, options && options.merge ? mergeInto(this.get(path) || {}, data) : clean(data));
        resolve();
      }, this.latency);
    });
  }

  reference(type, parent, segments) {
    const base = parent && parent.path ? parent.path.split("/") : [];
    const parts = [...base, ...segments.flatMap((s) => String(s).split("/"))].filter(Boolean);
    const want = type === "collection" ? 1 : 0;
    if (parts.length % 2 !== want) throw new Error(`invalid ${type} path: ${parts.join("/")}`);
    return { type, id: parts.at(-1), path: parts.join("/"), parent, firestore: this.db };
  }
}

/**
 * Webpack module factories of the fake page. `omit`: SDK exports left out (a release that
 * renamed them); `brokenReferences`: references with another path form (a changed SDK).
 */
export function sdkModules(fs, { omit = [], brokenReferences = false } = {}) {
  // Each function names itself as a string literal, as an SDK's argument checks do (the
  // signature page.js looks for); the decoys name other things.
  const need = (fn, ok, what) => {
    if (!ok) throw new TypeError(`Function ${fn}() ${what}`);
  };
  const sdk = {
    setDoc: function (reference, data, options) {
      need("setDoc", reference && reference.type === "document", "expects a DocumentReference");
      return fs._write("set", reference.path, data, options);
    },
    deleteDoc: function (reference) {
      need("deleteDoc", reference && reference.type === "document", "expects a DocumentReference");
      return fs._write("delete", reference.path);
    },
    doc: function (parent, ...segments) {
      need("doc", segments.length > 0, "needs a path");
      const ref = fs.reference("document", parent && parent.type === "firestore" ? null : parent, segments);
      return brokenReferences ? { ...ref, path: ref.path.replaceAll("/", ":") } : ref;
    },
    collection: function (parent, ...segments) {
      need("collection", segments.length > 0, "needs a path");
      return fs.reference("collection", parent && parent.type === "firestore" ? null : parent, segments);
    },
    deleteField: function () {
      return { [DELETE]: true, method: "deleteField" };
    },
    updateDoc: function (reference, data) {
      need("updateDoc", reference && reference.type === "document", "expects a DocumentReference");
      return fs._write("set", reference.path, data, { merge: true });
    },
    getDoc: function (reference) {
      need("getDoc", reference && reference.type === "document", "expects a DocumentReference");
      return Promise.resolve({ id: reference.id, data: () => fs.get(reference.path) });
    },
    collectionGroup: function (db, id) {
      need("collectionGroup", typeof id === "string", "needs an id");
      return { type: "query", id };
    },
  };
  const mangled = { setDoc: "pl", deleteDoc: "oe", doc: "JU", collection: "hJ", deleteField: "AK", updateDoc: "r7", getDoc: "QT", collectionGroup: "c8" };
  const exported = Object.fromEntries(
    Object.entries(sdk).filter(([name]) => !omit.includes(name)).map(([name, fn]) => [mangled[name], () => fn]),
  );
  return {
    // the SDK, as bundled: its source mentions "@firebase/firestore"
    4821: function (module, exports, require) {
      const LIB = "@firebase/firestore";
      require.d(exports, exported);
      return LIB;
    },
    // the app's own firebase setup: exports the initialised instance
    7310: function (module, exports, require) {
      const config = { authDomain: "ccfolia-fake.firebaseapp.com" };
      require.d(exports, omit.includes("firestore_db") ? { Ay: () => config } : { db: () => fs.db, Ay: () => config });
    },
    // unrelated modules (never read: their sources do not mention Firestore)
    1001: function (module, exports, require) {
      require.d(exports, { A: () => function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); } });
    },
    // a module that mentions firebase but fails when required: must not break the scan
    1002: function () {
      throw new Error("firebase analytics is blocked in this browser");
    },
  };
}

/**
 * `win.webpackChunkccfolia` with webpack's JSONP push. `callsRuntime: false` models a
 * runtime that ignores a chunk's third element (the webpack_require hook then fails).
 */
export function installWebpack(win, modules, { callsRuntime = true } = {}) {
  const factories = {};
  const cache = {};
  function require(id) {
    if (cache[id]) return cache[id].exports;
    const module = (cache[id] = { exports: {} });
    try {
      factories[id].call(module.exports, module, module.exports, require);
    } catch (e) {
      delete cache[id];
      throw e;
    }
    return module.exports;
  }
  require.m = factories;
  require.c = cache;
  require.d = (exports, defs) => {
    for (const [k, get] of Object.entries(defs)) Object.defineProperty(exports, k, { enumerable: true, get });
  };
  const chunks = [];
  const loaded = new Set();
  chunks.push = function (data) {
    const [ids, more, runtime] = data;
    for (const [id, f] of Object.entries(more || {})) factories[id] = f;
    for (const id of ids) loaded.add(id);
    if (runtime && callsRuntime) runtime(require);
    return Array.prototype.push.call(this, data);
  };
  chunks.push([["main"], modules]);
  win.webpackChunkccfolia = chunks;
  return require;
}
