/**
 * EVERY assumption komasync makes about the Ccfolia page, in one versioned module.
 *
 * Ccfolia has no API for a live room (shared/docs/vtt.md). What public extensions do, and
 * what this module does: read the page's Redux store (found through the React root), type
 * into the chat box, and — only when the GM turns it on — write through the page's own
 * Firestore handle, found through the app's webpack chunk registry. Any of that may change
 * with a Ccfolia release, so nothing else in the bridge touches the page: it asks this
 * module, and `selfTest()` says exactly which hook was found and which was not, instead of
 * failing silently. When a data-layer hook is missing the bridge falls back to the chat
 * commands and says so.
 *
 * Hooks (HOOKS below; PAGE_VERSION changes when any assumption does). Sources: "vtt" =
 * shared/docs/vtt.md (public extension write-ups), "firebase" = the Firebase JS API
 * reference (firebase.google.com/docs/reference/js/firestore_), "ours" = how this module
 * recognises a thing — our choice, UNCONFIRMED against a live ccfolia.com release.
 *
 *  react_root     the app is mounted by React on #root (`__reactContainer$…` on the
 *                 container, `__reactFiber$…` on rendered nodes, or legacy
 *                 `_reactRootContainer`)                                            vtt
 *  store          a fiber's props hold the Redux store (`store`, or `value.store` of the
 *                 react-redux context) with getState/subscribe/dispatch              vtt
 *  characters     state.entities.roomCharacters = {ids, entities: {id: {x, y, …}}}  vtt
 *  messages       state.entities.roomMessages, dice output in `extend.roll`         vtt
 *  chat_box       `textarea[name="text"]` in a form; React-controlled               vtt
 *  speaker_name   `input[name="name"]` in that form (status commands change the
 *                 speaking character; without it none is typed)                      ours
 *  room_id        state.app.state.roomId, equal to the URL's /rooms/{id}             vtt
 *  webpack_chunks window.webpackChunkccfolia, an array whose push is webpack's       vtt
 *  webpack_require pushing [[id], {}, fn] makes webpack call fn(__webpack_require__),
 *                 which has the module factories in `.m`                            vtt
 *  firestore_db   exactly one exported Firestore instance (`type` "firestore", `app`)
 *                 among the modules whose source mentions firestore/firebase   firebase+ours
 *  setDoc, doc, collection, deleteDoc, deleteField
 *                 exactly one exported function whose source names it as a string
 *                 literal ('setDoc' …) in those modules                       vtt (names)+ours
 *  references     collection(db, "rooms", id, "characters") and doc(that, cid) give a
 *                 CollectionReference / DocumentReference (`type`, `id`, `path`) for
 *                 rooms/{id}/characters/{cid} — checked without writing anything  firebase
 *
 * Writes (vtt): setDoc(doc(collection(db, "rooms", roomId, "characters"), id), patch,
 * {merge: true}); `status` and `params` whole arrays; `updatedAt: Date.now()` on every
 * write; marker panels are the room document's `markers.{key}` (a removed one is set to
 * deleteField()); dice symbols are rooms/{id}/dices/{id} (field names UNCONFIRMED: ours).
 * At most MAX_WRITES (50, what extensions use) are in flight together — Firestore's own
 * limit for one batch is 500 (firebase: writeBatch).
 */

export const PAGE_VERSION = "ccfolia-page/2026.1";

export const ROOT_SELECTORS = ["#root", "#__next", "body > div"];
export const PATHS = Object.freeze({
  characters: ["entities", "roomCharacters"],
  messages: ["entities", "roomMessages"],
  roomId: ["app", "state", "roomId"],
});
export const CHAT = Object.freeze({
  textarea: 'textarea[name="text"]',
  name: 'input[name="name"]',
  submit: 'button[type="submit"]',
});
export const WEBPACK_CHUNKS = "webpackChunkccfolia";
/** A module worth reading for Firestore exports mentions one of these in its source. */
export const MODULE_HINT = /firestore|firebase/i;
export const FIRESTORE_FUNCTIONS = Object.freeze(["setDoc", "doc", "collection", "deleteDoc", "deleteField"]);
export const MAX_WRITES = 50;
const MAX_FIBERS = 20000;
const PROBE_ID = "ks-selftest";

