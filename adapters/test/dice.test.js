// Dice as real tables roll them (issue 29), against a REAL komasync server each time:
// one engagement exchange whose 5D6 pool is rolled (a) on Ccfolia as BCDice prints it
// (the plain line, `extend.roll.result`), (b) with Foundry's own dice (ChatMessage#rolls),
// (c) through "BCDice for Foundry VTT" (fvtt-bcdice-addon) and (d) fvtt-bcdice, each
// module's way of posting (every result line in its own <p>, every `,` as `,\u200B`, an
// alias for the speaker). Every way must resolve the exchange with the plain line's numbers.

import { test, describe } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

import { FoundryWorld, loadLang } from "./fakes/foundry.js";
import { FakeCcfoliaPage } from "./fakes/ccfolia.js";
import { FoundryBridge, registerSettings, plainText, diceText } from "../foundry/module/scripts/foundry/bridge.js";
import { CcfoliaBridge } from "../ccfolia/src/bridge.js";
import { startServer, EXAMPLES } from "./support/server.js";
import { GM, Player } from "./support/gm.js";
import { waitFor } from "./support/wait.js";
import { fvttBcdice, bcdiceAddon } from "./support/bcdice_modules.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EN = loadLang(path.resolve(HERE, "../foundry/module/lang/en.json"));
const SCENE = "sceneDice0000001";
const FACES = [6, 2, 5, 3, 4];
/** The line BCDice 3.16.1 prints for `5D6` with these dice. */
const PLAIN = "(5D6) ＞ 20[6,2,5,3,4] ＞ 20";

describe("the modules' wrapping comes back as BCDice's lines", () => {
  test("paragraphs, zero-width spaces and glued repeats", () => {
    const repeat = "#1\n(2D6) ＞ 6[4,2] ＞ 6\n\n#2\n(2D6) ＞ 7[1,6] ＞ 7";
    for (const html of [fvttBcdice(repeat), bcdiceAddon("x2 2D6", repeat)]) {
      assert.equal(diceText(plainText(html)), "#1\n(2D6) ＞ 6[4,2] ＞ 6\n#2\n(2D6) ＞ 7[1,6] ＞ 7");
    }
    // Without paragraph breaks (a module that joins them), the repeat is split at its #n.
    assert.equal(diceText(plainText("#1(2D6) ＞ 6[4,\u200b2] ＞ 6#2(2D6) ＞ 7[1,\u200b6] ＞ 7")),
      "#1\n(2D6) ＞ 6[4,2] ＞ 6\n#2\n(2D6) ＞ 7[1,6] ＞ 7");
    assert.equal(diceText(plainText(bcdiceAddon("2D6+1D4", "(2D6+1D4) ＞ 7[1,6]+2[2] ＞ 9"))), "(2D6+1D4) ＞ 7[1,6]+2[2] ＞ 9");
    const far = "ボーナス・ペナルティダイス[0]\n1回目: ＞ 5 ＞ イクストリーム成功　（2発が命中、1発が貫通）\n＞ 2発が通常命中、1発が貫通、残弾0発";
    assert.equal(diceText(plainText(fvttBcdice(far))), far, "a FAR burst has no (…D…) header but is a result");
  });
});

/**
 * One exchange on a fresh server: アヤ approaches the ghost with DP 5 (a 5D6 pool,
 * reported), the roll arrives through `deliver`, the ghost does not defend. Returns what
 * the room recorded: the action the roll became and every counter afterwards.
 */
async function exchange(deliver) {
  const server = await startServer({ scenario: path.join(EXAMPLES, "engagement.yaml"), room: "dice" });
  const stops = [];
  try {
    const gm = await new GM(server.url, server.room, server.secret).connect();
    stops.push(() => gm.close());
    await gm.must({ kind: "override", path: ["meta", "platforms", "ccfolia"], reason: "who is who",
                    value: { users: { uidAlice: "alice", uidGM0001: "gm" } } });
    const alice = await new Player(server.url, server.room, await gm.invite("player", { player: "alice" })).connect();
    stops.push(() => alice.close());
    await gm.must({ kind: "engagement.start" });
    await gm.must({ kind: "engagement.phase" });
    const a = await alice.act({ kind: "engagement.approach", combatant: "aya", target: "ghost", dp: 5, report_check: true });
    assert.equal(a.type, "ack", JSON.stringify(a));
    await gm.until(() => gm.version >= a.version, "GM follows");
    const before = gm.version;
    await deliver({ server, gm, stops });
    await gm.until(() => gm.version > before, "the roll became an action", 15000);
    const roll = gm.frames.filter((f) => f.type === "change").at(-1).info.action;
    await gm.must({ kind: "engagement.defend", combatant: "ghost", defence: "none" });
    const counters = Object.fromEntries(Object.entries(gm.get(["table", "counters"])).map(([k, v]) => [k, v.value]));
    const log = gm.frames.filter((f) => f.type === "change" && f.from_version >= before).flatMap((f) => f.log.map((l) => l.en));
    return { roll, counters, log };
  } finally {
    for (const stop of stops.reverse()) stop();
    await server.stop();
  }
}

