// Plain words for what the console and the player page show (issue 30): ids → names from
// the state, who an action came from, whom a prompt is for, an action as a sentence (the
// timeline, the undo dialog, the notices) and dates and times in the UI's language. Raw
// ids, codes and JSON stay in data attributes and tooltips, never in the text.

import { t, pick, lang, addStrings } from "./i18n.js";
import { allPanels, describeAction } from "./registry.js";
import { pathWords, schemaNow } from "./schema_form.js";

addStrings({
  ja: {
    "to.gm": "GM",
    "to.players": "プレイヤー全員",
    "to.table": "卓",
    "to.observer": "観戦者",
    "words.action": "{what}の操作",
    "words.prompt": "{what}の問い",
    "words.refused_action": "{who}の操作「{what}」",
    "words.about": "（{list}）",
    "words.cell": "({x},{y})",
    "words.room": "ルーム",
    "words.as_gm": "GMとして（{who}の代わり）：{what}",
    "words.as_gm_own": "GMとして：{what}",
    "prompt.kind.choice": "選択",
    "prompt.kind.td.san": "SANチェック",
    "prompt.kind.bases.choose": "効果の対象の拠点",
    "prompt.kind.grid.check_range": "判定の射程",
    "prompt.kind.grid.hindrance": "移動妨害",
    "prompt.kind.mass.odd_point": "端数の割り振り",
    "prompt.kind.mass.lp": "LPの使用",
    "prompt.kind.mass.reaction": "対応する策略",
    "prompt.kind.mass.rebalance": "戦力の再配分",
    "prompt.kind.engagement.handover": "エンゲージの引き継ぎ",
    "roll.for": "{what}",
    "roll.purpose.td.attack": "攻撃",
    "roll.purpose.td.special": "特殊攻撃",
    "roll.purpose.td.trap": "罠の設置",
    "roll.purpose.td.wave": "出現表",
    "roll.purpose.mass.defend": "防御",
    "roll.purpose.mass.stones": "石",
    "roll.purpose.mass.strategy": "策略",
    "roll.purpose.mass.reroll": "振り直し",
    "roll.purpose.mass.bonus": "ボーナスダイス",
    "roll.purpose.mass.strength": "戦力",
    "roll.purpose.round": "ラウンド",
    "roll.purpose.(penalty)": "（ペナルティダイス）",
    "roll.purpose.approach check": "接近判定",
    "roll.purpose.hit check": "命中判定",
    "roll.purpose.evasion check": "回避判定",
    "roll.purpose.guard check": "ガード判定",
    "roll.purpose.cover check": "カバー判定",
    "roll.purpose.damage": "ダメージ",
    "roll.level.critical": "クリティカル",
    "roll.level.extreme": "イクストリーム成功",
    "roll.level.hard": "ハード成功",
    "roll.level.regular": "レギュラー成功",
    "roll.level.special": "スペシャル",
    "roll.level.superb": "超成功",
    "roll.level.success": "成功",
    "roll.level.partial": "部分的成功",
    "roll.level.failure": "失敗",
    "roll.level.malfunction": "故障",
    "roll.level.fumble": "ファンブル",
  },
  en: {
    "to.gm": "GM",
    "to.players": "every player",
    "to.table": "the table",
    "to.observer": "observers",
    "words.action": "a {what} action",
    "words.prompt": "a {what} question",
    "words.refused_action": "{who}: “{what}”",
    "words.about": " ({list})",
    "words.cell": "({x},{y})",
    "words.room": "room",
    "words.as_gm": "As GM (for {who}): {what}",
    "words.as_gm_own": "As GM: {what}",
    "prompt.kind.choice": "choice",
    "prompt.kind.td.san": "SAN check",
    "prompt.kind.bases.choose": "base to affect",
    "prompt.kind.grid.check_range": "range of a check",
    "prompt.kind.grid.hindrance": "hindrance",
    "prompt.kind.mass.odd_point": "odd point",
    "prompt.kind.mass.lp": "using LP",
    "prompt.kind.mass.reaction": "reaction strategy",
    "prompt.kind.mass.rebalance": "rebalancing strength",
    "prompt.kind.engagement.handover": "engagement handover",
    "roll.for": "{what}",
    "roll.purpose.td.attack": "attack",
    "roll.purpose.td.special": "special attack",
    "roll.purpose.td.trap": "setting a trap",
    "roll.purpose.td.wave": "wave table",
    "roll.purpose.mass.defend": "defence",
    "roll.purpose.mass.stones": "stones",
    "roll.purpose.mass.strategy": "strategy",
    "roll.purpose.mass.reroll": "reroll",
    "roll.purpose.mass.bonus": "bonus die",
    "roll.purpose.mass.strength": "strength",
    "roll.purpose.round": "round",
    "roll.purpose.(penalty)": "(penalty dice)",
    "roll.purpose.approach check": "approach check",
    "roll.purpose.hit check": "hit check",
    "roll.purpose.evasion check": "evasion check",
    "roll.purpose.guard check": "guard check",
    "roll.purpose.cover check": "cover check",
    "roll.purpose.damage": "damage",
    "roll.level.critical": "critical",
    "roll.level.extreme": "extreme success",
    "roll.level.hard": "hard success",
    "roll.level.regular": "regular success",
    "roll.level.special": "special",
    "roll.level.superb": "superb success",
    "roll.level.success": "success",
    "roll.level.partial": "partial success",
    "roll.level.failure": "failure",
    "roll.level.malfunction": "malfunction",
    "roll.level.fumble": "fumble",
  },
});