/** Every hook the self-test reports: id, what needs it, and what it is (ja/en). */
export const HOOKS = Object.freeze([
  { id: "react_root", needs: [], ja: "Reactのルート（#root）", en: "React root (#root)" },
  { id: "store", needs: ["react_root"], ja: "Reduxストア", en: "Redux store" },
  { id: "characters", needs: ["store"], ja: "駒（entities.roomCharacters）", en: "characters (entities.roomCharacters)" },
  { id: "messages", needs: ["store"], ja: "チャット（entities.roomMessages）", en: "chat (entities.roomMessages)" },
  { id: "chat_box", needs: [], ja: "チャット欄（textarea[name=text]）", en: "chat box (textarea[name=text])" },
  { id: "speaker_name", needs: [], ja: "発言者名（input[name=name]）", en: "speaker name (input[name=name])" },
  { id: "room_id", needs: ["store"], ja: "ルームID（app.state.roomId）", en: "room id (app.state.roomId)" },
  { id: "webpack_chunks", needs: [], ja: "webpackのチャンク登録（window.webpackChunkccfolia）", en: "webpack chunk registry (window.webpackChunkccfolia)" },
  { id: "webpack_require", needs: ["webpack_chunks"], ja: "__webpack_require__", en: "__webpack_require__" },
  { id: "firestore_db", needs: ["webpack_require"], ja: "Firestoreのインスタンス", en: "Firestore instance" },
  ...FIRESTORE_FUNCTIONS.map((name) => ({ id: name, needs: ["webpack_require"], ja: `Firestoreの${name}`, en: `Firestore ${name}` })),
  { id: "references", needs: ["room_id", "firestore_db", "doc", "collection"], ja: "rooms/{id}/characters の参照", en: "references to rooms/{id}/characters" },
]);

/** Which hooks each way of working needs. */
export const NEEDS = Object.freeze({
  observe: ["react_root", "store", "characters", "messages"],
  chat: ["chat_box"],
  statusCommands: ["chat_box", "speaker_name"],
  dataLayer: ["react_root", "store", "characters", "room_id", "webpack_chunks", "webpack_require",
    "firestore_db", ...FIRESTORE_FUNCTIONS, "references"],
});

function isStore(s) {
  return Boolean(s) && typeof s.getState === "function" && typeof s.subscribe === "function" && typeof s.dispatch === "function";
}

function get(obj, path) {
  let o = obj;
  for (const k of path) {
    if (o === null || o === undefined) return undefined;
    o = o[k];
  }
  return o;
}

// -- the React root and the Redux store -------------------------------------------------

/** react_root: the root fiber of the React tree mounted on `el`, or null. */
export function rootFiber(el) {
  if (!el) return null;
  for (const key of Object.keys(el)) {
    if (key.startsWith("__reactContainer$")) return currentOf(el[key]);
  }
  const legacy = el._reactRootContainer;
  if (legacy) {
    const root = legacy._internalRoot || legacy;
    if (root && root.current) return root.current;
  }
  // A node React rendered carries its own fiber: climb to the HostRoot (tag 3).
  for (const node of [el, ...Array.from(el.children || [])]) {
    const key = Object.keys(node).find((k) => k.startsWith("__reactFiber$"));
    if (!key) continue;
    let f = node[key];
    for (let i = 0; f && f.return && i < MAX_FIBERS; i++) f = f.return;
    if (f && f.tag === 3) return currentOf(f);
  }
  return null;
}

/**
 * The container key points at the HostRoot fiber React made first; React swaps it with its
 * alternate on every commit, so the tree that is on screen hangs off the FiberRoot's
 * `current` (the HostRoot's `stateNode`).
 */
function currentOf(fiber) {
  const root = fiber && fiber.stateNode;
  if (root && root.current) return root.current;
  return fiber && !fiber.child && fiber.alternate ? fiber.alternate : fiber;
}

