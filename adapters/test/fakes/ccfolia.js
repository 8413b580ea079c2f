/**
 * A fake Ccfolia room page for Node, built from the documented surface (vtt.md): a Redux
 * store with `entities.roomCharacters` / `entities.roomMessages` ({ids, entities}), found
 * through a React-18-style root (`#root` with a `__reactContainer$…` key holding the
 * first HostRoot fiber; the committed tree is its FiberRoot's `current`, as React 18 does
 * it, and carries the store in `memoizedProps`), and a chat form whose textarea
 * `[name="text"]` is React-controlled: setting `.value` directly is ignored by "React";
 * only the native setter plus an `input` event updates its state (as in the real page).
 *
 * The "Ccfolia server" side: a message starting `:LABEL±N` / `:LABEL=N` changes the
 * status of the character named as the speaker and adds the system line
 * `[ name ] LABEL : old → new`; a dice command gets the next scripted BCDice result
 * (`page.rolls.push(line)`) in `extend.roll.result`. An optional data layer
 * (`window.__KOMASYNC_DATA_LAYER__`, page.js A7) applies writes after a short latency,
 * as a Firestore listener would.
 */

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

function remove(slice, id) {
  if (!slice.entities[id]) return slice;
  const entities = { ...slice.entities };
  delete entities[id];
  return { ids: slice.ids.filter((x) => x !== id), entities };
}