const PANEL_OF = { td: "tower_defense" }; // an action kind's prefix → its panel's id

/** id → name of every named thing in the state (players, pieces, combatants, units…). */
export function names(state) {
  const out = new Map();
  const walk = (node, depth) => {
    if (!node || typeof node !== "object" || depth > 6) return;
    for (const [key, value] of Object.entries(node)) {
      if (value && typeof value === "object" && !Array.isArray(value)) {
        if (typeof value.name === "string" && value.name && !out.has(key)) out.set(key, value.name);
        walk(value, depth + 1);
      }
    }
  };
  for (const [id, p] of Object.entries(state?.meta?.players || {})) out.set(id, p.name || id);
  for (const [key, part] of Object.entries(state || {})) if (key !== "prompts" && key !== "meta") walk(part, 0);
  return out;
}

/** A name for `id` (the id itself when nothing in the state names it). */
export function nameOf(state, id, index) {
  if (id === null || id === undefined) return "";
  return (index || names(state)).get(String(id)) ?? String(id);
}

/** What a roll was for, in words: the engine's purpose ("mass.defend u3", "td.attack
 * pc1→r1-left_end", "アリス→ゴブリン hit check") with each id by its name and each purpose
 * word in the UI's language. */
export function rollPurposeWords(purpose, state) {
  const index = names(state);
  const word = (w) => {
    const key = `roll.purpose.${w}`;
    const text = t(key);
    return text === key ? null : text;
  };
  let rest = String(purpose || "");
  const tail = [];
  for (const w of ["(penalty)", "approach check", "hit check", "evasion check", "guard check", "cover check", "damage"]) {
    if (rest.endsWith(w)) { tail.unshift(word(w)); rest = rest.slice(0, -w.length).trim(); }
  }
  const parts = rest.split(" ").filter(Boolean).map((tok, i) => {
    const known = i === 0 && /^[a-z_]+\.[a-z_.]+$/.test(tok) ? word(tok) : word(tok) && !index.has(tok) ? word(tok) : null;
    if (known) return known;
    return tok.split("→").map((id) => nameOf(state, id, index)).join("→");
  });
  return [...parts, ...tail].join(" ");
}

/** A roll's level (BCDice's result) in the UI's language. */
export function rollLevelWords(level) {
  const key = `roll.level.${level}`;
  const text = t(key);
  return text === key ? String(level) : text;
}

/** Whom a prompt is for, in words: "GM", "every player", a player's name. */
export function audienceWords(to, state) {
  const s = String(to || "");
  if (s.startsWith("player:")) return nameOf(state, s.slice(7));
  const key = `to.${s}`;
  const text = t(key);
  return text === key ? s : text;
}

/** Who did something (a history entry's or a notice's actor), without ids. */
export function actorWords(actor, state) {
  const a = actor || {};
  if (a.role === "player" && a.player) return nameOf(state, a.player);
  if (a.role === "gm" || !a.role) return t("role.gm");
  return a.label || t(`role.${a.role}`);
}

/** The subsystem an action or prompt kind belongs to, as its panel's title. */
export function subsystemWords(kind) {
  const prefix = String(kind || "").split(".")[0];
  const panel = allPanels().find((p) => p.id === (PANEL_OF[prefix] || prefix));
  if (!panel) return t("words.room");
  return typeof panel.title === "function" ? panel.title({}) : pick(panel.title);
}

/** A prompt's kind in words (its own name, else "a <subsystem> question"). */
export function promptKindWords(kind) {
  const key = `prompt.kind.${kind || "choice"}`;
  const text = t(key);
  return text === key ? t("words.prompt", { what: subsystemWords(kind) }) : text;
}

