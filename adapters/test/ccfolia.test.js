// The Ccfolia bridge against a fake Ccfolia page (fakes/ccfolia.js: Redux store through
// a React root, a React-controlled chat form, an optional data layer) and a REAL
// komasync server process running the tower defense example.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";

import { FakeCcfoliaPage } from "./fakes/ccfolia.js";
import * as page from "../ccfolia/src/page.js";
import { CcfoliaBridge } from "../ccfolia/src/bridge.js";
import { calibrateFromDrops, calibrationAction } from "../foundry/module/scripts/core/calibrate.js";
import { State } from "../foundry/module/scripts/core/client.js";
import { startServer } from "./support/server.js";
import { GM } from "./support/gm.js";
import { waitFor, sleep } from "./support/wait.js";
import { readFileSync } from "node:fs";
import { build, OUT } from "../ccfolia/build.mjs";

const HARD_80 = "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 30 ＞ 30 ＞ ハード成功";
const REGULAR_60 = "(1D100<=60) ボーナス・ペナルティダイス[0] ＞ 41 ＞ 41 ＞ レギュラー成功";

/** komasync's characters on a page: stable id → what players see. */
function board(p) {
  const out = {};
  for (const [id, c] of Object.entries(p.characters())) {
    if (!id.startsWith("ks-")) continue;
    out[id] = { name: c.name, x: c.x, y: c.y, status: c.status, params: c.params };
  }
  return out;
}

describe("page.js (the page-structure module)", () => {
  test("finds the store through the React root and passes its self-test", () => {
    const p = new FakeCcfoliaPage({ dataLayer: true });
    const r = page.findStore(p.window);
    assert.equal(r.store, p.store);
    const t = page.selfTest(p.window);
    assert.equal(t.ok, true);
    assert.deepEqual(t.missing, []);
    assert.equal(t.version, page.PAGE_VERSION);
    assert.equal(t.found.room, "room123");
  });

  test("says what it could not find instead of failing silently", () => {
    const p = new FakeCcfoliaPage({ nameField: false });
    delete p.window.document.getElementById("root")["__reactContainer$x1y2z3"];
    p.textarea.attributes.name = "message";
    const t = page.selfTest(p.window);
    assert.equal(t.ok, false);
    assert.ok(t.missing.some((m) => m.startsWith("A1")), t.missing.join());
    assert.ok(t.missing.some((m) => m.startsWith("A5")));
    assert.ok(t.missing.some((m) => m.startsWith("A6")));
    assert.ok(t.missing.some((m) => m.startsWith("A7")));
  });

  test("the chat box: a plain .value write is lost (React), the native setter + input works", async () => {
    const p = new FakeCcfoliaPage();
    p.textarea.value = "lost";
    p.form.requestSubmit();
    assert.equal(p.messages().length, 0, "React never saw the text");
    await page.sendChat(p.window, "typed by the GM", {}); // (a plain line first)
    page.setField(p.window, p.textarea, "half-typed draft");
    const r = await page.sendChat(p.window, ":個体数=4", { name: "左端砦" });
    assert.equal(p.chatState.text, "half-typed draft", "the user's draft is put back");
    assert.deepEqual(r, { ok: true, how: "form.requestSubmit" });
    assert.deepEqual(p.messages().map((m) => [m.name, m.text]), [["GM", "typed by the GM"], ["左端砦", ":個体数=4"]]);
    assert.equal(p.chatState.name, "GM", "the speaker name is put back");
    const none = new FakeCcfoliaPage({ nameField: false });
    const r2 = await page.sendChat(none.window, ":HP-1", { name: "X" });
    assert.equal(r2.ok, false);
    assert.match(r2.how, /A6/);
    assert.equal(none.messages().length, 0, "never typed as the wrong speaker");
  });

  test("dice output is read from extend.roll", () => {
    assert.equal(page.rollOf({ extend: { roll: { result: "(2D6) ＞ 7" } } }), "(2D6) ＞ 7");
    assert.equal(page.rollOf({ extend: { roll: "(1D6) ＞ 2" } }), "(1D6) ＞ 2");
    assert.equal(page.rollOf({ text: "hi" }), "");
  });
});

