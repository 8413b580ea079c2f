// Generates tests/data/bcdice/corpus.json: genuine result lines of the real BCDice (npm
// `bcdice` 4.9.0 = BCDice 3.16.1, the dice bot Ccfolia runs), each with BCDice's own
// structured result, for the systems komasync's subsystems use.
//
//   cd adapters && node scripts/bcdice_corpus.mjs [OUT]     (default ../tests/data/bcdice/corpus.json)
//
// The dice are never Math.random: a random entry's dice come from a small seeded generator
// (mulberry32, seeded from the system, the command and the entry's number), a forced entry's
// from its `forced` list (edge cases: criticals, fumbles, specials, 故障ナンバー, BCDice's own
// test data), so the same BCDice gives the same file byte for byte. See
// tests/data/bcdice/README.md for the format.
/* global process */ // a Node script (the shared config gives Node globals only to adapters/test)
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import bcdice from "bcdice";

const require = createRequire(import.meta.url);
const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = process.argv[2] ?? resolve(HERE, "../../tests/data/bcdice/corpus.json");

// -- the commands: [command, how many random entries] per system -------------------------
const RANDOM = {
  Cthulhu7th: [
    ["CC<=50", 12], ["CC<=53", 8], ["CC<=80", 8], ["CC<=40", 8], ["CC<=25", 6], ["CC<=99", 4],
    ["CC<=10", 4], ["CC(1)<=50", 8], ["CC(2)<=60", 6], ["CC(-1)<=50", 8], ["CC(-2)<=45", 6],
    ["CC", 5], ["CC(1)", 4], ["CC(-1)", 4], ["CC<=50H", 8], ["CC<=50E", 6], ["CC<=53r", 6],
    ["CC(1)<=60H", 4], ["CC(-1)<=70E", 4], ["CBR(50,20)", 6], ["CBR(70,30)", 6],
    ["CBR(40,80)", 4], ["FAR(3,50,5)", 4], ["FAR(10,60,10,1)", 4], ["FAR(5,45,3,-1)", 4],
    ["FAR(6,70,6,0,h)", 3], ["FAR(20,55,15,2)", 3], ["1D100<=50", 6], ["1D100", 3],
    ["2D6", 4], ["1D3+1D4", 4], ["x3 CC<=50", 3], ["x2 CC(1)<=40", 2], ["1D100<=60 【回避】", 2],
  ],
  Cthulhu: [
    ["CC<=50", 10], ["CC<=70", 8], ["CC<=25", 6], ["CC<=3", 3], ["CCB<=50", 10], ["CCB<=65", 8],
    ["CC(94)<=98", 6], ["CCB(98)<=80", 6], ["RES(12-10)", 6], ["RESB(13-10)", 6],
    ["RES(11-30)", 2], ["RESB(25-10)", 2], ["CBR(70,30)", 6], ["CBRB(70,30)", 6],
    ["1D100<=50", 6], ["CC", 3], ["x3 CCB<=50", 2],
  ],
  DiceBot: [
    ["2D6", 12], ["3D6", 8], ["1D6", 8], ["5D6", 6], ["1D100", 4], ["3D6+2", 8], ["1D6+3", 6],
    ["2D6-1", 6], ["2D6+1D4", 8], ["2D6-1D4+1", 8], ["2D6*3-1D6+1", 6], ["-2D6<-7", 6],
    ["1D100<=50", 10], ["1D6>=4", 8], ["1D20>=15", 8], ["2D6>=7", 8], ["2D6>=10", 6],
    ["3D6+2>=12", 6], ["1D20+5>=15", 6], ["2D6<=5", 4], ["1D10+1D6", 4], ["3D6/2", 4],
    ["x3 2D6", 4], ["x2 1D6+3", 2], ["x3 1D100<=50", 2], ["4D6KH3", 6], ["4D6KL3", 4],
    ["2D20KH1", 4], ["4D6DL1", 3],
  ],
  "SwordWorld2.5": [
    ["K20", 8], ["K20+5", 8], ["K10@9", 6], ["K30+3@8", 6], ["K40+10@9", 6], ["K0+4", 3],
    ["K20+3$10", 3], ["HK20+4", 3], ["2D6@10", 10], ["2D6@10+11>=30", 6], ["2D6@9+5", 6],
    ["2D6>=8", 8], ["2D6+5>=12", 8], ["2D6", 6], ["2D6+4", 4], ["x2 2D6+5>=12", 2],
  ],
};

