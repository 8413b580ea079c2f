/**
 * A fake Ccfolia room page for Node, built from the documented surface (README.md beside
 * this file names the source of every shape): a Redux store with `app.state.roomId` and
 * `entities.roomCharacters` / `entities.roomMessages` ({ids, entities}), found through a
 * React-18-style root (`#root` with a `__reactContainer$…` key holding the first HostRoot
 * fiber; the committed tree is its FiberRoot's `current`, as React 18 does it, and carries
 * the store in `memoizedProps`); a chat form whose textarea `[name="text"]` is
 * React-controlled (setting `.value` directly is ignored by "React"; only the native
 * setter plus an `input` event updates its state); and the data layer of firestore.js:
 * `window.webpackChunkccfolia` with a Firestore-like SDK module and the app's instance.
 * The store follows Firestore's characters by itself (a listener), as the page does.
 *
 * The "Ccfolia server" side: a message starting `:LABEL±N` / `:LABEL=N` changes the
 * status of the character named as the speaker and adds the system line
 * `[ name ] LABEL : old → new`; a dice command gets the next scripted BCDice result
 * (`page.rolls.push(line)`) in `extend.roll.result`.
 *
 * `new FakeCcfoliaPage({break: hook})` breaks one page.js hook the way a new Ccfolia
 * release could (BREAKS below), for the self-test and fallback tests.
 */

import { FakeFirestore, installWebpack, sdkModules } from "./firestore.js";

/** Every hook of page.js, and how this fake breaks it. */
export const BREAKS = Object.freeze({
  react_root: "the container has no React key",
  store: "no component holds the store",
  characters: "the characters slice is renamed",
  messages: "the messages slice is renamed",
  chat_box: "the chat box is renamed",
  speaker_name: "there is no speaker-name field",
  room_id: "app.state has no roomId",
  webpack_chunks: "no window.webpackChunkccfolia",
  webpack_require: "webpack ignores a pushed chunk's function",
  firestore_db: "no module exports the Firestore instance",
  setDoc: "the SDK has no setDoc",
  doc: "the SDK has no doc",
  collection: "the SDK has no collection",
  deleteDoc: "the SDK has no deleteDoc",
  deleteField: "the SDK has no deleteField",
  references: "references have another path form",
});

let seq = 0;
const newId = (p) => `${p}${(++seq).toString(36).padStart(6, "0")}`;

// -- a minimal DOM ---------------------------------------------------------------------------

class FakeElement extends EventTarget {
  constructor(doc, tagName, attrs = {}) {
    super();
    this.ownerDocument = doc;
    this.tagName = tagName.toUpperCase();
    this.attributes = { ...attrs };
    this.children = [];
    this.parentElement = null;
    this.style = {};
    this.textContent = "";
  }

  get id() {
    return this.attributes.id || "";
  }

  getAttribute(k) {
    return this.attributes[k] ?? null;
  }

  appendChild(el) {
    el.parentElement = this;
    this.children.push(el);
    return el;
  }

  matches(sel) {
    const m = /^([a-z]*)(?:#([\w-]+))?(?:\[(\w+)="([^"]*)"\])?$/i.exec(sel.trim());
    if (!m) return false;
    const [, tag, id, attr, val] = m;
    if (tag && this.tagName !== tag.toUpperCase()) return false;
    if (id && this.id !== id) return false;
    if (attr && this.attributes[attr] !== val) return false;
    return true;
  }

  querySelector(sel) {
    for (const c of this.children) {
      if (c.matches(sel)) return c;
      const d = c.querySelector(sel);
      if (d) return d;
    }
    return null;
  }

  closest(sel) {
    let e = this;
    while (e) {
      if (e.matches && e.matches(sel)) return e;
      e = e.parentElement;
    }
    return null;
  }

  click() {
    this.dispatchEvent(new Event("click", { bubbles: true }));
  }
}

/** The `value` of a form field: the DOM's value, and React's tracked copy of it. */
class FakeField extends FakeElement {
  constructor(doc, tagName, attrs, onChange) {
    super(doc, tagName, attrs);
    this._dom = "";
    this._tracked = "";
    // React hooks the instance's `value` so that its own writes are tracked; writing
    // `el.value = x` from outside therefore looks like "no change" to React.
    Object.defineProperty(this, "value", {
      configurable: true,
      enumerable: true,
      get: () => this._dom,
      set: (v) => {
        this._dom = String(v);
        this._tracked = String(v);
      },
    });
    this.addEventListener("input", () => {
      if (this._dom === this._tracked) return; // React sees nothing new
      this._tracked = this._dom;
      onChange(this._dom);
    });
  }

