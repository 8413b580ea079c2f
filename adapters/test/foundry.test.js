// The Foundry module against a fake Foundry world (fakes/foundry.js: several browsers,
// hooks, documents, chat) and a REAL komasync server process running the tower defense
// example. Run once as Foundry v12 and once as v13.

import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

import { FoundryWorld, loadLang } from "./fakes/foundry.js";
import { FoundryBridge, registerSettings, plainText, DICE_LINE } from "../foundry/module/scripts/foundry/bridge.js";
import { checkMove } from "../foundry/module/scripts/foundry/veto.js";
import { indexScene } from "../foundry/module/scripts/foundry/apply.js";
import { State } from "../foundry/module/scripts/core/client.js";
import { startServer } from "./support/server.js";
import { fvttBcdice, bcdiceAddon } from "./support/bcdice_modules.js";
import { GM } from "./support/gm.js";
import { waitFor, sleep } from "./support/wait.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULE = path.resolve(HERE, "../foundry/module");
const EN = loadLang(path.join(MODULE, "lang/en.json"));
const JA = loadLang(path.join(MODULE, "lang/ja.json"));

/** Every komasync document of a scene: stable id → what it shows. */
function sceneView(scene) {
  const out = {};
  for (const [id, { type, doc }] of indexScene(scene)) {
    const s = doc._source;
    out[id] = { type, x: s.x, y: s.y, name: s.name, text: s.text };
  }
  return out;
}

const BCDICE_HARD = "(1D100<=80) ボーナス・ペナルティダイス[0] ＞ 30 ＞ 30 ＞ ハード成功";
const BCDICE_REGULAR_60 = "(1D100<=60) ボーナス・ペナルティダイス[0] ＞ 41 ＞ 41 ＞ レギュラー成功";

