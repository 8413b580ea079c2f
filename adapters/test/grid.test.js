// Seamless combat (seed 001, GRID-*) on BOTH tables at once, against a REAL komasync
// server playing examples/seamless_combat.yaml: the GM, two players (アリス with 剣士レオ and
// 魔術師ミナ, ボブ with 弓手カイ and 僧侶ユナ) on their own WebSockets, a Foundry world
// (fakes/foundry.js: the GM's and both players' browsers, the real module) and a Ccfolia
// page (fakes/ccfolia.js, the real userscript modules). A full player round and enemy
// round: a legal drag round-trips; an illegal drag is vetoed in the Foundry mover's
// browser (the legal squares were pushed, nothing goes to the server) and snapped back on
// Ccfolia with the reason; poison strikes as the process starts; a one-round effect ends
// as the next player round begins.

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
import { waitFor, sleep } from "./support/wait.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULE = path.resolve(HERE, "../foundry/module");
const EN = loadLang(path.join(MODULE, "lang/en.json"));
const JA = loadLang(path.join(MODULE, "lang/ja.json"));
const SCENE = "sceneGrid0000001";
const CELL = 100; // Foundry px per square (scene grid, padding 0)
const CC = 1; // Ccfolia positions are in squares (its default unit since issue 14)
/** A square's top-left on the Ccfolia page: its default origin centres the 16×12 map. */
const cc = (x, y) => ({ x: (x - 8) * CC, y: (y - 6) * CC });

