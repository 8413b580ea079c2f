// Seamless-combat actions as sentences with names (issue 30), for the timeline and the undo
// dialog: 「剣士レオが(4,4)へ移動（ムーブ1・マイナー2）」. A move's steps are known only to
// the engine's log line of it (engine/grid/moves.py MOVED), so that line is the sentence;
// an action the GM sent for a player's character says so (words.js asGMWords).

import { pick, t } from "../i18n.js";
import { phaseName } from "../phases.js";
import { asGMWords } from "../words.js";
import { placed } from "./grid_map.js";

export const GRID_WORDS = {
  ja: {
    "grid.do.move": "{n}が({x},{y})へ移動", "grid.do.act": "{n}が{step}で{what}",
    "grid.do.act.named": "{n}が{step}で{what}「{name}」",
    "grid.do.process.start": "{n}のメインプロセス開始", "grid.do.step.end": "{n}: 次のステップへ",
    "grid.do.process.end": "{n}のメインプロセス終了", "grid.do.start": "シームレス戦闘開始",
    "grid.do.end": "シーン終了", "grid.do.status.add": "{n}に{s}", "grid.do.status.remove": "{n}の状態を解除",
    "grid.do.check.ask": "{n}の判定「{c}」の射程をGMに質問",
    "grid.what.action": "アクション", "grid.what.check": "判定", "grid.what.magic_attack": "魔法攻撃",
    "grid.what.cure_paralysis": "[麻痺]解除", "grid.what.break_bind": "[束縛]解除",
  },
  en: {
    "grid.do.move": "{n} moves to ({x},{y})", "grid.do.act": "{n}: {what} in the {step}",
    "grid.do.act.named": "{n}: {what} “{name}” in the {step}",
    "grid.do.process.start": "{n} starts its main process", "grid.do.step.end": "{n}: next step",
    "grid.do.process.end": "{n} ends its main process", "grid.do.start": "Seamless combat begins",
    "grid.do.end": "The scene ends", "grid.do.status.add": "{n}: {s}", "grid.do.status.remove": "{n}: a status removed",
    "grid.do.check.ask": "{n} asks the GM the range of the check “{c}”",
    "grid.what.action": "an action", "grid.what.check": "a check", "grid.what.magic_attack": "a magic attack",
    "grid.what.cure_paralysis": "shaking off paralysis", "grid.what.break_bind": "breaking the bind",
  },
};

/** The engine's line of this move (its steps and their squares), if the log has it. */
function moveLine(log, name, to) {
  const head = `${name}が(${to?.x},${to?.y})へ移動`;
  const line = (log || []).find((l) => typeof l?.ja === "string" && l.ja.startsWith(head));
  return line ? pick(line) : null;
}

function sentence(a, state, log) {
  const c = placed(state).find((x) => x.id === a.combatant);
  const n = c?.name || a.combatant || "";
  const kind = a.kind.slice(5);
  switch (kind) {
    case "move":
      return moveLine(log, n, a.to) || t("grid.do.move", { n, x: a.to?.x, y: a.to?.y });
    case "act": {
      const whatKey = `grid.what.${a.what || "action"}`;
      const what = t(whatKey) === whatKey ? t("grid.what.action") : t(whatKey);
      const step = phaseName("grid", a.timing || "major");
      return t(a.name ? "grid.do.act.named" : "grid.do.act", { n, step, what, name: a.name });
    }
    case "status.add":
      return t("grid.do.status.add", { n, s: a.name || t(`grid.status.${a.status}`) });
    case "check.ask":
      return t("grid.do.check.ask", { n, c: a.check });
    case "process.start": case "step.end": case "process.end": case "start": case "end": case "status.remove":
      return t(`grid.do.${kind}`, { n });
    default:
      return null;
  }
}

/** The timeline's sentence for a `grid.*` action (null: the engine's line or the default). */
export function describeGrid(a, state, { actor = null, log = [] } = {}) {
  if (!state.grid || !String(a.kind || "").startsWith("grid.")) return null;
  const text = sentence(a, state, log);
  const c = placed(state).find((x) => x.id === a.combatant);
  return asGMWords(actor, c?.side === "pc" ? c.owner : null, state, text);
}