describe("module files", () => {
  test("module.json is a v12/v13 manifest with every file it names", () => {
    const m = JSON.parse(readFileSync(path.join(MODULE, "module.json"), "utf8"));
    for (const k of ["id", "title", "version", "description", "authors", "esmodules", "languages", "license"]) {
      assert.ok(m[k], `module.json needs ${k}`);
    }
    assert.equal(m.id, "komasync");
    // Honest manifest (issue 14): no Foundry release was run, so none is "verified"; the
    // module never uses game.socket; the server fills url/bugs/changelog/manifest/download.
    assert.deepEqual(m.compatibility, { minimum: "12" });
    assert.ok(!("socket" in m));
    assert.ok(!("url" in m) && !("manifest" in m) && !("download" in m), "no fixed server address");
    readFileSync(path.join(MODULE, m.license));
    readFileSync(path.join(MODULE, "CHANGELOG.md"));
    assert.ok(!("name" in m) && !("minimumCoreVersion" in m), "no pre-v10 manifest keys");
    for (const f of [...m.esmodules, ...m.languages.map((l) => l.path)]) {
      readFileSync(path.join(MODULE, f));
    }
    assert.deepEqual(m.languages.map((l) => l.lang).sort(), ["en", "ja"]);
  });

  test("ja and en have the same keys, and every key the code uses exists", () => {
    const keys = (o, p = "") =>
      Object.entries(o).flatMap(([k, v]) => (typeof v === "object" ? keys(v, `${p}${k}.`) : [`${p}${k}`]));
    assert.deepEqual(keys(JA).sort(), keys(EN).sort());
    const code = readFileSync(path.join(MODULE, "scripts/foundry/bridge.js"), "utf8");
    const used = [...code.matchAll(/this\.t\("([\w.]+)"/g)].map((m) => `KOMASYNC.${m[1]}`);
    assert.ok(used.length > 5);
    for (const k of used) assert.ok(keys(EN).includes(k), `missing ${k}`);
  });

  test("chat HTML becomes the BCDice line, and only dice lines count", () => {
    assert.equal(plainText("<div class=\"x\">(2D6) &gt; 7[1,6] &gt; 7</div>"), "(2D6) > 7[1,6] > 7");
    assert.equal(plainText("<p>(1D100<=53) ＞ 52</p>"), "(1D100<=53) ＞ 52", "a bare < is not a tag");
    assert.ok(DICE_LINE.test(BCDICE_HARD));
    assert.ok(DICE_LINE.test("(2D6) > 7"));
    assert.ok(!DICE_LINE.test("hello > world"));
  });

  test("the move check reads only what the server pushed into the flags", () => {
    const user = { id: "u1", name: "P1", isGM: false };
    const doc = (legal) => ({ x: 0, y: 0, flags: { komasync: { id: "ks-pc-a", legal } } });
    const reason = { ja: "だめ", en: "no" };
    assert.deepEqual(checkMove(doc(undefined), { x: 500, y: 0 }, user), { ok: true });
    assert.equal(checkMove(doc({ positions: [{ x: 100, y: 0 }], reason }), { x: 130, y: 10 }, user).ok, true);
    const far = checkMove(doc({ positions: [{ x: 100, y: 0 }], reason }), { x: 400, y: 0 }, user);
    assert.deepEqual([far.ok, far.reason], [false, reason]);
    assert.equal(checkMove(doc({ users: ["gm"], reason }), { x: 100, y: 0 }, user).ok, false);
    assert.equal(checkMove(doc({ users: ["gm"], reason }), { x: 100, y: 0 }, { ...user, isGM: true }).ok, true);
    assert.equal(checkMove(doc({ users: ["P1"], reason }), { x: 100, y: 0 }, user).ok, true);
  });
});

for (const generation of [12, 13]) {
  describe(`Foundry v${generation} bridge with a real server`, () => {
    let server;
    let gm;
    let world;
    let gmc; // the GM's browser
    let p1c; // player 1's browser
    let p2c;
    const bridges = [];
    let gmBridge;
    let plainAttack; // the attack the plain BCDice line made

    function open(client) {
      const env = { ...client.globals, WebSocket };
      registerSettings(env);
      const b = new FoundryBridge(env, { settleMs: 150, backoff: { base: 50, max: 500 } });
      bridges.push(b);
      return b;
    }

    before(async () => {
      server = await startServer();
      gm = await new GM(server.url, server.room, server.secret).connect();
      const token = await server.invite("bridge");
      world = new FoundryWorld({ generation, WebSocket });
      world.addUser({ id: "gmUser00000000001", name: "GM", isGM: true });
      world.addUser({ id: "userP1xxxxxxxxxx1", name: "プレイヤー1" });
      world.addUser({ id: "userP2xxxxxxxxxx2", name: "プレイヤー2" });
      world.addActor({ name: "カルロス・ベガ", ownership: { userP1xxxxxxxxxx1: 3 } });
      world.addActor({ name: "相沢ミナ", ownership: { userP2xxxxxxxxxx2: 3 } });
      world.addScene({ id: "sceneTD000000001", name: "TD", width: 2300, height: 1500, padding: 0.25, gridSize: 100 });
      gmc = world.client("gmUser00000000001", EN);
      p1c = world.client("userP1xxxxxxxxxx1", JA, "ja");
      p2c = world.client("userP2xxxxxxxxxx2", EN);
      const gmEnv = { ...gmc.globals, WebSocket };
      registerSettings(gmEnv);
      await gmc.game.settings.set("komasync", "serverUrl", server.url.replace("/ws", ""));
      await gmc.game.settings.set("komasync", "room", server.room);
      await gmc.game.settings.set("komasync", "token", token);
      gmBridge = new FoundryBridge(gmEnv, { settleMs: 150, backoff: { base: 50, max: 500 } });
      bridges.push(gmBridge);
      gmBridge.ready();
      open(p1c).ready();
      open(p2c).ready();
    });

    after(async () => {
      for (const b of bridges) b.stop();
      gm && gm.close();
      await server.stop();
    });

    const scene = () => gmc.game.scenes.get("sceneTD000000001");
    const token = (c, sid) => indexScene(c.game.scenes.get("sceneTD000000001")).get(sid).doc;
    const caughtUp = () => waitFor(() => gmBridge.client && gmBridge.client.state === State.LIVE && gmBridge.client.applied === gm.version && !gmBridge.client.pending.size, "bridge caught up");

    test("only the active GM connects; the token stays in the GM's browser", async () => {
      await waitFor(() => gmBridge.client && gmBridge.client.applied !== null, "reset applied");
      assert.ok(bridges.filter((b) => b !== gmBridge).every((b) => b.client === null), "players do not connect");
      assert.equal(gmc.game.settings._defs.get("komasync.token").scope, "client");
      assert.ok(![...world.worldSettings.keys()].some((k) => k.includes("token")), "never a world setting");
      assert.ok(!world.broadcasts.some((b) => b.setting.includes("token")), "never broadcast");
      assert.ok(!p1c.localStorage.has("komasync.token"));
      const view = sceneView(scene());
      const tokens = Object.values(view).filter((d) => d.type === "Token");
      assert.equal(tokens.length, 7, "seven PCs");
      assert.ok(view["ks-fort-final"] && view["ks-fort-final"].type === "Drawing");
      assert.match(view["ks-fort-final"].text, /耐久力/);
      assert.ok(scene().tokens.contents.every((t) => t.getFlag("komasync", "id")), "every document is flagged");
      // The GM sees the connection state; players' pages get no komasync status line.
      const line = gmc.document.getElementById("komasync-status");
      assert.match(line.textContent, /komasync: connected \(version \d+/);
      assert.equal(line.style.background, "#2e7d32");
      assert.equal(p1c.document.getElementById("komasync-status"), null);
      // The PC token is linked to its player's actor, so the player may drag it.
      assert.ok(token(p1c, "ks-pc-pc1").isOwner);
      assert.ok(!token(p1c, "ks-pc-pc2").isOwner);
    });

    test("calibration: the scene's own grid, stored in the room, moves everything onto the squares", async () => {
      const cal = gmBridge.calibration();
      assert.deepEqual(cal, { origin_x: 600, origin_y: 400, cell_size: 100, units: "px" });
      assert.match(gmBridge.client.statusDetail, /origin_x 600/);
      assert.match(gmBridge.client.statusDetail, /^foundry \d+\.\d+\.\d+ v1[23] /, "the module's version first (komasync doctor)");
      await gm.must({ kind: "override", path: ["meta", "platforms", "foundry"], value: cal, reason: "calibration from the Foundry scene" });
      await caughtUp();
      // f_left is square (2, 4): top-left pixel = origin + 100 × square.
      const fort = sceneView(scene())["ks-fort-f_left"];
      assert.deepEqual([fort.x, fort.y], [800, 800]);
    });

    test("the GM console is told the scene's tokens, the world's users and the grid (issue 30)", async () => {
      await caughtUp();
      const fort = sceneView(scene())["ks-pc-pc1"];
      const told = () => gm.notices.filter((n) => n.kind === "bridge" && n.data.tokens).at(-1);
      await waitFor(() => told() && told().data.tokens.some((t) => t.id === "ks-pc-pc1" && t.left === fort.x && t.top === fort.y), "tokens reported");
      const data = told().data;
      const pc1 = data.tokens.find((t) => t.id === "ks-pc-pc1");
      assert.equal(pc1.name, fort.name, "each token by its name, at its top-left pixels");
      assert.equal(data.tokens.length, scene().tokens.contents.length);
      assert.deepEqual(data.users.map((u) => [u.name, u.gm]).sort(), [["GM", true], ["プレイヤー1", false], ["プレイヤー2", false]]);
      assert.ok(data.users.some((u) => u.id === "userP1xxxxxxxxxx1"));
      assert.deepEqual(data.grid, { size: 100, origin_x: 600, origin_y: 400 });
    });

    test("a legal move round-trips: one report per drag, the room and every counter follow", async () => {
      const before = gm.version;
      const pc = token(p1c, "ks-pc-pc1");
      // One drag in several operations (v13 may send several; v12 a player may nudge twice).
      await pc.update({ x: 700, y: 600 });
      await pc.update({ x: 790, y: 790 });
      await gm.until(() => gm.get(["tower_defense", "pcs", "pc1", "fort"]) === "f_left", "pc1 placed");
      assert.equal(gm.version, before + 1, "one action");
      assert.equal(gmBridge.reported.filter((e) => e.kind === "move").length, 1, "settled into one report");
      const ev = gmBridge.reported[0];
      assert.deepEqual([ev.id, ev.x, ev.y, ev.user.name], ["ks-pc-pc1", 790, 790, "プレイヤー1"]);
      await caughtUp();
      // The server puts the PC on the fort (stacked one slot after the fort itself).
      assert.deepEqual([token(gmc, "ks-pc-pc1").x, token(gmc, "ks-pc-pc1").y], [825, 825]);
      assert.deepEqual([token(p1c, "ks-pc-pc1").x, token(p1c, "ks-pc-pc1").y], [825, 825], "every browser sees it");
      await sleep(150);
      assert.equal(gmBridge.reported.length, 1, "the bridge's own write is not reported back");
      await gm.until(() => gm.notices.some((n) => n.kind === "bridge" && n.data.version === gm.version && n.data.lag === 0), "bridge status: no lag");
    });

    test("the GM plays to the PC attack phase: enemy groups appear as tokens", async () => {
      const start = { pc2: "f_center_left", pc3: "f_center_right", pc4: "m_left", pc5: "final", pc6: "m_right", npc1: "f_right" };
      for (const [pc, fort] of Object.entries(start)) await gm.must({ kind: "td.pc.place", pc, fort });
      for (let i = 0; i < 3; i++) {
        await gm.must({ kind: "td.next_phase", expect: gm.get(["tower_defense", "phase"]) });
        for (const id of Object.keys(gm.state.prompts || {})) {
          const a = await gm.act({ kind: "answer", prompt: id, choice: "done" });
          assert.equal(a.type, "ack");
        }
      }
      assert.equal(gm.get(["tower_defense", "phase"]), "pc_attack");
      await caughtUp();
      const group = sceneView(scene())["ks-group-r1-left_end"];
      assert.equal(group.type, "Token");
      assert.match(group.name, /個体数 5/);
      const boardText = sceneView(scene())["ks-board"].text;
      assert.match(boardText, /ラウンド: 1/);
      assert.match(boardText, /PC攻撃フェイズ/);
      assert.match(sceneView(scene())["ks-fort-f_left"].text, /耐久力 15\/15/);
    });

    test("an illegal move is snapped back and the mover is told why, in a whisper", async () => {
      const before = gm.version;
      const chats = p1c.game.messages.size;
      const home = { x: token(p1c, "ks-pc-pc1").x, y: token(p1c, "ks-pc-pc1").y };
      // Without legal-move data in the flags (an older world, a stale flag), the module
      // has no opinion: the move lands, the server refuses it and snaps it back.
      const pushed = token(gmc, "ks-pc-pc1").getFlag("komasync", "legal");
      assert.ok(pushed && Array.isArray(pushed.positions), "the server pushed legal-move data");
      await token(gmc, "ks-pc-pc1").unsetFlag("komasync", "legal");
      // pc1 stands at 左端砦; 最終砦 (square 10, 14) is not adjacent (TD-ATK-1).
      await token(p1c, "ks-pc-pc1").update({ x: 1600, y: 1800 });
      await waitFor(() => gmBridge.client.lastRefusal && gmBridge.client.lastRefusal.rule === "TD-ATK-1", "refusal");
      await caughtUp();
      assert.equal(gm.version, before, "nothing changed in the room");
      await waitFor(() => token(p1c, "ks-pc-pc1").x === home.x, "snapped back");
      assert.equal(token(p1c, "ks-pc-pc1").y, home.y);
      await waitFor(() => p1c.game.messages.size > chats, "whisper");
      const whisper = p1c.game.messages.contents.at(-1);
      assert.deepEqual(whisper.whisper, ["userP1xxxxxxxxxx1"]);
      assert.match(whisper.content, /最終砦/);
      assert.ok(!p2c.game.messages.contents.some((m) => m.id === whisper.id), "only the mover (and GMs) see it");
      assert.match(gmc.document.getElementById("komasync-status").textContent, /last refusal: No passage joins/);
    });

    test("a move the server's flags forbid is vetoed in the mover's browser before it lands", async () => {
      const pc = token(p1c, "ks-pc-pc1");
      const home = { x: pc.x, y: pc.y };
      // A reset push (as after a reconnect) brings the server's legal-move data back.
      gmBridge.client.ws.terminate();
      await waitFor(() => token(p1c, "ks-pc-pc1").getFlag("komasync", "legal"), "legal data pushed again", 15000);
      const legal = token(p1c, "ks-pc-pc1").getFlag("komasync", "legal");
      assert.match(legal.reason.en, /TD-ATK-1/);
      assert.ok(legal.positions.length >= 2, "its own fort and the adjacent ones");
      const before = gm.version;
      const reports = gmBridge.reported.length;
      const writes = world.writes;
      const result = await pc.update({ x: 1600, y: 1800 });
      assert.equal(result, undefined, "the update was cancelled");
      assert.equal(world.writes, writes, "nothing reached the world");
      assert.deepEqual([pc.x, pc.y], [home.x, home.y]);
      const note = p1c.notifications.at(-1);
      assert.equal(note.level, "warn");
      assert.match(note.message, /動かせません/);
      await sleep(150);
      assert.equal(gmBridge.reported.length, reports, "nothing to report");
      assert.equal(gm.version, before);
    });

    test("a BCDice line in chat becomes the attack result", async () => {
      const count = gm.get(["tower_defense", "groups", "r1-left_end", "count"]);
      const speaker = p1c.ChatMessage.getSpeaker({ token: token(p1c, "ks-pc-pc1") });
      await world.say("userP1xxxxxxxxxx1", `<div class="bcdice">CC&lt;=80 デザートイーグル<br>${BCDICE_HARD.replace(/</g, "&lt;").replace(/>/g, "&gt;")}</div>`, speaker);
      await world.say("userP1xxxxxxxxxx1", "just talking > nothing to roll");
      await gm.until(() => gm.get(["tower_defense", "groups", "r1-left_end", "count"]) === count - 1, "one coyote removed");
      const ev = gmBridge.reported.find((e) => e.kind === "chat");
      assert.equal(ev.speaker.id, "ks-pc-pc1");
      assert.equal(gmBridge.reported.filter((e) => e.kind === "chat").length, 1, "plain chat is not reported");
      const last = gm.frames.filter((f) => f.type === "change").at(-1);
      assert.equal(last.info.action.kind, "td.attack");
      assert.deepEqual(last.info.action.results, [BCDICE_HARD]);
      plainAttack = last.info.action;
      await caughtUp();
      assert.match(sceneView(scene())["ks-group-r1-left_end"].name, new RegExp(`個体数 ${count - 1}`));
    });

    // Issue 29: the same CC line (d100 30 against 射撃（拳銃） 80) rolled with Foundry's own
    // dice and through each BCDice module's wrapping makes the attack the plain line makes.
    const attackBy = async (deliver, group = "r1-left_end") => {
      const count = gm.get(["tower_defense", "groups", group, "count"]);
      const before = gm.version;
      await deliver();
      await gm.until(() => gm.version > before, "the roll became an action", 15000);
      const last = gm.frames.filter((f) => f.type === "change").at(-1);
      return { action: last.info.action, killed: count - gm.get(["tower_defense", "groups", group, "count"]) };
    };

    test("Foundry's own 1D100 takes its target from the PC's skill and makes the same attack", async () => {
      const speaker = p1c.ChatMessage.getSpeaker({ token: token(p1c, "ks-pc-pc1") });
      const got = await attackBy(() => world.roll("userP1xxxxxxxxxx1", "1d100", [30], { flavor: "デザートイーグル r1-left_end", speaker }));
      assert.deepEqual(got.action, plainAttack, "the attack the plain line made");
      assert.equal(got.killed, 1, "a hard success kills one, as the plain line did");
      const ev = gmBridge.reported.filter((e) => e.kind === "chat").at(-1);
      assert.deepEqual(ev.rolls[0].terms[0], { type: "die", faces: 100, number: 1, modifiers: [], results: [{ result: 30, active: true, discarded: false }] });
      assert.equal(ev.roll, undefined, "structured: no text to parse");
    });

    test("BCDice for Foundry VTT (addon): the alias names the PC; <p> lines and U+200B read back", async () => {
      // 相沢ミナ (pc2, グロック17, 射撃（拳銃） 60) shoots twice: `x2 CC<=60`, the addon's way.
      const roll = `#1\n${BCDICE_REGULAR_60}\n\n#2\n${BCDICE_REGULAR_60}`;
      const html = bcdiceAddon("x2 CC<=60 グロック17 r1-center_left", roll.replace(/</g, "&lt;"));
      const got = await attackBy(() => world.say("userP2xxxxxxxxxx2", html, { alias: "相沢ミナ" }), "r1-center_left");
      assert.deepEqual(got.action.results, [BCDICE_REGULAR_60, BCDICE_REGULAR_60], "BCDice's lines exactly");
      assert.deepEqual([got.action.pc, got.action.weapon, got.action.by], ["pc2", "glock17", "p2"]);
      assert.equal(got.killed, 2, "each regular success kills one, as the plain line does");
      assert.equal(gmBridge.reported.filter((e) => e.kind === "chat").at(-1).speaker.id, "ks-pc-pc2", "credited by the alias");
    });

    test("fvtt-bcdice speaks as the game system: credited to the rolling user's only PC, the same attack", async () => {
      // No token, no command text: only the system's name and BCDice's line. プレイヤー1 owns
      // one PC (カルロス・ベガ, pc1), so the server credits the roll to it (rolls.credit_alias).
      const got = await attackBy(() => world.say("userP1xxxxxxxxxx1", fvttBcdice(BCDICE_HARD.replace(/</g, "&lt;")), { alias: "Cthulhu7th" }));
      assert.deepEqual(got.action, plainAttack, "the attack the plain line made");
      assert.equal(got.killed, 1, "a hard success kills one, as the plain line did");
      const ev = gmBridge.reported.filter((e) => e.kind === "chat").at(-1);
      assert.equal(ev.roll, BCDICE_HARD, "the line itself read back exactly");
      assert.equal(ev.speaker.id, undefined, "the bridge binds no piece");
      assert.equal(ev.speaker.alias_only, true);
      await waitFor(() => /roll naming no piece: Cthulhu7th/.test(gmBridge.client.statusDetail), "bridge line");
    });

    test("a dropped connection and a server restart lose nothing", async () => {
      gmBridge.client.ws.terminate();
      await waitFor(() => gmBridge.client.state !== State.LIVE, "dropped");
      // While the bridge is away: the GM adds a group, and a player rolls an attack.
      await gm.must({ kind: "td.group.add", name: "はぐれコヨーテ", count: 3, direction: "left_end" });
      const speaker = p2c.ChatMessage.getSpeaker({ token: token(p2c, "ks-pc-pc2") });
      const count = gm.get(["tower_defense", "groups", "r1-center_left", "count"]);
      await world.say("userP2xxxxxxxxxx2", BCDICE_REGULAR_60, speaker);
      await gm.until(() => gm.get(["tower_defense", "groups", "r1-center_left", "count"]) === count - 1, "queued attack delivered", 15000);
      await caughtUp();
      gm.close();
      await server.restart(200);
      gm = await new GM(server.url, server.room, server.secret).connect();
      await waitFor(() => gmBridge.client.connects >= 3, "re-joined after the restart", 15000);
      await caughtUp();
      assert.equal(gm.get(["tower_defense", "groups", "r1-center_left", "count"]), count - 1, "applied once");
      // The scene is exactly what a brand-new bridge draws from the room.
      const fresh = new FoundryWorld({ generation, WebSocket });
      fresh.addUser({ id: "gmUser00000000009", name: "GM2", isGM: true });
      fresh.addScene({ id: "sceneTD000000001", name: "TD", width: 2300, height: 1500, padding: 0.25, gridSize: 100 });
      const fc = fresh.client("gmUser00000000009", EN);
      const env = { ...fc.globals, WebSocket };
      registerSettings(env);
      await fc.game.settings.set("komasync", "serverUrl", server.url);
      await fc.game.settings.set("komasync", "room", server.room);
      await fc.game.settings.set("komasync", "token", await server.invite("bridge"));
      const fb = new FoundryBridge(env, { backoff: { base: 50, max: 500 } });
      bridges.push(fb);
      fb.ready();
      await waitFor(() => fb.client && fb.client.applied === gm.version, "fresh bridge drew the room");
      assert.deepEqual(sceneView(scene()), sceneView(fc.game.scenes.get("sceneTD000000001")));
      assert.ok(sceneView(scene())["ks-group-left_end-x1"] || Object.values(sceneView(scene())).some((d) => /はぐれコヨーテ/.test(d.name || "")));
      fb.stop();
    });

    test("when the GM leaves, players are told loudly; another GM takes over", async () => {
      world.addUser({ id: "gmUser00000000002", name: "GM B", isGM: true, active: false });
      const gm2 = world.client("gmUser00000000002", EN);
      const env = { ...gm2.globals, WebSocket };
      registerSettings(env);
      await gm2.game.settings.set("komasync", "serverUrl", server.url);
      await gm2.game.settings.set("komasync", "room", server.room);
      await gm2.game.settings.set("komasync", "token", await server.invite("bridge"));
      const b2 = new FoundryBridge(env, { backoff: { base: 50, max: 500 } });
      bridges.push(b2);
      b2.ready();
      assert.equal(b2.client, null, "not the active GM yet");
      world.setActive("gmUser00000000001", false);
      assert.equal(gmBridge.client, null, "the inactive GM's bridge disconnects");
      const loud = p1c.notifications.find((n) => n.level === "error" && n.options.permanent);
      assert.ok(loud, "players see a permanent error");
      assert.match(loud.message, /GM/);
      assert.match(bridges[1].statusText(), /GM/);
      world.setActive("gmUser00000000002", true);
      assert.ok(b2.client, "the new active GM connects");
      await waitFor(() => b2.client.state === State.LIVE && b2.client.applied === gm.version, "b2 live");
      b2.stop();
    });
  });
}

describe("the module's entry script in a GM's browser", () => {
  test("registers the settings on init, starts on ready, and says it is not configured", async () => {
    const world = new FoundryWorld({ generation: 13, WebSocket });
    world.addUser({ id: "gmUser00000000001", name: "GM", isGM: true });
    world.addScene({ id: "sceneEntry000001" });
    const c = world.client("gmUser00000000001", EN);
    const saved = {};
    for (const [k, v] of Object.entries(c.globals)) {
      saved[k] = globalThis[k];
      globalThis[k] = v;
    }
    try {
      await import("../foundry/module/scripts/komasync.js");
      c.Hooks.callAll("init");
      for (const key of ["serverUrl", "room", "token", "scene"]) assert.ok(c.game.settings._defs.has(`komasync.${key}`), key);
      c.Hooks.callAll("ready");
      const api = c.game.modules.get("komasync").api;
      assert.ok(api instanceof FoundryBridge);
      assert.equal(api.client, null, "no room or token yet: nothing to connect");
      assert.match(c.notifications.at(-1).message, /set the server URL, room and bridge token/);
      assert.equal(c.Hooks.count("preMoveToken"), 1, "v13: the move check is on preMoveToken");
      assert.equal(c.Hooks.count("preUpdateToken"), 0);
    } finally {
      for (const [k, v] of Object.entries(saved)) globalThis[k] = v;
    }
  });
});