// -- forced dice: [command, faces in the order BCDice draws them] -------------------------
const FORCED = {
  Cthulhu7th: [
    // CC: a tens die then the units die; 0 = 10 on each. 01 critical, 100 fumble, 96–99
    // fumble below 50, the degree borders.
    ["CC<=50", [10, 1]], ["CC<=50", [10, 10]], ["CC<=40", [9, 6]], ["CC<=50", [9, 6]],
    ["CC<=50", [1, 10]], ["CC<=50", [1, 1]], ["CC<=50", [2, 5]], ["CC<=50", [2, 6]],
    ["CC<=50", [5, 10]], ["CC<=50", [5, 1]], ["CC<=10", [10, 2]], ["CC<=49", [9, 5]],
    ["CC(1)<=50", [10, 10, 1]], ["CC(-1)<=50", [10, 9, 10]], ["CC(2)<=30", [10, 3, 9, 1]],
    ["CC<=50H", [10, 1]], ["CC<=50H", [10, 10]], ["CC<=50H", [2, 5]], ["CC<=50E", [1, 10]],
    ["CC<=53r", [5, 3]], ["CBR(70,30)", [1]], ["CBR(70,30)", [100]], ["CBR(70,30)", [50]],
    ["FAR(5,50,5)", [10, 1, 1, 5, 9, 9]],
  ],
  Cthulhu: [
    ["CC<=60", [2]], ["CC<=60", [1]], ["CC<=60", [100]], ["CC<=59", [11]], ["CC<=60", [12]],
    ["CCB<=50", [5]], ["CCB<=50", [96]], ["CCB<=50", [100]], ["CCB<=50", [10]],
    ["CC(94)<=98", [94]], ["CC(94)<=98", [97]], ["CCB(98)<=80", [100]], ["CCB(98)<=99", [99]],
    ["RES(12-10)", [1]], ["RESB(13-10)", [13]], ["CBR(70,30)", [1]], ["CBRB(70,2)", [3]],
  ],
  DiceBot: [
    ["2D6", [6, 6]], ["2D6", [1, 1]], ["1D100<=50", [50]], ["1D100<=50", [51]],
    ["2D6>=7", [1, 6]], ["-2D6<-7", [3, 5]], ["2D6*3-1D6+1", [6, 2, 3]], ["2D6-1D4+1", [6, 5, 2]],
    ["4D6KH3", [1, 2, 6, 6]],
  ],
  "SwordWorld2.5": [
    ["2D6@10+31>=30", [6, 6, 2, 6]], ["2D6@10+15>=30", [6, 4, 5, 5, 1, 4]],
    ["2D6@10", [6, 4, 1, 4]], ["2D6@10+11>30", [6, 5, 6, 6, 5, 5, 6, 1]],
    ["2D6+5>=12", [6, 6]], ["2D6+15>=12", [1, 1]], ["2D6>=8", [1, 1]], ["2D6>=13", [6, 6]],
    ["K20", [6, 6, 1, 1]], ["K20+5", [1, 1]], ["K10@9", [5, 4, 6, 3, 2, 1]],
    ["K30+3@8", [4, 4, 3, 5, 1, 2]],
  ],
};

//: BCDice's own test data for these systems (test/data/*.toml, shipped in the package as
//: test_data.json), replayed with its dice: only dice results, not tables or errors.
const TEST_DATA = ["Cthulhu7th", "Cthulhu", "SwordWorld2_5", "AddDice", "Repeat"];
const DICE_LINE = /^(\(|KeyNo\.|#1\n\(|ボーナス・ペナルティダイス\[)/;

// -- the randomizers ----------------------------------------------------------------------
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function seedOf(text) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0), 16777619);
  return h >>> 0;
}

function seeded(key) {
  const next = mulberry32(seedOf(key));
  return (sides) => 1 + Math.floor(next() * sides);
}

