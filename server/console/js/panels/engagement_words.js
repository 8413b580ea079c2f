// Engagement actions as sentences with names (issue 30), for the timeline and the undo
// dialog: declarations 「鬼武者が剣士アヤに近接攻撃（DP3）」, defences 「剣士アヤが回避（DP2）」,
// a reported roll; what they caused (the totals, the damage with names) are the engine's
// log lines under the sentence. An action the GM sent for a player's character says so.

import { t } from "../i18n.js";
import { phaseName } from "../phases.js";
import { asGMWords } from "../words.js";
import { characters, nameOf } from "./engagement_view.js";

export const ENG_WORDS = {
  ja: {
    "eng.do.approach": "{n}が{t}に接近（DP{dp}）", "eng.do.melee": "{n}が{t}に近接攻撃（DP{dp}）",
    "eng.do.melee.grazes": "{n}が{t}に近接攻撃（DP{dp}・グレイズ{g}）",
    "eng.do.shot": "{n}が{t}に{what}（判定値{check}・{dice}D・威力{power}）",
    "eng.do.defend": "{n}が{what}（DP{dp}）", "eng.do.defend.none": "{n}は防御しない",
    "eng.do.roll": "{n}がダイスの結果を送る", "eng.do.row": "{n}を{row}へ",
    "eng.do.phase": "{phase}へ進む", "eng.do.start": "戦闘開始", "eng.do.end": "戦闘終了",
    "eng.do.cancel": "攻撃の処理を取り消す",
  },
  en: {
    "eng.do.approach": "{n} approaches {t} (DP {dp})", "eng.do.melee": "{n} makes a melee attack on {t} (DP {dp})",
    "eng.do.melee.grazes": "{n} makes a melee attack on {t} (DP {dp}, {g} grazes)",
    "eng.do.shot": "{n}: {what} at {t} (check {check}, {dice}D, power {power})",
    "eng.do.defend": "{n} declares {what} (DP {dp})", "eng.do.defend.none": "{n} does not defend",
    "eng.do.roll": "{n} sends the dice result", "eng.do.row": "{n} to the {row}",
    "eng.do.phase": "On to {phase}", "eng.do.start": "The battle begins", "eng.do.end": "The battle ends",
    "eng.do.cancel": "The attack is cancelled",
  },
};

function sentence(a, state) {
  const kind = a.kind.slice(11);
  const p = { n: nameOf(state, a.combatant), t: nameOf(state, a.target), dp: a.dp ?? 0 };
  switch (kind) {
    case "approach":
      return t("eng.do.approach", p);
    case "melee":
      return a.grazes ? t("eng.do.melee.grazes", { ...p, g: a.grazes }) : t("eng.do.melee", p);
    case "shot":
      return t("eng.do.shot", { ...p, what: t(`eng.attack.${a.attack || "shot"}`), check: a.check ?? 0,
                                dice: a.dice ?? 2, power: a.power ?? 0 });
    case "defend":
      return a.defence === "none" ? t("eng.do.defend.none", p)
        : t("eng.do.defend", { ...p, what: t(`eng.def.${a.defence}`) });
    case "roll":
      return t("eng.do.roll", p);
    case "row":
      return t("eng.do.row", { ...p, row: t(`eng.row.${a.row}`) });
    case "phase":
      return t("eng.do.phase", { phase: phaseName("engagement", a.to) });
    case "start": case "end": case "cancel":
      return t(`eng.do.${kind}`);
    default:
      return null;
  }
}

/** The timeline's sentence for an `engagement.*` action (null: the engine's line or the default). */
export function describeEngagement(a, state, { actor = null } = {}) {
  if (!state.engagement || !String(a.kind || "").startsWith("engagement.")) return null;
  const c = characters(state).find((x) => x.id === a.combatant);
  return asGMWords(actor, c?.side === "pc" ? c.owner : null, state, sentence(a, state));
}