/** store: walk the fiber tree (child/sibling, breadth first) for a Redux store. */
export function storeInFiber(fiber) {
  const queue = [fiber];
  let seen = 0;
  while (queue.length && seen < MAX_FIBERS) {
    const f = queue.shift();
    if (!f) continue;
    seen += 1;
    const props = f.memoizedProps;
    if (props && typeof props === "object") {
      if (isStore(props.store)) return props.store;
      if (props.value && isStore(props.value.store)) return props.value.store;
    }
    if (f.child) queue.push(f.child);
    if (f.sibling) queue.push(f.sibling);
  }
  return null;
}

/** react_root + store: `{store, root}` or `{store: null, problem, hook}`. */
export function findStore(win) {
  const doc = win.document;
  let sawRoot = false;
  for (const sel of ROOT_SELECTORS) {
    const els = sel === "body > div" ? Array.from((doc.body && doc.body.children) || []) : [doc.querySelector(sel)];
    for (const el of els) {
      const fiber = rootFiber(el);
      if (!fiber) continue;
      sawRoot = true;
      const store = storeInFiber(fiber);
      if (store) return { store, root: sel };
    }
  }
  return sawRoot
    ? { store: null, hook: "store", problem: "no Redux store in the React tree" }
    : { store: null, hook: "react_root", problem: "no React root found" };
}

/** characters: {id: character} of the room, or null when the slice is not there. */
export function readCharacters(state) {
  const slice = get(state, PATHS.characters);
  if (!slice || typeof slice.entities !== "object") return null;
  return slice.entities;
}

/** The characters slice object itself (cheap identity check for "did anything change"). */
export function charactersSlice(state) {
  return get(state, PATHS.characters);
}

export function messagesSlice(state) {
  return get(state, PATHS.messages);
}

/** messages: in order as [{id, message}], or null. */
export function readMessages(state) {
  const slice = messagesSlice(state);
  if (!slice || typeof slice.entities !== "object") return null;
  const ids = Array.isArray(slice.ids) ? slice.ids : Object.keys(slice.entities);
  return ids.map((id) => ({ id, message: slice.entities[id] })).filter((m) => m.message);
}

/** messages: the dice output of a message (string) or "". */
export function rollOf(message) {
  const roll = message && message.extend && message.extend.roll;
  if (!roll) return "";
  if (typeof roll === "string") return roll;
  return String(roll.result || roll.text || "");
}

/** The room id from the URL (`/rooms/<id>`), or null. */
export function roomIdOf(win) {
  const m = /\/rooms\/([^/?#]+)/.exec((win.location && win.location.pathname) || "");
  return m ? decodeURIComponent(m[1]) : null;
}

/** room_id: the store's room id, checked against the URL; `{roomId}` or `{problem}`. */
export function readRoomId(state, win) {
  const id = get(state, PATHS.roomId);
  if (typeof id !== "string" || !id) return { problem: "state.app.state.roomId is not there" };
  const url = roomIdOf(win);
  if (url && url !== id) return { problem: `state.app.state.roomId "${id}" is not the URL's room "${url}"` };
  return { roomId: id };
}

// -- the chat box ---------------------------------------------------------------------------

/** chat_box / speaker_name: the chat box parts, each null when not found. */
export function chatBox(win) {
  const doc = win.document;
  const textarea = doc.querySelector(CHAT.textarea);
  const form = textarea ? textarea.form || (textarea.closest && textarea.closest("form")) : null;
  const scope = form || doc;
  return {
    textarea,
    form,
    name: scope.querySelector(CHAT.name),
    submit: scope.querySelector(CHAT.submit),
  };
}

/** Set a React-controlled field: native setter, then an `input` event React listens to. */
export function setField(win, el, value) {
  const proto = el.tagName === "TEXTAREA" ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
  const desc = Object.getOwnPropertyDescriptor(proto, "value");
  if (desc && desc.set) desc.set.call(el, value);
  else el.value = value;
  el.dispatchEvent(new win.Event("input", { bubbles: true }));
}

/**
 * Type one line into the chat box and send it, speaking as `name` when given. Resolves
 * `{ok, how}`; `ok` is false when the box did not take the line (it kept the text), with
 * `how` saying what was tried.
 */
export async function sendChat(win, text, { name = null, waitMs = 1000 } = {}) {
  const box = chatBox(win);
  if (!box.textarea) return { ok: false, how: "chat_box: no textarea[name=text]" };
  let oldName = null;
  if (name !== null) {
    if (!box.name) return { ok: false, how: "speaker_name: no input[name=name]" };
    oldName = box.name.value;
    if (oldName !== name) setField(win, box.name, name);
  }
  const draft = box.textarea.value; // what the user was typing: put back afterwards
  setField(win, box.textarea, text);
  const tries = [];
  if (box.form && typeof box.form.requestSubmit === "function") {
    tries.push(["form.requestSubmit", () => box.form.requestSubmit(box.submit || undefined)]);
  }
  if (box.submit) tries.push(["submit.click", () => box.submit.click()]);
  tries.push([
    "Enter",
    () => box.textarea.dispatchEvent(new win.KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 13, which: 13, bubbles: true })),
  ]);
  for (const [label, fn] of tries) {
    try {
      fn();
    } catch {
      continue;
    }
    if (await cleared(win, box.textarea, waitMs)) {
      if (oldName !== null && oldName !== name) setField(win, box.name, oldName);
      if (draft) setField(win, box.textarea, draft);
      return { ok: true, how: label };
    }
  }
  setField(win, box.textarea, draft);
  if (oldName !== null && oldName !== name) setField(win, box.name, oldName);
  return { ok: false, how: `chat_box: the chat box did not send (tried ${tries.map((t) => t[0]).join(", ")})` };
}

