/**
 * EVERY assumption komasync makes about the Ccfolia page, in one versioned module.
 *
 * Ccfolia has no API for a live room (shared/docs/vtt.md). What public extensions do,
 * and what this module does, is read the page's Redux store (found through the React
 * root) and type into the chat box. Any of that may change with a Ccfolia release, so
 * nothing else in the bridge touches the page: it asks this module, and `selfTest()`
 * says exactly which assumption no longer holds instead of failing silently.
 *
 * Assumptions (PAGE_VERSION below; bump it when one changes):
 *  A1 the app is mounted by React on one of ROOT_SELECTORS; the container element has a
 *     `__reactContainer$…` key (React 18 createRoot) or `_reactRootContainer` (legacy)
 *  A2 somewhere down the fiber tree a component gets the Redux store as
 *     `memoizedProps.store` (react-redux Provider) or `memoizedProps.value.store`
 *     (its context); a store has getState/subscribe/dispatch
 *  A3 characters: state.entities.roomCharacters = {ids, entities: {id: {name, x, y,
 *     width, height, status, params, owner, …}}}                        (vtt.md)
 *  A4 chat: state.entities.roomMessages = {ids, entities: {id: {text, name, from,
 *     extend: {roll: …}, …}}}; a dice result sits in extend.roll (a string, or an object
 *     with `result` / `text`)                                          (vtt.md)
 *  A5 the chat box is `textarea[name="text"]` inside a form; it is a React-controlled
 *     field, so a value is set with the native setter plus an `input` event, and sent
 *     with the form's submit (else the submit button, else Enter)        (vtt.md)
 *  A6 the speaker name is `input[name="name"]` in the same form (UNCONFIRMED); status
 *     commands (`:HP-1`) change the *speaking* character, so without this field the
 *     bridge never types a status command
 *  A7 direct write (UNCONFIRMED, off unless the GM enables it): the page's own data
 *     layer. Ccfolia's Firestore handle is not reachable by any documented means; the
 *     bridge uses a data-layer object installed at `window.__KOMASYNC_DATA_LAYER__`
 *     (contract: DATA_LAYER_METHODS, docs/bridges.md) and reports when there is none.
 */

export const PAGE_VERSION = "ccfolia-page/2025.1";

export const ROOT_SELECTORS = ["#root", "#__next", "body > div"];
export const PATHS = Object.freeze({
  characters: ["entities", "roomCharacters"],
  messages: ["entities", "roomMessages"],
});
export const CHAT = Object.freeze({
  textarea: 'textarea[name="text"]',
  name: 'input[name="name"]',
  submit: 'button[type="submit"]',
});
export const DATA_LAYER_GLOBAL = "__KOMASYNC_DATA_LAYER__";
/** A7 contract: `write(list)` with at most MAX_WRITES items, each
 *  {op: "set", kind: "character"|"dice", id, data}   merge into rooms/{room}/{characters|dices}/{id}
 *  {op: "delete", kind: "character"|"dice", id}
 *  {op: "set", kind: "marker", id, data}             merge into the room's markers.{id}
 *  {op: "delete", kind: "marker", id}
 *  {op: "set", kind: "room", data}                   merge into the room document
 *  returning a promise that settles when the writes are committed. */
export const DATA_LAYER_METHODS = ["write"];
export const MAX_WRITES = 50;

const MAX_FIBERS = 20000;

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

/** A1: the root fiber of the React tree mounted on `el`, or null. */
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

/** A2: walk the fiber tree (child/sibling, breadth first) for a Redux store. */
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

/** A1 + A2: `{store, root}` or `{store: null, problem}`. */
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
  return { store: null, problem: sawRoot ? "A2: no Redux store in the React tree" : "A1: no React root found" };
}

/** A3: {id: character} of the room, or null when the slice is not there. */
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