describe("the userscript", () => {
  test("komasync-ccfolia.user.js is the bundle of these very modules (run `npm run build`)", () => {
    assert.equal(readFileSync(OUT, "utf8"), build());
  });
  test("it has a userscript header for ccfolia.com rooms and runs in the page's own world", () => {
    const text = readFileSync(OUT, "utf8");
    assert.match(text, /^\/\/ ==UserScript==/);
    assert.match(text, /@match\s+https:\/\/ccfolia\.com\/rooms\/\*/);
    assert.match(text, /@grant\s+none/);
    assert.doesNotMatch(text, /^\s*(import|export)\s/m, "no module syntax left");
  });
});

describe("calibration arithmetic", () => {
  test("pixels: the step is the cell size", () => {
    assert.deepEqual(calibrateFromDrops({ x: 2, y: 4 }, { x: -100, y: -50 }, { x: -76, y: -50 }), {
      origin_x: -148, origin_y: -146, cell_size: 24, units: "px",
    });
  });
  test("squares: a step of one", () => {
    assert.deepEqual(calibrateFromDrops({ x: 2, y: 4 }, { x: -8, y: -3 }, { x: -7, y: -3 }, 24), {
      origin_x: -10, origin_y: -7, cell_size: 24, units: "cell",
    });
  });
  test("a second drop that is not to the right is refused", () => {
    assert.throws(() => calibrateFromDrops({ x: 0, y: 0 }, { x: 0, y: 0 }, { x: 0, y: 24 }), RangeError);
  });
  test("the override keeps the room's other settings", () => {
    const a = calibrationAction("ccfolia", { users: { u: "p1" } }, { origin_x: 1, origin_y: 2, cell_size: 24, units: "px" });
    assert.deepEqual(a.path, ["meta", "platforms", "ccfolia"]);
    assert.deepEqual(a.value, { users: { u: "p1" }, origin_x: 1, origin_y: 2, cell_size: 24, units: "px" });
  });
});

