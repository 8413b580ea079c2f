// A small sample of genuine BCDice 3.16.1 lines (npm bcdice 4.9.0), random dice.
import pkg from "bcdice"; const { DynamicLoader, Version } = pkg;
const loader = new DynamicLoader();
const out = [];
const cmds = {
  DiceBot: ["5D6", "4D6", "2D6", "2D6+1D4", "x3 2D6", "1D6", "2D6>=7", "5D6+2", "1D100<=50"],
  Cthulhu7th: ["CC<=53", "CC<=80", "CC<=60", "CC(1)<=50", "CC(-1)<=70", "CBR(50,30)", "x2 CC<=53", "FAR(3,50,98)", "CC<=50H"],
  Cthulhu: ["CC<=50", "RES(10-8)"],
  "SwordWorld2.5": ["K20+5", "2D6+3>=10"],
};
for (const [system, list] of Object.entries(cmds)) {
  const Sys = await loader.dynamicLoad(system);
  for (const command of list) {
    for (let i = 0; i < 4; i++) {
      const r = Sys.eval(command);
      if (!r) continue;
      out.push({ system, command, line: r.text });
    }
  }
}
console.log(JSON.stringify({ bcdice: Version, lines: out }, null, 1));
