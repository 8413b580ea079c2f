// Engagement (seed 004, ENG-*) on BOTH tables at once, against a REAL komasync server
// playing examples/engagement.yaml: the GM and アリス on their own WebSockets, a Foundry
// world (fakes/foundry.js, the real module) and a Ccfolia page (fakes/ccfolia.js, the real
// userscript modules). Each engaged pair is a line drawing on Foundry and a marker panel
// on Ccfolia: it appears when a cover forms the pair, the damage of a melee is rolled in
// the Ccfolia chat, a handover leave removes its line, the end of the next setup removes
// every line (ENG-IN-1, ENG-COVER, ENG-ACT-2, ENG-HAND-1, ENG-EF-3).

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

import { FoundryWorld, loadLang } from "./fakes/foundry.js";
import { FakeCcfoliaPage } from "./fakes/ccfolia.js";
import { FoundryBridge, registerSettings } from "../foundry/module/scripts/foundry/bridge.js";
import { indexScene } from "../foundry/module/scripts/foundry/apply.js";
import { CcfoliaBridge } from "../ccfolia/src/bridge.js";
import { State } from "../foundry/module/scripts/core/client.js";
import { startServer, EXAMPLES } from "./support/server.js";
import { GM, Player } from "./support/gm.js";
import { waitFor } from "./support/wait.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULE = path.resolve(HERE, "../foundry/module");
const EN = loadLang(path.join(MODULE, "lang/en.json"));
const SCENE = "sceneSteps000001";
const CELL = 100;
/** Stable ids of the engaged pairs' objects (adapters' object_id: `|` is not id-safe). */
const AYA_FOX = "ks-eng-aya_fox-";
const FOX_GOU = "ks-eng-fox_gou-";

const sum = (faces) => faces.reduce((a, b) => a + b, 0);
const dice = (...faces) => `(${faces.length}D6) ＞ ${sum(faces)}[${faces.join(",")}] ＞ ${sum(faces)}`;