describe("Ccfolia bridge with a real server", () => {
  let server;
  let gm;
  let p; // the GM's Ccfolia tab, where the userscript runs
  let bridge;
  const others = [];

  function open(pg, token, extra = {}) {
    const b = new CcfoliaBridge({
      win: pg.window,
      WebSocket,
      settings: { serverUrl: server.url, room: server.room, token, directWrite: true, gm: true, userName: "GM" },
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
  const chatDone = (b = bridge) => b.chatQueue;

  before(async () => {
    server = await startServer();
    gm = await new GM(server.url, server.room, server.secret).connect();
    p = new FakeCcfoliaPage({ dataLayer: true });
    bridge = open(p, await server.invite("bridge"));
  });

  after(async () => {
    bridge && bridge.stop();
    for (const b of others) b.stop();
    gm && gm.close();
    await server.stop();
  });

  test("joins and draws the room through the data layer; the store is watched", async () => {
    await caughtUp();
    const b = board(p);
    assert.equal(b["ks-pc-pc1"].name, "カルロス・ベガ");
    assert.deepEqual(b["ks-fort-f_left"].status, [{ label: "耐久力", value: 15, max: 15 }]);
    assert.ok(b["ks-board"], "the board character");
    assert.ok(p.store.getState().entities.room.markers["ks-dir-left_end"], "directions are marker panels");
    assert.ok(p.store.getState().entities.roomDices.ids.some((id) => id.startsWith("ks-fort-f_left-die")), "fort dice");
    assert.ok(p.dataWrites.every((n) => n <= 50), "at most 50 writes per batch");
    assert.equal(p.store.listenerCount(), 1);
    await gm.until(() => gm.notices.some((n) => n.kind === "bridge" && /ccfolia-page/.test(n.data.detail) && n.data.lag === 0), "status with the page version");
  });

  test("calibration: one known piece dropped on its square, then one square right", async () => {
    await gm.must({ kind: "override", path: ["meta", "platforms", "ccfolia"], value: { users: { uidP1: "p1", uidP2: "p2", uidGM0001: "gm" } }, reason: "who is who" });
    await caughtUp();
    bridge.calibrateBegin("ks-fort-f_left");
    await p.drag("ks-fort-f_left", [{ x: -120, y: -60 }, { x: -100, y: -50 }]);
    bridge.calibrateMark();
    await p.drag("ks-fort-f_left", [{ x: -76, y: -50 }]);
    const cal = bridge.calibrateMark();
    assert.deepEqual(cal.result, { origin_x: -148, origin_y: -146, cell_size: 24, units: "px" });
    assert.deepEqual(cal.action.value.users, { uidP1: "p1", uidP2: "p2", uidGM0001: "gm" }, "keeps the other settings");
    await gm.must(cal.action);
    bridge.calibrateCancel();
    await caughtUp();
    await sleep(200);
    const b = board(p);
    assert.deepEqual([b["ks-fort-f_left"].x, b["ks-fort-f_left"].y], [-100, -50], "the fort sits where the GM put it");
    assert.deepEqual([b["ks-fort-final"].x, b["ks-fort-final"].y], [-148 + 10 * 24, -146 + 14 * 24]);
    assert.equal(bridge.reported.length, 0, "calibration drags are not moves");
  });

  test("a legal move: a drag at 70 updates/s becomes one event; the room and the page follow", async () => {
    // In Ccfolia the GM gives the PC's character to its player.
    p.store.dispatch({ type: "roomCharacters/upsert", id: "ks-pc-pc1", patch: { owner: "uidP1" } });
    const before = gm.version;
    const start = p.characters()["ks-pc-pc1"];
    const path = [];
    for (let i = 1; i <= 30; i++) {
      path.push({ x: Math.round(start.x + ((-98 - start.x) * i) / 30), y: Math.round(start.y + ((-52 - start.y) * i) / 30) });
    }
    await p.drag("ks-pc-pc1", path);
    await gm.until(() => gm.get(["tower_defense", "pcs", "pc1", "fort"]) === "f_left", "pc1 placed");
    assert.equal(gm.version, before + 1);
    const moves = bridge.reported.filter((e) => e.kind === "move");
    assert.equal(moves.length, 1, "one event for the whole drag");
    assert.deepEqual(moves[0], { kind: "move", id: "ks-pc-pc1", x: -98, y: -52, user: { id: "uidP1", name: "" } });
    await caughtUp();
    const pc = p.characters()["ks-pc-pc1"];
    assert.deepEqual([pc.x, pc.y], [-100 + 6, -50 + 6], "the server stacks the PC on the fort");
    assert.deepEqual(pc.params, [{ label: "砦", value: "左端砦" }]);
    await sleep(300);
    assert.equal(bridge.reported.length, 1, "the bridge's own write is not reported back");
  });

  test("the GM plays to the PC attack phase: groups appear", async () => {
    const start = { pc2: "f_center_left", pc3: "f_center_right", pc4: "m_left", pc5: "final", pc6: "m_right", npc1: "f_right" };
    for (const [pc, fort] of Object.entries(start)) await gm.must({ kind: "td.pc.place", pc, fort });
    for (let i = 0; i < 3; i++) {
      await gm.must({ kind: "td.next_phase", expect: gm.get(["tower_defense", "phase"]) });
      for (const id of Object.keys(gm.state.prompts || {})) await gm.act({ kind: "answer", prompt: id, choice: "done" });
    }
    assert.equal(gm.get(["tower_defense", "phase"]), "pc_attack");
    await caughtUp();
    await chatDone();
    assert.deepEqual(p.characters()["ks-group-r1-left_end"].status, [{ label: "個体数", value: 5, max: 5 }]);
    assert.ok(p.messages().some((m) => m.name === "komasync" && /PC攻撃フェイズ/.test(m.text)), "log lines in chat");
    const boardParams = Object.fromEntries(p.characters()["ks-board"].params.map((x) => [x.label, x.value]));
    assert.equal(boardParams["ラウンド"], "1");
    assert.match(boardParams["フェイズ"], /PC攻撃フェイズ/);
    assert.deepEqual(p.characters()["ks-fort-f_left"].status, [{ label: "耐久力", value: 15, max: 15 }]);
  });

  test("an illegal move is snapped back and the reason is posted", async () => {
    const before = gm.version;
    const home = { ...p.characters()["ks-pc-pc1"] };
    const fin = p.characters()["ks-fort-final"];
    await p.drag("ks-pc-pc1", [{ x: fin.x, y: fin.y }]);
    await waitFor(() => bridge.client.lastRefusal && bridge.client.lastRefusal.rule === "TD-ATK-1", "refusal");
    await waitFor(() => p.characters()["ks-pc-pc1"].x === home.x && p.characters()["ks-pc-pc1"].y === home.y, "snapped back");
    await chatDone();
    const line = p.messages().at(-1);
    assert.equal(line.name, "komasync");
    assert.match(line.text, /カルロス・ベガ.*動かせませんでした.*最終砦/);
    assert.match(line.text, /could not move/);
    assert.equal(gm.version, before);
    assert.match(bridge.info.lastRefusal.reason.ja, /通路/, "the panel shows the last refusal");
  });

  test("a BCDice line in chat becomes the attack result", async () => {
    const count = gm.get(["tower_defense", "groups", "r1-left_end", "count"]);
    p.rolls.push(HARD_80);
    p.say("CC<=80 デザートイーグル", { name: "カルロス・ベガ", from: "uidP1" });
    p.say("いくぞ！", { name: "カルロス・ベガ", from: "uidP1" });
    await gm.until(() => gm.get(["tower_defense", "groups", "r1-left_end", "count"]) === count - 1, "a coyote removed");
    const ev = bridge.reported.filter((e) => e.kind === "chat");
    assert.equal(ev.length, 1, "only the line with dice output");
    assert.deepEqual(ev[0].speaker, { id: "ks-pc-pc1", name: "カルロス・ベガ" });
    assert.equal(ev[0].roll, HARD_80);
    const change = gm.frames.filter((f) => f.type === "change").at(-1);
    assert.equal(change.info.action.kind, "td.attack");
    await caughtUp();
    assert.equal(p.characters()["ks-group-r1-left_end"].status[0].value, count - 1);
  });

  test("without direct write: status bars change through `:LABEL=N` spoken as the character", async () => {
    bridge.setDirectWrite(false);
    await caughtUp();
    const writes = p.dataWrites.length;
    const pc2 = p.characters()["ks-pc-pc2"];
    const ammo = pc2.status.find((s) => /残弾/.test(s.label));
    p.rolls.push(REGULAR_60);
    p.say("CC<=60 グロック17 r1-center_left", { name: "相沢ミナ", from: "uidP2" });
    await gm.until(() => gm.get(["tower_defense", "pcs", "pc2", "weapons", "glock17", "loaded"]) === ammo.value - 1, "a shot fired");
    await caughtUp();
    await chatDone();
    const now = p.characters()["ks-pc-pc2"].status.find((s) => s.label === ammo.label);
    assert.equal(now.value, ammo.value - 1, "the ammo bar followed through the chat box");
    assert.ok(p.messages().some((m) => m.name === "相沢ミナ" && m.text === `:${ammo.label}=${ammo.value - 1}`));
    assert.ok(p.messages().some((m) => m.name === "system" && m.text.includes(`${ammo.value} → ${ammo.value - 1}`)));
    assert.equal(p.dataWrites.length, writes, "nothing written directly");
    assert.ok(bridge.info.skipped.writes > 0, "what needs direct write is counted for the panel");
    assert.ok(bridge.info.skipped.statusCommands > 0, "a group name shared by four characters is never spoken as");
    const resets = bridge.client.resets;
    bridge.setDirectWrite(true);
    await waitFor(() => bridge.client.resets > resets, "re-synced");
    await caughtUp();
    assert.equal(p.characters()["ks-group-r1-center_left"].status[0].value, gm.get(["tower_defense", "groups", "r1-center_left", "count"]), "direct write on: a resync draws everything");
  });

  test("a dropped connection and a server restart lose nothing", async () => {
    bridge.client.ws.terminate();
    await waitFor(() => bridge.client.state !== State.LIVE, "dropped");
    await gm.must({ kind: "td.group.add", name: "はぐれコヨーテ", count: 3, direction: "right_end" });
    const count = gm.get(["tower_defense", "groups", "r1-right_end", "count"]);
    p.rolls.push("(1D100<=60) ボーナス・ペナルティダイス[0] ＞ 45 ＞ 45 ＞ レギュラー成功");
    p.say("CC<=60 消防斧 r1-right_end", { name: "猟師ウォルト", from: "uidGM0001" });
    await gm.until(() => gm.get(["tower_defense", "groups", "r1-right_end", "count"]) === count - 1, "queued roll delivered", 15000);
    await caughtUp();
    gm.close();
    await server.restart(200);
    gm = await new GM(server.url, server.room, server.secret).connect();
    await waitFor(() => bridge.client.connects >= 4, "re-joined after the restart", 15000);
    await caughtUp();
    assert.equal(gm.get(["tower_defense", "groups", "r1-right_end", "count"]), count - 1, "applied once");
    const fresh = new FakeCcfoliaPage({ dataLayer: true });
    const fb = open(fresh, await server.invite("bridge"));
    others.push(fb);
    await waitFor(() => fb.client.applied === gm.version, "a fresh bridge drew the room");
    await sleep(100);
    assert.deepEqual(board(p), board(fresh));
    assert.ok(Object.values(board(p)).some((c) => c.name === "はぐれコヨーテ"));
  });
});
