// A fake Ccfolia room page for the headless-chromium bridge test: real React 18
// (createRoot), a Redux-style store handed down by a Provider component (so it sits in
// the fiber tree as `memoizedProps.store` and in a context value), a board whose pieces
// are dragged with the mouse (every mousemove updates the store, as on Ccfolia), and a
// chat form with React-controlled `input[name=name]` and `textarea[name=text]`.
// "Ccfolia's server" answers `:LABEL±N`/`:LABEL=N` status commands and gives dice
// commands the next scripted BCDice line (`window.__fake.rolls`). Direct write goes
// through `window.__KOMASYNC_DATA_LAYER__` (page.js A7) after a short latency.
/* global React, ReactDOM */
(function () {
  "use strict";
  const h = React.createElement;
  const ORIGIN = { x: 640, y: 330 }; // where Ccfolia's (0, 0) is on screen
  let seq = 0;
  const newId = (p) => p + (++seq).toString(36).padStart(6, "0");
  const USER = "uidGM0001";

  // -- the store ----------------------------------------------------------------------------
  function upsert(slice, id, patch) {
    const old = slice.entities[id];
    return {
      ids: old ? slice.ids : slice.ids.concat([id]),
      entities: Object.assign({}, slice.entities, { [id]: Object.assign({}, old || {}, patch, { _id: id }) }),
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
      case "roomCharacters/remove": return put("roomCharacters", remove(e.roomCharacters, a.id));
      case "roomMessages/add": return put("roomMessages", upsert(e.roomMessages, a.id, a.message));
      case "roomDices/upsert": return put("roomDices", upsert(e.roomDices, a.id, a.patch));
      case "roomDices/remove": return put("roomDices", remove(e.roomDices, a.id));
      case "room/update": {
        const room = Object.assign({}, e.room, a.patch || {});
        if (a.markers) {
          room.markers = Object.assign({}, e.room.markers || {});
          for (const k of Object.keys(a.markers)) {
            if (a.markers[k] === null) delete room.markers[k];
            else room.markers[k] = Object.assign({}, room.markers[k] || {}, a.markers[k]);
          }
        }
        return put("room", room);
      }
      default: return state;
    }
  }
  function createStore() {
    let state = {
      app: { roomId: location.pathname.split("/").pop(), uid: USER },
      entities: {
        room: { fieldWidth: 0, fieldHeight: 0, markers: {} },
        roomCharacters: { ids: [], entities: {} },
        roomMessages: { ids: [], entities: {} },
        roomDices: { ids: [], entities: {} },
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
    store.dispatch({ type: "roomCharacters/upsert", id: cid, patch: { status } });
    store.dispatch({ type: "roomMessages/add", id: newId("m"), message: { text: `[ ${name} ] ${m[1]} : ${old} → ${s.value}`, name: "system", type: "system", extend: {} } });
  }

  // -- the data layer (direct write) ------------------------------------------------------------
  const writes = [];
  window.__KOMASYNC_DATA_LAYER__ = {
    write(list) {
      if (list.length > 50) return Promise.reject(new Error("more than 50 writes"));
      writes.push(list.length);
      return new Promise((resolve) => setTimeout(() => {
        for (const w of list) {
          if (w.kind === "character") store.dispatch(w.op === "delete" ? { type: "roomCharacters/remove", id: w.id } : { type: "roomCharacters/upsert", id: w.id, patch: w.data });
          else if (w.kind === "dice") store.dispatch(w.op === "delete" ? { type: "roomDices/remove", id: w.id } : { type: "roomDices/upsert", id: w.id, patch: w.data });
          else if (w.kind === "marker") store.dispatch({ type: "room/update", markers: { [w.id]: w.op === "delete" ? null : w.data } });
          else if (w.kind === "room") store.dispatch({ type: "room/update", patch: w.data });
        }
        resolve();
      }, 5));
    },
  };

  // -- React ------------------------------------------------------------------------------------
  const StoreContext = React.createContext(null);
  function Provider(props) {
    return h(StoreContext.Provider, { value: { store: props.store, subscription: null } }, props.children);
  }
  function useStore() {
    const s = React.useContext(StoreContext).store;
    return React.useSyncExternalStore(s.subscribe, s.getState);
  }

  function Board() {
    const state = useStore();
    const chars = state.entities.roomCharacters;
    const markers = state.entities.room.markers || {};
    const drag = React.useRef(null);
    React.useEffect(() => {
      function move(ev) {
        const d = drag.current;
        if (!d) return;
        const x = Math.round(ev.clientX - d.dx - ORIGIN.x);
        const y = Math.round(ev.clientY - d.dy - ORIGIN.y);
        store.dispatch({ type: "roomCharacters/upsert", id: d.id, patch: { x, y } });
      }
      function up() { drag.current = null; }
      window.addEventListener("mousemove", move);
      window.addEventListener("mouseup", up);
      return () => { window.removeEventListener("mousemove", move); window.removeEventListener("mouseup", up); };
    }, []);
    return h("div", { id: "board" },
      Object.keys(markers).map((k) => h("div", { key: k, className: "marker", style: { left: ORIGIN.x + markers[k].x, top: ORIGIN.y + markers[k].y } }, markers[k].text)),
      chars.ids.map((id) => {
        const c = chars.entities[id];
        return h("div", {
          key: id, className: "piece", "data-id": id, title: c.name,
          style: { left: ORIGIN.x + c.x, top: ORIGIN.y + c.y },
          onMouseDown: (ev) => {
            ev.preventDefault();
            drag.current = { id, dx: ev.clientX - (ORIGIN.x + c.x), dy: ev.clientY - (ORIGIN.y + c.y) };
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
    writes,
    origin: ORIGIN,
    characters: () => store.getState().entities.roomCharacters.entities,
    messages: () => { const s = store.getState().entities.roomMessages; return s.ids.map((id) => s.entities[id]); },
    setOwner: (id, uid) => store.dispatch({ type: "roomCharacters/upsert", id, patch: { owner: uid } }),
    say: (text, name, from) => post(text, name, from),
  };
})();