/** A Foundry world with アリス's browser and the GM's bridge connected to `server`. */
async function foundry({ server, stops }) {
  const world = new FoundryWorld({ generation: 13, WebSocket });
  world.addUser({ id: "gmUser00000000001", name: "GM", isGM: true });
  world.addUser({ id: "userAlicexxxxxx1", name: "alice" });
  world.addScene({ id: SCENE, name: "石段", width: 1200, height: 600, padding: 0, gridSize: 100 });
  const gmc = world.client("gmUser00000000001", EN);
  world.client("userAlicexxxxxx1", EN);
  const env = { ...gmc.globals, WebSocket };
  registerSettings(env);
  await gmc.game.settings.set("komasync", "serverUrl", server.url);
  await gmc.game.settings.set("komasync", "room", server.room);
  await gmc.game.settings.set("komasync", "token", await server.invite("bridge"));
  const bridge = new FoundryBridge(env, { settleMs: 50, backoff: { base: 50, max: 500 } });
  stops.push(() => bridge.stop());
  bridge.ready();
  await waitFor(() => bridge.client && bridge.client.applied !== null, "Foundry bridge joined");
  return { world, bridge };
}

const WAYS = {
  "Ccfolia, the plain BCDice line": async ({ server, stops }) => {
    const page = new FakeCcfoliaPage();
    const bridge = new CcfoliaBridge({
      win: page.window, WebSocket,
      settings: { serverUrl: server.url, room: server.room, token: await server.invite("bridge"), gm: true, userName: "GM" },
      settleMs: 50, chatPaceMs: 5, clientOptions: { backoff: { base: 50, max: 500 } },
    });
    stops.push(() => bridge.stop());
    bridge.start();
    await waitFor(() => bridge.client && bridge.client.applied !== null && bridge._pcNamed("剣士アヤ"), "Ccfolia bridge joined");
    page.rolls.push(PLAIN);
    page.say("5D6 接近", { name: "剣士アヤ", from: "uidAlice" });
  },
  "Foundry's own dice (ChatMessage#rolls)": async (ctx) => {
    const { world } = await foundry(ctx);
    await world.roll("userAlicexxxxxx1", "5d6", FACES, { flavor: "接近", speaker: { alias: "剣士アヤ" } });
  },
  "fvtt-bcdice-addon": async (ctx) => {
    const { world } = await foundry(ctx);
    await world.say("userAlicexxxxxx1", bcdiceAddon("5D6", PLAIN), { alias: "剣士アヤ" });
  },
  "fvtt-bcdice (speaker: the game system)": async (ctx) => {
    const { world, bridge } = await foundry(ctx);
    await world.say("userAlicexxxxxx1", fvttBcdice(PLAIN), { alias: "DiceBot" });
    await waitFor(() => /roll naming no piece: DiceBot/.test(bridge.client.statusDetail), "the GM's bridge line says the roll names no piece");
  },
};

describe("a 5D6 engagement pool resolves the exchange alike on every way in", () => {
  const seen = {};
  for (const [way, deliver] of Object.entries(WAYS)) {
    test(way, async () => {
      seen[way] = await exchange(deliver);
      assert.equal(seen[way].roll.kind, "engagement.roll");
      assert.equal(seen[way].roll.result, PLAIN, "the roll reaches the engine as BCDice's own line");
      assert.equal(seen[way].roll.by, "alice");
      const plain = seen["Ccfolia, the plain BCDice line"];
      assert.deepEqual(seen[way].counters, plain.counters, "the same counters as the plain line");
      assert.deepEqual(seen[way].log, plain.log, "the same exchange, told the same");
      assert.ok(plain.log.some((l) => /approach: 26/.test(l)), `achievement = check value 6 + the dice 20: ${plain.log}`);
    });
  }
});