/** A4: messages in order as [{id, message}], or null. */
export function readMessages(state) {
  const slice = messagesSlice(state);
  if (!slice || typeof slice.entities !== "object") return null;
  const ids = Array.isArray(slice.ids) ? slice.ids : Object.keys(slice.entities);
  return ids.map((id) => ({ id, message: slice.entities[id] })).filter((m) => m.message);
}

/** A4: the dice output of a message (string) or "". */
export function rollOf(message) {
  const roll = message && message.extend && message.extend.roll;
  if (!roll) return "";
  if (typeof roll === "string") return roll;
  return String(roll.result || roll.text || "");
}

/** A5: the chat box parts, each null when not found. */
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
 * A5/A6: type one line into the chat box and send it, speaking as `name` when given.
 * Resolves `{ok, how}`; `ok` is false when the box did not take the line (it kept the
 * text), with `how` saying what was tried.
 */
export async function sendChat(win, text, { name = null, waitMs = 1000 } = {}) {
  const box = chatBox(win);
  if (!box.textarea) return { ok: false, how: "A5: no chat box (textarea[name=text])" };
  let oldName = null;
  if (name !== null) {
    if (!box.name) return { ok: false, how: "A6: no speaker name field (input[name=name])" };
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
  let how = "";
  for (const [label, fn] of tries) {
    how = label;
    try {
      fn();
    } catch {
      continue;
    }
    if (await cleared(win, box.textarea, waitMs)) {
      if (oldName !== null && oldName !== name) setField(win, box.name, oldName);
      if (draft) setField(win, box.textarea, draft);
      return { ok: true, how };
    }
  }
  setField(win, box.textarea, draft);
  if (oldName !== null && oldName !== name) setField(win, box.name, oldName);
  return { ok: false, how: `A5: the chat box did not send (tried ${tries.map((t) => t[0]).join(", ")})` };
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

/** A7: the data layer for direct write, or null. */
export function findDataLayer(win) {
  const dl = win[DATA_LAYER_GLOBAL];
  if (dl && DATA_LAYER_METHODS.every((m) => typeof dl[m] === "function")) return dl;
  return null;
}

/** The room id from the URL (`/rooms/<id>`), or null. */
export function roomIdOf(win) {
  const m = /\/rooms\/([^/?#]+)/.exec((win.location && win.location.pathname) || "");
  return m ? m[1] : null;
}

/**
 * Check every assumption; never throws. `ok` is true when the bridge can observe the
 * room and speak in chat; `missing` lists what was not found, in words.
 */
export function selfTest(win) {
  const found = {};
  const missing = [];
  let store = null;
  try {
    const r = findStore(win);
    store = r.store;
    found.store = Boolean(store);
    if (!store) missing.push(r.problem);
  } catch (e) {
    found.store = false;
    missing.push(`A1/A2: ${e && e.message}`);
  }
  if (store) {
    const state = store.getState();
    found.characters = Boolean(readCharacters(state));
    if (!found.characters) missing.push("A3: state.entities.roomCharacters");
    found.messages = Boolean(readMessages(state));
    if (!found.messages) missing.push("A4: state.entities.roomMessages");
  }
  const box = chatBox(win);
  found.chatBox = Boolean(box.textarea);
  if (!box.textarea) missing.push("A5: chat box textarea[name=text]");
  found.chatSubmit = Boolean(box.form || box.submit);
  if (box.textarea && !found.chatSubmit) missing.push("A5: chat form / submit button (Enter is tried)");
  found.speakerName = Boolean(box.name);
  if (!box.name) missing.push("A6: speaker name field input[name=name] (status commands disabled)");
  found.dataLayer = Boolean(findDataLayer(win));
  if (!found.dataLayer) missing.push("A7: data layer (direct write unavailable)");
  found.room = roomIdOf(win);
  return {
    version: PAGE_VERSION,
    ok: Boolean(found.store && found.characters && found.messages && found.chatBox),
    found,
    missing,
  };
}