// Whom each prompt seen was for (prompt id → `to`): an answer in the history no longer
// finds its prompt in the state.
const PROMPT_TO = new Map();

/** Remember whom a prompt is for (the prompts panel, as it draws one). */
export function rememberPrompt(id, to) {
  if (id && to) PROMPT_TO.set(String(id), String(to));
}

/** `text` marked as done by the GM for a character — player `owner`'s, or (owner null) one
 * no player plays — when the GM sent it (a panel's `describe`: the timeline and the undo
 * dialog say who really acted). */
export function asGMWords(actor, owner, state, text) {
  if (!text || !actor || actor.role !== "gm") return text;
  if (!owner) return t("words.as_gm_own", { what: text });
  return t("words.as_gm", { who: nameOf(state, owner), what: text });
}

/** A value of an action in words: an id by its name, a square as (x,y). */
function valueWords(v, index) {
  if (v === null || v === undefined || v === "") return null;
  if (typeof v === "boolean") return null;
  if (Array.isArray(v)) return v.map((x) => valueWords(x, index)).filter(Boolean).join("・") || null;
  if (typeof v === "object") {
    if (Number.isInteger(v.x) && Number.isInteger(v.y)) return t("words.cell", { x: v.x, y: v.y });
    return Object.values(v).map((x) => valueWords(x, index)).filter(Boolean).join("・") || null;
  }
  const s = String(v);
  return index.get(s) ?? s;
}

/**
 * The action as one sentence: the room's own kinds here, a subsystem's from its panel's
 * `describe` (told who did it: `actor`), else the engine's first log line of it, else
 * "<subsystem>の操作（名前…）".
 */
export function actionSentence(a, state, log, actor) {
  const index = names(state);
  switch (a?.kind) {
    case "override": {
      const schema = schemaNow();
      const path = schema ? pathWords(schema, state, a.path || [])
        : (a.path || []).map((seg) => nameOf(state, seg, index)).join("/");
      return a.delete ? t("do.override.delete", { path })
        : t("do.override", { path, value: short(valueWords(a.value, index) ?? String(a.value)) });
    }
    case "restore":
    case "undo":
      return t("do.undo", { v: a.to_version });
    case "answer": {
      // The engine's line names the question and the label (the prompt has left the state);
      // a player's question the GM answered says it was answered for them.
      const to = PROMPT_TO.get(a.prompt) || "";
      const forWhom = to.startsWith("player:") ? to.slice(7) : null;
      if (log && log.length) {
        const said = pick(log[0]);
        if (actor?.role !== "gm" || !to.startsWith("player")) return said;
        return forWhom ? asGMWords(actor, forWhom, state, said) : t("words.as_gm", { who: t("to.players"), what: said });
      }
      const prompt = state?.prompts?.[a.prompt];
      const choice = prompt?.choices?.find((c) => c.id === a.choice);
      return t("do.answer", { prompt: prompt ? pick(prompt) : t("prompt.kind.choice"),
                              choice: choice ? pick(choice) : a.choice });
    }
    case "room.player.add":
      return t("do.room.player.add", { name: a.name || a.id });
    case "room.enforcement":
      return t("do.room.enforcement", { mode: a.mode });
    case "room.player_rolls":
      return t("do.room.player_rolls", { mode: a.mode });
    case "room.uncredited":
      return t(`do.room.uncredited.${a.mode}`);
    default:
      break;
  }
  const described = a ? describeAction(a, state, { actor: actor || null, log: log || [] }) : null;
  if (described) return described;
  if (log && log.length) return pick(log[0]);
  const parts = Object.entries(a || {}).filter(([k]) => !["kind", "reason", "note", "result"].includes(k))
    .map(([, v]) => valueWords(v, index)).filter(Boolean);
  const what = t("words.action", { what: subsystemWords(a?.kind) });
  return parts.length ? `${what}${t("words.about", { list: short(parts.join("・")) })}` : what;
}

function short(s) {
  const text = String(s);
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
}

/** A time of day in the UI's language (not the browser's locale). */
export function fmtTime(epochSeconds) {
  if (!epochSeconds) return "";
  return new Intl.DateTimeFormat(lang(), { hour: "2-digit", minute: "2-digit", second: "2-digit" })
    .format(new Date(epochSeconds * 1000));
}

/** A date and time in the UI's language. */
export function fmtDateTime(epochSeconds) {
  if (!epochSeconds) return "—";
  return new Intl.DateTimeFormat(lang(), { dateStyle: "medium", timeStyle: "short" })
    .format(new Date(epochSeconds * 1000));
}