function cleared(win, textarea, waitMs) {
  const until = Date.now() + waitMs;
  return new Promise((resolve) => {
    const check = () => {
      if (textarea.value === "") return resolve(true);
      if (Date.now() > until) return resolve(false);
      win.setTimeout(check, 15);
    };
    check();
  });
}

// -- webpack and Firestore (the data layer) ----------------------------------------------------

const requires = new WeakMap(); // win -> __webpack_require__ (one probe chunk per page)

/** webpack_chunks + webpack_require: `{req}` or `{hook, problem}`. */
export function webpackRequire(win) {
  if (requires.has(win)) return { req: requires.get(win) };
  const chunks = win[WEBPACK_CHUNKS];
  if (!Array.isArray(chunks)) return { hook: "webpack_chunks", problem: `window.${WEBPACK_CHUNKS} is not there` };
  if (typeof chunks.push !== "function" || chunks.push === Array.prototype.push) {
    return { hook: "webpack_chunks", problem: `window.${WEBPACK_CHUNKS}.push is not webpack's` };
  }
  let req = null;
  try {
    chunks.push([[`komasync-probe-${Date.now().toString(36)}`], {}, (r) => (req = r)]);
  } catch (e) {
    return { hook: "webpack_require", problem: `pushing a chunk threw: ${e && e.message}` };
  }
  if (typeof req !== "function") return { hook: "webpack_require", problem: "the pushed chunk's function was not called with __webpack_require__" };
  if (!req.m || typeof req.m !== "object") return { hook: "webpack_require", problem: "__webpack_require__.m (the module factories) is not there" };
  requires.set(win, req);
  return { req };
}

function sourceOf(fn) {
  try {
    return Function.prototype.toString.call(fn);
  } catch {
    return "";
  }
}

/** Every export of the modules whose factory source mentions Firestore (MODULE_HINT). */
function firestoreExports(req) {
  const out = [];
  for (const id of Object.keys(req.m)) {
    if (!MODULE_HINT.test(sourceOf(req.m[id]))) continue;
    let exp;
    try {
      exp = req(id);
    } catch {
      continue;
    }
    if (!exp || (typeof exp !== "object" && typeof exp !== "function")) continue;
    for (const key of Object.keys(exp)) {
      try {
        out.push({ module: id, key, value: exp[key] });
      } catch {
        /* a throwing getter: not ours */
      }
    }
  }
  return out;
}

function isFirestore(v) {
  return Boolean(v) && typeof v === "object" && v.type === "firestore" && Boolean(v.app) && typeof v.app === "object";
}

function distinct(hits) {
  const seen = new Map();
  for (const h of hits) if (!seen.has(h.value)) seen.set(h.value, h);
  return [...seen.values()];
}

