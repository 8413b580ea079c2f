// The Ccfolia bridge against a fake Ccfolia page (fakes/ccfolia.js + fakes/firestore.js:
// a Redux store through a React root, a React-controlled chat form, and the data layer —
// a webpack chunk registry with a Firestore-like module) and a REAL komasync server
// process running the tower defense example.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";

import { FakeCcfoliaPage, BREAKS } from "./fakes/ccfolia.js";
import { FakeFirestore, installWebpack, sdkModules } from "./fakes/firestore.js";
import * as page from "../ccfolia/src/page.js";
import { CcfoliaBridge, CCF_DICE_LINE } from "../ccfolia/src/bridge.js";
import { defaultServerUrl } from "../ccfolia/src/main.js";
import { calibrateFromDrop, calibrateFromCellSize, calibrationAction } from "../foundry/module/scripts/core/calibrate.js";
import { State } from "../foundry/module/scripts/core/client.js";
import { startServer } from "./support/server.js";
import { GM } from "./support/gm.js";
import { waitFor, sleep } from "./support/wait.js";
import { readFileSync } from "node:fs";
import { build, OUT, SERVED_FROM_LINE } from "../ccfolia/build.mjs";

const cc = (target, value, level) => `(1D100<=${target}) ボーナス・ペナルティダイス[0] ＞ ${value} ＞ ${value} ＞ ${level}`;
const USERS = { uidP1: "p1", uidP2: "p2", uidGM0001: "gm" };

/** komasync's objects on a page, as players see them: characters, marker panels, dice. */
function board(p) {
  const chars = {};
  for (const [id, c] of Object.entries(p.characters())) {
    if (!id.startsWith("ks-")) continue;
    chars[id] = { name: c.name, x: c.x, y: c.y, width: c.width, height: c.height, status: c.status, params: c.params };
  }
  const strip = (o) => Object.fromEntries(Object.entries(o).filter(([k]) => k !== "updatedAt"));
  const markers = Object.fromEntries(Object.entries(p.markers()).map(([k, v]) => [k, strip(v)]));
  const dice = Object.fromEntries(Object.entries(p.dice()).map(([k, v]) => [k, strip(v)]));
  return { chars, markers, dice };
}

/** Hooks that need `id`, directly or through others (page.HOOKS `needs`). */
function dependents(id) {
  const out = new Set();
  let grew = true;
  while (grew) {
    grew = false;
    for (const h of page.HOOKS) {
      if (out.has(h.id)) continue;
      if (h.needs.some((n) => n === id || out.has(n))) {
        out.add(h.id);
        grew = true;
      }
    }
  }
  return out;
}