describe("seamless combat on Foundry and Ccfolia with a real server", () => {
  let server;
  let gm;
  let alice;
  let bob;
  let world;
  let gmc; // the GM's Foundry browser
  let ac; // アリス's Foundry browser
  let bc; // ボブ's Foundry browser
  let fbridge;
  let page; // the GM's Ccfolia tab
  let cbridge;
  const bridges = [];

  const cell = (id) => gm.get(["table", "pieces", id, "cell"]);
  const token = (c, id) => indexScene(c.game.scenes.get(SCENE)).get(`ks-piece-${id}`).doc;
  const drawing = (id) => indexScene(gmc.game.scenes.get(SCENE)).get(id).doc._source;
  const caughtUp = () => waitFor(() => fbridge.client && fbridge.client.state === State.LIVE
    && fbridge.client.applied === gm.version && !fbridge.client.pending.size
    && cbridge.client && cbridge.client.applied === gm.version && !cbridge.client.pending.size
    && cbridge.settler.size === 0, "both bridges caught up");
  const statuses = (id) => Object.values(gm.get(["grid", "combatants", id, "statuses"]) || {}).map((s) => s.name || s.kind);

  async function must(who, action) {
    const a = await who.act(action);
    assert.equal(a.type, "ack", `${action.kind}: ${JSON.stringify(a)}`);
    await gm.until(() => gm.version >= a.version, "GM follows");
    return a;
  }

  before(async () => {
    server = await startServer({ scenario: path.join(EXAMPLES, "seamless_combat.yaml"), room: "chapel" });
    gm = await new GM(server.url, server.room, server.secret).connect();
    await gm.must({ kind: "override", path: ["meta", "platforms", "foundry"], reason: "the scene's grid",
                    value: { cell_size: CELL, origin_x: 0, origin_y: 0, units: "px" } });
    await gm.must({ kind: "override", path: ["meta", "platforms", "ccfolia"], reason: "who is who",
                    value: { users: { uidAlice: "alice", uidBob: "bob", uidGM0001: "gm" } } });
    alice = await new Player(server.url, server.room, await gm.invite("player", { player: "alice" })).connect();
    bob = await new Player(server.url, server.room, await gm.invite("player", { player: "bob" })).connect();

    world = new FoundryWorld({ generation: 13, WebSocket });
    world.addUser({ id: "gmUser00000000001", name: "GM", isGM: true });
    world.addUser({ id: "userAlicexxxxxxx1", name: "アリス" });
    world.addUser({ id: "userBobxxxxxxxxx2", name: "ボブ" });
    for (const name of ["剣士レオ", "魔術師ミナ"]) world.addActor({ name, ownership: { userAlicexxxxxxx1: 3 } });
    for (const name of ["弓手カイ", "僧侶ユナ"]) world.addActor({ name, ownership: { userBobxxxxxxxxx2: 3 } });
    world.addScene({ id: SCENE, name: "礼拝堂", width: 1600, height: 1200, padding: 0, gridSize: CELL });
    gmc = world.client("gmUser00000000001", EN);
    ac = world.client("userAlicexxxxxxx1", JA, "ja");
    bc = world.client("userBobxxxxxxxxx2", EN);
    const gmEnv = { ...gmc.globals, WebSocket };
    registerSettings(gmEnv);
    await gmc.game.settings.set("komasync", "serverUrl", server.url.replace("/ws", ""));
    await gmc.game.settings.set("komasync", "room", server.room);
    await gmc.game.settings.set("komasync", "token", await server.invite("bridge"));
    fbridge = new FoundryBridge(gmEnv, { settleMs: 150, backoff: { base: 50, max: 500 } });
    bridges.push(fbridge);
    fbridge.ready();
    for (const c of [ac, bc]) {
      const env = { ...c.globals, WebSocket };
      registerSettings(env);
      const b = new FoundryBridge(env, { settleMs: 150, backoff: { base: 50, max: 500 } });
      bridges.push(b);
      b.ready();
    }

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
    for (const c of [gm, alice, bob]) c && c.close();
    await server.stop();
  });

  test("both tables draw the chapel; before combat nothing is vetoed", async () => {
    for (const id of ["fighter", "mage", "archer", "priest", "ghoul1", "ghoul2", "wraith", "knight"]) {
      assert.ok(token(gmc, id), `Foundry token ${id}`);
      assert.ok(page.characters()[`ks-piece-${id}`], `Ccfolia character ${id}`);
    }
    assert.ok(drawing("ks-gridspot-altar"), "the event spot (GRID-GM-1)");
    assert.ok(page.markers()["ks-gridwall-0"], "walls are Ccfolia markers");
    assert.ok(token(ac, "fighter").isOwner && !token(ac, "archer").isOwner, "アリス owns her pieces");
    assert.equal(page.characters()["ks-piece-archer"].owner, "uidBob");
    assert.equal(token(gmc, "fighter").getFlag("komasync", "legal"), null, "no opinion before combat");
  });

  test("the GM starts the fight: round 1, player round; statuses set", async () => {
    await gm.must({ kind: "grid.start" });
    await gm.must({ kind: "grid.status.add", combatant: "archer", status: "poison", value: 3 });
    await gm.must({ kind: "grid.status.add", combatant: "fighter", status: "effect", name: "[ブレス]", duration: "round" });
    await caughtUp();
    assert.match(drawing("ks-board").text, /第1ラウンド プレイヤーラウンド/);
    const params = Object.fromEntries(page.characters()["ks-piece-archer"].params.map((p) => [p.label, p.value]));
    assert.equal(params["状態"], "[毒]3");
    const legal = token(gmc, "fighter").getFlag("komasync", "legal");
    assert.deepEqual(legal.positions, [], "no process yet: nowhere (GRID-MV-1)");
  });

  test("a legal drag on Foundry round-trips to the room and the other table", async () => {
    await must(alice, { kind: "grid.process.start", combatant: "fighter" });
    await caughtUp();
    const legal = token(ac, "fighter").getFlag("komasync", "legal");
    assert.ok(legal.positions.some((p) => p.x === 300 && p.y === 400), "(3,4) is pushed as legal");
    const before = gm.version;
    await token(ac, "fighter").update({ x: 300, y: 400 });
    await gm.until(() => cell("fighter").x === 3 && cell("fighter").y === 4, "fighter at (3,4)");
    assert.equal(gm.version, before + 1, "one action");
    assert.deepEqual(gm.get(["grid", "process", "spent"]), { move: "move", minor: "move" });
    await caughtUp();
    await waitFor(() => page.characters()["ks-piece-fighter"].x === cc(3, 4).x, "Ccfolia follows");
    assert.equal(page.characters()["ks-piece-fighter"].y, cc(3, 4).y);
    assert.deepEqual([token(bc, "fighter").x, token(bc, "fighter").y], [300, 400], "every browser sees it");
  });

  test("an illegal drag is vetoed in the mover's Foundry browser: nothing reaches the server", async () => {
    const pc = token(ac, "fighter");
    const before = gm.version;
    const reports = fbridge.reported.length;
    const writes = world.writes;
    const result = await pc.update({ x: 900, y: 400 }); // (9,4): 6 squares, 3 left
    assert.equal(result, undefined, "cancelled");
    assert.equal(world.writes, writes, "nothing reached the world");
    assert.deepEqual([pc.x, pc.y], [300, 400]);
    const note = ac.notifications.at(-1);
    assert.equal(note.level, "warn");
    assert.match(note.message, /移動できません.*マイナー1・メジャー2.*GRID-MV/, "the reason, in アリス's language");
    await sleep(200);
    assert.equal(fbridge.reported.length, reports, "nothing reported");
    assert.equal(gm.version, before);
  });

  test("an illegal drag on Ccfolia is snapped back and the reason shown to the mover only", async () => {
    const home = cc(3, 4);
    const before = gm.version;
    const publicBefore = page.messages().length;
    await page.drag("ks-piece-fighter", [cc(9, 4)]);
    await waitFor(() => cbridge.client.lastRefusal && cbridge.client.lastRefusal.rule === "GRID-MV-1", "refusal");
    await waitFor(() => page.characters()["ks-piece-fighter"].x === home.x, "snapped back");
    assert.equal(page.characters()["ks-piece-fighter"].y, home.y);
    await cbridge.chatQueue;
    // issue 14: a refusal is a private line in the bridge's panel, never the public chat
    await waitFor(() => cbridge.info.privateLines.length > 0, "a private line");
    const line = cbridge.info.privateLines.at(-1);
    assert.equal(line.kind, "refusal");
    assert.match(line.ja, /6マス必要ですが、移動できるのは3マスまで/);
    assert.match(line.en, /That takes 6 squares/);
    const said = page.messages().slice(publicBefore);
    assert.ok(!said.some((m) => /6マス必要/.test(m.text)), "never in the public chat");
    assert.equal(gm.version, before, "nothing changed in the room");
  });

  test("the player round: poison strikes as the archer's process starts; a Ccfolia drag round-trips", async () => {
    await must(alice, { kind: "grid.process.end", combatant: "fighter" });
    await must(alice, { kind: "grid.process.start", combatant: "mage" });
    await must(alice, { kind: "grid.process.end", combatant: "mage" });
    assert.equal(gm.get(["table", "counters", "archer_hp", "value"]), 26);
    await must(bob, { kind: "grid.process.start", combatant: "archer" });
    assert.equal(gm.get(["table", "counters", "archer_hp", "value"]), 23, "GRID-ST-1 at the start of the process");
    await caughtUp();
    await page.drag("ks-piece-archer", [cc(3, 5)]); // bob's piece (its owner is uidBob)
    await gm.until(() => cell("archer").x === 3 && cell("archer").y === 5, "archer at (3,5)");
    await caughtUp();
    assert.deepEqual([token(gmc, "archer").x, token(gmc, "archer").y], [300, 500], "Foundry follows");
    await must(bob, { kind: "grid.process.end", combatant: "archer" });
    await must(bob, { kind: "grid.process.start", combatant: "priest" });
    await must(bob, { kind: "grid.process.end", combatant: "priest" });
    assert.equal(gm.get(["grid", "side"]), "enemy", "GRID-RND-2: every PC has acted");
    assert.deepEqual(statuses("fighter"), ["[ブレス]"], "GRID-DUR-2: lasts through the enemy round");
    await caughtUp();
    assert.match(drawing("ks-board").text, /エネミーラウンド/);
  });

  test("the enemy round: the GM drags an enemy in its process; the next player round ends [ブレス]", async () => {
    await gm.must({ kind: "grid.process.start", combatant: "ghoul1" });
    await caughtUp();
    const legal = token(gmc, "ghoul1").getFlag("komasync", "legal");
    assert.ok(legal.positions.some((p) => p.x === 700 && p.y === 300));
    assert.deepEqual(token(gmc, "ghoul2").getFlag("komasync", "legal").positions, [], "only the one in process");
    await token(gmc, "ghoul1").update({ x: 700, y: 300 });
    await gm.until(() => cell("ghoul1").x === 7 && cell("ghoul1").y === 3, "ghoul1 at (7,3)");
    await gm.must({ kind: "grid.process.end", combatant: "ghoul1" });
    for (const id of ["ghoul2", "wraith", "knight"]) {
      await gm.must({ kind: "grid.process.start", combatant: id });
      await gm.must({ kind: "grid.process.end", combatant: id });
    }
    assert.equal(gm.get(["grid", "round"]), 2);
    assert.equal(gm.get(["grid", "side"]), "pc");
    assert.deepEqual(statuses("fighter"), [], "GRID-DUR-2: gone as the next player round begins");
    assert.deepEqual(statuses("archer"), ["poison"], "poison stays until removed");
    await caughtUp();
    assert.match(drawing("ks-board").text, /第2ラウンド プレイヤーラウンド/);
    const params = Object.fromEntries(page.characters()["ks-piece-fighter"].params.map((p) => [p.label, p.value]));
    assert.equal(params["状態"], undefined, "the label went with the effect");
  });
});