  get form() {
    return this.closest("form");
  }
}

function fieldClass() {
  // The prototype's native setter: changes the DOM value only (what page.js calls).
  class HTMLFieldElement {}
  Object.defineProperty(HTMLFieldElement.prototype, "value", {
    configurable: true,
    get() {
      return this._dom;
    },
    set(v) {
      this._dom = String(v);
    },
  });
  return HTMLFieldElement;
}

class FakeKeyboardEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.key = init.key;
    this.code = init.code;
    this.keyCode = init.keyCode;
  }
}

// -- a minimal Redux store ----------------------------------------------------------------

function createStore(reducer, initial) {
  let state = initial;
  const listeners = new Set();
  return {
    getState: () => state,
    dispatch(action) {
      state = reducer(state, action);
      for (const l of [...listeners]) l();
      return action;
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    listenerCount: () => listeners.size,
  };
}

function upsert(slice, id, patch) {
  const old = slice.entities[id];
  return {
    ids: old ? slice.ids : [...slice.ids, id],
    entities: { ...slice.entities, [id]: { ...(old || {}), ...patch, _id: id } },
  };
}

function set(slice, id, doc) {
  return {
    ids: slice.entities[id] ? slice.ids : [...slice.ids, id],
    entities: { ...slice.entities, [id]: { ...doc, _id: id } },
  };
}

function remove(slice, id) {
  if (!slice.entities[id]) return slice;
  const entities = { ...slice.entities };
  delete entities[id];
  return { ids: slice.ids.filter((x) => x !== id), entities };
}

function reducer(state, action) {
  const e = state.entities;
  // A "release" that renamed a slice (BREAKS) keeps its data under the new name.
  const roomCharacters = "roomCharacters" in e ? "roomCharacters" : "roomCharacterList";
  const roomMessages = "roomMessages" in e ? "roomMessages" : "roomMessageList";
  switch (action.type) {
    case "roomCharacters/upsert":
      return { ...state, entities: { ...e, [roomCharacters]: upsert(e[roomCharacters], action.id, action.patch) } };
    case "roomCharacters/remove":
      return { ...state, entities: { ...e, [roomCharacters]: remove(e[roomCharacters], action.id) } };
    case "roomMessages/add":
      return { ...state, entities: { ...e, [roomMessages]: upsert(e[roomMessages], action.id, action.message) } };
    case "roomCharacters/set":
      return { ...state, entities: { ...e, [roomCharacters]: set(e[roomCharacters], action.id, action.doc) } };
    case "ui/tick":
      return { ...state, ui: { ...state.ui, tick: (state.ui.tick || 0) + 1 } };
    default:
      return state;
  }
}

const STATUS_CMD = /^:([^+\-=\s]+)([+\-=])(\d+)\s*$/;
const DICE_CMD = /^(?:x\d+\s+)?(?:CC|CBR|\d*D\d+)/i;

export class FakeCcfoliaPage {
  /**
   * @param {{roomId?: string, userId?: string, latency?: number, break?: string,
   *          WebSocket?: Function, characters?: object[]}} [o]
   */
  constructor(o = {}) {
    const brk = o.break || null;
    if (brk && !(brk in BREAKS)) throw new Error(`unknown hook to break: ${brk}`);
    this.broken = brk;
    this.roomId = o.roomId || "room123";
    this.userId = o.userId || "uidGM0001";
    this.rolls = [];
    const slices = {
      [brk === "characters" ? "roomCharacterList" : "roomCharacters"]: { ids: [], entities: {} },
      [brk === "messages" ? "roomMessageList" : "roomMessages"]: { ids: [], entities: {} },
    };
    const initial = {
      app: { state: brk === "room_id" ? { uid: this.userId } : { roomId: this.roomId, uid: this.userId } },
      ui: {},
      entities: { roomCharacters: slices.roomCharacters, roomMessages: slices.roomMessages, ...slices },
    };
    if (brk === "characters") delete initial.entities.roomCharacters;
    if (brk === "messages") delete initial.entities.roomMessages;
    this.store = createStore(reducer, initial);
    this.firestore = new FakeFirestore({ latency: o.latency ?? 2 });
    const prefix = `rooms/${this.roomId}/characters/`;
    this.firestore.onChange((path, doc) => {
      if (!path.startsWith(prefix)) return;
      const id = path.slice(prefix.length);
      this.store.dispatch(doc ? { type: "roomCharacters/set", id, doc } : { type: "roomCharacters/remove", id });
    });
    for (const c of o.characters || []) this.addCharacter(c);

    const doc = new FakeElement(null, "#document");
    doc.body = doc.appendChild(new FakeElement(doc, "body"));
    doc.getElementById = (id) => doc.querySelector(`#${id}`);
    doc.createElement = (tag) => new FakeElement(doc, tag);
    const root = doc.body.appendChild(new FakeElement(doc, "div", { id: "root" }));
    const form = root.appendChild(new FakeElement(doc, "form"));
    this.chatState = { text: "", name: "GM" };
    if (brk !== "speaker_name") {
      this.nameInput = form.appendChild(new FakeField(doc, "input", { name: "name" }, (v) => (this.chatState.name = v)));
      this.nameInput.value = this.chatState.name;
    }
    this.textarea = form.appendChild(new FakeField(doc, "textarea", { name: brk === "chat_box" ? "body" : "text" }, (v) => (this.chatState.text = v)));
    this.submitButton = form.appendChild(new FakeElement(doc, "button", { type: "submit" }));
    form.requestSubmit = () => form.dispatchEvent(new Event("submit", { cancelable: true }));
    form.addEventListener("submit", () => this._submit());
    this.form = form;

    // React 18: the container holds the HostRoot fiber; the Provider sits a few levels down.
    const leaf = { memoizedProps: { className: "board" }, child: null, sibling: null };
    const held = brk === "store" ? { getState: () => initial } : this.store; // not a store
    const ctx = { memoizedProps: { value: { store: held, subscription: null } }, child: leaf, sibling: null };
    const provider = { memoizedProps: { store: held, children: {} }, child: ctx, sibling: null };
    const theme = { memoizedProps: { theme: {} }, child: provider, sibling: { memoizedProps: {}, child: null, sibling: null } };
    // The container key keeps the HostRoot fiber React made first; after the first commit
    // the tree on screen hangs off its alternate, reachable as stateNode (FiberRoot).current.
    const current = { tag: 3, memoizedProps: null, child: theme, sibling: null };
    const first = { tag: 3, memoizedProps: null, child: null, sibling: null, alternate: current };
    const fiberRoot = { current, containerInfo: root };
    current.stateNode = fiberRoot;
    first.stateNode = fiberRoot;
    current.alternate = first;
    if (brk !== "react_root") root["__reactContainer$x1y2z3"] = first;

    this.window = {
      document: doc,
      location: { pathname: `/rooms/${this.roomId}`, protocol: "https:" },
      HTMLTextAreaElement: fieldClass(),
      HTMLInputElement: fieldClass(),
      Event,
      KeyboardEvent: FakeKeyboardEvent,
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h),
      WebSocket: o.WebSocket,
      localStorage: new Map(),
    };
    if (brk !== "webpack_chunks") {
      const omit = [...(brk === "firestore_db" ? ["firestore_db"] : []), ...(["setDoc", "doc", "collection", "deleteDoc", "deleteField"].includes(brk) ? [brk] : [])];
      installWebpack(this.window, sdkModules(this.firestore, { omit, brokenReferences: brk === "references" }), { callsRuntime: brk !== "webpack_require" });
    }
  }

  /** Firestore documents of this room (what the data layer wrote). */
  roomDoc() {
    return this.firestore.get(`rooms/${this.roomId}`) || {};
  }

  markers() {
    return this.roomDoc().markers || {};
  }

  dice() {
    const prefix = `rooms/${this.roomId}/dices/`;
    const out = {};
    for (const [path, doc] of this.firestore.docs) if (path.startsWith(prefix)) out[path.slice(prefix.length)] = doc;
    return out;
  }

  // -- what users do -----------------------------------------------------------------------

  /** A character appears (the GM pasted clipboard JSON, or another user added one). */
  addCharacter(data, id = newId("c")) {
    this.firestore.put(`rooms/${this.roomId}/characters/${id}`, { x: 0, y: 0, status: [], params: [], ...data });
    return id;
  }

  /** Another user's client changes a character (e.g. the GM gives it to a player). */
  setCharacter(id, patch) {
    this.firestore.put(`rooms/${this.roomId}/characters/${id}`, patch);
  }

  characters() {
    const e = this.store.getState().entities;
    return (e.roomCharacters || e.roomCharacterList).entities;
  }

  characterNamed(name) {
    return Object.entries(this.characters()).find(([, c]) => c.name === name) || [null, null];
  }

  messages() {
    const e = this.store.getState().entities;
    const s = e.roomMessages || e.roomMessageList;
    return s.ids.map((id) => s.entities[id]);
  }

  /** Drag a character along `path` with store updates at ~`rate`/s, then drop it (the
   *  dragging client writes the drop to Firestore; every page's store follows). */
  async drag(id, path, rate = 70) {
    for (const p of path) {
      this.store.dispatch({ type: "roomCharacters/upsert", id, patch: { x: p.x, y: p.y } });
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    const last = path.at(-1);
    if (last) this.setCharacter(id, { x: last.x, y: last.y });
  }

  /** Another user's chat line arriving (through Firestore) — runs the same "server" rules. */
  say(text, { name, from = "uidPlayer" } = {}) {
    this._post(text, name, from);
  }

  // -- the chat form's submit and Ccfolia's answer -------------------------------------------

  _submit() {
    const text = this.chatState.text;
    if (!text.trim()) return;
    this._post(text, this.chatState.name, this.userId);
    this.chatState.text = "";
    this.textarea.value = ""; // React re-renders the controlled field empty
  }

  _post(text, name, from) {
    const message = { text, name, from, type: "text", extend: {}, createdAt: Date.now() };
    if (DICE_CMD.test(text) && this.rolls.length) {
      message.extend = { roll: { result: this.rolls.shift(), dices: [] } };
    }
    this.store.dispatch({ type: "roomMessages/add", id: newId("m"), message });
    const m = STATUS_CMD.exec(text);
    if (m) this._status(name, m[1], m[2], Number(m[3]));
  }

  _status(name, label, sign, n) {
    const [cid, c] = this.characterNamed(name);
    if (!c) return;
    const status = c.status.map((s) => ({ ...s }));
    const s = status.find((x) => x.label === label);
    if (!s) return;
    const old = s.value;
    s.value = sign === "=" ? n : sign === "+" ? old + n : old - n;
    this.setCharacter(cid, { status });
    this.store.dispatch({
      type: "roomMessages/add",
      id: newId("m"),
      message: { text: `[ ${name} ] ${label} : ${old} → ${s.value}`, name: "system", type: "system", extend: {} },
    });
  }
}