describe("page.js: the versioned page-assumption module and its self-test", () => {
  test("on a page with every documented hook, every hook is found and named", () => {
    const p = new FakeCcfoliaPage();
    const { report, handles } = page.probe(p.window);
    assert.equal(report.version, page.PAGE_VERSION);
    assert.deepEqual(report.missing, []);
    assert.deepEqual(report.found, page.HOOKS.map((h) => h.id));
    assert.deepEqual(report.can, { observe: true, chat: true, statusCommands: true, dataLayer: true });
    assert.equal(report.roomId, "room123");
    assert.equal(handles.store, p.store);
    assert.equal(handles.firestore.db, p.firestore.db);
    assert.match(report.hooks.setDoc.detail, /^module 4821 export pl$/);
    assert.match(report.hooks.firestore_db.detail, /^module 7310 export db$/);
    assert.equal(report.hooks.references.detail, "rooms/room123/characters");
    assert.equal(p.firestore.writes.length, 0, "the self-test never writes");
    const again = page.probe(p.window);
    assert.equal(again.report.missing.length, 0);
    assert.equal(p.window.webpackChunkccfolia.length, 2, "one probe chunk per page, however often it runs");
  });

  for (const hook of Object.keys(BREAKS)) {
    test(`self-test with '${hook}' missing (${BREAKS[hook]}): it says exactly that, and the bridge falls back`, () => {
      assert.ok(page.HOOKS.some((h) => h.id === hook), "BREAKS covers only page.js hooks");
      const p = new FakeCcfoliaPage({ break: hook });
      const report = page.selfTest(p.window);
      const after = dependents(hook);
      assert.equal(report.hooks[hook].found, false);
      assert.doesNotMatch(report.hooks[hook].detail, /^not checked/, "its own reason, not a knock-on");
      for (const h of page.HOOKS) {
        if (h.id === hook) continue;
        if (after.has(h.id)) assert.match(report.hooks[h.id].detail, /^not checked: needs /, h.id);
        else assert.equal(report.hooks[h.id].found, true, `${h.id} does not need ${hook}: ${report.hooks[h.id].detail}`);
      }
      assert.ok(report.missing[0].startsWith(`${hook}: `) || report.missing.some((m) => m.startsWith(`${hook}: `)));
      for (const [way, need] of Object.entries(page.NEEDS)) {
        const broken = need.includes(hook) || need.some((n) => after.has(n));
        assert.equal(report.can[way], !broken, way);
      }
      // the GM wants the data layer: the bridge says loudly what is missing, in both languages
      const b = new CcfoliaBridge({ win: p.window, settings: { directWrite: true } });
      b.start();
      const dataNeeds = page.NEEDS.dataLayer.includes(hook) || page.NEEDS.dataLayer.some((n) => after.has(n));
      assert.equal(b.directWrite, !dataNeeds);
      if (dataNeeds) {
        assert.ok(b.info.fallback.missing.includes(hook));
        assert.match(b.info.fallback.ja, /データ層が使えません.*チャットコマンドで代わりに動かします/);
        assert.match(b.info.fallback.en, /data layer is unavailable.*Falling back to chat commands/);
        assert.match(b._detail(), new RegExp(`NO DATA LAYER → chat commands \\(missing: [^)]*\\b${hook}\\b`));
      } else {
        assert.equal(b.info.fallback, null);
        assert.match(b._detail(), new RegExp(`page missing: .*\\b${hook}\\b`));
      }
      assert.ok(b._detail().length <= 300);
      b.stop();
    });
  }

  test("re-check: a data layer that loads late is picked up", () => {
    const p = new FakeCcfoliaPage({ break: "webpack_chunks" });
    const b = new CcfoliaBridge({ win: p.window, settings: { directWrite: true } });
    b.start();
    assert.ok(b.info.fallback);
    installWebpack(p.window, sdkModules(p.firestore)); // the app's chunks arrive
    const report = b.recheck();
    assert.deepEqual(report.missing, []);
    assert.equal(b.directWrite, true);
    assert.equal(b.info.fallback, null);
    assert.match(b._detail(), /データ層 ON \/ data layer on/);
    b.stop();
  });

  test("the chat box: a plain .value write is lost (React), the native setter + input works", async () => {
    const p = new FakeCcfoliaPage();
    p.textarea.value = "lost";
    p.form.requestSubmit();
    assert.equal(p.messages().length, 0, "React never saw the text");
    await page.sendChat(p.window, "typed by the GM", {});
    page.setField(p.window, p.textarea, "half-typed draft");
    const r = await page.sendChat(p.window, ":個体数=4", { name: "左端砦" });
    assert.equal(p.chatState.text, "half-typed draft", "the user's draft is put back");
    assert.deepEqual(r, { ok: true, how: "form.requestSubmit" });
    assert.deepEqual(p.messages().map((m) => [m.name, m.text]), [["GM", "typed by the GM"], ["左端砦", ":個体数=4"]]);
    assert.equal(p.chatState.name, "GM", "the speaker name is put back");
    const none = new FakeCcfoliaPage({ break: "speaker_name" });
    const r2 = await page.sendChat(none.window, ":HP-1", { name: "X" });
    assert.equal(r2.ok, false);
    assert.match(r2.how, /speaker_name/);
    assert.equal(none.messages().length, 0, "never typed as the wrong speaker");
  });

  test("dice output is read from extend.roll", () => {
    assert.equal(page.rollOf({ extend: { roll: { result: "(2D6) ＞ 7" } } }), "(2D6) ＞ 7");
    assert.equal(page.rollOf({ extend: { roll: "(1D6) ＞ 2" } }), "(1D6) ＞ 2");
    assert.equal(page.rollOf({ text: "hi" }), "");
  });

  test("two modules exporting Firestore instances: ambiguous, never guessed", () => {
    const fs = new FakeFirestore();
    const win = {};
    const modules = sdkModules(fs);
    const other = { type: "firestore", app: { name: "second" } };
    modules[9999] = function (module, exports, require) {
      require.d(exports, { x: () => other }); // "firebase" is in this source
    };
    installWebpack(win, modules);
    const found = page.findFirestore(page.webpackRequire(win).req);
    assert.equal(found.found.firestore_db, undefined);
    assert.match(found.problems.firestore_db, /^2 exported Firestore instances match \(ambiguous\)$/);
    assert.ok(found.found.setDoc, "the other hooks are unaffected");
  });
});

