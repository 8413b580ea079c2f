// A fake Ccfolia room page for the headless-chromium bridge tests (README.md beside this
// file names the source of every shape): real React 18 (createRoot), a Redux-style store
// handed down by a Provider component (so it sits in the fiber tree as
// `memoizedProps.store` and in a context value) with `app.state.roomId` and
// `entities.roomCharacters` / `entities.roomMessages`; the data layer of
// adapters/test/fakes/firestore.js (window.webpackChunkccfolia with a Firestore-like
// module and the app's instance); the store follows Firestore's characters; a board whose
// pieces are dragged with the mouse (every mousemove updates the store, the drop is written
// to Firestore); marker panels from the room document and dice symbols from rooms/{id}/dices;
// and a chat form with React-controlled `input[name=name]` and `textarea[name=text]`.
// "Ccfolia's server" answers `:LABEL±N`/`:LABEL=N` status commands and gives dice commands
// the next scripted BCDice line (`window.__fake.rolls`).
// `?break=<hook>` breaks one data-layer hook the way a new release could (BREAKS).
/* global React, ReactDOM */
import { FakeFirestore, installWebpack, sdkModules } from "/static/firestore.js";

const h = React.createElement;
const ORIGIN = { x: 640, y: 330 }; // where Ccfolia's (0, 0) is on screen
const CELL = 24; // pixels per Ccfolia unit on screen (positions and sizes count squares)
let seq = 0;
const newId = (p) => p + (++seq).toString(36).padStart(6, "0");
const USER = "uidGM0001";
const ROOM = decodeURIComponent(location.pathname.split("/").pop());
const BREAK = new URLSearchParams(location.search).get("break");
const BREAKS = ["room_id", "webpack_chunks", "webpack_require", "firestore_db", "setDoc", "doc", "collection", "deleteDoc", "deleteField", "references"];
if (BREAK && !BREAKS.includes(BREAK)) throw new Error(`unknown hook to break: ${BREAK}`);

// -- the store ----------------------------------------------------------------------------
function upsert(slice, id, patch, replace = false) {
  const old = slice.entities[id];
  return {
    ids: old ? slice.ids : slice.ids.concat([id]),
    entities: Object.assign({}, slice.entities, { [id]: Object.assign({}, replace ? {} : old || {}, patch, { _id: id }) }),
  };
}
function remove(slice, id) {
  if (!slice.entities[id]) return slice;
  const entities = Object.assign({}, slice.entities);
  delete entities[id];
  return { ids: slice.ids.filter((x) => x !== id), entities };
}
function reducer(state, a) {
  const e = state.entities;
  const put = (k, v) => Object.assign({}, state, { entities: Object.assign({}, e, { [k]: v }) });
  switch (a.type) {
    case "roomCharacters/upsert": return put("roomCharacters", upsert(e.roomCharacters, a.id, a.patch));
    case "roomCharacters/set": return put("roomCharacters", upsert(e.roomCharacters, a.id, a.doc, true));
    case "roomCharacters/remove": return put("roomCharacters", remove(e.roomCharacters, a.id));
    case "roomMessages/add": return put("roomMessages", upsert(e.roomMessages, a.id, a.message));
    default: return state;
  }
}
function createStore() {
  let state = {
    app: { state: BREAK === "room_id" ? { uid: USER } : { roomId: ROOM, uid: USER } },
    entities: {
      roomCharacters: { ids: [], entities: {} },
      roomMessages: { ids: [], entities: {} },
    },
  };
  const listeners = new Set();
  return {
    getState: () => state,
    dispatch(a) { state = reducer(state, a); listeners.forEach((l) => l()); return a; },
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    listenerCount: () => listeners.size,
  };
}
const store = createStore();
const rolls = [];
const STATUS = /^:([^+\-=\s]+)([+\-=])(\d+)\s*$/;
const DICE = /^(?:x\d+\s+)?(?:CC|CBR|\d*D\d+)/i;

// -- Firestore and webpack (the data layer) -----------------------------------------------------
const firestore = new FakeFirestore({ latency: 5 });
const charPath = (id) => `rooms/${ROOM}/characters/${id}`;
firestore.onChange((path, doc) => {
  const prefix = `rooms/${ROOM}/characters/`;
  if (!path.startsWith(prefix)) return;
  const id = path.slice(prefix.length);
  store.dispatch(doc ? { type: "roomCharacters/set", id, doc } : { type: "roomCharacters/remove", id });
});
if (BREAK !== "webpack_chunks") {
  const omit = ["firestore_db", "setDoc", "doc", "collection", "deleteDoc", "deleteField"].filter((k) => k === BREAK);
  installWebpack(window, sdkModules(firestore, { omit, brokenReferences: BREAK === "references" }), { callsRuntime: BREAK !== "webpack_require" });
}
function useFirestore() {
  const [, bump] = React.useReducer((n) => n + 1, 0);
  React.useEffect(() => firestore.onChange(() => bump()), []);
  return firestore;
}