/** firestore_db + the functions: `{found: {name: {value, module, key}}, problems: {name: text}}`. */
export function findFirestore(req) {
  const exports = firestoreExports(req);
  const found = {};
  const problems = {};
  const pick = (name, hits, what) => {
    const list = distinct(hits);
    if (list.length === 1) found[name] = list[0];
    else problems[name] = list.length ? `${list.length} ${what} match (ambiguous)` : `no ${what} found`;
  };
  pick("firestore_db", exports.filter((e) => isFirestore(e.value)), "exported Firestore instances");
  const fns = exports.filter((e) => typeof e.value === "function").map((e) => ({ ...e, src: sourceOf(e.value) }));
  for (const name of FIRESTORE_FUNCTIONS) {
    const literal = new RegExp(`["'\`]${name}["'\`]`);
    pick(name, fns.filter((f) => literal.test(f.src)), `exported functions naming '${name}'`);
  }
  return { found, problems };
}

/** references: the Firestore references the writes use, checked without writing. */
export function references(fs, roomId) {
  const want = `rooms/${roomId}/characters`;
  try {
    const col = fs.collection(fs.db, "rooms", roomId, "characters");
    if (!col || col.type !== "collection" || col.path !== want) return { problem: `collection(db, "rooms", id, "characters") gave ${col && col.type} ${col && col.path}` };
    const ref = fs.doc(col, PROBE_ID);
    if (!ref || ref.type !== "document" || ref.id !== PROBE_ID || ref.path !== `${want}/${PROBE_ID}`) {
      return { problem: `doc(characters, id) gave ${ref && ref.type} ${ref && ref.path}` };
    }
    const room = fs.doc(fs.collection(fs.db, "rooms"), roomId);
    if (!room || room.type !== "document" || room.path !== `rooms/${roomId}`) return { problem: `the room document is ${room && room.path}` };
  } catch (e) {
    return { problem: `building a reference threw: ${e && e.message}` };
  }
  return {};
}

// -- the self-test ------------------------------------------------------------------------------

/**
 * Check every hook; never throws. Returns `{report, handles}`: `report` is plain data (the
 * panel and the GM console show it), `handles` what the bridge uses (store, Firestore).
 */
export function probe(win) {
  const hooks = {};
  const mark = (id, found, detail) => {
    hooks[id] = { found: Boolean(found), detail: String(detail || "") };
  };
  const handles = { store: null, roomId: null, firestore: null };
  try {
    const r = findStore(win);
    handles.store = r.store;
    mark("react_root", r.store || r.hook !== "react_root", r.store ? r.root : r.hook === "react_root" ? r.problem : "");
    if (r.hook !== "react_root") mark("store", r.store, r.store ? "" : r.problem);
  } catch (e) {
    mark("react_root", false, `threw: ${e && e.message}`);
  }
  const state = handles.store ? safeState(handles.store) : null;
  if (state) {
    mark("characters", readCharacters(state), readCharacters(state) ? "" : "state.entities.roomCharacters is not there");
    mark("messages", readMessages(state), readMessages(state) ? "" : "state.entities.roomMessages is not there");
    const room = readRoomId(state, win);
    handles.roomId = room.roomId || null;
    mark("room_id", room.roomId, room.roomId || room.problem);
  }
  const box = chatBox(win);
  mark("chat_box", box.textarea, box.textarea ? (box.form || box.submit ? "" : "no form or submit button: Enter is tried") : "no textarea[name=text]");
  mark("speaker_name", box.name, box.name ? "" : "no input[name=name]: no status command is typed");
  const wp = webpackRequire(win);
  if (wp.req) {
    mark("webpack_chunks", true, `window.${WEBPACK_CHUNKS}`);
    mark("webpack_require", true, `${Object.keys(wp.req.m).length} modules`);
    let fs = { found: {}, problems: {} };
    try {
      fs = findFirestore(wp.req);
    } catch (e) {
      fs.problems.firestore_db = `scanning threw: ${e && e.message}`;
    }
    for (const name of ["firestore_db", ...FIRESTORE_FUNCTIONS]) {
      const hit = fs.found[name];
      mark(name, hit, hit ? `module ${hit.module} export ${hit.key}` : fs.problems[name]);
    }
    const f = fs.found;
    if (f.firestore_db && f.doc && f.collection && handles.roomId) {
      const probeFs = { db: f.firestore_db.value, doc: f.doc.value, collection: f.collection.value };
      const ref = references(probeFs, handles.roomId);
      mark("references", !ref.problem, ref.problem || `rooms/${handles.roomId}/characters`);
    }
    if (["firestore_db", ...FIRESTORE_FUNCTIONS].every((n) => f[n]) && hooks.references && hooks.references.found) {
      handles.firestore = Object.fromEntries(FIRESTORE_FUNCTIONS.map((n) => [n, f[n].value]));
      handles.firestore.db = f.firestore_db.value;
    }
  } else {
    if (wp.hook === "webpack_require") mark("webpack_chunks", true, `window.${WEBPACK_CHUNKS}`);
    mark(wp.hook, false, wp.problem);
  }
  for (const h of HOOKS) {
    if (hooks[h.id]) continue;
    const missing = h.needs.filter((n) => !(hooks[n] && hooks[n].found));
    mark(h.id, false, missing.length ? `not checked: needs ${missing.join(", ")}` : "not checked");
  }
  return { report: summarise(hooks, handles), handles };
}