describe("engagement lines on Foundry and Ccfolia with a real server", () => {
  let server;
  let gm;
  let alice;
  let world;
  let gmc;
  let fbridge;
  let page;
  let cbridge;
  const bridges = [];

  const caughtUp = () => waitFor(() => fbridge.client && fbridge.client.state === State.LIVE
    && fbridge.client.applied === gm.version && !fbridge.client.pending.size
    && cbridge.client && cbridge.client.applied === gm.version && !cbridge.client.pending.size
    && cbridge.settler.size === 0, "both bridges caught up");
  const drawings = () => [...indexScene(gmc.game.scenes.get(SCENE)).entries()]
    .filter(([, v]) => v.doc.documentName === "Drawing" || v.doc._source?.shape)
    .map(([id, v]) => [id, v.doc._source]);
  const lines = () => drawings().filter(([id]) => id.startsWith("ks-eng-")).map(([id]) => id).sort();
  const markers = () => Object.keys(page.markers() || {})
    .filter((id) => id.startsWith("ks-eng-")).sort();
  const both = async (...prefixes) => {
    await caughtUp();
    for (const [name, ids] of [["Foundry", lines()], ["Ccfolia", markers()]]) {
      assert.equal(ids.length, prefixes.length, `${name}: ${ids}`);
      prefixes.forEach((p) => assert.ok(ids.some((id) => id.startsWith(p)), `${name} shows ${p}`));
    }
  };

  async function must(who, action) {
    const a = await who.act(action);
    assert.equal(a.type, "ack", `${action.kind}: ${JSON.stringify(a)}`);
    await gm.until(() => gm.version >= a.version, "GM follows");
    return a;
  }

  before(async () => {
    server = await startServer({ scenario: path.join(EXAMPLES, "engagement.yaml"), room: "steps" });
    gm = await new GM(server.url, server.room, server.secret).connect();
    await gm.must({ kind: "override", path: ["meta", "platforms", "foundry"], reason: "the scene's grid",
                    value: { cell_size: CELL, origin_x: 0, origin_y: 0, units: "px" } });
    await gm.must({ kind: "override", path: ["meta", "platforms", "ccfolia"], reason: "who is who",
                    value: { users: { uidAlice: "alice", uidBob: "bob", uidGM0001: "gm" } } });
    await gm.must({ kind: "room.player_rolls", mode: "allow" }); // アリス types some results
    alice = await new Player(server.url, server.room, await gm.invite("player", { player: "alice" })).connect();

    world = new FoundryWorld({ generation: 13, WebSocket });
    world.addUser({ id: "gmUser00000000001", name: "GM", isGM: true });
    world.addScene({ id: SCENE, name: "石段", width: 1200, height: 600, padding: 0, gridSize: CELL });
    gmc = world.client("gmUser00000000001", EN);
    const gmEnv = { ...gmc.globals, WebSocket };
    registerSettings(gmEnv);
    await gmc.game.settings.set("komasync", "serverUrl", server.url.replace("/ws", ""));
    await gmc.game.settings.set("komasync", "room", server.room);
    await gmc.game.settings.set("komasync", "token", await server.invite("bridge"));
    fbridge = new FoundryBridge(gmEnv, { settleMs: 150, backoff: { base: 50, max: 500 } });
    bridges.push(fbridge);
    fbridge.ready();

    page = new FakeCcfoliaPage();
    cbridge = new CcfoliaBridge({
      win: page.window, WebSocket,
      settings: { serverUrl: server.url, room: server.room, token: await server.invite("bridge"),
                  directWrite: true, gm: true, userName: "GM" },
      settleMs: 300, chatPaceMs: 5, clientOptions: { backoff: { base: 50, max: 500 } },
    });
    bridges.push(cbridge);
    cbridge.start();
    await caughtUp();
  });

  after(async () => {
    for (const b of bridges) b.stop();
    for (const c of [gm, alice]) c && c.close();
    await server.stop();
  });

  test("both tables draw the characters; nobody is engaged yet", async () => {
    for (const id of ["aya", "mio", "gou", "oni", "fox", "ghost"]) {
      assert.ok(indexScene(gmc.game.scenes.get(SCENE)).get(`ks-piece-${id}`), `Foundry token ${id}`);
      assert.ok(page.characters()[`ks-piece-${id}`], `Ccfolia character ${id}`);
    }
    await must(gm, { kind: "engagement.start" });
    await must(gm, { kind: "engagement.phase" });
    await both();
    const board = drawings().find(([id]) => id === "ks-board")[1].text;
    assert.match(board, /ターン1 イニシアチブ／メインフェイズ/);
  });

  test("ENG-COVER: the fox covers the oni against アヤ's approach; the line appears on both", async () => {
    await must(alice, { kind: "engagement.approach", combatant: "aya", target: "oni", dp: 4, result: dice(6, 6, 6, 6) });
    await must(gm, { kind: "engagement.defend", combatant: "fox", defence: "cover", dp: 5, result: dice(6, 6, 6, 6, 6) });
    await both(AYA_FOX);
    const [, line] = drawings().find(([id]) => id.startsWith(AYA_FOX));
    // aya (3,1) and fox (8,3): a polygon of two points, centre to centre
    assert.equal(line.shape.type, "p");
    assert.deepEqual([line.x, line.y], [300, 100]);
    assert.deepEqual(line.shape.points, [50, 50, 550, 250]);
    assert.match(line.text, /接近 剣士アヤ⇔妖狐/);
    const marker = page.markers()[markers()[0]];
    assert.match(marker.text, /剣士アヤ⇔妖狐/);
    const params = Object.fromEntries(page.characters()["ks-piece-aya"].params.map((p) => [p.label, p.value]));
    assert.equal(params["接近"], "妖狐");
  });

  test("ENG-ACT-2: アヤ's melee damage is rolled in the Ccfolia chat", async () => {
    await must(alice, { kind: "engagement.melee", combatant: "aya", target: "fox", dp: 3, result: dice(4, 4, 4, 4), report_damage: true });
    await must(gm, { kind: "engagement.defend", combatant: "fox", defence: "evade", dp: 2, result: dice(2, 2) });
    page.rolls.push(dice(3, 4));
    page.say("2D6 ダメージ", { name: "剣士アヤ", from: "uidAlice" });
    await gm.until(() => gm.get(["table", "counters", "fox_hp", "value"]) === 28 - 14, "fox takes 14");
    const change = gm.frames.filter((f) => f.type === "change").at(-1);
    assert.equal(change.info.action.kind, "engagement.roll");
  });

  test("ENG-HAND-1: ゴウ engages the fox, アリス lets アヤ leave; her line vanishes", async () => {
    await gm.must({ kind: "engagement.approach", combatant: "gou", target: "fox", dp: 4, result: dice(5, 5, 5, 5) });
    await must(gm, { kind: "engagement.defend", combatant: "fox", defence: "none" });
    await both(AYA_FOX, FOX_GOU);
    await alice.until(() => Object.keys(alice.state.prompts || {}).length === 1, "アリス is asked");
    const [prompt] = Object.values(alice.state.prompts);
    assert.match(prompt.ja, /離脱できます/);
    await must(alice, { kind: "answer", prompt: prompt.id, choice: "leave" });
    await both(FOX_GOU);
  });

  test("ENG-EF-3: the end of the next setup removes every line", async () => {
    await must(gm, { kind: "engagement.phase" });
    await must(gm, { kind: "engagement.phase" });
    await both(FOX_GOU);
    await must(gm, { kind: "engagement.phase" });
    await both();
    const board = drawings().find(([id]) => id === "ks-board")[1].text;
    assert.match(board, /ターン2 イニシアチブ／メインフェイズ（接近0組）/);
  });
});