describe("dice output forwarded from chat (issue 29, the real-BCDice corpus)", () => {
  const CORPUS = JSON.parse(readFileSync(new URL("../../tests/data/bcdice/corpus.json", import.meta.url), "utf-8"));
  const FAR = CORPUS.filter((e) => e.command.startsWith("FAR"));

  /** A bridge (no server) on a fake page, knowing pc1 as カルロス・ベガ. */
  function watching() {
    const p = new FakeCcfoliaPage();
    const b = new CcfoliaBridge({ win: p.window, settings: {} });
    b.start();
    b.known.set("ks-pc-pc1", { type: "character", ref: { kind: "pc", id: "pc1" }, name: "カルロス・ベガ" });
    const sent = []; // every event, not only the last 100 `reported` keeps
    b._report = (ev) => sent.push(ev);
    return { p, b, sent };
  }

  let n = 0;
  /** A message as Ccfolia's dice bot stores it: the typed text, BCDice's output in extend.roll. */
  function post(p, text, roll) {
    const message = { text, name: "カルロス・ベガ", from: "uidP1", type: "text", createdAt: Date.now(),
      extend: roll === undefined ? {} : { roll: { result: roll, dices: [] } } };
    p.store.dispatch({ type: "roomMessages/add", id: `m-dice-${++n}`, message });
  }

  test("a Cthulhu7th FAR burst (no (…D…) header) in extend.roll is forwarded as a chat event", () => {
    assert.ok(FAR.length >= 50);
    const { p, b, sent } = watching();
    for (const e of FAR) post(p, e.command, e.line);
    assert.deepEqual(sent.map((ev) => ev.roll), FAR.map((e) => e.line));
    assert.ok(sent.every((ev) => ev.kind === "chat" && ev.speaker.id === "ks-pc-pc1" && ev.user.id === "uidP1"));
    b.stop();
  });

  test("a FAR burst typed into the text (no extend.roll) is forwarded from its first line on", () => {
    const { p, b, sent } = watching();
    const line = FAR[0].line;
    post(p, `${FAR[0].command}\n${line}`);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].roll, line);
    b.stop();
  });

  test("every other corpus line is still forwarded, and plain talk is not", () => {
    const { p, b, sent } = watching();
    const rolls = CORPUS.filter((e) => !e.command.startsWith("FAR") && CCF_DICE_LINE.test(e.line.replace(/^#\d+\s*/gm, "")));
    assert.ok(rolls.length >= 700);
    for (const e of rolls) post(p, e.command, e.line);
    post(p, "ボーナス・ペナルティダイス[0]の話です\n1回目: の次は？");
    assert.deepEqual(sent.map((ev) => ev.roll), rolls.map((e) => e.line));
    b.stop();
  });
});

describe("page.js: writing through the data layer", () => {
  function writer() {
    const p = new FakeCcfoliaPage();
    const { handles } = page.probe(p.window);
    return { p, dl: page.dataLayer(handles.firestore, handles.roomId, { now: () => 1700000000000 }) };
  }

  test("characters, dice, markers and the room: merge writes with updatedAt; a removed marker is deleteField()", async () => {
    const { p, dl } = writer();
    await dl.write([
      { op: "set", kind: "character", id: "ks-pc-pc1", data: { name: "A", x: 1, y: 2, status: [{ label: "HP", value: 3, max: 3 }] } },
      { op: "set", kind: "dice", id: "ks-fort-f-die1", data: { faces: 6, value: 6, x: 0, y: 0, width: 1, height: 1 } },
      { op: "set", kind: "marker", id: "ks-trap-t1", data: { text: "罠", x: 1, y: 1 } },
      { op: "set", kind: "marker", id: "ks-dir-d", data: { text: "方角", x: 2, y: 2 } },
      { op: "set", kind: "room", data: { fieldWidth: 21, fieldHeight: 15 } },
    ]);
    assert.ok(p.firestore.writes.every((w) => w.options && w.options.merge === true), "every set merges");
    assert.ok(p.firestore.writes.every((w) => w.data.updatedAt === 1700000000000), "updatedAt on every write");
    assert.deepEqual(p.characters()["ks-pc-pc1"].status, [{ label: "HP", value: 3, max: 3 }], "the store followed Firestore");
    await dl.write([
      { op: "set", kind: "character", id: "ks-pc-pc1", data: { status: [{ label: "HP", value: 1, max: 3 }] } },
      { op: "set", kind: "marker", id: "ks-trap-t1", data: { text: "罠（使用済）" } },
      { op: "delete", kind: "marker", id: "ks-dir-d" },
      { op: "delete", kind: "dice", id: "ks-fort-f-die1" },
    ]);
    const c = p.characters()["ks-pc-pc1"];
    assert.deepEqual([c.name, c.x, c.status[0].value], ["A", 1, 1], "merge keeps the other fields; status whole");
    assert.deepEqual(p.markers(), { "ks-trap-t1": { text: "罠（使用済）", x: 1, y: 1 } }, "markers merged key by key");
    assert.deepEqual(p.dice(), {});
    assert.deepEqual([p.roomDoc().fieldWidth, p.roomDoc().fieldHeight], [21, 15]);
    await dl.write([{ op: "delete", kind: "character", id: "ks-pc-pc1" }]);
    assert.equal(p.characters()["ks-pc-pc1"], undefined);
  });

  test(`at most ${page.MAX_WRITES} writes at once (Firestore's own batch limit is 500)`, async () => {
    const { p, dl } = writer();
    const many = Array.from({ length: page.MAX_WRITES + 1 }, (_, i) => ({ op: "set", kind: "character", id: `ks-piece-${i}`, data: { x: i } }));
    await assert.rejects(dl.write(many), RangeError);
    await dl.write(many.slice(0, page.MAX_WRITES));
    assert.equal(p.firestore.maxInFlight, page.MAX_WRITES);
  });
});

describe("the userscript", () => {
  test("komasync-ccfolia.user.js is the bundle of these very modules (run `npm run build`)", () => {
    assert.equal(readFileSync(OUT, "utf8"), build());
  });
  test("its header: version, licence, author, ccfolia.com rooms, the page's own world; the server fills the rest", () => {
    const text = readFileSync(OUT, "utf8");
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    assert.match(text, /^\/\/ ==UserScript==\n/);
    assert.match(text, new RegExp(`^// @version\\s+${pkg.version.replaceAll(".", "\\.")}$`, "m"));
    assert.match(text, /^\/\/ @license\s+MIT$/m);
    assert.match(text, /^\/\/ @author\s+komasync contributors$/m);
    assert.match(text, /^\/\/ @match\s+https:\/\/ccfolia\.com\/rooms\/\*$/m);
    assert.match(text, /^\/\/ @grant\s+none$/m);
    assert.doesNotMatch(text, /@downloadURL|@updateURL/, "only the serving server knows its address");
    assert.equal(text.split(SERVED_FROM_LINE).length, 2, "one line for the server to fill in");
    assert.doesNotMatch(text, /^\s*(import|export)\s/m, "no module syntax left");
    assert.doesNotMatch(text, /__KOMASYNC_DATA_LAYER__/, "no hand-installed data layer any more");
  });
  test("the bridge's default server is the one that served the script", () => {
    assert.equal(defaultServerUrl(null), "");
    assert.equal(defaultServerUrl("https://k.example.org/tables"), "wss://k.example.org/tables/ws");
    assert.equal(defaultServerUrl("http://192.168.1.5:8750/"), "ws://192.168.1.5:8750/ws");
  });
});

describe("calibration arithmetic (one step)", () => {
  test("squares (the default): the drop is the origin plus the square", () => {
    assert.deepEqual(calibrateFromDrop({ x: 2, y: 4 }, { x: -8, y: -3 }), { units: "cell", cell_size: 24, origin_x: -10, origin_y: -7 });
  });
  test("pixels: a typed cell size", () => {
    assert.deepEqual(calibrateFromDrop({ x: 2, y: 4 }, { x: -100, y: -50 }, 24), { units: "px", cell_size: 24, origin_x: -148, origin_y: -146 });
    assert.deepEqual(calibrateFromCellSize(48), { units: "px", cell_size: 48 });
    assert.deepEqual(calibrateFromCellSize(1), { units: "cell", cell_size: 24 });
  });
  test("a cell size that is not a positive number is refused", () => {
    for (const bad of [0, -3, "x", NaN, Infinity]) assert.throws(() => calibrateFromCellSize(bad), RangeError);
  });
  test("the override keeps the room's other settings", () => {
    const a = calibrationAction("ccfolia", { users: { u: "p1" } }, { origin_x: 1, origin_y: 2, cell_size: 24, units: "px" });
    assert.deepEqual(a.path, ["meta", "platforms", "ccfolia"]);
    assert.deepEqual(a.value, { users: { u: "p1" }, origin_x: 1, origin_y: 2, cell_size: 24, units: "px" });
  });
});

describe("a full tower-defense round through the data layer (real server)", () => {
  let server;
  let gm;
  let p; // the GM's Ccfolia tab, where the userscript runs
  let bridge;
  const others = [];
  let origin = null;

  function open(pg, token, extra = {}) {
    const b = new CcfoliaBridge({
      win: pg.window,
      WebSocket,
      settings: { serverUrl: server.url, room: server.room, token, directWrite: true, gm: true, userName: "GM", userId: "uidGM0001" },
      settleMs: 300,
      chatPaceMs: 5,
      clientOptions: { backoff: { base: 50, max: 500 } },
      ...extra,
    });
    b.start();
    return b;
  }

  const caughtUp = (b = bridge) =>
    waitFor(() => b.client.state === State.LIVE && b.client.applied === gm.version && b.client.pending.size === 0 && b.settler.size === 0, "bridge caught up");
  const td = (...path) => path.reduce((o, k) => (o === undefined || o === null ? o : o[k]), gm.state.tower_defense);
  /** The square a position on the page covers (the calibrated origin, squares). */
  const squareOf = (c) => ({ x: Math.floor(c.x - origin.x), y: Math.floor(c.y - origin.y) });
  const typedStatusCommands = () => p.messages().filter((m) => /^:/.test(m.text));
  const writesTo = (id) => p.firestore.writes.filter((w) => w.path.endsWith(`/${id}`) || (w.data && w.data.markers && id in w.data.markers));
  const placeAll = async (forts) => {
    for (const [pc, fort] of Object.entries(forts)) await gm.must({ kind: "td.pc.place", pc, fort });
  };
  const nextPhase = async () => {
    await gm.must({ kind: "td.next_phase", expect: td("phase") });
    for (const id of Object.keys(gm.state.prompts || {})) await gm.act({ kind: "answer", prompt: id, choice: "done" });
  };
  /** The page shows what a brand-new bridge draws from the room: nothing stale, nothing missing. */
  async function matchesAFreshBridge() {
    const fresh = new FakeCcfoliaPage();
    const fb = open(fresh, await server.invite("bridge"));
    others.push(fb);
    await waitFor(() => fb.client.state === State.LIVE && fb.client.applied === gm.version && fresh.firestore.inFlight === 0, "a fresh bridge drew the room");
    await sleep(30);
    assert.deepEqual(board(p), board(fresh));
    fb.stop();
  }

  before(async () => {
    server = await startServer();
    gm = await new GM(server.url, server.room, server.secret).connect();
    p = new FakeCcfoliaPage();
    bridge = open(p, await server.invite("bridge"));
  });

  after(async () => {
    bridge && bridge.stop();
    for (const b of others) b.stop();
    gm && gm.close();
    await server.stop();
  });

  test("joins and draws the whole room through the data layer; the GM console gets the self-test", async () => {
    await caughtUp();
    const b = board(p);
    assert.equal(b.chars["ks-pc-pc1"].name, "カルロス・ベガ");
    assert.deepEqual(b.chars["ks-fort-f_left"].status, [{ label: "耐久力", value: 15, max: 15 }]);
    assert.ok(b.chars["ks-board"], "the board character");
    assert.ok(b.markers["ks-dir-left_end"], "directions are marker panels in the room document");
    assert.deepEqual(Object.keys(b.dice).filter((id) => id.startsWith("ks-fort-f_left-die")).sort(), ["ks-fort-f_left-die1", "ks-fort-f_left-die2", "ks-fort-f_left-die3"]);
    assert.equal(p.roomDoc().fieldWidth, 21);
    assert.ok(p.firestore.maxInFlight <= page.MAX_WRITES);
    assert.equal(typedStatusCommands().length, 0, "nothing needed the chat box");
    assert.equal(p.store.listenerCount(), 1);
    assert.equal(bridge.info.calibrated, false);
    await gm.until(() => gm.notices.some((n) => n.kind === "bridge" && /ccfolia-page\/2026\.1 \| データ層 ON \/ data layer on \| 未キャリブレーション/.test(n.data.detail)), "status with the self-test");
  });

  test("the GM console is told the characters, the users seen and the page check (issue 30)", async () => {
    const fort = p.characters()["ks-fort-f_left"];
    const told = () => gm.notices.filter((n) => n.kind === "bridge" && n.data.tokens).at(-1);
    await gm.until(() => told() && told().data.tokens.some((t) => t.id === "ks-fort-f_left" && t.left === fort.x && t.top === fort.y), "characters reported");
    const data = told().data;
    assert.equal(data.tokens.find((t) => t.id === "ks-fort-f_left").name, fort.name);
    assert.ok(data.users.some((u) => u.id === "uidGM0001" && u.name === "GM" && u.gm), "the bridge's own user");
    assert.deepEqual(data.page, { version: page.PAGE_VERSION, can: { observe: true, chat: true, statusCommands: true, dataLayer: true }, missing: [], data_layer: "on" });
  });

  test("calibration, one step: a fort dropped on its square; the GM applies it and everything moves", async () => {
    await gm.must({ kind: "override", path: ["meta", "platforms", "ccfolia"], value: { users: USERS }, reason: "who is who" });
    await caughtUp();
    const fort = p.characters()["ks-fort-f_left"];
    const cell = td("forts", "f_left", "cell");
    bridge.calibrateBegin("ks-fort-f_left", 1);
    await p.drag("ks-fort-f_left", [{ x: fort.x + 0.4, y: fort.y + 1.2 }, { x: fort.x + 1, y: fort.y + 2 }]);
    const cal = bridge.calibrateMark();
    origin = { x: fort.x + 1 - cell.x, y: fort.y + 2 - cell.y };
    assert.deepEqual(cal.result, { units: "cell", cell_size: 24, origin_x: origin.x, origin_y: origin.y });
    assert.deepEqual(cal.action.value.users, USERS, "keeps the other settings");
    await gm.must(cal.action);
    bridge.calibrateCancel();
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    const fin = p.characters()["ks-fort-final"];
    const finCell = td("forts", "final", "cell");
    assert.deepEqual([fin.x, fin.y], [origin.x + finCell.x, origin.y + finCell.y], "every piece moved by the data layer");
    assert.deepEqual(squareOf(p.characters()["ks-fort-f_left"]), cell);
    assert.equal(bridge.reported.length, 0, "calibration drags are not moves");
    assert.equal(bridge.info.calibrated, true);
  });

  test("setup: a player's drag arrives as their action (TD-PRE-1); a 70-updates/s drag is one event", async () => {
    p.setCharacter("ks-pc-pc1", { owner: "uidP1" }); // in Ccfolia the GM gives the PC to its player
    const before = gm.version;
    const start = p.characters()["ks-pc-pc1"];
    const fort = p.characters()["ks-fort-f_left"];
    const path = [];
    for (let i = 1; i <= 30; i++) path.push({ x: start.x + ((fort.x + 0.1 - start.x) * i) / 30, y: start.y + ((fort.y - start.y) * i) / 30 });
    await p.drag("ks-pc-pc1", path);
    await gm.until(() => td("pcs", "pc1", "fort") === "f_left", "pc1 placed");
    assert.equal(gm.version, before + 1);
    const change = gm.frames.filter((f) => f.type === "change").at(-1);
    assert.deepEqual(change.info.action, { kind: "td.pc.place", pc: "pc1", fort: "f_left", by: "p1" });
    const moves = bridge.reported.filter((e) => e.kind === "move");
    assert.equal(moves.length, 1, "one event for the whole drag");
    assert.deepEqual(moves[0].user, { id: "uidP1", name: "" });
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    assert.deepEqual(squareOf(p.characters()["ks-pc-pc1"]), td("forts", "f_left", "cell"), "stacked on the fort by the server");
    await sleep(350);
    assert.equal(bridge.reported.length, 1, "the bridge's own write is not reported back");
  });

  test("a trap is set: its marker panel appears in the room document (TD-PRE-1)", async () => {
    await placeAll({ pc2: "f_center_left", pc3: "f_center_right", pc4: "f_right", pc5: "m_left", pc6: "m_right", npc1: "final" });
    const writes = p.firestore.writes.length;
    await gm.must({ kind: "td.trap.set", pc: "pc1", passage: "in_left", trap: "explosive", check: false });
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    const [id] = Object.keys(td("traps"));
    const marker = p.markers()[`ks-trap-${id}`];
    assert.match(marker.text, /^爆破トラップ/);
    assert.ok(p.firestore.writes.length > writes && writesTo(`ks-trap-${id}`).length === 1);
    const square = td("traps", id, "cell") || td("passages", "in_left", "cells").at(-1);
    assert.ok(square, "the trap has a square");
  });

  test("reinforcement and advance: every group appears and advances by itself; the trap fires", async () => {
    await nextPhase(); // reinforcement: groups at their directions (TD-REIN-1)
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    const groups = Object.keys(td("groups"));
    assert.equal(groups.length, 4);
    const waiting = {};
    for (const g of groups) {
      const c = p.characters()[`ks-group-${g}`];
      assert.deepEqual(c.status, [{ label: "個体数", value: td("groups", g, "count"), max: td("groups", g, "count") }]);
      waiting[g] = { x: c.x, y: c.y };
    }
    await nextPhase(); // advance (TD-ADV-1): each group walks to its fort; the trap fires
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    for (const g of groups) {
      const c = p.characters()[`ks-group-${g}`];
      const fort = td("groups", g, "fort");
      assert.ok(fort, `${g} reached a fort`);
      assert.notDeepEqual({ x: c.x, y: c.y }, waiting[g], `${g} moved on the board`);
      assert.deepEqual(squareOf(c), td("forts", fort, "cell"), `${g} stands on ${fort}'s square`);
      assert.equal(c.status[0].value, td("groups", g, "count"), `${g}'s 個体数`);
      assert.ok(writesTo(`ks-group-${g}`).length >= 2, `${g} was written, not dragged`);
    }
    const [trap] = Object.keys(td("traps"));
    assert.match(p.markers()[`ks-trap-${trap}`].text, /使用済/, "the spent trap's panel says so");
    assert.equal(typedStatusCommands().length, 0, "no status command typed: the data layer did it");
    await matchesAFreshBridge();
  });

  test("PC attack: a pasted BCDice roll kills a group; a player's legal drag moves; an illegal one snaps back, told only to that player", async () => {
    await nextPhase();
    assert.equal(td("phase"), "pc_attack");
    await caughtUp();
    // p1 drags pc1 to the final fort (not adjacent, TD-ATK-1): snapped back, told to p1 only
    const version = gm.version;
    const home = { ...p.characters()["ks-pc-pc1"] };
    const fin = p.characters()["ks-fort-final"];
    const publicBefore = p.messages().length;
    await p.drag("ks-pc-pc1", [{ x: fin.x, y: fin.y }]);
    await waitFor(() => bridge.client.lastRefusal && bridge.client.lastRefusal.rule === "TD-ATK-1", "refusal");
    await waitFor(() => p.characters()["ks-pc-pc1"].x === home.x && p.characters()["ks-pc-pc1"].y === home.y, "snapped back");
    await waitFor(() => bridge.info.privateLines.length > 0, "a private line");
    await bridge.chatQueue;
    const line = bridge.info.privateLines.at(-1);
    assert.equal(line.to, "uidP1");
    assert.equal(line.toName, "プレイヤー1", "named as komasync knows the player");
    assert.equal(line.kind, "refusal");
    assert.match(line.ja, /「カルロス・ベガ」は動かせませんでした: .*通路/);
    assert.match(line.en, /could not move/);
    const said = p.messages().slice(publicBefore);
    assert.ok(!said.some((m) => /動かせませんでした|could not move/.test(m.text)), "never in the public chat");
    assert.equal(gm.version, version, "nothing changed in the room");
    // a roll in chat (Ccfolia's own dice output in extend.roll) → td.attack by p1
    const rolls = [cc(80, 52, "レギュラー成功"), cc(80, 90, "失敗"), cc(80, 1, "クリティカル")];
    p.rolls.push(rolls.map((r, i) => `#${i + 1}\n${r}`).join("\n"));
    p.say("x3 CC<=80 デザートイーグル r1-left_end", { name: "カルロス・ベガ", from: "uidP1" });
    await gm.until(() => !td("groups", "r1-left_end"), "the group destroyed");
    await caughtUp();
    await waitFor(() => !p.characters()["ks-group-r1-left_end"], "removed from the board");
    assert.ok(p.firestore.writes.some((w) => w.op === "delete" && w.path.endsWith("/ks-group-r1-left_end")));
    // p2 drags their PC to the adjacent fort: their action
    p.setCharacter("ks-pc-pc2", { owner: "uidP2" });
    const fLeft = p.characters()["ks-fort-f_left"];
    await p.drag("ks-pc-pc2", [{ x: fLeft.x + 0.2, y: fLeft.y + 0.1 }]);
    await gm.until(() => td("pcs", "pc2", "fort") === "f_left", "pc2 moved");
    assert.equal(gm.frames.filter((f) => f.type === "change").at(-1).info.action.by, "p2");
    await caughtUp();
  });

  test("enemy attack: fort 耐久力 and its dice symbols follow through the data layer", async () => {
    const before = Object.fromEntries(Object.entries(td("forts")).map(([k, f]) => [k, f.durability]));
    await nextPhase();
    assert.equal(td("phase"), "enemy_attack");
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    const hit = Object.keys(before).filter((k) => td("forts", k, "durability") !== before[k]);
    assert.ok(hit.length >= 1, "some fort took damage");
    for (const f of Object.keys(before)) {
      const d = td("forts", f, "durability");
      assert.equal(p.characters()[`ks-fort-${f}`].status[0].value, d, `${f} 耐久力 bar`);
      const dice = Object.entries(p.dice()).filter(([id]) => id.startsWith(`ks-fort-${f}-die`));
      assert.equal(dice.reduce((n, [, die]) => n + die.value, 0), d, `${f}: the dice show ${d}`);
      assert.ok(dice.every(([, die]) => die.value >= 1 && die.value <= die.faces));
    }
    for (const f of hit) assert.ok(writesTo(`ks-fort-${f}`).length >= 2, `${f} written`);
    assert.equal(typedStatusCommands().length, 0, "still no status command typed");
    await matchesAFreshBridge();
  });

  test("a dropped connection and a server restart lose nothing", async () => {
    bridge.client.ws.terminate();
    await waitFor(() => bridge.client.state !== State.LIVE, "dropped");
    await gm.must({ kind: "td.group.add", name: "はぐれコヨーテ", count: 3, direction: "right_end" });
    await caughtUp();
    gm.close();
    await server.restart(200);
    gm = await new GM(server.url, server.room, server.secret).connect();
    await waitFor(() => bridge.client.connects >= 3, "re-joined after the restart", 15000);
    await caughtUp();
    await waitFor(() => p.firestore.inFlight === 0, "writes done");
    assert.ok(Object.values(board(p).chars).some((c) => c.name === "はぐれコヨーテ"));
    await matchesAFreshBridge();
  });
});

describe("the fallback: a missing hook, and the chat-command path still works (real server)", () => {
  let server;
  let gm;
  let token;
  let durability = 30;
  const FORT = "m_left";

  before(async () => {
    server = await startServer();
    gm = await new GM(server.url, server.room, server.secret).connect();
    token = await server.invite("bridge");
  });

  after(async () => {
    gm && gm.close();
    await server.stop();
  });

  // What still works when `hook` is missing: "chat" (status commands typed as the
  // character), "data" (the data layer still draws), "lines" (only log lines are typed),
  // "nothing" (no chat box: chat lines fail and are listed).
  const EXPECT = {
    react_root: "lines", store: "lines", characters: "lines", messages: "data", chat_box: "nothing",
    speaker_name: "data", room_id: "chat", webpack_chunks: "chat", webpack_require: "chat", firestore_db: "chat",
    setDoc: "chat", doc: "chat", collection: "chat", deleteDoc: "chat", deleteField: "chat", references: "chat",
  };

  test("every hook has an expectation", () => {
    assert.deepEqual(Object.keys(EXPECT).sort(), page.HOOKS.map((h) => h.id).sort());
  });

  for (const [hook, works] of Object.entries(EXPECT)) {
    test(`'${hook}' missing → ${works}`, async () => {
      const p = new FakeCcfoliaPage({ break: hook });
      const fortName = gm.state.tower_defense.forts[FORT].name;
      // The GM pasted the fort's clipboard JSON: the character exists without the data layer.
      p.addCharacter({ name: fortName, status: [{ label: "耐久力", value: durability, max: 30 }] });
      const b = new CcfoliaBridge({
        win: p.window, WebSocket,
        settings: { serverUrl: server.url, room: server.room, token, directWrite: true, gm: true, userName: "GM" },
        chatPaceMs: 5, clientOptions: { backoff: { base: 50, max: 500 } },
      });
      b.start();
      try {
        await waitFor(() => b.client.state === State.LIVE && b.client.applied === gm.version, "joined");
        await b.chatQueue;
        durability -= 1;
        const logLines = () => p.messages().filter((m) => m.name !== "system" && !m.text.startsWith(":")).length;
        const logsBefore = logLines();
        await gm.must({ kind: "override", path: ["tower_defense", "forts", FORT, "durability"], value: durability, reason: `fallback ${hook}` });
        // a public step (TD-PRE-1 placing a PC) brings a log line for the chat box
        await gm.must({ kind: "td.pc.place", pc: "pc5", fort: durability % 2 ? "m_left" : "m_right" });
        await waitFor(() => b.client.applied === gm.version, "applied");
        await b.chatQueue;
        const bar = () => Object.values(p.characters()).find((c) => c.name === fortName).status[0].value;
        const dl = page.NEEDS.dataLayer.includes(hook) || page.NEEDS.dataLayer.some((n) => dependents(hook).has(n));
        assert.equal(Boolean(b.info.fallback), dl, "the loud fallback banner exactly when the data layer is out");
        const told = (n) => n.kind === "bridge" && n.data.page && n.data.page.missing.includes(hook) && n.data.page.data_layer === (dl ? "fallback" : "on");
        await gm.until(() => gm.notices.some(told), "the GM console is told the page check (issue 30)");
        if (works === "chat") {
          assert.equal(bar(), durability, "the 耐久力 bar followed through `:耐久力=N`");
          assert.ok(p.messages().some((m) => m.name === fortName && m.text === `:耐久力=${durability}`));
          assert.equal(p.firestore.writes.length, 0, "nothing written directly");
          assert.ok(b.info.skipped.writes > 0, "what needs the data layer is counted for the panel");
        } else if (works === "data") {
          await waitFor(() => p.firestore.inFlight === 0 && p.characters()[`ks-fort-${FORT}`], "drawn");
          assert.equal(p.characters()[`ks-fort-${FORT}`].status[0].value, durability, "the data layer wrote the bar");
          assert.ok(!p.messages().some((m) => /^:/.test(m.text)), "no status command typed");
        } else if (works === "lines") {
          assert.equal(bar(), durability + 1, "the bar cannot follow: the page's characters cannot be read");
          assert.equal(p.firestore.writes.length, 0);
          assert.ok(b.info.skipped.writes > 0);
        } else {
          assert.ok(b.info.chatErrors.length > 0 && /chat_box/.test(b.info.chatErrors.at(-1).how), "the failure is listed");
        }
        if (works !== "nothing") {
          assert.ok(logLines() > logsBefore, "the log line of the change was typed");
        }
      } finally {
        b.stop();
      }
    });
  }
});