function post(text, name, from) {
  const message = { text, name, from, type: "text", extend: {}, createdAt: Date.now() };
  if (DICE.test(text) && rolls.length) message.extend = { roll: { result: rolls.shift(), dices: [] } };
  store.dispatch({ type: "roomMessages/add", id: newId("m"), message });
  const m = STATUS.exec(text);
  if (!m) return;
  const chars = store.getState().entities.roomCharacters.entities;
  const cid = Object.keys(chars).find((k) => chars[k].name === name);
  if (!cid) return;
  const status = chars[cid].status.map((s) => Object.assign({}, s));
  const s = status.find((x) => x.label === m[1]);
  if (!s) return;
  const old = s.value;
  const n = Number(m[3]);
  s.value = m[2] === "=" ? n : m[2] === "+" ? old + n : old - n;
  firestore.put(charPath(cid), { status });
  store.dispatch({ type: "roomMessages/add", id: newId("m"), message: { text: `[ ${name} ] ${m[1]} : ${old} → ${s.value}`, name: "system", type: "system", extend: {} } });
}

// -- React ------------------------------------------------------------------------------------
const StoreContext = React.createContext(null);
function Provider(props) {
  return h(StoreContext.Provider, { value: { store: props.store, subscription: null } }, props.children);
}
function useStore() {
  const s = React.useContext(StoreContext).store;
  return React.useSyncExternalStore(s.subscribe, s.getState);
}
const px = (v) => ORIGIN.x + v * CELL;
const py = (v) => ORIGIN.y + v * CELL;

function Board() {
  const state = useStore();
  const fs = useFirestore();
  const chars = state.entities.roomCharacters;
  const markers = (fs.get(`rooms/${ROOM}`) || {}).markers || {};
  const dicePrefix = `rooms/${ROOM}/dices/`;
  const dice = [...fs.docs].filter(([p]) => p.startsWith(dicePrefix));
  const drag = React.useRef(null);
  React.useEffect(() => {
    function move(ev) {
      const d = drag.current;
      if (!d) return;
      d.x = Math.round(((ev.clientX - d.dx - ORIGIN.x) / CELL) * 100) / 100;
      d.y = Math.round(((ev.clientY - d.dy - ORIGIN.y) / CELL) * 100) / 100;
      store.dispatch({ type: "roomCharacters/upsert", id: d.id, patch: { x: d.x, y: d.y } });
    }
    function up() {
      const d = drag.current;
      drag.current = null;
      if (d && d.x !== undefined) firestore.put(charPath(d.id), { x: d.x, y: d.y }); // the drop is saved
    }
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
    return () => { window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); };
  }, []);
  return h("div", { id: "board" },
    Object.keys(markers).map((k) => h("div", { key: k, className: "marker", "data-marker": k, style: { left: px(markers[k].x), top: py(markers[k].y) } }, markers[k].text)),
    dice.map(([p, d]) => h("div", { key: p, className: "die", "data-die": p.slice(dicePrefix.length), style: { left: px(d.x), top: py(d.y) } }, String(d.value))),
    chars.ids.map((id) => {
      const c = chars.entities[id];
      return h("div", {
        key: id, className: "piece", "data-id": id, title: c.name,
        style: { left: px(c.x), top: py(c.y) },
        onMouseDown: (ev) => {
          ev.preventDefault();
          drag.current = { id, dx: ev.clientX - px(c.x), dy: ev.clientY - py(c.y) };
        },
      }, c.name);
    }));
}

function Chat() {
  const state = useStore();
  const [name, setName] = React.useState("GM");
  const [text, setText] = React.useState("");
  const msgs = state.entities.roomMessages;
  return h("div", { id: "chat" },
    h("div", { id: "log" }, msgs.ids.map((id) => h("div", { key: id, className: "msg" }, `${msgs.entities[id].name}: ${msgs.entities[id].text}`))),
    h("form", {
      onSubmit: (ev) => {
        ev.preventDefault();
        if (!text.trim()) return;
        post(text, name, USER);
        setText("");
      },
    },
    h("input", { name: "name", value: name, onChange: (ev) => setName(ev.target.value) }),
    h("textarea", { name: "text", value: text, rows: 2, onChange: (ev) => setText(ev.target.value) }),
    h("button", { type: "submit" }, "送信")));
}

function App() {
  return h(React.Fragment, null, h(Board), h(Chat));
}

ReactDOM.createRoot(document.getElementById("root")).render(h(Provider, { store }, h(App)));

// -- hooks for the test -------------------------------------------------------------------------
window.__fake = {
  store,
  rolls,
  firestore,
  origin: ORIGIN,
  cell: CELL,
  characters: () => store.getState().entities.roomCharacters.entities,
  messages: () => { const s = store.getState().entities.roomMessages; return s.ids.map((id) => s.entities[id]); },
  markers: () => (firestore.get(`rooms/${ROOM}`) || {}).markers || {},
  dice: () => Object.fromEntries([...firestore.docs].filter(([p]) => p.startsWith(`rooms/${ROOM}/dices/`)).map(([p, d]) => [p.split("/").pop(), d])),
  addCharacter: (data) => { const id = newId("c"); firestore.put(charPath(id), Object.assign({ x: 0, y: 0, status: [], params: [] }, data)); return id; },
  setOwner: (id, uid) => firestore.put(charPath(id), { owner: uid }),
  say: (text, name, from) => post(text, name, from),
};