function safeState(store) {
  try {
    return store.getState();
  } catch {
    return null;
  }
}

function summarise(hooks, handles) {
  const ok = (list) => list.every((id) => hooks[id] && hooks[id].found);
  const found = HOOKS.filter((h) => hooks[h.id].found).map((h) => h.id);
  const missing = HOOKS.filter((h) => !hooks[h.id].found).map((h) => `${h.id}: ${hooks[h.id].detail}`);
  const can = Object.fromEntries(Object.entries(NEEDS).map(([k, list]) => [k, ok(list)]));
  return {
    version: PAGE_VERSION,
    ok: can.observe && can.chat,
    can,
    hooks,
    found,
    missing,
    roomId: handles.roomId,
  };
}

/** The self-test's report alone (plain data). */
export function selfTest(win) {
  return probe(win).report;
}

// -- writing through the data layer ---------------------------------------------------------------

/**
 * The writer for one room: `write(list)` takes at most MAX_WRITES items
 *   {op: "set", kind: "character"|"dice", id, data}   merge into rooms/{room}/{characters|dices}/{id}
 *   {op: "delete", kind: "character"|"dice", id}
 *   {op: "set", kind: "marker", id, data}             merge into the room's markers.{id}
 *   {op: "delete", kind: "marker", id}                markers.{id} = deleteField()
 *   {op: "set", kind: "room", data}                   merge into the room document
 * and resolves when Firestore has taken them all (rejects with the first failure).
 */
export function dataLayer(fs, roomId, { now = () => Date.now() } = {}) {
  const coll = { character: "characters", dice: "dices" };
  const docOf = (kind, id) => fs.doc(fs.collection(fs.db, "rooms", roomId, coll[kind]), id);
  const roomDoc = () => fs.doc(fs.collection(fs.db, "rooms"), roomId);
  const merge = { merge: true };
  const one = (w) => {
    const stamp = { updatedAt: now() };
    if (w.kind === "character" || w.kind === "dice") {
      if (w.op === "delete") return fs.deleteDoc(docOf(w.kind, w.id));
      return fs.setDoc(docOf(w.kind, w.id), { ...w.data, ...stamp }, merge);
    }
    if (w.kind === "marker") {
      const value = w.op === "delete" ? fs.deleteField() : { ...w.data };
      return fs.setDoc(roomDoc(), { markers: { [w.id]: value }, ...stamp }, merge);
    }
    if (w.kind === "room") return fs.setDoc(roomDoc(), { ...w.data, ...stamp }, merge);
    return Promise.reject(new Error(`unknown write kind ${w.kind}`));
  };
  return {
    roomId,
    async write(list) {
      if (list.length > MAX_WRITES) throw new RangeError(`at most ${MAX_WRITES} writes at once`);
      await Promise.all(list.map((w) => Promise.resolve().then(() => one(w))));
    },
  };
}