function forcedDice(faces, label) {
  let i = 0;
  return (sides) => {
    if (i >= faces.length) throw new Error(`${label}: more dice drawn than forced`);
    const v = faces[i++];
    if (v < 0 || v > sides) throw new Error(`${label}: forced ${v} on a d${sides}`);
    return v;
  };
}

// -- one entry ------------------------------------------------------------------------------
const loader = new bcdice.DynamicLoader();
const systems = new Map();

async function system(id) {
  if (!systems.has(id)) systems.set(id, await loader.dynamicLoad(id));
  return systems.get(id);
}

//: The final number BCDice printed: the last `＞` step that is a whole integer (null when
//: there is none: CBR, FAR, an automatic result).
function printedTotal(text) {
  const steps = text.split("\n")[0].split("＞").map((s) => s.trim());
  for (let i = steps.length - 1; i > 0; i--) {
    if (/^-?\d+$/.test(steps[i])) return Number(steps[i]);
  }
  return null;
}

function structured(res) {
  const dice = res.rands.map(([value, sides], i) => ({
    sides, value, kind: res.detailedRands[i]?.kind ?? "normal",
  }));
  return {
    total: printedTotal(res.text), success: res.success, failure: res.failure,
    critical: res.critical, fumble: res.fumble, dice,
  };
}

async function roll(systemId, command, random) {
  const GameSystem = await system(systemId);
  const game = new GameSystem(command);
  Object.assign(game.randomizer, { $random: random });
  return game.eval();
}

//: BCDice's repeat commands (`x3 2D6`, `rep3 …`, `repeat3 …`, secret `sx3 …`).
const REPEAT = /^s?(?:x|rep|repeat)(\d+)\s+(.+)$/i;

async function entry(systemId, command, random, forced) {
  const res = await roll(systemId, command, random);
  if (res === null) throw new Error(`${systemId} ${command}: BCDice gave no result`);
  const out = { system: systemId, command, line: res.text, result: structured(res) };
  if (forced) out.forced = forced;
  const rep = REPEAT.exec(command);
  if (rep) out.repeat = await repeated(systemId, rep[2], res);
  return out;
}

//: A repeat's rolls, each BCDice's own result for the inner command, replayed with the
//: repeat's dice in order (the joined lines must be the repeat's text).
async function repeated(systemId, inner, whole) {
  const faces = whole.rands.map(([v]) => v);
  let at = 0;
  const parts = [];
  const n = whole.text.split("\n").filter((l) => /^#\d+$/.test(l)).length;
  for (let i = 0; i < n; i++) {
    const res = await roll(systemId, inner, (sides) => {
      const v = faces[at++];
      if (v === undefined || v > sides) throw new Error(`${inner}: repeat dice ran out`);
      return v;
    });
    parts.push({ line: res.text, result: structured(res) });
  }
  const joined = parts.map((p, i) => `#${i + 1}\n${p.line}`).join("\n\n");
  if (joined !== whole.text) throw new Error(`${inner}: repeat replay differs`);
  return parts;
}

async function main() {
  const entries = [];
  for (const [sys, commands] of Object.entries(RANDOM)) {
    for (const [command, n] of commands) {
      for (let i = 0; i < n; i++) {
        entries.push(await entry(sys, command, seeded(`${sys}|${command}|${i}`)));
      }
    }
    for (const [command, faces] of FORCED[sys] ?? []) {
      entries.push(await entry(sys, command, forcedDice(faces, command), faces));
    }
  }
  const data = require("bcdice/lib/bcdice/test_data.json");
  for (const id of TEST_DATA) {
    for (const t of data[id].test) {
      if (!t.output || !DICE_LINE.test(t.output)) continue;
      const faces = t.rands.map((r) => r.value);
      const e = await entry(t.game_system, t.input, forcedDice(faces, t.input), faces);
      if (e.line !== t.output) throw new Error(`${t.input}: replay differs from BCDice's test`);
      e.source = `BCDice test/data/${id}.toml`;
      entries.push(e);
    }
  }
  const body = entries.map((e) => JSON.stringify(e)).join(",\n");
  writeFileSync(OUT, `[\n${body}\n]\n`);
  process.stderr.write(`${entries.length} entries → ${OUT}\n`);
}

await main();