function reducer(state, action) {
  const e = state.entities;
  switch (action.type) {
    case "roomCharacters/upsert":
      return { ...state, entities: { ...e, roomCharacters: upsert(e.roomCharacters, action.id, action.patch) } };
    case "roomCharacters/remove":
      return { ...state, entities: { ...e, roomCharacters: remove(e.roomCharacters, action.id) } };
    case "roomMessages/add":
      return { ...state, entities: { ...e, roomMessages: upsert(e.roomMessages, action.id, action.message) } };
    case "roomDices/upsert":
      return { ...state, entities: { ...e, roomDices: upsert(e.roomDices, action.id, action.patch) } };
    case "roomDices/remove":
      return { ...state, entities: { ...e, roomDices: remove(e.roomDices, action.id) } };
    case "room/update": {
      const room = { ...e.room, ...action.patch };
      if (action.markers) {
        room.markers = { ...(e.room.markers || {}) };
        for (const [k, v] of Object.entries(action.markers)) {
          if (v === null) delete room.markers[k];
          else room.markers[k] = { ...(room.markers[k] || {}), ...v };
        }
      }
      return { ...state, entities: { ...e, room } };
    }
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
   * @param {{roomId?: string, userId?: string, dataLayer?: boolean, latency?: number,
   *          nameField?: boolean, WebSocket?: Function, characters?: object[]}} [o]
   */
  constructor(o = {}) {
    this.userId = o.userId || "uidGM0001";
    this.latency = o.latency ?? 2;
    this.rolls = [];
    this.dataWrites = [];
    const initial = {
      app: { roomId: o.roomId || "room123" },
      ui: {},
      entities: {
        room: { fieldWidth: 0, fieldHeight: 0, markers: {} },
        roomCharacters: { ids: [], entities: {} },
        roomMessages: { ids: [], entities: {} },
        roomDices: { ids: [], entities: {} },
      },
    };
    this.store = createStore(reducer, initial);
    for (const c of o.characters || []) this.addCharacter(c);

    const doc = new FakeElement(null, "#document");
    doc.body = doc.appendChild(new FakeElement(doc, "body"));
    doc.getElementById = (id) => doc.querySelector(`#${id}`);
    doc.createElement = (tag) => new FakeElement(doc, tag);
    const root = doc.body.appendChild(new FakeElement(doc, "div", { id: "root" }));
    const form = root.appendChild(new FakeElement(doc, "form"));
    this.chatState = { text: "", name: "GM" };
    if (o.nameField !== false) {
      this.nameInput = form.appendChild(new FakeField(doc, "input", { name: "name" }, (v) => (this.chatState.name = v)));
      this.nameInput.value = this.chatState.name;
    }
    this.textarea = form.appendChild(new FakeField(doc, "textarea", { name: "text" }, (v) => (this.chatState.text = v)));
    this.submitButton = form.appendChild(new FakeElement(doc, "button", { type: "submit" }));
    form.requestSubmit = () => form.dispatchEvent(new Event("submit", { cancelable: true }));
    form.addEventListener("submit", () => this._submit());
    this.form = form;

    // React 18: the container holds the HostRoot fiber; the Provider sits a few levels down.
    const leaf = { memoizedProps: { className: "board" }, child: null, sibling: null };
    const ctx = { memoizedProps: { value: { store: this.store, subscription: null } }, child: leaf, sibling: null };
    const provider = { memoizedProps: { store: this.store, children: {} }, child: ctx, sibling: null };
    const theme = { memoizedProps: { theme: {} }, child: provider, sibling: { memoizedProps: {}, child: null, sibling: null } };
    // The container key keeps the HostRoot fiber React made first; after the first commit
    // the tree on screen hangs off its alternate, reachable as stateNode (FiberRoot).current.
    const current = { tag: 3, memoizedProps: null, child: theme, sibling: null };
    const first = { tag: 3, memoizedProps: null, child: null, sibling: null, alternate: current };
    const fiberRoot = { current, containerInfo: root };
    current.stateNode = fiberRoot;
    first.stateNode = fiberRoot;
    current.alternate = first;
    root["__reactContainer$x1y2z3"] = first;

    this.window = {
      document: doc,
      location: { pathname: `/rooms/${initial.app.roomId}`, protocol: "https:" },
      HTMLTextAreaElement: fieldClass(),
      HTMLInputElement: fieldClass(),
      Event,
      KeyboardEvent: FakeKeyboardEvent,
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h),
      WebSocket: o.WebSocket,
      localStorage: new Map(),
    };
    if (o.dataLayer) this.installDataLayer();
  }

  // -- what users do -----------------------------------------------------------------------

  /** A character appears (the GM pasted clipboard JSON, or another user added one). */
  addCharacter(data, id = newId("c")) {
    this.store.dispatch({ type: "roomCharacters/upsert", id, patch: { x: 0, y: 0, status: [], params: [], ...data } });
    return id;
  }

  characters() {
    return this.store.getState().entities.roomCharacters.entities;
  }

  characterNamed(name) {
    return Object.entries(this.characters()).find(([, c]) => c.name === name) || [null, null];
  }

  messages() {
    const s = this.store.getState().entities.roomMessages;
    return s.ids.map((id) => s.entities[id]);
  }

  /** Drag a character along `path` with store updates at ~`rate`/s, then drop it. */
  async drag(id, path, rate = 70) {
    for (const p of path) {
      this.store.dispatch({ type: "roomCharacters/upsert", id, patch: { x: p.x, y: p.y } });
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
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
    this.store.dispatch({ type: "roomCharacters/upsert", id: cid, patch: { status } });
    this.store.dispatch({
      type: "roomMessages/add",
      id: newId("m"),
      message: { text: `[ ${name} ] ${label} : ${old} → ${s.value}`, name: "system", type: "system", extend: {} },
    });
  }

  // -- the data layer (direct write, page.js A7) ----------------------------------------------

  installDataLayer() {
    const page = this;
    this.window.__KOMASYNC_DATA_LAYER__ = {
      async write(list) {
        if (list.length > 50) throw new Error("more than 50 writes in one batch");
        page.dataWrites.push(list.length);
        await new Promise((r) => setTimeout(r, page.latency));
        for (const w of list) page._applyWrite(w);
      },
    };
  }

  _applyWrite(w) {
    const d = this.store.dispatch;
    if (w.kind === "character") {
      if (w.op === "delete") d({ type: "roomCharacters/remove", id: w.id });
      else d({ type: "roomCharacters/upsert", id: w.id, patch: w.data });
    } else if (w.kind === "dice") {
      if (w.op === "delete") d({ type: "roomDices/remove", id: w.id });
      else d({ type: "roomDices/upsert", id: w.id, patch: w.data });
    } else if (w.kind === "marker") {
      d({ type: "room/update", patch: {}, markers: { [w.id]: w.op === "delete" ? null : w.data } });
    } else if (w.kind === "room") {
      d({ type: "room/update", patch: w.data });
    }
  }
}
